// The pull request's branch by default, named from the values file and the key: a leaf that both the
// inputs and the proposal use, so neither has to import the other.

/**
 * `static-export/deploy-values.yaml`, or `static-export/deploy-values.yaml-mintlify.staticExport` for
 * another key; for a base other than the repository's default branch, `static-export/production/deploy-values.yaml`:
 * a proposal belongs to one base, so two bases never share a branch.
 */
export function defaultPrBranch(path: string, key: string, base?: string): string {
  const file = path.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
  const folder = base === undefined ? '' : `${base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '')}/`;
  return `static-export/${folder}${file}${key === 'staticExport' ? '' : `-${key}`}`;
}

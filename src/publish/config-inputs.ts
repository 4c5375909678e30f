// The inputs of the configuration pull request (config-path and the inputs that shape the pull
// request), read and checked before any request: a branch or a key the action cannot use costs a
// second, not an export.
import * as core from '../action/core.ts';
import { PublishInput as Input } from '../action/constants.ts';
import { InputError, parseBoolean, parseList, parseRepository } from '../action/inputs.ts';
import type { ConfigTarget } from './proposal-types.ts';
import { prBranchIsBase } from './preflight.ts';
import { defaultPrBranch } from './target.ts';

const CONFIG_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const CONFIG_EXTENSIONS = /\.(ya?ml|json)$/i;

/**
 * The pull request's inputs do nothing without config-path: dry-run is refused, since the step would
 * export for real, and the others are named in a notice.
 */
export function checkWithoutConfig(get: (name: string) => string): void {
  const dryRun = get(Input.DryRun).trim();
  if (dryRun !== '' && parseBoolean(Input.DryRun, dryRun)) {
    throw new InputError(Input.DryRun, 'is true, but without config-path there is no change to preview, and the step would start a real export. Set config-path to preview the pull request, or remove dry-run.');
  }
  const configKey = get(Input.ConfigKey).trim();
  const idle: string[] = [Input.PrLabels, Input.BaseBranch, Input.ConfigRepository].filter((input) => get(input).trim() !== '');
  if (configKey !== '' && configKey !== 'staticExport') idle.push(Input.ConfigKey);
  if (idle.length === 0) return;
  const one = idle.length === 1;
  core.notice(`${idle.join(', ')} ${one ? 'is' : 'are'} set, but without config-path this step opens no pull request, so ${one ? 'it does' : 'they do'} nothing. Set config-path to propose the new link, or remove ${one ? 'it' : 'them'}.`);
}

export function readConfigInputs(get: (name: string) => string): (ConfigTarget & { token: string }) | undefined {
  const path = get(Input.ConfigPath).trim().replace(/^\.?\//, '');
  if (path === '') return undefined;
  if (!CONFIG_EXTENSIONS.test(path)) {
    throw new InputError(Input.ConfigPath, `'${path}' is not a file this action can edit. Use a .yaml, .yml or .json values file.`);
  }
  const token = get(Input.GithubToken);
  if (token.trim() === '') {
    throw new InputError(Input.GithubToken, 'is empty. It defaults to ${{ github.token }}; pass a token that can write to the configuration repository.');
  }
  core.setSecret(token);
  const repository = get(Input.ConfigRepository).trim() || core.variable('GITHUB_REPOSITORY') || '';
  if (repository === '') throw new InputError(Input.ConfigRepository, 'is not set and GITHUB_REPOSITORY is empty. Give the repository as owner/name.');
  const key = get(Input.ConfigKey).trim() || 'staticExport';
  if (!CONFIG_KEY.test(key)) {
    throw new InputError(Input.ConfigKey, `'${key}' is not a dotted key path. Use, for example, staticExport or mintlify.staticExport.`);
  }
  // One pull request per values file: the three actions (push, renewal, hosted URL) land on the same
  // branch, named from what they all share, the file, the key (and the base, once read): no input names it.
  const prBranch = defaultPrBranch(path, key);
  const baseBranch = get(Input.BaseBranch).trim() || undefined;
  // Without base-branch, the check waits for GitHub to name the default branch (preflight.ts).
  const onBase = baseBranch && prBranchIsBase(prBranch, baseBranch, true);
  if (onBase) throw onBase;
  return {
    token,
    repo: parseRepository(Input.ConfigRepository, repository),
    path,
    key,
    baseBranch,
    prBranch,
    // The default name gains the base once the read knows whether the base is the default branch.
    prBranchDefault: true,
    labels: parseList(get(Input.PrLabels)),
    dryRun: parseBoolean(Input.DryRun, get(Input.DryRun) || 'false'),
    autoMergeRenewals: readAutoMerge(get)
  };
}

/** auto-merge: off (the default), or renewals: a new link for the export production serves merges itself. */
function readAutoMerge(get: (name: string) => string): boolean {
  const text = (get(Input.AutoMerge).trim() || 'off').toLowerCase();
  if (text !== 'off' && text !== 'renewals') {
    throw new InputError(
      Input.AutoMerge,
      `'${text}' is neither off nor renewals. renewals lets the step merge a pull request that only renews the link of the export production serves (no page changes); off (the default) leaves every merge to a person. Content changes always wait for a person.`
    );
  }
  return text === 'renewals';
}

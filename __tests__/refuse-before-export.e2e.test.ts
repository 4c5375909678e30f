// Inputs the run can judge before it exports are refused before the platform hears of anything
// (issue 40), through the built bundle (dist/index.js) as the runner runs it: a config-key that is a
// near miss of a key path in the values file (another case, a letter or two off). The platform emulator's request log stays empty, and nothing is written to GitHub.
import { describe, expect, it } from '@jest/globals';
import { runAction } from '../emulator/runner.ts';
import { PATH, errors, useEmulators } from './emulators.ts';
import { presignedLink } from './finished-export.ts';

const { platform, github, proposing, env } = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 } }, reset: true });
let repoCount = 0;

/** A repository of its own holding `values` (its links on the platform emulator, a week from now). */
function repository(values: (link: string) => string): string {
  const repo = `acme/refuse-${++repoCount}`;
  github.createRepo(repo, { [PATH]: values(presignedLink(platform, 'se_3f9a2c1b8e7d4a06', Date.now(), 7 * 24 * 3600)) });
  return repo;
}

/** A manual run of the README's publishing step: a new export of the domain, proposed in the values file. */
const push = (repo: string, inputs: Record<string, string>) => runAction('dist/index.js', proposing(inputs), env(repo, 'workflow_dispatch'));

/** Nothing reached the platform, nothing was written to GitHub, no branch was made. */
function nothingDone(repo: string): void {
  expect(platform.requests).toEqual([]);
  expect(github.requests.filter((request) => request.method !== 'GET')).toEqual([]);
  expect(github.pulls(repo)).toEqual([]);
}

describe('refused before exporting, through dist/', () => {
  it('a config-key that differs from the key in the file only in case names the key path found', async () => {
    const repo = repository((link) => `staticExport:\n  enabled: true\n  bundleUrl: "${link}"\n`);
    const run = await push(repo, { 'config-key': 'staticexport' });
    expect(run.code).toBe(1);
    expect(errors(run)).toEqual([
      "::error::Input 'config-key': is staticexport, but deploy/values.yaml has no staticexport block: it holds \"staticExport\", which differs from it only in case. " +
        'Keys are case-sensitive, so a run would add a staticexport block that the chart never reads. To edit the block the chart reads, set config-key: staticExport. ' +
        '(If the chart does read staticexport, add it to the file once as an empty block, and runs fill it.) Nothing was exported.'
    ]);
    nothingDone(repo);
  }, 30_000);

  it('a config-key a letter off the key path in the file names the key path found', async () => {
    const repo = repository((link) => `docs:\n  replicas: 2\n  staticExport:\n    enabled: true\n    bundleUrl: "${link}"\n`);
    const run = await push(repo, { 'config-key': 'docs.staticExprt' });
    expect(run.code).toBe(1);
    const [error] = errors(run);
    expect(error).toMatch(/^::error::Input 'config-key': is docs\.staticExprt, but deploy\/values\.yaml has no docs\.staticExprt block: it holds "docs\.staticExport", which is one or two letters away from it\. /);
    expect(error).toContain('set config-key: docs.staticExport.');
    nothingDone(repo);
  }, 30_000);

  // No action takes pr-branch since issue 41: the branch is named from the file, so a ref can never
  // become a branch literally named refs/heads/…, and the three workflows land on one pull request.
  it('a pr-branch a step still passes (a ref, even) is not read: the pull request comes from the action\'s own branch', async () => {
    const repo = repository((link) => `staticExport:\n  enabled: true\n  bundleUrl: "${link}"\n`);
    const run = await push(repo, { 'pr-branch': 'refs/heads/docs-link' });
    expect(errors(run)).toEqual([]);
    expect(run.code).toBe(0);
    expect(github.pulls(repo).map((pull) => pull.head)).toEqual(['static-export/deploy-values.yaml']);
    expect(github.branchHead(repo, 'refs/heads/docs-link')).toBeUndefined();
  }, 30_000);

  it('still takes a key path the file holds, and a first run of a key the file has no near miss of', async () => {
    const repo = repository((link) => `docs:\n  staticExport:\n    enabled: true\n    bundleUrl: "${link}"\n`);
    const run = await push(repo, { 'config-key': 'docs.staticExport', 'dry-run': 'true' });
    expect(errors(run)).toEqual([]);
    expect(run.code).toBe(0);
    const first = await push(repository(() => 'replicaCount: 2\n'), { 'config-key': 'mintlify.staticExport', 'dry-run': 'true' });
    expect(errors(first)).toEqual([]);
    expect(first.code).toBe(0);
  }, 60_000);
});

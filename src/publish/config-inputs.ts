// The inputs of the configuration pull request (config-path and the inputs that shape the pull
// request), read and checked before any request: a branch or a key the action cannot use costs a
// second, not an export.
import * as core from '@actions/core';
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
export function checkWithoutConfig(): void {
  const dryRun = core.getInput(Input.DryRun).trim();
  if (dryRun !== '' && parseBoolean(Input.DryRun, dryRun)) {
    throw new InputError(Input.DryRun, 'is true, but without config-path there is no change to preview, and the step would start a real export. Set config-path to preview the pull request, or remove dry-run.');
  }
  const configKey = core.getInput(Input.ConfigKey).trim();
  const idle: string[] = [Input.PrLabels, Input.PrTitle, Input.PrBranch, Input.BaseBranch, Input.ConfigRepository].filter((input) => core.getInput(input).trim() !== '');
  if (!['', 'off'].includes(core.getInput(Input.AutoMerge).trim())) idle.push(Input.AutoMerge);
  if (configKey !== '' && configKey !== 'staticExport') idle.push(Input.ConfigKey);
  if (idle.length === 0) return;
  const one = idle.length === 1;
  core.notice(`${idle.join(', ')} ${one ? 'is' : 'are'} set, but without config-path this step opens no pull request, so ${one ? 'it does' : 'they do'} nothing. Set config-path to propose the new link, or remove ${one ? 'it' : 'them'}.`);
}

export function readConfigInputs(): (ConfigTarget & { token: string }) | undefined {
  const path = core.getInput(Input.ConfigPath).trim().replace(/^\.?\//, '');
  if (path === '') return undefined;
  if (!CONFIG_EXTENSIONS.test(path)) {
    throw new InputError(Input.ConfigPath, `'${path}' is not a file this action can edit. Use a .yaml, .yml or .json values file.`);
  }
  const token = core.getInput(Input.GithubToken);
  if (token.trim() === '') {
    throw new InputError(Input.GithubToken, 'is empty. It defaults to ${{ github.token }}; pass a token that can write to the configuration repository.');
  }
  core.setSecret(token);
  const repository = core.getInput(Input.ConfigRepository).trim() || process.env.GITHUB_REPOSITORY || '';
  if (repository === '') throw new InputError(Input.ConfigRepository, 'is not set and GITHUB_REPOSITORY is empty. Give the repository as owner/name.');
  const key = core.getInput(Input.ConfigKey).trim() || 'staticExport';
  if (!CONFIG_KEY.test(key)) {
    throw new InputError(Input.ConfigKey, `'${key}' is not a dotted key path. Use, for example, staticExport or mintlify.staticExport.`);
  }
  // One pull request per values file: every kind of run (push, renewal, hosted URL) lands on the same
  // branch by default, named from what they all share, the file and the key.
  const givenBranch = core.getInput(Input.PrBranch).trim();
  const asRef = refNotBranch(givenBranch);
  if (asRef) throw asRef;
  const prBranch = givenBranch || defaultPrBranch(path, key);
  if (!/^[A-Za-z0-9._\-/]+$/.test(prBranch) || prBranch.includes('..') || prBranch.endsWith('/')) {
    throw new InputError(Input.PrBranch, `'${prBranch}' is not a valid branch name.`);
  }
  const baseBranch = core.getInput(Input.BaseBranch).trim() || undefined;
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
    prBranchDefault: givenBranch === '',
    title: core.getInput(Input.PrTitle).trim() || undefined,
    labels: parseList(core.getInput(Input.PrLabels)),
    dryRun: parseBoolean(Input.DryRun, core.getInput(Input.DryRun) || 'false'),
    autoMergeRenewals: readAutoMerge()
  };
}

/** auto-merge: off (the default), or renewals: a new link for the export production serves merges itself. */
function readAutoMerge(): boolean {
  const text = (core.getInput(Input.AutoMerge).trim() || 'off').toLowerCase();
  if (text !== 'off' && text !== 'renewals') {
    throw new InputError(
      Input.AutoMerge,
      `'${text}' is neither off nor renewals. renewals lets the step merge a pull request that only renews the link of the export production serves (no page changes); off (the default) leaves every merge to a person. Content changes always wait for a person.`
    );
  }
  return text === 'renewals';
}

/**
 * pr-branch names a branch, not a ref: `refs/heads/main` would create a branch literally named so
 * (refs/heads/refs/heads/main), beside the one meant.
 */
export function refNotBranch(given: string): InputError | undefined {
  if (!given.startsWith('refs/')) return undefined;
  const branch = given.startsWith('refs/heads/') ? given.slice('refs/heads/'.length) : undefined;
  const instead = branch ? `Give the branch's name alone (pr-branch: ${branch})` : 'Give the name of a branch, without refs/';
  return new InputError(Input.PrBranch, `'${given}' is a ref, not a branch name: the step would push a branch literally named ${given}. ${instead}, or remove pr-branch to use the action's own branch. Nothing was exported.`);
}

// The GitHub emulator's merge through the API (PUT /repos/{o}/{r}/pulls/{n}/merge) against GitHub's
// rules: the head the caller read (sha), the repository's allowed merge methods, branch protection
// (required reviews and checks, a bypass list) and a token without rights, each refused with GitHub's
// own status and words, over HTTP as the action meets them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getOctokit } from '@actions/github';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';

const TOKEN = 'ghs_emulator_token';
const APP = 'ghs_app_on_the_bypass_list';
const READER = 'ghp_readonly_reviewer';
let github: GitHubEmulator;
let repoCount = 0;

beforeAll(async () => {
  github = await startGitHubEmulator({ tokens: { [APP]: { kind: 'installation', write: true }, [READER]: { kind: 'user', write: false } } });
});

afterAll(async () => {
  await github.close();
});

/** A repository of its own with one open pull request that changes v.yaml. */
async function repoWithPull(): Promise<{ name: string; number: number; head: string }> {
  const name = `merge-${++repoCount}`;
  github.createRepo(`acme/${name}`, { 'v.yaml': 'a: 1\n' });
  const head = github.commitOnBranch(`acme/${name}`, 'renewal', { 'v.yaml': 'a: 2\n' }, 'Renew');
  const { data } = await octokit().rest.pulls.create({ owner: 'acme', repo: name, head: 'renewal', base: 'main', title: 'Renew' });
  return { name, number: data.number, head };
}

function octokit(token = TOKEN) {
  return getOctokit(token, { baseUrl: github.url });
}

/** GitHub's answer to a merge: its status and message, or the merged commit. */
async function merge(name: string, number: number, fields: { merge_method?: 'merge' | 'squash' | 'rebase'; sha?: string; commit_title?: string } = {}, token = TOKEN) {
  try {
    const { data } = await octokit(token).rest.pulls.merge({ owner: 'acme', repo: name, pull_number: number, ...fields });
    return { status: 200, message: data.message, sha: data.sha };
  } catch (error) {
    const { status, response } = error as { status: number; response: { data: { message: string } } };
    return { status, message: response.data.message };
  }
}

describe('GitHub emulator: merging a pull request through the API', () => {
  it('merges the head the caller read, with its commit title, and records who merged', async () => {
    const { name, number, head } = await repoWithPull();
    const merged = await merge(name, number, { merge_method: 'squash', sha: head, commit_title: 'Renew the link (#1)' });
    expect(merged).toMatchObject({ status: 200, message: 'Pull Request successfully merged' });
    expect(github.commit(`acme/${name}`, github.branchHead(`acme/${name}`, 'main')!)).toMatchObject({ message: 'Renew the link (#1)', files: { 'v.yaml': 'a: 2\n' } });
    expect(github.pull(`acme/${name}`, number)).toMatchObject({ merged: true, mergedBy: TOKEN });
  });

  it('refuses a sha that is not the head (409), and a pull request that conflicts (405)', async () => {
    const { name, number, head } = await repoWithPull();
    github.commitOnBranch(`acme/${name}`, 'renewal', { 'v.yaml': 'a: 3\n' }, 'A push in between');
    expect(await merge(name, number, { sha: head })).toEqual({ status: 409, message: 'Head branch was modified. Review and try the merge again.' });
    github.commitOnBranch(`acme/${name}`, 'main', { 'v.yaml': 'a: 9\n' }, 'The same line on the base');
    expect(await merge(name, number)).toEqual({ status: 405, message: 'Pull Request is not mergeable' });
    expect(github.pull(`acme/${name}`, number)).toMatchObject({ state: 'open', merged: false });
  });

  it("says which merge methods the repository allows, and refuses the others in GitHub's words", async () => {
    const { name, number } = await repoWithPull();
    github.setMergeMethods(`acme/${name}`, ['rebase']);
    const { data } = await octokit().rest.repos.get({ owner: 'acme', repo: name });
    expect([data.allow_merge_commit, data.allow_squash_merge, data.allow_rebase_merge]).toEqual([false, false, true]);
    expect(await merge(name, number, { merge_method: 'merge' })).toEqual({ status: 405, message: 'Merge commits are not allowed on this repository.' });
    expect(await merge(name, number, { merge_method: 'squash' })).toEqual({ status: 405, message: 'Squash merges are not allowed on this repository.' });
    expect(await merge(name, number, { merge_method: 'rebase' })).toMatchObject({ status: 200 });
  });

  it('refuses a merge that branch protection forbids until the review and the check are there, and lets a token on the bypass list through', async () => {
    const { name, number, head } = await repoWithPull();
    github.protectBranch(`acme/${name}`, 'main', { requiredApprovingReviews: 1, requiredStatusChecks: ['helm-lint'], bypass: [APP] });
    const { data: branch } = await octokit().rest.repos.getBranch({ owner: 'acme', repo: name, branch: 'main' });
    expect(branch.protected).toBe(true);
    expect(await merge(name, number)).toEqual({ status: 405, message: 'At least 1 approving review is required by reviewers with write access.' });
    github.approvePull(`acme/${name}`, number);
    expect(await merge(name, number)).toEqual({ status: 405, message: 'Required status check "helm-lint" is expected.' });
    // A token without write access is refused before any rule.
    expect(await merge(name, number, {}, READER)).toEqual({ status: 403, message: 'Resource not accessible by personal access token' });
    expect(await merge(name, number, { sha: head }, APP)).toMatchObject({ status: 200 });
    expect(github.pull(`acme/${name}`, number)).toMatchObject({ merged: true, mergedBy: APP });
  });

  it('merges once the required check passed on the head', async () => {
    const { name, number, head } = await repoWithPull();
    github.protectBranch(`acme/${name}`, 'main', { requiredStatusChecks: ['helm-lint'] });
    github.passCheck(`acme/${name}`, head, 'helm-lint');
    expect(await merge(name, number, { sha: head, merge_method: 'merge' })).toMatchObject({ status: 200 });
  });
});

// GitHub's auto-merge in the emulator, over HTTP as the action will send it: GraphQL's
// enablePullRequestAutoMerge (with expectedHeadOid) and disablePullRequestAutoMerge, refused in
// GitHub's recorded words (emulator/recorded/github.json), shown in REST's `auto_merge`, merging the
// moment the last required check passes and never past a missing review
// (docs.github.com "Automatically merging a pull request"); and a merge queue at its simplest
// (pascalgn/automerge-action#235; github.blog/changelog/2022-08-18-merge-group-webhook-event-and-github-actions-workflow-trigger).
import { describe, expect, it, jest } from '@jest/globals';
import { getOctokit } from '@actions/github';
import { APP, WITH_APP, useEmulators, useFakeDate } from './emulators.ts';
import type { BranchRules } from '../emulator/github-state.ts';
import { githubSays } from '../emulator/recorded.ts';

const GITHUB_TOKEN = 'ghs_emulator_token';
const MINUTE = 60_000;
const T0 = Date.parse('2026-12-01T02:00:00Z');
const ENABLE = `mutation($input: EnablePullRequestAutoMergeInput!) {
  enablePullRequestAutoMerge(input: $input) { pullRequest { id number autoMergeRequest { enabledAt mergeMethod } } }
}`;
const DISABLE = `mutation($input: DisablePullRequestAutoMergeInput!) {
  disablePullRequestAutoMerge(input: $input) { pullRequest { id autoMergeRequest { enabledAt } } }
}`;
useFakeDate(T0);
const { github } = useEmulators({ platform: false, github: WITH_APP });
let repoCount = 0;

function octokit(token = APP) {
  return getOctokit(token, { baseUrl: github.url });
}

/** A repository with `rules` on main (auto-merge allowed unless said), and an App's pull request; its node id and head. */
async function pullUnder(rules: BranchRules | undefined, allowAutoMerge = true) {
  const name = `auto-${++repoCount}`;
  const repo = `acme/${name}`;
  github.createRepo(repo, { 'v.yaml': 'a: 1\n' });
  github.setAllowAutoMerge(repo, allowAutoMerge);
  if (rules) github.protectBranch(repo, 'main', rules);
  const head = github.commitOnBranch(repo, 'renewal', { 'v.yaml': 'a: 2\n' }, 'Renew');
  const { data } = await octokit().rest.pulls.create({ owner: 'acme', repo: name, head: 'renewal', base: 'main', title: 'Renew the link' });
  return { name, repo, number: data.number, id: data.node_id, head };
}

/** GitHub's GraphQL answer: the data, or the first error's message (as `gh` prints it). */
async function send(query: string, input: Record<string, unknown>, token = APP): Promise<{ data?: unknown; refused?: string }> {
  const response = await fetch(`${github.url}/graphql`, { method: 'POST', headers: { authorization: `bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { input } }) });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data?: unknown; errors?: { message: string }[] };
  return body.errors ? { refused: body.errors[0]!.message } : { data: body.data };
}

async function restPull(name: string, number: number) {
  return (await octokit().rest.pulls.get({ owner: 'acme', repo: name, pull_number: number })).data;
}

describe('GitHub emulator: auto-merge', () => {
  it('arms on the head it was given, shows it in REST, and merges the moment the last required check passes', async () => {
    const { name, repo, number, id, head } = await pullUnder({ requiredStatusChecks: ['ci'], checkRunMs: 7 * MINUTE });
    const armed = await send(ENABLE, { pullRequestId: id, mergeMethod: 'SQUASH', expectedHeadOid: head });
    expect(armed).toEqual({ data: { enablePullRequestAutoMerge: { clientMutationId: null, pullRequest: { id, number, autoMergeRequest: { enabledAt: new Date(T0).toISOString(), mergeMethod: 'SQUASH', enabledBy: { login: 'emulated-app[bot]' } } } } } });
    expect((await restPull(name, number)).auto_merge).toEqual(expect.objectContaining({ merge_method: 'squash', commit_title: `Renew the link (#${number})`, enabled_by: expect.objectContaining({ login: 'emulated-app[bot]' }) }));
    jest.setSystemTime(T0 + 7 * MINUTE + 3 * 60 * MINUTE);
    const merged = await restPull(name, number);
    // Merged when the check passed, not when someone next looked.
    expect({ merged: merged.merged, merged_at: merged.merged_at, auto_merge: merged.auto_merge }).toEqual({ merged: true, merged_at: new Date(T0 + 7 * MINUTE).toISOString(), auto_merge: null });
    expect(github.fileAt(repo, 'main', 'v.yaml')).toBe('a: 2\n');
    expect(github.pushes(repo).at(-1)).toMatchObject({ branch: 'main', by: APP, mergedPull: number, startsWorkflows: true, at: new Date(T0 + 7 * MINUTE).toISOString() });
  });

  it("merges at the check's moment even when a person acts later first: the person's merge comes after it on main", async () => {
    const { repo, number, id, head } = await pullUnder({ requiredStatusChecks: ['ci'], checkRunMs: 10 * MINUTE });
    const checkStarted = Date.now();
    github.commitOnBranch(repo, 'content', { 'docs.yaml': 'b: 1\n' }, 'Content');
    const content = (await octokit().rest.pulls.create({ owner: 'acme', repo: repo.split('/')[1]!, head: 'content', base: 'main', title: 'Content' })).data.number;
    await send(ENABLE, { pullRequestId: id, mergeMethod: 'MERGE', expectedHeadOid: head });
    jest.setSystemTime(checkStarted + 5 * 60 * MINUTE);
    // The content's own check ran out too; a person merges it hours after the renewal's passed.
    github.mergePull(repo, content, 'merge');
    const onMain = github.pushes(repo).filter((push) => push.branch === 'main');
    expect(onMain.map((push) => [push.mergedPull, push.at])).toEqual([
      [number, new Date(checkStarted + 10 * MINUTE).toISOString()],
      [content, new Date(checkStarted + 5 * 60 * MINUTE).toISOString()]
    ]);
  });

  it("refuses when nothing is pending, in GitHub's words, so the caller merges directly", async () => {
    const { repo, id, head } = await pullUnder({ requiredStatusChecks: ['ci'] });
    github.completeChecks(repo);
    expect(await send(ENABLE, { pullRequestId: id, mergeMethod: 'MERGE', expectedHeadOid: head })).toEqual({ refused: githubSays('auto-merge.clean-status') });
    const unprotected = await pullUnder(undefined);
    expect(await send(ENABLE, { pullRequestId: unprotected.id, mergeMethod: 'MERGE' })).toEqual({ refused: 'Pull request Pull request is in clean status' });
  });

  it('refuses where the repository does not allow auto-merge, as REST allow_auto_merge shows it', async () => {
    const { name, id, head } = await pullUnder({ requiredStatusChecks: ['ci'] }, false);
    expect((await octokit().rest.repos.get({ owner: 'acme', repo: name })).data.allow_auto_merge).toBe(false);
    expect(await send(ENABLE, { pullRequestId: id, mergeMethod: 'MERGE', expectedHeadOid: head })).toEqual({ refused: 'Auto merge is not allowed for this repository' });
  });

  it('refuses a head that is not expectedHeadOid, a merge method the repository forbids, and a token that may not write', async () => {
    const { repo, id, head } = await pullUnder({ requiredStatusChecks: ['ci'] });
    const moved = github.commitOnBranch(repo, 'renewal', { 'v.yaml': 'a: 3\n' }, 'A push in between');
    expect(await send(ENABLE, { pullRequestId: id, mergeMethod: 'MERGE', expectedHeadOid: head })).toEqual({ refused: githubSays('merge.head-branch-modified') });
    github.setMergeMethods(repo, ['squash']);
    expect(await send(ENABLE, { pullRequestId: id, mergeMethod: 'MERGE', expectedHeadOid: moved })).toEqual({ refused: 'Merge commits are not allowed on this repository.' });
    github.setPolicy({ contentsWrite: false });
    try {
      expect(await send(ENABLE, { pullRequestId: id, mergeMethod: 'SQUASH', expectedHeadOid: moved }, GITHUB_TOKEN)).toEqual({ refused: 'Resource not accessible by integration' });
    } finally {
      github.setPolicy({ contentsWrite: true });
    }
    expect(await send(ENABLE, { pullRequestId: 'PR_nothing', mergeMethod: 'SQUASH' })).toEqual({ refused: "Could not resolve to a node with the global id of 'PR_nothing'" });
  });

  it('never bypasses a required review: the App on the bypass list still waits for the approval, then merges', async () => {
    const { name, repo, number, id, head } = await pullUnder({ requiredApprovingReviews: 1, requiredStatusChecks: ['ci'], bypass: [APP] });
    expect(await send(ENABLE, { pullRequestId: id, mergeMethod: 'MERGE', expectedHeadOid: head })).toHaveProperty('data');
    github.completeChecks(repo);
    expect(await restPull(name, number)).toMatchObject({ merged: false, state: 'open', auto_merge: expect.objectContaining({ merge_method: 'merge' }) });
    github.approvePull(repo, number);
    expect(github.pull(repo, number)).toMatchObject({ merged: true, mergedBy: APP });
  });

  it("merges as the token that enabled it: by GITHUB_TOKEN's, the push starts no workflow", async () => {
    const { repo, number, id, head } = await pullUnder({ requiredStatusChecks: ['ci'] });
    expect(await send(ENABLE, { pullRequestId: id, mergeMethod: 'MERGE', expectedHeadOid: head }, GITHUB_TOKEN)).toHaveProperty('data');
    github.completeChecks(repo);
    expect(github.pull(repo, number)).toMatchObject({ merged: true, mergedBy: GITHUB_TOKEN });
    expect(github.pushes(repo).at(-1)).toMatchObject({ branch: 'main', mergedPull: number, startsWorkflows: false });
  });

  it('disarms with disablePullRequestAutoMerge: the check that passes afterwards merges nothing', async () => {
    const { name, repo, number, id, head } = await pullUnder({ requiredStatusChecks: ['ci'] });
    await send(ENABLE, { pullRequestId: id, mergeMethod: 'MERGE', expectedHeadOid: head });
    expect(await send(DISABLE, { pullRequestId: id })).toEqual({ data: { disablePullRequestAutoMerge: { clientMutationId: null, pullRequest: { id, number, autoMergeRequest: null } } } });
    expect(await send(DISABLE, { pullRequestId: id })).toEqual({ refused: 'Auto merge is not enabled for this pull request' });
    github.completeChecks(repo);
    expect(await restPull(name, number)).toMatchObject({ merged: false, auto_merge: null });
  });
});

describe('GitHub emulator: a merge queue at its simplest', () => {
  it("refuses a direct merge in GitHub's words, queues on auto-merge, and merges when the merge_group check passes", async () => {
    const { name, repo, number, id, head } = await pullUnder({ requiredStatusChecks: ['ci'], mergeQueue: { mergeGroupCi: true } });
    github.completeChecks(repo);
    const direct = await octokit().rest.pulls.merge({ owner: 'acme', repo: name, pull_number: number }).catch((error: { status: number; response: { data: { message: string } } }) => ({ status: error.status, message: error.response.data.message }));
    expect(direct).toEqual({ status: 405, message: 'Changes must be made through the merge queue' });
    // A queue takes the pull request even with nothing pending.
    expect(await send(ENABLE, { pullRequestId: id, mergeMethod: 'SQUASH', expectedHeadOid: head })).toHaveProperty('data');
    expect(github.pull(repo, number)).toMatchObject({ merged: false, queuedAt: new Date(Date.now()).toISOString() });
    expect(github.checkRuns(repo).filter((run) => run.event === 'merge_group')).toEqual([expect.objectContaining({ context: 'ci', status: 'queued', triggeredBy: 'merge-queue' })]);
    expect(github.completeChecks(repo, { event: 'merge_group' })).toBe(1);
    expect(github.pull(repo, number)).toMatchObject({ merged: true });
    expect(github.pushes(repo).at(-1)).toMatchObject({ branch: 'main', by: 'merge-queue', mergedPull: number });
  });

  it('drops the pull request from the queue when the merge_group check fails, and waits for good without merge_group CI', async () => {
    const failing = await pullUnder({ requiredStatusChecks: ['ci'], mergeQueue: { mergeGroupCi: true } });
    github.completeChecks(failing.repo);
    await send(ENABLE, { pullRequestId: failing.id, mergeMethod: 'MERGE', expectedHeadOid: failing.head });
    github.completeChecks(failing.repo, { event: 'merge_group', conclusion: 'failure' });
    expect(github.pull(failing.repo, failing.number)).toMatchObject({ merged: false, state: 'open', queuedAt: undefined, autoMerge: undefined });

    const silent = await pullUnder({ requiredStatusChecks: ['ci'], mergeQueue: { mergeGroupCi: false } });
    github.completeChecks(silent.repo);
    await send(ENABLE, { pullRequestId: silent.id, mergeMethod: 'MERGE', expectedHeadOid: silent.head });
    jest.setSystemTime(Date.now() + 24 * 60 * MINUTE);
    expect(github.completeChecks(silent.repo, { event: 'merge_group' })).toBe(0);
    expect(github.pull(silent.repo, silent.number)).toMatchObject({ merged: false, queuedAt: expect.any(String) });
  });
});

// The GitHub emulator's required checks, over HTTP as the action meets them: they run for a pull
// request that a GitHub App's token opened or pushed, and wait for a person's approval for one that
// GITHUB_TOKEN did (github.blog/changelog/2026-06-11-bot-created-pull-requests-can-run-workflows-if-approved);
// they complete on the emulator's clock (Date.now(), faked here) or by a control call. The push log
// marks a merge by GITHUB_TOKEN as starting no push workflow (docs.github.com/actions/concepts/security/github_token),
// and a bypass list refuses GITHUB_TOKEN in GitHub's words (CopilotKit/aimock#399).
import { describe, expect, it, jest } from '@jest/globals';
import { getOctokit } from '@actions/github';
import { APP, WITH_APP, useEmulators, useFakeDate } from './emulators.ts';
import { RECORDED_GITHUB, githubSays } from '../emulator/recorded.ts';

/** The workflow's GITHUB_TOKEN, by the emulator's convention the policy's token. */
const GITHUB_TOKEN = 'ghs_emulator_token';
const MINUTE = 60_000;
const T0 = Date.parse('2026-12-01T02:00:00Z');
useFakeDate(T0);
const { github } = useEmulators({ platform: false, github: WITH_APP });
let repoCount = 0;

function octokit(token: string) {
  return getOctokit(token, { baseUrl: github.url });
}

/** A repository whose main requires the check `ci` (running `checkRunMs`), and a pull request opened by `token`. */
async function checkedPull(token: string, rules: { checkRunMs?: number; checkConclusion?: 'success' | 'failure' } = {}) {
  const name = `checks-${++repoCount}`;
  const repo = `acme/${name}`;
  github.createRepo(repo, { 'v.yaml': 'a: 1\n' });
  github.protectBranch(repo, 'main', { requiredStatusChecks: ['ci'], ...rules });
  const head = github.commitOnBranch(repo, 'renewal', { 'v.yaml': 'a: 2\n' }, 'Renew');
  const { data } = await octokit(token).rest.pulls.create({ owner: 'acme', repo: name, head: 'renewal', base: 'main', title: 'Renew' });
  return { name, repo, number: data.number, head };
}

async function merge(name: string, number: number, token: string) {
  try {
    await octokit(token).rest.pulls.merge({ owner: 'acme', repo: name, pull_number: number });
    return { status: 200 };
  } catch (error) {
    const { status, response } = error as { status: number; response: { data: { message: string } } };
    return { status, message: response.data.message };
  }
}

/** GitHub's mergeable_state: blocked while a required check is missing, clean once nothing is. */
async function mergeableState(name: string, number: number) {
  return (await octokit(APP).rest.pulls.get({ owner: 'acme', repo: name, pull_number: number })).data.mergeable_state;
}

/** The workflow runs on `sha` that wait for a person's approval, as GitHub's REST API lists them. */
async function heldRuns(name: string, sha: string) {
  const { data } = await octokit(APP).rest.actions.listWorkflowRunsForRepo({ owner: 'acme', repo: name, head_sha: sha, status: 'action_required' });
  return data.workflow_runs.map((run) => ({ name: run.name, event: run.event, status: run.status, conclusion: run.conclusion, actor: run.actor?.login }));
}

describe("GitHub emulator: required checks by the token that opened the pull request", () => {
  it("runs them for an App's pull request: queued, then passed on the clock, and the merge goes through", async () => {
    const { name, repo, number, head } = await checkedPull(APP, { checkRunMs: 5 * MINUTE });
    expect(github.checkRuns(repo)).toEqual([expect.objectContaining({ sha: head, context: 'ci', event: 'pull_request', status: 'queued', conclusion: null, triggeredBy: APP, completesAt: Date.now() + 5 * MINUTE })]);
    expect(await merge(name, number, APP)).toEqual({ status: 405, message: 'Required status check "ci" is expected.' });
    expect(await mergeableState(name, number)).toBe('blocked');
    jest.setSystemTime(Date.now() + 5 * MINUTE);
    expect(await mergeableState(name, number)).toBe('clean');
    expect(await merge(name, number, APP)).toEqual({ status: 200 });
    expect(github.checkRuns(repo)[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
  });

  it('fails them on the clock when the rules say so, and the merge stays refused', async () => {
    const { name, repo, number } = await checkedPull(APP, { checkRunMs: MINUTE, checkConclusion: 'failure' });
    jest.setSystemTime(Date.now() + MINUTE);
    expect(await merge(name, number, APP)).toEqual({ status: 405, message: 'Required status check "ci" is expected.' });
    expect(github.checkRuns(repo)[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });

  it('holds them for approval for a pull request GITHUB_TOKEN opened: no clock or control call runs them until a person approves', async () => {
    const { name, repo, number, head } = await checkedPull(GITHUB_TOKEN, { checkRunMs: MINUTE });
    expect(github.checkRuns(repo)).toEqual([expect.objectContaining({ status: 'waiting', conclusion: 'action_required', triggeredBy: GITHUB_TOKEN })]);
    jest.setSystemTime(Date.now() + 30 * 24 * 60 * MINUTE);
    expect(github.completeChecks(repo)).toBe(0);
    expect(await merge(name, number, GITHUB_TOKEN)).toEqual({ status: 405, message: 'Required status check "ci" is expected.' });
    // What a caller reads to say why: the run is there, held (UltraBob/ddev-drupal-code-quality#53).
    expect(await heldRuns(name, head)).toEqual([{ name: 'ci', event: 'pull_request', status: 'completed', conclusion: 'action_required', actor: 'github-actions[bot]' }]);
    expect(github.approveWorkflows(repo, number)).toBe(1);
    expect(await heldRuns(name, head)).toEqual([]);
    jest.setSystemTime(Date.now() + MINUTE);
    expect(await merge(name, number, GITHUB_TOKEN)).toEqual({ status: 200 });
    const { data } = await octokit(APP).rest.actions.listWorkflowRunsForRepo({ owner: 'acme', repo: name, head_sha: head });
    expect(data.workflow_runs.map((run) => [run.status, run.conclusion])).toEqual([['completed', 'success']]);
  });

  it('holds them again when GITHUB_TOKEN pushes to the branch, and runs them when an App pushes', async () => {
    const { name, repo, number, head } = await checkedPull(APP);
    expect(github.completeChecks(repo, { pull: number })).toBe(1);
    const tree = (await octokit(GITHUB_TOKEN).rest.git.createTree({ owner: 'acme', repo: name, base_tree: head, tree: [{ path: 'v.yaml', mode: '100644', type: 'blob', content: 'a: 3\n' }] })).data.sha;
    const byWorkflow = (await octokit(GITHUB_TOKEN).rest.git.createCommit({ owner: 'acme', repo: name, tree, parents: [head], message: 'Renew again' })).data.sha;
    await octokit(GITHUB_TOKEN).rest.git.updateRef({ owner: 'acme', repo: name, ref: 'heads/renewal', sha: byWorkflow });
    expect(github.checkRuns(repo).filter((run) => run.sha === byWorkflow)).toEqual([expect.objectContaining({ status: 'waiting', triggeredBy: GITHUB_TOKEN })]);
    const byApp = (await octokit(APP).rest.git.createCommit({ owner: 'acme', repo: name, tree, parents: [byWorkflow], message: 'Renew by the App' })).data.sha;
    await octokit(APP).rest.git.updateRef({ owner: 'acme', repo: name, ref: 'heads/renewal', sha: byApp });
    expect(github.checkRuns(repo).filter((run) => run.sha === byApp)).toEqual([expect.objectContaining({ status: 'queued', triggeredBy: APP })]);
    // Without checkRunMs a run lasts until a control call ends it: the test decides how it concludes.
    expect(github.completeChecks(repo, { sha: byApp, conclusion: 'failure' })).toBe(1);
    expect(await merge(name, number, APP)).toEqual({ status: 405, message: 'Required status check "ci" is expected.' });
  });
});

describe('GitHub emulator: the push log', () => {
  it("records that a merge by GITHUB_TOKEN starts no push workflow, and one by an App or a person does", async () => {
    const first = await checkedPull(APP);
    github.completeChecks(first.repo);
    expect(await merge(first.name, first.number, GITHUB_TOKEN)).toEqual({ status: 200 });
    const merged = github.pushes(first.repo).at(-1);
    expect(merged).toMatchObject({ branch: 'main', by: GITHUB_TOKEN, mergedPull: first.number, startsWorkflows: false, after: github.branchHead(first.repo, 'main') });
    expect(merged?.why).toContain(RECORDED_GITHUB.facts['github-token-starts-no-workflow']!.source);

    const second = await checkedPull(APP);
    github.completeChecks(second.repo);
    expect(await merge(second.name, second.number, APP)).toEqual({ status: 200 });
    expect(github.pushes(second.repo).at(-1)).toMatchObject({ branch: 'main', by: APP, startsWorkflows: true });
    expect(github.pushes(second.repo).at(-1)).not.toHaveProperty('why');
    github.commitOnBranch(second.repo, 'main', { 'v.yaml': 'a: 9\n' }, 'A person pushes');
    expect(github.pushes(second.repo).at(-1)).toMatchObject({ branch: 'main', by: 'person', startsWorkflows: true });
  });
});

describe('GitHub emulator: the bypass list', () => {
  it("takes a GitHub App, and refuses GITHUB_TOKEN with GitHub's 422", async () => {
    const { name, repo, number } = await checkedPull(APP);
    expect(() => github.protectBranch(repo, 'main', { requiredApprovingReviews: 1, bypass: [GITHUB_TOKEN] })).toThrow(
      expect.objectContaining({ status: 422, message: 'Validation Failed', extra: { errors: [githubSays('bypass.github-actions-not-an-actor')] } })
    );
    github.protectBranch(repo, 'main', { requiredApprovingReviews: 1, bypass: [APP] });
    expect(await merge(name, number, GITHUB_TOKEN)).toEqual({ status: 405, message: 'At least 1 approving review is required by reviewers with write access.' });
    expect(await merge(name, number, APP)).toEqual({ status: 200 });
  });
});

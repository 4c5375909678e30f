import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { getOctokit } from '@actions/github';
import { startGitHubEmulator } from '../emulator/github.ts';
import type { GitHubEmulator } from '../emulator/github.ts';
import { PullRequestError } from '../src/github/errors.ts';
import { readBaseFile } from '../src/github/repository.ts';
import { proposeChange, readOpenProposal } from '../src/github/pull-request.ts';
import type { Repo } from '../src/github/repository.ts';
import type { Octokit, ProposedChange } from '../src/github/pull-request.ts';

const TOKEN = 'ghs_emulator_token';
const FULL_NAME = 'acme/docs';
const repo: Repo = { owner: 'acme', repo: 'docs' };
const PATH = 'config/site.json';
const BRANCH = 'bot/update-site';

let emulator: GitHubEmulator;
let octokit: Octokit;

function writes(): { method: string; path: string; status: number }[] {
  return emulator.requests.filter((r) => r.method !== 'GET');
}

/** As a run does: read the base and the open pull request, then write. */
async function propose(text: string, overrides: Partial<ProposedChange> = {}) {
  const result = await proposeRaw(text, overrides);
  if (result === 'raced') throw new Error('the branch moved while the test wrote to it');
  return result;
}

async function proposeRaw(text: string, overrides: Partial<ProposedChange> = {}, client: Octokit = octokit) {
  const base = await readBaseFile(client, repo, PATH);
  const proposal = await readOpenProposal(client, repo, overrides.branch ?? BRANCH, base, PATH);
  return proposeChange(client, repo, {
    path: PATH,
    text,
    base,
    branch: BRANCH,
    proposal,
    commitMessage: 'chore: update site link',
    title: 'Update site link',
    body: 'The deployment moved.',
    labels: [],
    ...overrides
  });
}

/** Every commit the branch holds beyond the base has one parent: merge, squash and rebase give the same file. */
function linearOnBase(branch: string): boolean {
  const base = emulator.branchHead(FULL_NAME, 'main');
  let sha = emulator.branchHead(FULL_NAME, branch);
  while (sha !== base) {
    const commit = emulator.commit(FULL_NAME, sha!);
    if (!commit || commit.parents.length !== 1) return false;
    sha = commit.parents[0];
  }
  return true;
}

async function failure(run: () => Promise<unknown>): Promise<PullRequestError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e
  );
  expect(error).toBeInstanceOf(PullRequestError);
  return error as PullRequestError;
}

beforeAll(async () => {
  emulator = await startGitHubEmulator();
  octokit = getOctokit(TOKEN, { baseUrl: emulator.url });
});

afterAll(async () => {
  await emulator.close();
});

beforeEach(() => {
  // A fresh repository per test; the emulator replaces one of the same name.
  emulator.createRepo(FULL_NAME, { [PATH]: '{"url":"old"}\n', 'README.md': '# docs\n' });
  emulator.setPolicy({
    token: TOKEN,
    allowActionsToCreatePullRequests: true,
    contentsWrite: true,
    pullRequestsWrite: true,
    protectedBranches: []
  });
  emulator.requests.length = 0;
});

describe('readBaseFile', () => {
  it('reads the file on the default branch', async () => {
    const base = await readBaseFile(octokit, repo, PATH);
    // The head's tree comes with it (getBranch): a commit on the base needs no read of its own.
    expect(base).toEqual({ branch: 'main', sha: emulator.branchHead(FULL_NAME, 'main'), tree: expect.stringMatching(/^[0-9a-f]{40}$/), text: '{"url":"old"}\n' });
  });

  it('answers undefined text for a missing file', async () => {
    const base = await readBaseFile(octokit, repo, 'missing.json', 'main');
    expect(base.text).toBeUndefined();
  });

  it('names a missing repository', async () => {
    const error = await failure(() => readBaseFile(octokit, { owner: 'acme', repo: 'nope' }, PATH));
    expect(error.status).toBe(404);
    expect(error.message).toContain('acme/nope');
    expect(error.message).toContain('x-github-request-id');
  });

  it('names a missing repository even when the base branch is given', async () => {
    const error = await failure(() => readBaseFile(octokit, { owner: 'acme', repo: 'nope' }, PATH, 'main'));
    expect(error.message).toMatch(/repository acme\/nope was not found/);
  });

  it('names a missing base branch', async () => {
    const error = await failure(() => readBaseFile(octokit, repo, PATH, 'release/9'));
    expect(error.status).toBe(404);
    expect(error.message).toBe(`Could not read base branch release/9 in ${repo.owner}/${repo.repo}: no such branch. Check base-branch: it names the branch that holds the values file and that the pull request targets.`);
  });

  it('names a path that is a directory', async () => {
    const error = await failure(() => readBaseFile(octokit, repo, 'config'));
    expect(error.message).toContain('config');
    expect(error.message).toContain('directory');
  });
});

describe('proposeChange', () => {
  it('creates the PR with one commit on top of the base', async () => {
    const baseSha = emulator.branchHead(FULL_NAME, 'main');
    const result = await propose('{"url":"new"}\n');

    expect(result.operation).toBe('created');
    const pulls = emulator.pulls(FULL_NAME);
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ number: result.number, head: BRANCH, base: 'main', state: 'open', title: 'Update site link' });
    expect(result.url).toBe(pulls[0]?.html_url);

    const head = emulator.branchHead(FULL_NAME, BRANCH) as string;
    expect(result.commitSha).toBe(head);
    const commit = emulator.commit(FULL_NAME, head);
    expect(commit?.parents).toEqual([baseSha]);
    // The trailer marks the commit as this action's, so a later run knows it may replace it.
    expect(commit?.message).toBe('chore: update site link\n\nProposed-by: static-export-action');
    expect(commit?.files).toEqual({ [PATH]: '{"url":"new"}\n', 'README.md': '# docs\n' });
    // The base is untouched.
    expect(emulator.fileAt(FULL_NAME, 'main', PATH)).toBe('{"url":"old"}\n');
  });

  it('updates the same PR with new text, one more single-parent commit on the branch', async () => {
    const first = await propose('{"url":"v1"}\n');
    const firstHead = emulator.branchHead(FULL_NAME, BRANCH);

    const second = await propose('{"url":"v2"}\n');
    expect(second.operation).toBe('updated');
    expect(second.number).toBe(first.number);
    expect(emulator.pulls(FULL_NAME)).toHaveLength(1);

    const head = emulator.branchHead(FULL_NAME, BRANCH) as string;
    expect(head).not.toBe(firstHead);
    expect(emulator.commit(FULL_NAME, head)?.parents).toEqual([firstHead]);
    expect(emulator.fileAt(FULL_NAME, BRANCH, PATH)).toBe('{"url":"v2"}\n');
    expect(linearOnBase(BRANCH)).toBe(true);
  });

  it('writes nothing when the branch and PR already hold the change', async () => {
    const first = await propose('{"url":"same"}\n');
    const head = emulator.branchHead(FULL_NAME, BRANCH);
    emulator.requests.length = 0;

    const again = await propose('{"url":"same"}\n');
    expect(again).toEqual({ operation: 'none', number: first.number, url: first.url });
    expect(writes()).toEqual([]);
    expect(emulator.branchHead(FULL_NAME, BRANCH)).toBe(head);
    // readBaseFile: repo, ref, contents; readOpenProposal: pulls, compare, contents; proposeChange: nothing.
    expect(emulator.requests).toHaveLength(6);
  });

  it('patches the PR when only the title or body changed', async () => {
    await propose('{"url":"same"}\n');
    emulator.requests.length = 0;

    const result = await propose('{"url":"same"}\n', { body: 'New wording.' });
    expect(result.operation).toBe('updated');
    expect(result.commitSha).toBeUndefined();
    expect(writes().map((r) => r.method + ' ' + r.path)).toEqual([`PATCH /repos/acme/docs/pulls/${result.number}`]);
    expect(emulator.pulls(FULL_NAME)[0]?.body).toBe('New wording.');
  });

  it('rebuilds the branch as one commit on the moved base after the base moves', async () => {
    await propose('{"url":"new"}\n');
    const moved = emulator.commitOnBranch(FULL_NAME, 'main', { 'CHANGELOG.md': 'merged elsewhere\n' }, 'Merge #9');

    const result = await propose('{"url":"new"}\n');
    expect(result.operation).toBe('updated');
    const head = emulator.branchHead(FULL_NAME, BRANCH) as string;
    const commit = emulator.commit(FULL_NAME, head);
    expect(commit?.parents).toEqual([moved]);
    expect(commit?.files).toEqual({
      [PATH]: '{"url":"new"}\n',
      'README.md': '# docs\n',
      'CHANGELOG.md': 'merged elsewhere\n'
    });
    expect(emulator.pulls(FULL_NAME)).toHaveLength(1);
  });

  it("keeps a reviewer's commit: the next commit goes on top of it", async () => {
    await propose('{"url":"v1"}\n');
    const reviewed = emulator.commitOnBranch(FULL_NAME, BRANCH, { 'NOTES.md': 'reviewed\n' }, 'Add review notes');

    await propose('{"url":"v2"}\n');
    const head = emulator.branchHead(FULL_NAME, BRANCH) as string;
    expect(emulator.commit(FULL_NAME, head)?.parents).toEqual([reviewed]);
    expect(emulator.fileAt(FULL_NAME, BRANCH, 'NOTES.md')).toBe('reviewed\n');
    expect(linearOnBase(BRANCH)).toBe(true);
  });

  it('after "Update branch", rebuilds one single-parent commit that keeps the branch\'s other files', async () => {
    const first = await propose('{"url":"v1"}\n');
    emulator.commitOnBranch(FULL_NAME, BRANCH, { 'NOTES.md': 'reviewed\n' }, 'Add review notes');
    emulator.commitOnBranch(FULL_NAME, 'main', { 'CHANGELOG.md': 'merged elsewhere\n' }, 'Merge #9');
    emulator.updateBranch(FULL_NAME, first.number);
    expect(linearOnBase(BRANCH)).toBe(false);

    await propose('{"url":"v2"}\n');
    expect(linearOnBase(BRANCH)).toBe(true);
    const head = emulator.commit(FULL_NAME, emulator.branchHead(FULL_NAME, BRANCH)!)!;
    expect(head.parents).toEqual([emulator.branchHead(FULL_NAME, 'main')]);
    expect(head.files).toEqual({ [PATH]: '{"url":"v2"}\n', 'README.md': '# docs\n', 'CHANGELOG.md': 'merged elsewhere\n', 'NOTES.md': 'reviewed\n' });
    // A rebase merge, which GitHub refuses over a merge commit, now goes through with the same files.
    emulator.mergePull(FULL_NAME, first.number, 'rebase');
    expect(emulator.commit(FULL_NAME, emulator.branchHead(FULL_NAME, 'main')!)!.files).toEqual(head.files);
  });

  it('never overwrites a move it did not read: a branch moved after the read is "raced"', async () => {
    await propose('{"url":"v1"}\n');
    emulator.commitOnBranch(FULL_NAME, 'main', { 'CHANGELOG.md': 'x\n' }, 'Merge #9');
    const base = await readBaseFile(octokit, repo, PATH);
    const proposal = await readOpenProposal(octokit, repo, BRANCH, base, PATH);
    const theirs = emulator.commitOnBranch(FULL_NAME, BRANCH, { 'NOTES.md': 'late\n' }, 'A late reviewer');

    const result = await proposeChange(octokit, repo, { path: PATH, text: '{"url":"v2"}\n', base, branch: BRANCH, proposal, commitMessage: 'm', title: 't', body: 'b', labels: [] });
    expect(result).toBe('raced');
    expect(emulator.branchHead(FULL_NAME, BRANCH)).toBe(theirs);
  });

  it('applies labels to a new PR', async () => {
    await propose('{"url":"new"}\n', { labels: ['automated', 'docs'] });
    expect(emulator.pulls(FULL_NAME)[0]?.labels).toEqual(['automated', 'docs']);
  });

  it('opens a new PR when the previous one was closed', async () => {
    const first = await propose('{"url":"new"}\n');
    emulator.closePull(FULL_NAME, first.number!);

    const second = await propose('{"url":"new"}\n');
    expect(second.operation).toBe('created');
    expect(second.number).not.toBe(first.number);
    expect(emulator.pulls(FULL_NAME).map((p) => p.state)).toEqual(['closed', 'open']);
  });

  it('makes a verified commit with the GitHub Actions token', async () => {
    const result = await propose('{"url":"new"}\n');
    const { data } = await octokit.rest.git.getCommit({ ...repo, commit_sha: result.commitSha as string });
    expect(data.verification?.verified).toBe(true);
  });

  it('makes an unverified commit with a personal token', async () => {
    emulator.setPolicy({ token: 'ghp_personal' });
    const personal = getOctokit('ghp_personal', { baseUrl: emulator.url });
    const result = await proposeRaw('x', { commitMessage: 'm', title: 't', body: '' }, personal);
    if (result === 'raced') throw new Error('raced');
    const { data } = await personal.rest.git.getCommit({ ...repo, commit_sha: result.commitSha as string });
    expect(data.verification?.verified).toBe(false);
  });

  it('refuses to use the base branch as the PR branch', async () => {
    const error = await failure(() => propose('x', { branch: 'main' }));
    expect(error.message).toBe("The pull request's branch main is the base branch; choose another base-branch");
    expect(writes()).toEqual([]);
  });
});

describe('proposeChange errors', () => {
  it('names the setting when GitHub Actions may not create pull requests', async () => {
    emulator.setPolicy({ allowActionsToCreatePullRequests: false });
    const error = await failure(() => propose('{"url":"new"}\n'));
    expect(error.status).toBe(403);
    expect(error.message).toContain('Allow GitHub Actions to create and approve pull requests');
    expect(error.message).toContain('Settings → Actions → General');
    expect(error.message).toContain('organization');
    expect(error.message).toMatch(/x-github-request-id: EMU0:\d+/);
  });

  it('shows the permissions block when the token may not write pull requests', async () => {
    emulator.setPolicy({ pullRequestsWrite: false });
    const error = await failure(() => propose('{"url":"new"}\n'));
    expect(error.status).toBe(403);
    expect(error.message).toContain('permissions: { contents: write, pull-requests: write }');
    expect(error.message).toContain('another repository');
  });

  it('shows the permissions block and the path when the token may not write contents', async () => {
    emulator.setPolicy({ contentsWrite: false });
    const error = await failure(() => propose('{"url":"new"}\n'));
    expect(error.status).toBe(403);
    expect(error.message).toContain('permissions: { contents: write, pull-requests: write }');
    expect(error.message).toContain(PATH);
    expect(emulator.pulls(FULL_NAME)).toEqual([]);
  });

  it('says the token is invalid on 401', async () => {
    const stranger = getOctokit('ghs_wrong', { baseUrl: emulator.url });
    const error = await failure(() => readBaseFile(stranger, repo, PATH));
    expect(error.status).toBe(401);
    expect(error.message).toContain('token is invalid');
  });

  it('says the PR branch is protected when an existing branch refuses the move', async () => {
    await propose('{"url":"v1"}\n');
    emulator.setPolicy({ protectedBranches: [BRANCH] });
    const error = await failure(() => propose('{"url":"v2"}\n'));
    expect(error.status).toBe(422);
    expect(error.message).toContain('protected');
    expect(error.message).toContain('lift the rule from static-export/ branches');
    expect(error.message).toContain('Changes must be made through a pull request.');
  });

  it('says the PR branch is protected when its creation is refused', async () => {
    emulator.setPolicy({ protectedBranches: [BRANCH] });
    const error = await failure(() => propose('{"url":"new"}\n'));
    expect(error.status).toBe(422);
    expect(error.message).toContain('lift the rule from static-export/ branches');
  });
});

describe('emulator', () => {
  it('answers unknown endpoints with 404 and records them', async () => {
    await expect(octokit.request('GET /repos/{owner}/{repo}/branches', { ...repo })).rejects.toMatchObject({ status: 404 });
    expect(emulator.requests).toContainEqual({ method: 'GET', path: '/repos/acme/docs/branches', status: 404 });
  });

  it('refuses a second open PR for the same branch as GitHub does', async () => {
    await propose('{"url":"new"}\n');
    await expect(
      octokit.rest.pulls.create({ ...repo, head: BRANCH, base: 'main', title: 'again' })
    ).rejects.toThrow(`A pull request already exists for acme:${BRANCH}.`);
  });

  it('handles branch names with slashes in refs', async () => {
    emulator.commitOnBranch(FULL_NAME, 'feature/a/b', { 'x.txt': 'x' }, 'x');
    const { data } = await octokit.rest.git.getRef({ ...repo, ref: 'heads/feature/a/b' });
    expect(data.object.sha).toBe(emulator.branchHead(FULL_NAME, 'feature/a/b'));
  });
});

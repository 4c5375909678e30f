// Keeps one pull request per branch current through GitHub's REST API, the way
// peter-evans/create-pull-request does: one branch per purpose, commits made through the git data
// API so GitHub signs them, and a re-run updates the same pull request. The branch only moves
// forward, and a person's commit on it is never dropped.
import { githubSaid, type Octokit } from './client.ts';

export type { Octokit };

export interface Repo {
  owner: string;
  repo: string;
}

export interface BaseFile {
  branch: string; // resolved base branch
  sha: string; // base head commit
  text: string | undefined; // undefined when the file does not exist
}

export interface ProposedChange {
  path: string;
  text: string; // the full new file
  base: BaseFile;
  branch: string; // pr branch
  commitMessage: string;
  title: string;
  body: string;
  labels: string[];
  /** Asked when the branch holds another proposal of this action: a reason to keep it, or undefined to replace it. */
  judge?: (branchText: string | undefined) => Promise<string | undefined>;
  /** A warning for the log (another writer moved the branch). */
  warn?: (line: string) => void;
}

export interface ProposalResult {
  operation: 'created' | 'updated' | 'none';
  /** Unset only when an open proposal was kept and its pull request is gone. */
  number?: number;
  url?: string;
  commitSha?: string; // the commit this run made, when it made one
  /** Why the open proposal was left alone (it proposes a newer export). */
  kept?: string;
}

export class PullRequestError extends Error {
  /** GitHub's HTTP status, when GitHub answered: a 5xx says the trouble was GitHub's, not the inputs'. */
  readonly status?: number;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'PullRequestError';
    this.status = status;
  }
}

const PERMISSIONS_BLOCK = 'permissions: { contents: write, pull-requests: write }';
const ACTIONS_SETTING =
  'Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests"';

// What to tell a person when a step answers 404 or 422, in that step's own terms.
interface Hints {
  notFound?: string;
  unprocessable?: string;
}

interface HttpFailure {
  status: number;
  message: string;
  requestId?: string;
}

// Octokit's RequestError carries status and response; read them without importing it.
function httpFailure(error: unknown): HttpFailure | undefined {
  if (!(error instanceof Error) || typeof (error as { status?: unknown }).status !== 'number') return undefined;
  const response = (error as { response?: { data?: unknown; headers?: Record<string, string | undefined> } }).response;
  return {
    status: (error as unknown as { status: number }).status,
    message: githubSaid(error) ?? error.message,
    requestId: response?.headers?.['x-github-request-id']
  };
}

function toPullRequestError(error: unknown, doing: string, where: string, hints: Hints): PullRequestError {
  const failure = httpFailure(error);
  if (!failure) {
    return new PullRequestError(`Could not ${doing} in ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { status, message } = failure;
  let advice: string;
  if (status === 401) {
    advice = 'the token is invalid or expired (401 Bad credentials); check the token given to the action';
  } else if (status === 403 && /not permitted to create or approve pull requests/i.test(message)) {
    advice =
      `GitHub Actions may not create pull requests here; turn on ${ACTIONS_SETTING} ` +
      "(for an organization's repository, the organization's Actions settings must allow it too), " +
      'or give the action a token of a user or app that may open pull requests';
  } else if (status === 403 && /resource not accessible by integration/i.test(message)) {
    advice =
      `the token lacks permission; add \`${PERMISSIONS_BLOCK}\` to the workflow or job, ` +
      'and a token for another repository needs write access to that repository';
  } else if (status === 404 && hints.notFound) {
    advice = hints.notFound;
  } else if (status === 422 && hints.unprocessable) {
    advice = `${hints.unprocessable} (GitHub said: ${message})`;
  } else {
    advice = `GitHub answered ${status}: ${message}`;
  }
  const requestId = failure.requestId ? ` (x-github-request-id: ${failure.requestId})` : '';
  return new PullRequestError(`Could not ${doing} in ${where}: ${advice}${requestId}`, status);
}

// Runs one API call and turns its failure into a message a person can act on.
async function step<T>(doing: string, repo: Repo, run: () => Promise<T>, hints: Hints = {}): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toPullRequestError(error, doing, `${repo.owner}/${repo.repo}`, hints);
  }
}

function repoNotFound(repo: Repo): string {
  return (
    `repository ${repo.owner}/${repo.repo} was not found; check its name, ` +
    'and that the token can see it (a token for another repository needs access there)'
  );
}

// The branch's head commit, or undefined when the branch does not exist.
export async function branchHead(octokit: Octokit, repo: Repo, branch: string): Promise<string | undefined> {
  try {
    const { data } = await octokit.rest.git.getRef({ ...repo, ref: `heads/${branch}` });
    return data.object.sha;
  } catch (error) {
    if (httpFailure(error)?.status === 404) return undefined;
    throw toPullRequestError(error, `read branch ${branch}`, `${repo.owner}/${repo.repo}`, {});
  }
}

// The file's text at a commit, or undefined when there is no such file.
async function fileText(octokit: Octokit, repo: Repo, path: string, ref: string): Promise<string | undefined> {
  let data: unknown;
  try {
    ({ data } = await octokit.rest.repos.getContent({ ...repo, path, ref }));
  } catch (error) {
    if (httpFailure(error)?.status === 404) return undefined;
    throw toPullRequestError(error, `read ${path} at ${ref}`, `${repo.owner}/${repo.repo}`, {});
  }
  const file = data as { type?: string; encoding?: string; content?: string };
  const where = `${repo.owner}/${repo.repo}`;
  if (Array.isArray(data) || file.type !== 'file') {
    throw new PullRequestError(`Could not read ${path} in ${where}: it is a ${Array.isArray(data) ? 'directory' : String(file.type)}, not a file; check the path`);
  }
  if (file.encoding !== 'base64') {
    throw new PullRequestError(
      `Could not read ${path} in ${where}: the file is larger than GitHub's contents API returns (1 MB). Keep the settings this action edits in a file of their own, under 1 MB (Helm merges several -f files), and point config-path at it`
    );
  }
  return Buffer.from(file.content ?? '', 'base64').toString('utf8');
}

export async function readBaseFile(octokit: Octokit, repo: Repo, path: string, baseBranch?: string): Promise<BaseFile> {
  const branch =
    baseBranch ??
    (await step('read the repository', repo, () => octokit.rest.repos.get({ ...repo }), { notFound: repoNotFound(repo) })).data
      .default_branch;
  const sha = await branchHead(octokit, repo, branch);
  if (sha === undefined) {
    // A missing ref also comes from a missing repository: tell the two apart.
    await step('read the repository', repo, () => octokit.rest.repos.get({ ...repo }), { notFound: repoNotFound(repo) });
    throw new PullRequestError(
      `Could not read base branch ${branch} in ${repo.owner}/${repo.repo}: the branch does not exist; check the base branch given to the action`,
      404
    );
  }
  return { branch, sha, text: await fileText(octokit, repo, path, sha) };
}

/**
 * The trailer of every commit this action makes on a pull request branch: a commit without it was
 * made by someone else (a reviewer), and is never dropped or moved.
 */
const PROPOSAL_TRAILER = 'Proposed-by: static-export-action';
// Commits made before the trailer existed start with one of these.
const LEGACY_SUBJECTS = /^(Point the deployment at a new static export|Renew the static export link) \(/;

function isProposalCommit(message: string): boolean {
  return message.split('\n').includes(PROPOSAL_TRAILER) || LEGACY_SUBJECTS.test(message);
}

/** How many times a run re-reads the branch when another writer moved it meanwhile. */
const BRANCH_ATTEMPTS = 3;

/**
 * Keeps one pull request from `change.branch` current. The branch only moves forward: each update is
 * a commit whose first parent is the base head and whose second is the proposal it replaces, so
 * GitHub itself refuses the move when someone changed the branch meanwhile; the run then reads the
 * branch again and judges anew. A write whose answer was lost is recognised when read back.
 */
export async function proposeChange(octokit: Octokit, repo: Repo, change: ProposedChange): Promise<ProposalResult> {
  const { base, branch } = change;
  if (branch === base.branch) {
    throw new PullRequestError(`The pr-branch ${branch} is the base branch; choose another pr-branch`);
  }
  for (let attempt = 1; ; attempt++) {
    const moved = await moveBranch(octokit, repo, change);
    if (moved !== 'raced') return ensurePullRequest(octokit, repo, change, moved);
    if (attempt >= BRANCH_ATTEMPTS) {
      throw new PullRequestError(
        `Branch ${branch} in ${repo.owner}/${repo.repo} kept changing while this run wrote to it: another run or a person is writing to it. ` +
          'Nothing of this run was left half-written; run again once the other writer is done (one concurrency group per workflow keeps runs of the same workflow apart).'
      );
    }
    change.warn?.(`Another writer moved branch ${branch} in ${repo.owner}/${repo.repo} while this run wrote to it; reading it again (attempt ${attempt + 1} of ${BRANCH_ATTEMPTS}).`);
  }
}

interface Moved {
  /** The commit this run made, when it made one. */
  commitSha?: string;
  /** Why the open proposal was left as it is. */
  kept?: string;
}

async function moveBranch(octokit: Octokit, repo: Repo, change: ProposedChange): Promise<Moved | 'raced'> {
  const { base, branch, path } = change;
  const where = `${repo.owner}/${repo.repo}`;
  const headSha = await branchHead(octokit, repo, branch);
  const parents = [base.sha];
  if (headSha !== undefined) {
    const { data: head } = await step(`read commit ${headSha}`, repo, () => octokit.rest.git.getCommit({ ...repo, commit_sha: headSha }));
    if (!isProposalCommit(head.message)) {
      const pull = await openPull(octokit, repo, branch);
      throw new PullRequestError(
        `Branch ${branch} in ${where} holds commit ${headSha.slice(0, 7)} ("${head.message.split('\n')[0]}") that this action did not make` +
          `${pull ? ` (pull request #${pull.number})` : ''}. The run leaves it as it is rather than drop or rewrite a person's work: ` +
          `merge or close ${pull ? `pull request #${pull.number}` : 'its pull request'}, delete branch ${branch}, then run again.`
      );
    }
    const text = await fileText(octokit, repo, path, headSha);
    if (head.parents[0]?.sha === base.sha && text === change.text) return {};
    const kept = await change.judge?.(text);
    if (kept) return { kept };
    parents.push(headSha);
  }

  const writing = `commit ${path} for branch ${branch}`;
  const { data: baseCommit } = await step(`read base commit ${base.sha}`, repo, () => octokit.rest.git.getCommit({ ...repo, commit_sha: base.sha }));
  // Inline content saves a blob request; GitHub writes the blob itself.
  const { data: tree } = await step(writing, repo, () =>
    octokit.rest.git.createTree({ ...repo, base_tree: baseCommit.tree.sha, tree: [{ path, mode: '100644', type: 'blob', content: change.text }] })
  );
  // No author or committer: GitHub then signs the commit for an app token.
  const message = `${change.commitMessage}\n\n${PROPOSAL_TRAILER}`;
  const { data: commit } = await step(writing, repo, () => octokit.rest.git.createCommit({ ...repo, message, tree: tree.sha, parents }));
  try {
    if (headSha === undefined) await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha: commit.sha });
    else await octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha: commit.sha, force: false });
  } catch (error) {
    const failure = httpFailure(error);
    if (failure?.status === 422 && /already exists|not a fast forward|does not exist/i.test(failure.message)) {
      // Either this run's own write went through and its answer was lost, or another writer got there first.
      return (await branchHead(octokit, repo, branch)) === commit.sha ? { commitSha: commit.sha } : 'raced';
    }
    throw toPullRequestError(error, `${headSha === undefined ? 'create' : 'move'} branch ${branch}`, where, {
      unprocessable: `branch ${branch} is protected by a branch protection rule or ruleset that refuses this change; choose another pr-branch that no rule covers`
    });
  }
  return { commitSha: commit.sha };
}

/** The file as the open pull request from `branch` proposes it; undefined when none is open or it lacks the file. */
export async function readProposedFile(octokit: Octokit, repo: Repo, branch: string, path: string): Promise<{ number: number; text: string } | undefined> {
  const pull = await openPull(octokit, repo, branch);
  if (!pull) return undefined;
  const text = await fileText(octokit, repo, path, pull.head.sha);
  return text === undefined ? undefined : { number: pull.number, text };
}

async function openPull(octokit: Octokit, repo: Repo, branch: string) {
  const head = `${repo.owner}:${branch}`;
  const { data } = await step(`list open pull requests for ${head}`, repo, () => octokit.rest.pulls.list({ ...repo, head, state: 'open' }));
  return data[0];
}

/** How many times "A pull request already exists" sends the run to look for it again. */
const FIND_ATTEMPTS = 3;

async function ensurePullRequest(octokit: Octokit, repo: Repo, change: ProposedChange, moved: Moved, attempt = 1): Promise<ProposalResult> {
  const { base, branch } = change;
  const existing = await openPull(octokit, repo, branch);
  if (moved.kept) return { operation: 'none', number: existing?.number, url: existing?.html_url, kept: moved.kept };
  if (existing === undefined) {
    let created;
    try {
      ({ data: created } = await octokit.rest.pulls.create({ ...repo, head: branch, base: base.branch, title: change.title, body: change.body }));
    } catch (error) {
      const failure = httpFailure(error);
      // This run's own create went through with its answer lost, or another run opened it first.
      if (failure?.status === 422 && /already exists/i.test(failure.message)) {
        if (attempt < FIND_ATTEMPTS) return ensurePullRequest(octokit, repo, change, moved, attempt + 1);
        throw new PullRequestError(
          `Could not open a pull request from ${branch} into ${base.branch} in ${repo.owner}/${repo.repo}: GitHub says one already exists (${failure.message}), ` +
            `but ${FIND_ATTEMPTS} lists of open pull requests for ${repo.owner}:${branch} did not show it. Open the repository's pull requests, close or merge the one from ${branch}, then run again.`,
          422
        );
      }
      throw toPullRequestError(error, `open a pull request from ${branch} into ${base.branch}`, `${repo.owner}/${repo.repo}`, {});
    }
    await addLabels(octokit, repo, created.number, change.labels);
    return { operation: 'created', number: created.number, url: created.html_url, commitSha: moved.commitSha };
  }

  const edited = existing.title !== change.title || (existing.body ?? '') !== change.body || existing.base.ref !== base.branch;
  if (edited) {
    await step(`update pull request #${existing.number}`, repo, () =>
      octokit.rest.pulls.update({ ...repo, pull_number: existing.number, title: change.title, body: change.body, base: base.branch })
    );
  }
  if (!edited && moved.commitSha === undefined) {
    return { operation: 'none', number: existing.number, url: existing.html_url };
  }
  // Labels someone removed by hand stay removed until the proposal changes again.
  const present = new Set(existing.labels.map((label) => label.name));
  await addLabels(octokit, repo, existing.number, change.labels.filter((label) => !present.has(label)));
  return { operation: 'updated', number: existing.number, url: existing.html_url, commitSha: moved.commitSha };
}

// GitHub's 422 "Could not resolve to a node" right after the pull request is created is retried by
// the client (client.ts), within the step's deadline and cancel.
async function addLabels(octokit: Octokit, repo: Repo, number: number, labels: string[]): Promise<void> {
  if (labels.length === 0) return;
  await step(`label pull request #${number}`, repo, () => octokit.rest.issues.addLabels({ ...repo, issue_number: number, labels }));
}

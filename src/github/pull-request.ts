// Keeps one pull request per branch current through GitHub's REST API, the way
// peter-evans/create-pull-request does: the PR branch is always the base head plus
// exactly one commit, made through the git data API so GitHub signs it.
import type { getOctokit } from '@actions/github';

export type Octokit = ReturnType<typeof getOctokit>;

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
}

export interface ProposalResult {
  operation: 'created' | 'updated' | 'none';
  number: number;
  url: string;
  commitSha?: string; // the commit this run made, when it made one
}

export class PullRequestError extends Error {
  status?: number;
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
  const data = response?.data as { message?: unknown } | undefined;
  return {
    status: (error as unknown as { status: number }).status,
    message: typeof data?.message === 'string' ? data.message : error.message,
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
async function branchHead(octokit: Octokit, repo: Repo, branch: string): Promise<string | undefined> {
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
    throw new PullRequestError(`Could not read ${path} in ${where}: the file is larger than the contents API returns (1 MB)`);
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

export async function proposeChange(octokit: Octokit, repo: Repo, change: ProposedChange): Promise<ProposalResult> {
  const { base, branch, path } = change;
  if (branch === base.branch) {
    throw new PullRequestError(`The pr-branch ${branch} is the base branch; choose another pr-branch`);
  }

  // The branch is current when it is the base head plus one commit holding this text.
  const headSha = await branchHead(octokit, repo, branch);
  let current = false;
  if (headSha !== undefined) {
    const { data: head } = await step(`read commit ${headSha}`, repo, () =>
      octokit.rest.git.getCommit({ ...repo, commit_sha: headSha })
    );
    current =
      head.parents.length === 1 &&
      head.parents[0]?.sha === base.sha &&
      (await fileText(octokit, repo, path, headSha)) === change.text;
  }

  let commitSha: string | undefined;
  if (!current) {
    commitSha = await commitOnBase(octokit, repo, change, headSha !== undefined);
  }

  const head = `${repo.owner}:${branch}`;
  const { data: open } = await step(`list open pull requests for ${head}`, repo, () =>
    octokit.rest.pulls.list({ ...repo, head, state: 'open' })
  );
  const existing = open[0];
  if (existing === undefined) {
    const { data: created } = await step(`open a pull request from ${branch} into ${base.branch}`, repo, () =>
      octokit.rest.pulls.create({ ...repo, head: branch, base: base.branch, title: change.title, body: change.body })
    );
    await addLabels(octokit, repo, created.number, change.labels);
    return { operation: 'created', number: created.number, url: created.html_url, commitSha };
  }

  const edited =
    existing.title !== change.title || (existing.body ?? '') !== change.body || existing.base.ref !== base.branch;
  if (edited) {
    await step(`update pull request #${existing.number}`, repo, () =>
      octokit.rest.pulls.update({
        ...repo,
        pull_number: existing.number,
        title: change.title,
        body: change.body,
        base: base.branch
      })
    );
  }
  if (!edited && commitSha === undefined) {
    return { operation: 'none', number: existing.number, url: existing.html_url };
  }
  // Labels someone removed by hand stay removed until the proposal changes again.
  const present = new Set(existing.labels.map((label) => label.name));
  await addLabels(octokit, repo, existing.number, change.labels.filter((label) => !present.has(label)));
  return { operation: 'updated', number: existing.number, url: existing.html_url, commitSha };
}

// Writes base head + one commit with the new file and points the PR branch at it.
async function commitOnBase(octokit: Octokit, repo: Repo, change: ProposedChange, branchExists: boolean): Promise<string> {
  const { base, branch, path } = change;
  const writing = `commit ${path} for branch ${branch}`;
  const { data: baseCommit } = await step(`read base commit ${base.sha}`, repo, () =>
    octokit.rest.git.getCommit({ ...repo, commit_sha: base.sha })
  );
  // Inline content saves a blob request; GitHub writes the blob itself.
  const { data: tree } = await step(writing, repo, () =>
    octokit.rest.git.createTree({
      ...repo,
      base_tree: baseCommit.tree.sha,
      tree: [{ path, mode: '100644', type: 'blob', content: change.text }]
    })
  );
  // No author or committer: GitHub then signs the commit for an app token.
  const { data: commit } = await step(writing, repo, () =>
    octokit.rest.git.createCommit({ ...repo, message: change.commitMessage, tree: tree.sha, parents: [base.sha] })
  );
  const refused = {
    unprocessable:
      `GitHub refused to move branch ${branch}; it is likely protected by a branch protection rule or ruleset, ` +
      'so choose another pr-branch that no rule covers'
  };
  if (branchExists) {
    await step(`reset branch ${branch}`, repo, () =>
      octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha: commit.sha, force: true }), refused
    );
  } else {
    await step(`create branch ${branch}`, repo, () =>
      octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha: commit.sha }), refused
    );
  }
  return commit.sha;
}

async function addLabels(octokit: Octokit, repo: Repo, number: number, labels: string[]): Promise<void> {
  if (labels.length === 0) return;
  await step(`label pull request #${number}`, repo, () =>
    octokit.rest.issues.addLabels({ ...repo, issue_number: number, labels })
  );
}

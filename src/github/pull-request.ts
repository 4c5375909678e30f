// Keeps one pull request per branch current through GitHub's REST API, the way
// peter-evans/create-pull-request does: one branch per purpose, commits made through the git data
// API so GitHub signs them, and a re-run updates the same pull request. A person's lines on the
// branch are kept, and every move of the branch is a compare-and-swap.
import { answerLost, githubSaid, type Octokit, type ReadBack } from './client.ts';

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

/** What GitHub states of the token's role in GET /repos/{owner}/{repo}; an installation token is told nothing. */
export interface RepositoryPermissions {
  admin?: boolean;
  maintain?: boolean;
  push?: boolean;
  triage?: boolean;
  pull?: boolean;
}

export class PullRequestError extends Error {
  /** GitHub's HTTP status, when GitHub answered: a 5xx says the trouble was GitHub's, not the inputs'. */
  readonly status?: number;
  /** The branch this run pushed when no pull request came to show it: left behind, and the run's report names it. */
  branchLeft?: string;
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
      `the token lacks permission; add ${PERMISSIONS_BLOCK} to the workflow or job, ` +
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

/** The file's text at a commit, or undefined when there is no such file (or commit). */
export function readFileAt(octokit: Octokit, repo: Repo, path: string, ref: string): Promise<string | undefined> {
  return fileText(octokit, repo, path, ref);
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

/** What repos.get says of the repository, kept whole: later checks read its permissions and default branch. */
export interface RepositoryFacts {
  defaultBranch: string;
  /** The GraphQL id, for the compare-and-swap of a branch (updateRefs). */
  nodeId: string;
  /** What the token may do here, where GitHub says it (to a person's token; an installation token is told nothing). */
  permissions?: RepositoryPermissions;
  /** repos.get's answer as GitHub gave it, for checks that read more of it. */
  answer: Awaited<ReturnType<Octokit['rest']['repos']['get']>>['data'];
}

export async function readRepository(octokit: Octokit, repo: Repo): Promise<RepositoryFacts> {
  const { data } = await step('read the repository', repo, () => octokit.rest.repos.get({ ...repo }), { notFound: repoNotFound(repo) });
  return { defaultBranch: data.default_branch, nodeId: data.node_id, permissions: data.permissions, answer: data };
}

/**
 * The values file on the base branch: its head commit and tree (one call, getBranch) and the file at
 * that commit. `repository` is read first when the caller has not: it names the default branch, and a
 * missing branch is told apart from a missing repository.
 */
export async function readBaseFile(octokit: Octokit, repo: Repo, path: string, baseBranch?: string, repository?: RepositoryFacts): Promise<BaseFile & { tree: string }> {
  const known = repository ?? (baseBranch === undefined ? await readRepository(octokit, repo) : undefined);
  const branch = baseBranch ?? known!.defaultBranch;
  let head: { sha: string; tree: string } | undefined;
  try {
    const { data } = await octokit.rest.repos.getBranch({ ...repo, branch });
    head = { sha: data.commit.sha, tree: data.commit.commit.tree.sha };
  } catch (error) {
    if (httpFailure(error)?.status !== 404) throw toPullRequestError(error, `read branch ${branch}`, `${repo.owner}/${repo.repo}`, {});
  }
  if (head === undefined) {
    // A missing branch also comes from a missing repository: tell the two apart.
    if (!known) await readRepository(octokit, repo);
    throw new PullRequestError(
      baseBranch === undefined
        ? `Could not read ${repo.owner}/${repo.repo}'s default branch ${branch}: it does not exist (an empty repository has none). Push a first commit, or set base-branch to the branch that holds the values file.`
        : `Could not read base branch ${branch} in ${repo.owner}/${repo.repo}: no such branch. Check base-branch: it names the branch that holds the values file and that the pull request targets.`,
      404
    );
  }
  return { branch, ...head, text: await fileText(octokit, repo, path, head.sha) };
}

/**
 * The trailer of every commit this action makes on a pull request branch: a commit without it was
 * made by someone else (a reviewer's commit, an "Update branch" merge).
 */
const PROPOSAL_TRAILER = 'Proposed-by: static-export-action';
// Commits made before the trailer existed start with one of these.
const LEGACY_SUBJECTS = /^(Point the deployment at a new static export|Renew the static export link) \(/;

function isProposalCommit(message: string): boolean {
  return message.split('\n').includes(PROPOSAL_TRAILER) || LEGACY_SUBJECTS.test(message);
}

/** A file the branch changed besides the values file: its text, or null when the branch deleted it. */
export interface BranchFile {
  path: string;
  text: string | null;
}

/** A pull request from the proposal branch, as the list of pull requests shows it. */
export interface PullSummary {
  number: number;
  url: string;
  title: string;
  body: string;
  labels: string[];
  /** The branch it proposes into. */
  base: string;
  headSha: string;
  state: 'open' | 'closed';
  /** Closed by a merge (merged_at set); a pull request closed without merging is a person's no. */
  merged: boolean;
  /** For one closed without merging: the export the values file at its head proposes (proposal.ts reads it). */
  proposedJobId?: string;
}

/** How a branch stands to the base, read through one compare: what it changed and who made its commits. */
export interface BranchHistory {
  headSha: string;
  /** The head commit's tree, when the compare shows the head commit (a commit on top needs it). */
  headTree?: string;
  /** The values file at the branch's head; undefined when the branch lacks it. */
  text: string | undefined;
  /** The values file where the branch left the base (equal to the base's when the base has not moved since). */
  mergeBaseText: string | undefined;
  mergeBaseSha: string;
  /** The head holds the base's head and reaches it along single-parent commits: any merge method gives the same file. */
  linear: boolean;
  /** Commits on the branch that this action did not make: a reviewer's, or an "Update branch" merge. */
  /** `merge`: a commit with two parents ("Update branch"). */
  byPeople: { sha: string; subject: string; merge: boolean }[];
  /** The branch starts with a commit of this action: people's commits, if any, are built on the action's. */
  startsWithOurs: boolean;
  /** How many commits the branch holds beyond where it left the base. */
  ahead: number;
  /** The values file as this action's newest commit on the branch left it, when people committed after it. */
  lastProposedText?: string;
  /** Other files the branch changed since it left the base; kept whenever the branch is rebuilt. */
  otherFiles: BranchFile[];
}

/** The open pull request from the proposal branch, as it stands: what it proposes and how it got there. */
export type OpenProposal = Omit<PullSummary, 'state' | 'merged' | 'base'> & BranchHistory;

/** Every pull request from `branch` (any base, any state), newest first: one list answers what is open, closed or merged. */
export async function listPulls(octokit: Octokit, repo: Repo, branch: string): Promise<PullSummary[]> {
  const head = `${repo.owner}:${branch}`;
  const { data } = await step(`list pull requests for ${head}`, repo, () => octokit.rest.pulls.list({ ...repo, head, state: 'all', per_page: 100 }));
  return data
    .map((pull) => ({
      number: pull.number,
      url: pull.html_url,
      title: pull.title,
      body: pull.body ?? '',
      labels: pull.labels.map((label) => label.name ?? ''),
      base: pull.base.ref,
      headSha: pull.head.sha,
      state: pull.state === 'open' ? ('open' as const) : ('closed' as const),
      merged: Boolean(pull.merged_at)
    }))
    .sort((a, b) => b.number - a.number);
}

/** How `headSha` stands to the base: one compare, then the files it needs. */
export async function readBranchHistory(octokit: Octokit, repo: Repo, branch: string, headSha: string, base: BaseFile, path: string): Promise<BranchHistory> {
  const { data: compared } = await step(`compare ${base.branch} with ${branch}`, repo, () =>
    octokit.rest.repos.compareCommitsWithBasehead({ ...repo, basehead: `${base.sha}...${headSha}` })
  );
  const mergeBaseSha = compared.merge_base_commit.sha;
  const commits = compared.commits;
  const byPeople = commits
    .filter((c) => !isProposalCommit(c.commit.message))
    .map((c) => ({ sha: c.sha, subject: c.commit.message.split('\n')[0] ?? '', merge: c.parents.length > 1 }));
  const lastOurs = [...commits].reverse().find((c) => isProposalCommit(c.commit.message));
  const peopleAfterUs = lastOurs !== undefined && commits.indexOf(lastOurs) < commits.length - 1;
  const otherFiles: BranchFile[] = [];
  for (const file of compared.files ?? []) {
    if (file.filename === path) continue;
    otherFiles.push({ path: file.filename, text: file.status === 'removed' ? null : ((await fileText(octokit, repo, file.filename, headSha)) ?? null) });
    if (file.status === 'renamed' && file.previous_filename) otherFiles.push({ path: file.previous_filename, text: null });
  }
  const last = commits[commits.length - 1];
  return {
    headSha,
    headTree: last?.sha === headSha ? last.commit.tree.sha : undefined,
    text: headSha === base.sha ? base.text : await fileText(octokit, repo, path, headSha),
    mergeBaseSha,
    mergeBaseText: mergeBaseSha === base.sha ? base.text : await fileText(octokit, repo, path, mergeBaseSha),
    linear: compared.behind_by === 0 && commits.every((c) => c.parents.length === 1),
    byPeople,
    startsWithOurs: commits.length > 0 && isProposalCommit(commits[0]!.commit.message),
    ahead: commits.length,
    lastProposedText: peopleAfterUs && lastOurs ? await fileText(octokit, repo, path, lastOurs.sha) : undefined,
    otherFiles
  };
}

/** The open pull request from `branch` into `base.branch`; undefined when none is open. */
export async function readOpenProposal(octokit: Octokit, repo: Repo, branch: string, base: BaseFile, path: string, pulls?: PullSummary[]): Promise<OpenProposal | undefined> {
  const pull = (pulls ?? (await listPulls(octokit, repo, branch))).find((p) => p.state === 'open' && p.base === base.branch);
  if (!pull) return undefined;
  const { state: _state, merged: _merged, base: _base, ...fields } = pull;
  return { ...fields, ...(await readBranchHistory(octokit, repo, branch, pull.headSha, base, path)) };
}

export interface ProposedChange {
  path: string;
  text: string; // the full new file
  /** The base as read; its tree, when known, saves reading its commit. */
  base: BaseFile & { tree?: string };
  branch: string; // pr branch
  /** The open pull request as read for this change; undefined when none is open. */
  proposal?: OpenProposal;
  /** Without an open pull request: the branch's head as read (null: no such branch); undefined: read it before moving it. */
  branchHead?: string | null;
  /** The repository's GraphQL id, when already read (the compare-and-swap needs it). */
  repositoryId?: string;
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

/**
 * Writes `change.text` to the proposal branch and keeps one pull request from it current.
 *
 * The branch always reaches the base along single-parent commits, so a merge, a squash and a rebase
 * merge give the same file. While it already does (and the base has not moved), the new commit goes on
 * top and a reviewer's commits stay in its history. Otherwise (an "Update branch" merge, a moved base,
 * a merged or closed pull request) the branch is rebuilt as one commit on the base's head that holds
 * the new file and every other file the branch changed. Either move is a compare-and-swap: it is
 * refused when another writer moved the branch since it was read, and `'raced'` asks the caller to read
 * and plan again; so does a pull request a person merged or closed since it was read. A write whose answer was lost is recognised when read back.
 */
export async function proposeChange(octokit: Octokit, repo: Repo, change: ProposedChange): Promise<ProposalResult | 'raced'> {
  const { base, branch, proposal } = change;
  if (branch === base.branch) {
    throw new PullRequestError(`The pull request's branch ${branch} is the base branch; choose another base-branch`);
  }
  const unchanged =
    proposal !== undefined && proposal.linear && proposal.text === change.text && proposal.otherFiles.length === 0 && proposal.mergeBaseSha === base.sha;
  let commitSha: string | undefined;
  if (!unchanged) {
    const moved = await writeBranch(octokit, repo, change);
    if (moved === 'raced') return 'raced';
    commitSha = moved;
  }
  // A pull request merged or closed meanwhile is a race too: read again, and a new one is opened.
  const ensured = await ensurePullRequest(octokit, repo, change, commitSha);
  return ensured === 'closed' ? 'raced' : ensured;
}

/** Commits the file and moves the branch to it, only if the branch is still where it was read. */
async function writeBranch(octokit: Octokit, repo: Repo, change: ProposedChange): Promise<string | 'raced'> {
  const { base, branch, path, proposal } = change;
  const writing = `commit ${path} for branch ${branch}`;
  // With no open pull request, the branch holds a merged or closed proposal: it starts again from the base.
  const before = proposal?.headSha ?? (change.branchHead !== undefined ? (change.branchHead ?? undefined) : await branchHead(octokit, repo, branch));
  const onTop = proposal !== undefined && proposal.linear && proposal.mergeBaseSha === base.sha;
  const parent = onTop ? proposal.headSha : base.sha;
  const parentTree = (onTop ? proposal.headTree : base.tree) ?? (await step(`read commit ${parent}`, repo, () => octokit.rest.git.getCommit({ ...repo, commit_sha: parent }))).data.tree.sha;
  const entries = [
    ...(onTop ? [] : (proposal?.otherFiles ?? [])).map((file) =>
      file.text === null ? { path: file.path, mode: '100644' as const, type: 'blob' as const, sha: null } : { path: file.path, mode: '100644' as const, type: 'blob' as const, content: file.text }
    ),
    // Inline content saves a blob request; GitHub writes the blob itself.
    { path, mode: '100644' as const, type: 'blob' as const, content: change.text }
  ];
  const { data: tree } = await step(writing, repo, () => octokit.rest.git.createTree({ ...repo, base_tree: parentTree, tree: entries }));
  // No author or committer: GitHub then signs the commit for an app token.
  const message = `${change.commitMessage}\n\n${PROPOSAL_TRAILER}`;
  const { data: commit } = await step(writing, repo, () => octokit.rest.git.createCommit({ ...repo, message, tree: tree.sha, parents: [parent] }));
  const moved = await moveBranch(octokit, repo, branch, before, commit.sha, onTop, change.repositoryId);
  if (moved === 'raced' && (await branchHead(octokit, repo, branch)) === commit.sha) return commit.sha; // our own write, its answer lost
  if (moved === 'raced') return 'raced';
  return commit.sha;
}

/**
 * Moves `branch` from `before` (undefined: it must not exist) to `after`. A fast-forward goes through
 * REST with force off; a rebuild through GraphQL's updateRefs, which moves the ref only if it still
 * points at `before`.
 */
async function moveBranch(octokit: Octokit, repo: Repo, branch: string, before: string | undefined, after: string, fastForward: boolean, repositoryId?: string): Promise<'moved' | 'raced'> {
  const hints = { unprocessable: `branch ${branch} is protected by a branch protection rule or ruleset that refuses this change; let the step's token push to it (the rule's bypass list), or lift the rule from static-export/ branches` };
  // A move whose answer was lost is read back before it is sent again: done, still to do, or another writer's.
  const readBack: ReadBack = async () => {
    const head = await branchHead(octokit, repo, branch);
    return head === after ? { data: { ref: `refs/heads/${branch}`, object: { sha: after } } } : head === before ? 'resend' : 'stop';
  };
  try {
    if (before === undefined) await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha: after, request: { readBack } });
    else if (fastForward) await octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha: after, force: false, request: { readBack } });
    else await compareAndSwap(octokit, repo, branch, before, after, readBack, repositoryId);
    return 'moved';
  } catch (error) {
    const failure = httpFailure(error);
    if (failure?.status === 422 && /already exists|not a fast forward|does not exist/i.test(failure.message)) return 'raced';
    if (error instanceof RefRaceError) return 'raced';
    // No answer, or GitHub's own failure: what the branch holds now says which.
    if (!(error instanceof PullRequestError) && answerLost(error)) {
      const head = await branchHead(octokit, repo, branch);
      if (head === after) return 'moved';
      if (head !== before) return 'raced';
    }
    throw toPullRequestError(error, `${before === undefined ? 'create' : 'move'} branch ${branch}`, `${repo.owner}/${repo.repo}`, hints);
  }
}

class RefRaceError extends Error {}

async function compareAndSwap(octokit: Octokit, repo: Repo, branch: string, before: string, after: string, readBack: ReadBack, repositoryId?: string): Promise<void> {
  const id = repositoryId ?? (await readRepository(octokit, repo)).nodeId;
  try {
    await octokit.graphql(
      `mutation($input: UpdateRefsInput!) { updateRefs(input: $input) { clientMutationId } }`,
      { input: { repositoryId: id, refUpdates: [{ name: `refs/heads/${branch}`, beforeOid: before, afterOid: after, force: true }] }, request: { readBack } }
    );
  } catch (error) {
    // GitHub refuses the whole mutation with `errors`; whether the ref moved under us tells a race from a refusal.
    const head = await branchHead(octokit, repo, branch);
    if (head === after) return;
    if (head !== before) throw new RefRaceError(`branch ${branch} moved`);
    const message = error instanceof Error ? error.message : String(error);
    throw new PullRequestError(
      `Could not move branch ${branch} in ${repo.owner}/${repo.repo}: GitHub refused the update (${message}). ` +
        'A branch protection rule or ruleset may cover it (lift it from static-export/ branches), or the token lacks contents: write.'
    );
  }
}

async function openPull(octokit: Octokit, repo: Repo, branch: string, base: string) {
  const head = `${repo.owner}:${branch}`;
  const { data } = await step(`list open pull requests for ${head}`, repo, () => octokit.rest.pulls.list({ ...repo, head, base, state: 'open' }));
  return data[0];
}

/** How many times "A pull request already exists" sends the run to look for it again. */
const FIND_ATTEMPTS = 3;

async function ensurePullRequest(octokit: Octokit, repo: Repo, change: ProposedChange, commitSha: string | undefined): Promise<ProposalResult | 'closed'> {
  const { base, branch } = change;
  for (let attempt = 1; ; attempt++) {
    // The first attempt trusts what the run read: no open pull request, or this one.
    const existing = attempt === 1 ? change.proposal : await openPullState(octokit, repo, branch, base.branch);
    // Found after "already exists": ours only if its head is the commit this run judged; another run's
    // (a push that opened it meanwhile) is read and planned again, never written over with this run's text.
    const judged = commitSha ?? change.proposal?.headSha ?? change.branchHead ?? undefined;
    if (attempt > 1 && existing !== undefined && judged !== undefined && existing.headSha !== judged) return 'closed';
    if (existing === undefined) {
      try {
        // A create whose answer was lost is found in the list of open pull requests, never sent again blind.
        const readBack: ReadBack = async () => {
          const found = await openPull(octokit, repo, branch, base.branch);
          return found ? { data: found } : 'resend';
        };
        const { data: created } = await octokit.rest.pulls.create({ ...repo, head: branch, base: base.branch, title: change.title, body: change.body, request: { readBack } });
        await addLabels(octokit, repo, created.number, change.labels);
        return { operation: 'created', number: created.number, url: created.html_url, commitSha };
      } catch (error) {
        if (error instanceof PullRequestError) throw error;
        const failure = httpFailure(error);
        // This run's own create went through with its answer lost, or another run opened it first: read it back.
        if (failure?.status === 422 && /already exists/i.test(failure.message)) {
          if (attempt < FIND_ATTEMPTS) continue;
          throw new PullRequestError(
            `Could not open a pull request from ${branch} into ${base.branch} in ${repo.owner}/${repo.repo}: GitHub says one already exists (${failure.message}), ` +
              `but ${FIND_ATTEMPTS} lists of open pull requests for ${repo.owner}:${branch} did not show it. Open the repository's pull requests, close or merge the one from ${branch}, then run again.`,
            422
          );
        }
        const refused = toPullRequestError(error, `open a pull request from ${branch} into ${base.branch}`, `${repo.owner}/${repo.repo}`, {});
        // The branch holds this run's commit, but no pull request shows it.
        refused.branchLeft = branch;
        throw refused;
      }
    }
    const edited = existing.title !== change.title || existing.body !== change.body;
    // The pull request as GitHub holds it after this run's write: a person may have merged or closed it
    // since the run read it (merging leaves the branch where it was, so the branch's move went through).
    const now = edited
      ? await updatePull(octokit, repo, existing.number, { title: change.title, body: change.body }, { title: existing.title, body: existing.body })
      : commitSha !== undefined
        ? await readPullState(octokit, repo, existing.number)
        : undefined;
    if (now && now.state !== 'open') {
      // Its title and body go back to what it was merged or closed with: they never describe a commit it does not hold.
      if (edited) await updatePull(octokit, repo, existing.number, { title: existing.title, body: existing.body }, { title: change.title, body: change.body }).catch(() => undefined);
      return 'closed';
    }
    // The write's answer shows the head: another writer moved the branch past what this body describes
    // (a run at the same moment). GitHub has no precondition on a body, so the run reads and plans again.
    if (now && now.headSha !== (commitSha ?? existing.headSha)) return 'closed';
    if (!edited && commitSha === undefined) return { operation: 'none', number: existing.number, url: existing.url };
    // Labels someone removed by hand stay removed until the proposal changes again.
    const present = new Set(existing.labels);
    await addLabels(octokit, repo, existing.number, change.labels.filter((label) => !present.has(label)));
    return { operation: 'updated', number: existing.number, url: existing.url, commitSha };
  }
}

/** The open pull request's fields that ensurePullRequest compares. */
async function openPullState(octokit: Octokit, repo: Repo, branch: string, base: string): Promise<Pick<OpenProposal, 'number' | 'url' | 'title' | 'body' | 'labels' | 'headSha'> | undefined> {
  const pull = await openPull(octokit, repo, branch, base);
  return pull && { number: pull.number, url: pull.html_url, title: pull.title, body: pull.body ?? '', labels: pull.labels.map((label) => label.name ?? ''), headSha: pull.head.sha };
}

/** One pull request as it stands now, with GitHub's mergeability (which only the single pull request carries). */
export interface PullState {
  title: string;
  body: string;
  labels: string[];
  state: 'open' | 'closed';
  merged: boolean;
  headSha: string;
  /** False when GitHub says it cannot be merged (a conflict with the base); undefined while GitHub has not computed it. */
  mergeable?: boolean;
}

export async function readPullState(octokit: Octokit, repo: Repo, number: number): Promise<PullState> {
  const { data } = await step(`read pull request #${number}`, repo, () => octokit.rest.pulls.get({ ...repo, pull_number: number }));
  // `mergeable` is null until GitHub has computed it: then nothing is known, and nothing is claimed.
  const mergeable = data.mergeable === false || data.mergeable_state === 'dirty' ? false : data.mergeable === true ? true : undefined;
  return {
    title: data.title,
    body: data.body ?? '',
    labels: data.labels.map((label) => label.name ?? ''),
    state: data.state === 'open' ? 'open' : 'closed',
    merged: Boolean(data.merged),
    headSha: data.head.sha,
    mergeable
  };
}

/** Replaces the body of a pull request, and nothing else. */
export async function updatePullBody(octokit: Octokit, repo: Repo, number: number, body: string, before?: string): Promise<void> {
  await updatePull(octokit, repo, number, { body }, before === undefined ? undefined : { body: before });
}

/** The pull request changed between this run's read and its write: the write was not made again over it. */
export class PullChangedError extends PullRequestError {}

/**
 * Sets a pull request's title and body (and closes it, with `state: 'closed'`). A lost answer is read back: the fields as written mean done;
 * as `before` (what the run read), sent again; anything else is a person's or another run's edit,
 * which stands (PullChangedError).
 */
export async function updatePull(
  octokit: Octokit,
  repo: Repo,
  number: number,
  fields: { title?: string; body?: string; state?: 'closed' },
  before?: { title?: string; body?: string }
): Promise<{ state: 'open' | 'closed'; merged: boolean; headSha: string }> {
  const holds = (pull: { title: string; body: string | null; state?: string }, wanted: { title?: string; body?: string; state?: string }) =>
    (wanted.title === undefined || pull.title === wanted.title) && (wanted.body === undefined || (pull.body ?? '') === wanted.body) && (wanted.state === undefined || pull.state === wanted.state);
  const readBack: ReadBack = async () => {
    const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: number });
    if (holds(data, fields)) return { data };
    return before !== undefined && holds(data, before) ? 'resend' : 'stop';
  };
  try {
    const { data } = await octokit.rest.pulls.update({ ...repo, pull_number: number, ...fields, request: { readBack } });
    return { state: data.state === 'open' ? 'open' : 'closed', merged: Boolean(data.merged_at), headSha: data.head.sha };
  } catch (error) {
    if (before !== undefined && answerLost(error)) {
      throw new PullChangedError(`Pull request #${number} in ${repo.owner}/${repo.repo} changed while this run wrote it; what is there now stands.`);
    }
    throw toPullRequestError(error, `update pull request #${number}`, `${repo.owner}/${repo.repo}`, {});
  }
}

/** Labels of a pull request as GitHub holds them now. */
async function labelsNow(octokit: Octokit, repo: Repo, number: number): Promise<string[]> {
  const { data } = await octokit.rest.pulls.get({ ...repo, pull_number: number });
  return data.labels.map((label) => label.name ?? '');
}

/** Removes a label; one already gone (GitHub's 404 "Label does not exist") is what was wanted. */
export async function removeLabel(octokit: Octokit, repo: Repo, number: number, name: string): Promise<void> {
  const readBack: ReadBack = async () => ((await labelsNow(octokit, repo, number)).includes(name) ? 'resend' : { data: [] });
  try {
    await octokit.rest.issues.removeLabel({ ...repo, issue_number: number, name, request: { readBack } });
  } catch (error) {
    if (httpFailure(error)?.status === 404) return;
    throw toPullRequestError(error, `remove label ${name} from pull request #${number}`, `${repo.owner}/${repo.repo}`, {});
  }
}

// GitHub's 422 "Could not resolve to a node" right after the pull request is created is retried by
// the client (client.ts), within the step's deadline and cancel. A lost answer is read back.
export async function addLabels(octokit: Octokit, repo: Repo, number: number, labels: string[]): Promise<void> {
  if (labels.length === 0) return;
  const readBack: ReadBack = async () => {
    const now = await labelsNow(octokit, repo, number);
    return labels.every((label) => now.includes(label)) ? { data: now.map((name) => ({ name })) } : 'resend';
  };
  await step(`label pull request #${number}`, repo, () => octokit.rest.issues.addLabels({ ...repo, issue_number: number, labels, request: { readBack } }));
}

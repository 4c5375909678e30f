// Keeps one pull request per branch current through GitHub's REST API, the way
// peter-evans/create-pull-request does: one branch per purpose, commits made through the git data
// API so GitHub signs them, and a re-run updates the same pull request. A person's lines on the
// branch are kept, and every move of the branch is a compare-and-swap.
import { answerLost, type Octokit, type ReadBack } from './client.ts';
import { PullRequestError, httpFailure, step, toPullRequestError } from './errors.ts';
import { addLabels, readPullState, updatePull } from './pull-edits.ts';
import { type BaseFile, type Repo, branchHead, readFileAt, readRepository } from './repository.ts';

export type { Octokit };


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
    otherFiles.push({ path: file.filename, text: file.status === 'removed' ? null : ((await readFileAt(octokit, repo, file.filename, headSha)) ?? null) });
    if (file.status === 'renamed' && file.previous_filename) otherFiles.push({ path: file.previous_filename, text: null });
  }
  const last = commits[commits.length - 1];
  return {
    headSha,
    headTree: last?.sha === headSha ? last.commit.tree.sha : undefined,
    text: headSha === base.sha ? base.text : await readFileAt(octokit, repo, path, headSha),
    mergeBaseSha,
    mergeBaseText: mergeBaseSha === base.sha ? base.text : await readFileAt(octokit, repo, path, mergeBaseSha),
    linear: compared.behind_by === 0 && commits.every((c) => c.parents.length === 1),
    byPeople,
    startsWithOurs: commits.length > 0 && isProposalCommit(commits[0]!.commit.message),
    ahead: commits.length,
    lastProposedText: peopleAfterUs && lastOurs ? await readFileAt(octokit, repo, path, lastOurs.sha) : undefined,
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

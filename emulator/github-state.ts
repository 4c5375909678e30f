// The GitHub emulator's state and its rules: repositories with their branches, commits, trees and
// pull requests, the policy (token, permissions, protected branches), and the ApiError a refused
// change raises. No HTTP here: github.ts parses requests, calls in here and writes the answers.
import { createHash } from 'node:crypto';
import { diff3Merge } from 'node-diff3';
import { githubFact, githubSays } from './recorded.ts';

/**
 * Which token is which, by the emulator's convention: `Policy.token` is the workflow's own
 * `GITHUB_TOKEN` (an installation token of the GitHub Actions app, ghs_…), whatever its text; every
 * other token is one of `Policy.tokens`, and one of kind `installation` there is a GitHub App's
 * installation token (as actions/create-github-app-token makes one). GitHub tells them apart by the
 * app behind the token; the emulator by this. GITHUB_TOKEN is what starts no workflow
 * (recorded/github.json facts.github-token-starts-no-workflow), holds its pull requests' runs for
 * approval (facts.github-token-pull-request-runs-need-approval) and cannot be on a bypass list
 * (answers.bypass.github-actions-not-an-actor).
 */
export interface Policy {
  /** The workflow's own token, GITHUB_TOKEN (an installation token, ghs_…); contentsWrite and pullRequestsWrite are its permissions. */
  token: string;
  allowActionsToCreatePullRequests: boolean;
  contentsWrite: boolean;
  pullRequestsWrite: boolean;
  /** Further tokens GitHub accepts, each with what it may do (a person's read-only token, for one). */
  tokens: Record<string, TokenGrant>;
  protectedBranches: string[];
  /** The merge methods the repository allows (Settings → General → Pull Requests); a repository's own setting wins. */
  mergeMethods: MergeMethod[];
}

/**
 * What a branch protection rule (or a ruleset) asks of a pull request into the branch before the
 * merge button, or the API, merges it.
 */
export interface BranchRules {
  /** Approving reviews needed ("Require a pull request before merging", "Required approvals"). */
  requiredApprovingReviews?: number;
  /** Status check contexts that must have succeeded on the pull request's head ("Require status checks to pass"). */
  requiredStatusChecks?: string[];
  /** Tokens that may merge without meeting the rules, as a ruleset's bypass list names an app or a person (never GITHUB_TOKEN: protectBranch refuses it with GitHub's 422). */
  bypass?: string[];
  /**
   * How long a required check runs once it started (ms on the emulator's clock, Date.now()), then
   * concludes `checkConclusion`; undefined: it runs until a control call (completeChecks) ends it.
   */
  checkRunMs?: number;
  /** How a check that ran its checkRunMs concludes (default success). */
  checkConclusion?: 'success' | 'failure';
  /**
   * "Require merge queue": a merge through the API is refused in GitHub's words, and auto-merge queues
   * the pull request; it merges once the required checks pass on the merge group. `mergeGroupCi`:
   * whether the repository's CI runs on `merge_group` (recorded/github.json facts.merge-queue-needs-merge-group);
   * without it no check is ever reported on the group and the pull request stays queued.
   */
  mergeQueue?: { mergeGroupCi: boolean };
}

/** GitHub's auto-merge armed on a pull request (enablePullRequestAutoMerge), as REST's `auto_merge` shows it. */
export interface AutoMergeRequest {
  /** The token that enabled it; the merge it makes is that token's. */
  enabledBy: string;
  mergeMethod: MergeMethod;
  enabledAt: string;
  commitTitle?: string;
  commitMessage?: string;
}

/**
 * A branch moved, as GitHub's `push` event would report it. `startsWorkflows` is false for a push by
 * GITHUB_TOKEN (a merge with it too): GitHub starts no `push` workflow for it (`why` quotes the
 * recorded fact), so a roll-out workflow on push never runs.
 */
export interface PushEvent {
  branch: string;
  /** The head before (null: the branch is new) and after. */
  before: string | null;
  after: string;
  /** The token that moved it, `person` (a person, through the control API) or `merge-queue`. */
  by: string;
  at: string;
  startsWorkflows: boolean;
  why?: string;
  /** The pull request whose merge moved it. */
  mergedPull?: number;
}

/** What the state tells its listeners (github-checks.ts): a push, or a pull request opened by `by`. */
export type RepoChange = { kind: 'push'; push: PushEvent } | { kind: 'opened'; pull: EmulatedPull; by: string };

/**
 * What GitHub grants a token besides the workflow's own. A person's token (`user`) is answered with
 * `permissions` in GET /repos/{owner}/{repo}, its owner's role; an installation token is not.
 */
export interface TokenGrant {
  kind: 'user' | 'installation';
  /** May push and open pull requests; false: it reads only. */
  write: boolean;
}

/** The `permissions` GitHub shows a token in GET /repos/{owner}/{repo}; undefined for an installation token, which gets none. */
export function repositoryPermissions(grant: TokenGrant | undefined): Record<string, boolean> | undefined {
  if (grant?.kind !== 'user') return undefined;
  return { admin: false, maintain: false, push: grant.write, triage: grant.write, pull: true };
}

export type MergeMethod = 'merge' | 'squash' | 'rebase';

/** How a merge is made: the head the caller read, its commit text, and who or what merges. */
export interface MergeOptions {
  sha?: string;
  title?: string;
  message?: string;
  /** A person through the control API: the rules are met. */
  person?: boolean;
  /** Auto-merge's merge: the rules must be met, the bypass list does not count. */
  auto?: boolean;
  /** The merge queue merges it (the queue's own rule is met). */
  viaQueue?: boolean;
  /** When (ms), if not now: the moment the last check passed. */
  at?: number;
}

export interface EmulatedPull {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  /** When it was closed or merged (GitHub's closed_at and merged_at). */
  closedAt?: string;
  /**
   * The head it was closed or merged with: GitHub keeps a closed pull request's head (refs/pull/N/head)
   * where it was, and its `head.sha` stays there when the branch moves on.
   */
  closedHead?: string;
  /** Who merged it: the token of an API merge, or `person` for a merge through the emulator's control API. */
  mergedBy?: string;
  /** Approving reviews it holds (a person approved it). */
  approvals: number;
  /** The token that opened it. */
  openedBy?: string;
  /** GitHub's auto-merge, while armed. */
  autoMerge?: AutoMergeRequest;
  /** When auto-merge put it in the merge queue (with a merge queue required), while it waits there. */
  queuedAt?: string;
  labels: string[];
  html_url: string;
}

interface Person {
  name: string;
  email: string;
  date: string;
}

export interface StoredCommit {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
  author: Person;
  committer: Person;
  verified: boolean;
}

export interface Repository {
  owner: string;
  name: string;
  defaultBranch: string;
  branches: Map<string, string>;
  commits: Map<string, StoredCommit>;
  trees: Map<string, Record<string, string>>; // tree sha → path → file content
  blobs: Map<string, string>;
  pulls: EmulatedPull[];
  nextNumber: number;
  /** Branch protection rules by branch. */
  rules: Map<string, BranchRules>;
  /** The repository's own allowed merge methods; undefined: the policy's. */
  mergeMethods?: MergeMethod[];
  /** Status checks that succeeded, by commit: `${sha} ${context}`. */
  passedChecks: Set<string>;
  /** Settings → General → "Allow auto-merge" (REST allow_auto_merge); off unless a test turns it on, as on GitHub. */
  allowAutoMerge: boolean;
  /** Every branch move, oldest first, as `push` events. */
  pushes: PushEvent[];
}

/** A tree entry as a create-tree call gives it: new content, an existing blob's sha, or sha null to delete the path. */
export interface TreeEntry {
  path: string;
  content?: string;
  sha?: string | null;
}

// GitHub answers every error as {message, documentation_url, status}.
export class ApiError extends Error {
  status: number;
  extra: Record<string, unknown>;
  constructor(status: number, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
  }
}

const ACTIONS_BOT: Omit<Person, 'date'> = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com'
};
const WEB_FLOW: Omit<Person, 'date'> = { name: 'GitHub', email: 'noreply@github.com' };
const USER: Omit<Person, 'date'> = { name: 'Emulated User', email: 'user@example.com' };

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

// The blob id is git's real one, so tests may compare it with `git hash-object`.
export function blobSha(content: string): string {
  return sha1(`blob ${Buffer.byteLength(content)}\0${content}`);
}

function treeSha(files: Record<string, string>): string {
  const lines = Object.keys(files)
    .sort()
    .map((path) => `${path}\0${blobSha(files[path] ?? '')}`);
  return sha1(`tree\0${lines.join('\n')}`);
}

function stripHeads(ref: string): string {
  return ref.replace(/^refs\//, '').replace(/^heads\//, '');
}

export function fullNameOf(repo: Repository): string {
  return `${repo.owner}/${repo.name}`;
}

function repoKey(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

// True when `ancestor` is `sha` or reachable from it through parents.
function isAncestor(repo: Repository, ancestor: string, sha: string): boolean {
  return history(repo, sha).has(ancestor);
}

/** `sha` and every commit reachable from it through parents. */
function history(repo: Repository, sha: string): Set<string> {
  const found = new Set<string>();
  const stack = [sha];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    if (found.has(current)) continue;
    found.add(current);
    stack.push(...(repo.commits.get(current)?.parents ?? []));
  }
  return found;
}

/** The nearest common ancestor of two commits, as `git merge-base` finds it. */
function mergeBase(repo: Repository, a: string, b: string): string | undefined {
  const ofA = history(repo, a);
  // Breadth first from b: the first ancestor of a met is the nearest.
  const queue = [b];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const sha = queue.shift() as string;
    if (ofA.has(sha)) return sha;
    if (seen.has(sha)) continue;
    seen.add(sha);
    queue.push(...(repo.commits.get(sha)?.parents ?? []));
  }
  return undefined;
}

/** Commits reachable from `head` but not from `base`, oldest first (parents before children). */
function commitsBetween(repo: Repository, base: string, head: string): StoredCommit[] {
  const onBase = history(repo, base);
  const found: StoredCommit[] = [];
  const seen = new Set<string>();
  const visit = (sha: string): void => {
    if (onBase.has(sha) || seen.has(sha)) return;
    seen.add(sha);
    const commit = repo.commits.get(sha);
    if (!commit) return;
    for (const parent of commit.parents) visit(parent);
    found.push(commit);
  };
  visit(head);
  return found;
}

const LINES = /(?<=\n)/;

/** One file merged line by line as git merges it; `conflict` when both sides changed the same lines. */
export function mergeFile(ours: string | undefined, base: string | undefined, theirs: string | undefined): { text: string | undefined } | 'conflict' {
  if (ours === theirs) return { text: ours };
  if (ours === base) return { text: theirs };
  if (theirs === base) return { text: ours };
  if (ours === undefined || theirs === undefined) return 'conflict';
  const regions = diff3Merge(ours.split(LINES), (base ?? '').split(LINES), theirs.split(LINES), { excludeFalseConflicts: true });
  if (regions.some((region) => region.conflict)) return 'conflict';
  return { text: regions.flatMap((region) => region.ok ?? []).join('') };
}

/** Two trees merged over their common base, path by path; undefined on a conflict. */
function mergeTrees(ours: Record<string, string>, base: Record<string, string>, theirs: Record<string, string>): Record<string, string> | undefined {
  const merged: Record<string, string> = {};
  for (const path of new Set([...Object.keys(ours), ...Object.keys(base), ...Object.keys(theirs)])) {
    const result = mergeFile(ours[path], base[path], theirs[path]);
    if (result === 'conflict') return undefined;
    if (result.text !== undefined) merged[path] = result.text;
  }
  return merged;
}

function sameFiles(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/** GitHub's 405 for a merge method the repository does not allow. */
const NOT_ALLOWED: Record<MergeMethod, string> = {
  merge: 'Merge commits are not allowed on this repository.',
  squash: 'Squash merges are not allowed on this repository.',
  rebase: 'Rebase merges are not allowed on this repository.'
};

function pullValidation(error: Record<string, unknown>): ApiError {
  return new ApiError(422, 'Validation Failed', { errors: [{ resource: 'PullRequest', ...error }] });
}

export class GitHubState {
  readonly policy: Policy;
  /** Where pull requests' html_url points: the emulator's own address. */
  private readonly url: string;
  private readonly repos = new Map<string, Repository>();
  private commitCount = 0;
  /** Told of every push and every pull request opened (the check runs and auto-merge listen). */
  readonly listeners: ((repo: Repository, change: RepoChange) => void)[] = [];

  constructor(url: string, policy: Partial<Policy> = {}) {
    this.url = url;
    this.policy = {
      token: 'ghs_emulator_token',
      allowActionsToCreatePullRequests: true,
      contentsWrite: true,
      pullRequestsWrite: true,
      protectedBranches: [],
      mergeMethods: ['merge', 'squash', 'rebase'],
      tokens: {},
      ...policy
    };
  }

  /** What the token may do; undefined: GitHub does not know it (401). */
  grantOf(token: string): TokenGrant | undefined {
    if (token === this.policy.token) return { kind: 'installation', write: true };
    return this.policy.tokens[token];
  }

  /** Whether the token may make a change that needs `needs`: the workflow's token by the policy's permissions, others by their grant. */
  mayWrite(token: string, needs: 'contents' | 'pulls'): boolean {
    if (token === this.policy.token) return needs === 'contents' ? this.policy.contentsWrite : this.policy.pullRequestsWrite;
    return this.policy.tokens[token]?.write === true;
  }

  setPolicy(policy: Partial<Policy>): void {
    Object.assign(this.policy, policy);
  }

  repo(owner: string, name: string): Repository | undefined {
    return this.repos.get(repoKey(owner, name));
  }

  createRepo(fullName: string, files: Record<string, string>, defaultBranch = 'main'): void {
    const [owner, name] = fullName.split('/');
    if (!owner || !name) throw new Error(`emulator: repository name must be owner/name, got ${fullName}`);
    const repo: Repository = {
      owner,
      name,
      defaultBranch,
      branches: new Map(),
      commits: new Map(),
      trees: new Map(),
      blobs: new Map(),
      pulls: [],
      nextNumber: 1,
      rules: new Map(),
      passedChecks: new Set(),
      allowAutoMerge: false,
      pushes: []
    };
    this.repos.set(repoKey(owner, name), repo);
    const commit = this.storeCommit(repo, this.storeTree(repo, files), [], 'Initial commit', '');
    repo.branches.set(defaultBranch, commit.sha);
  }

  /** A person's push: a commit of `files` over the branch's (a new branch starts from the default branch). */
  commitOnBranch(fullName: string, branch: string, files: Record<string, string>, message: string): string {
    const repo = this.mustRepo(fullName);
    const parent = repo.branches.get(branch) ?? (repo.branches.get(repo.defaultBranch) as string);
    const tree = this.storeTree(repo, { ...this.filesOf(repo, parent), ...files });
    const commit = this.storeCommit(repo, tree, [parent], message, '');
    this.setBranch(repo, branch, commit.sha, 'person');
    return commit.sha;
  }

  /**
   * Moves a branch and logs the push. A push by GITHUB_TOKEN starts no workflow: "events triggered by
   * the GITHUB_TOKEN … will not create a new workflow run" (docs.github.com/actions/concepts/security/github_token,
   * recorded/github.json facts.github-token-starts-no-workflow; a merge by it alike: aks129/HealthClawGuardrails#449,
   * dependabot/fetch-metadata#111).
   */
  setBranch(repo: Repository, branch: string, sha: string, by: string, extra: { at?: number; mergedPull?: number } = {}): void {
    const before = repo.branches.get(branch) ?? null;
    repo.branches.set(branch, sha);
    if (before === sha) return;
    const workflowToken = by === this.policy.token;
    const push: PushEvent = { branch, before, after: sha, by, at: new Date(extra.at ?? Date.now()).toISOString(), startsWorkflows: !workflowToken };
    if (workflowToken) push.why = githubFact('github-token-starts-no-workflow');
    if (extra.mergedPull !== undefined) push.mergedPull = extra.mergedPull;
    repo.pushes.push(push);
    for (const listener of this.listeners) listener(repo, { kind: 'push', push });
  }

  /** The pull request's GraphQL node id (its REST node_id), unique across repositories. */
  pullNodeId(repo: Repository, pull: EmulatedPull): string {
    return `PR_${sha1(fullNameOf(repo)).slice(0, 10)}_${pull.number}`;
  }

  /** The repository and pull request a GraphQL node id names. */
  pullByNodeId(id: string): { repo: Repository; pull: EmulatedPull } | undefined {
    for (const repo of this.repos.values()) {
      const pull = repo.pulls.find((candidate) => this.pullNodeId(repo, candidate) === id);
      if (pull) return { repo, pull };
    }
    return undefined;
  }

  /** Every repository (the check runs' clock walks them). */
  allRepos(): Repository[] {
    return [...this.repos.values()];
  }

  /** Settings → General → "Allow auto-merge". */
  setAllowAutoMerge(fullName: string, allowed: boolean): void {
    this.mustRepo(fullName).allowAutoMerge = allowed;
  }

  fileAt(fullName: string, ref: string, path: string): string | undefined {
    const repo = this.mustRepo(fullName);
    const sha = this.resolveRef(repo, ref);
    return sha ? this.filesOf(repo, sha)[path] : undefined;
  }

  branchHead(fullName: string, branch: string): string | undefined {
    return this.mustRepo(fullName).branches.get(branch);
  }

  commit(fullName: string, sha: string): { sha: string; parents: string[]; message: string; files: Record<string, string> } | undefined {
    const repo = this.mustRepo(fullName);
    const commit = repo.commits.get(sha);
    if (!commit) return undefined;
    return { sha, parents: [...commit.parents], message: commit.message, files: { ...this.filesOf(repo, sha) } };
  }

  /** Copies, so a test cannot change the state by what it reads. */
  pulls(fullName: string): EmulatedPull[] {
    return this.mustRepo(fullName).pulls.map((pull) => ({ ...pull, labels: [...pull.labels] }));
  }

  /** Copies of one pull request, or undefined. */
  pull(fullName: string, number: number): EmulatedPull | undefined {
    return this.pulls(fullName).find((pull) => pull.number === number);
  }

  closePull(fullName: string, number: number): void {
    const pull = this.mustRepo(fullName).pulls.find((p) => p.number === number);
    if (!pull) throw new Error(`emulator: no pull request #${number} in ${fullName}`);
    pull.state = 'closed';
    pull.autoMerge = undefined;
    pull.queuedAt = undefined;
    pull.closedAt = new Date().toISOString();
    pull.closedHead = this.mustRepo(fullName).branches.get(pull.head);
  }

  /** A branch name, or a commit sha the repository holds; undefined for anything else. */
  resolveRef(repo: Repository, ref: string): string | undefined {
    const branch = repo.branches.get(stripHeads(ref));
    if (branch) return branch;
    return repo.commits.has(ref) ? ref : undefined;
  }

  filesOf(repo: Repository, commitSha: string): Record<string, string> {
    const commit = repo.commits.get(commitSha);
    return commit ? (repo.trees.get(commit.tree) ?? {}) : {};
  }

  /** Creates `refs/heads/{branch}` at sha; returns the branch. */
  createBranch(repo: Repository, ref: string, sha: string, by = ''): string {
    if (!ref.startsWith('refs/') || ref.split('/').length < 3) {
      throw new ApiError(422, "Reference name must start with 'refs/' and have at least two slashes.");
    }
    if (!ref.startsWith('refs/heads/')) throw new ApiError(422, 'Reference update failed');
    const branch = ref.slice('refs/heads/'.length);
    if (repo.branches.has(branch)) throw new ApiError(422, 'Reference already exists');
    if (!repo.commits.has(sha)) throw new ApiError(422, 'Object does not exist');
    // A rule on the branch refuses its creation with this generic message.
    if (this.policy.protectedBranches.includes(branch)) throw new ApiError(422, 'Reference update failed');
    this.setBranch(repo, branch, sha, by);
    return branch;
  }

  moveBranch(repo: Repository, branch: string, sha: string, force: boolean, by = ''): void {
    const current = repo.branches.get(branch);
    if (current === undefined) throw new ApiError(422, 'Reference does not exist');
    if (!repo.commits.has(sha)) throw new ApiError(422, 'Object does not exist');
    if (this.policy.protectedBranches.includes(branch)) {
      // What GitHub answers for a branch protected by "require a pull request".
      const refusal = force
        ? 'Changes must be made through a pull request. Cannot force-push to this branch'
        : 'Changes must be made through a pull request.';
      throw new ApiError(422, refusal);
    }
    if (!force && !isAncestor(repo, current, sha)) throw new ApiError(422, 'Update is not a fast forward');
    this.setBranch(repo, branch, sha, by);
  }

  /** Stores the tree of `entries` over `baseTree` (if given); returns its sha and files. */
  createTree(repo: Repository, baseTree: string | undefined, entries: TreeEntry[]): { sha: string; files: Record<string, string> } {
    let files: Record<string, string> = {};
    if (baseTree !== undefined) {
      // Like GitHub, a commit id is accepted where a tree id is asked for.
      const base = repo.trees.get(baseTree) ?? repo.trees.get(repo.commits.get(baseTree)?.tree ?? '');
      if (!base) throw new ApiError(422, 'base_tree is not a valid tree oid');
      files = { ...base };
    }
    for (const { path, content, sha } of entries) {
      if (content !== undefined) {
        files[path] = content;
      } else if (sha === null) {
        if (!(path in files)) throw new ApiError(422, `Path ${path} does not exist in base tree`);
        delete files[path];
      } else {
        const blob = repo.blobs.get(sha ?? '');
        if (blob === undefined) throw new ApiError(422, 'Invalid tree info');
        files[path] = blob;
      }
    }
    return { sha: this.storeTree(repo, files), files };
  }

  createCommit(repo: Repository, tree: string, parents: string[], message: string, token: string): StoredCommit {
    if (!repo.trees.has(tree)) throw new ApiError(422, 'Tree SHA does not exist');
    for (const parent of parents) {
      if (!repo.commits.has(parent)) throw new ApiError(422, 'Parent SHA does not exist or is not a commit object');
    }
    return this.storeCommit(repo, tree, parents, message, token);
  }

  /** Pull requests in `state` ('all' for any), filtered by base and by head (`owner:branch` or a bare branch), newest first. */
  listPulls(repo: Repository, filter: { state: string; head: string | null; base: string | null }): EmulatedPull[] {
    const { state, head, base } = filter;
    const matches = repo.pulls.filter((pull) => {
      if (state !== 'all' && pull.state !== state) return false;
      if (base && pull.base !== base) return false;
      if (head) {
        const [owner, ref] = head.includes(':') ? head.split(/:(.*)/) : [repo.owner, head];
        if ((owner ?? '').toLowerCase() !== repo.owner.toLowerCase() || ref !== pull.head) return false;
      }
      return true;
    });
    return matches.sort((a, b) => b.number - a.number);
  }

  /** `head` may be `owner:branch`; `token` is the caller's, since the policy may refuse GitHub Actions. */
  createPull(repo: Repository, input: { head: string; base: string; title?: string; body?: string }, token: string): EmulatedPull {
    if (token.startsWith('ghs_') && !this.policy.allowActionsToCreatePullRequests) {
      throw new ApiError(403, 'GitHub Actions is not permitted to create or approve pull requests.');
    }
    const head = input.head.includes(':') ? input.head.slice(input.head.indexOf(':') + 1) : input.head;
    const { base, title } = input;
    if (!title) throw pullValidation({ field: 'title', code: 'missing_field' });
    const headSha = repo.branches.get(head);
    const baseSha = repo.branches.get(base);
    if (headSha === undefined) throw pullValidation({ field: 'head', code: 'invalid' });
    if (baseSha === undefined) throw pullValidation({ field: 'base', code: 'invalid' });
    if (repo.pulls.some((p) => p.state === 'open' && p.head === head && p.base === base)) {
      throw pullValidation({ code: 'custom', message: `A pull request already exists for ${repo.owner}:${head}.` });
    }
    if (isAncestor(repo, headSha, baseSha)) throw pullValidation({ code: 'custom', message: `No commits between ${base} and ${head}` });
    const number = repo.nextNumber++;
    const pull: EmulatedPull = {
      number,
      head,
      base,
      title,
      body: input.body ?? '',
      state: 'open',
      merged: false,
      approvals: 0,
      labels: [],
      html_url: `${this.url}/${fullNameOf(repo)}/pull/${number}`
    };
    if (token !== '') pull.openedBy = token;
    repo.pulls.push(pull);
    for (const listener of this.listeners) listener(repo, { kind: 'opened', pull, by: token });
    return pull;
  }

  /** Changes the fields given; a state other than open or closed is ignored. */
  updatePull(repo: Repository, number: string, change: { title?: string; body?: string; base?: string; state?: string }): EmulatedPull {
    const pull = this.findPull(repo, number);
    if (change.base !== undefined && !repo.branches.has(change.base)) throw pullValidation({ field: 'base', code: 'invalid' });
    pull.title = change.title ?? pull.title;
    pull.body = change.body ?? pull.body;
    pull.base = change.base ?? pull.base;
    if (change.state === 'open' || change.state === 'closed') pull.state = change.state;
    if (change.state === 'closed') {
      pull.closedAt = new Date().toISOString();
      pull.closedHead = repo.branches.get(pull.head);
      pull.autoMerge = undefined;
      pull.queuedAt = undefined;
    }
    return pull;
  }

  /** Adds the labels the pull request lacks; returns all its labels. */
  addLabels(repo: Repository, number: string, names: string[]): string[] {
    const pull = this.findPull(repo, number);
    for (const name of names) if (!pull.labels.includes(name)) pull.labels.push(name);
    return pull.labels;
  }

  /** One pull request, as `GET /pulls/{n}` reads it; 404 when there is none. */
  getPull(repo: Repository, number: string): EmulatedPull {
    return this.findPull(repo, number);
  }

  /** Removes one label, as GitHub does: 404 "Label does not exist" when the pull request lacks it; returns the labels left. */
  removeLabel(repo: Repository, number: string, name: string): string[] {
    const pull = this.findPull(repo, number);
    if (!pull.labels.includes(name)) throw new ApiError(404, 'Label does not exist');
    pull.labels = pull.labels.filter((label) => label !== name);
    return pull.labels;
  }

  /**
   * GitHub's `mergeable` of an open pull request: false when its branch and the base changed the same
   * lines (`mergeable_state: dirty`); null once it is closed, as GitHub leaves it uncomputed.
   */
  mergeability(repo: Repository, number: string): { mergeable: boolean | null; state: 'clean' | 'dirty' | 'blocked' | 'unknown' } {
    const pull = this.findPull(repo, number);
    const baseSha = repo.branches.get(pull.base);
    const headSha = repo.branches.get(pull.head);
    if (pull.state !== 'open' || !baseSha || !headSha) return { mergeable: null, state: 'unknown' };
    const common = mergeBase(repo, baseSha, headSha) as string;
    const merged = mergeTrees(this.filesOf(repo, baseSha), this.filesOf(repo, common), this.filesOf(repo, headSha));
    if (!merged) return { mergeable: false, state: 'dirty' };
    // `blocked`: it merges cleanly, but a required review or check is still missing (GitHub's
    // mergeable_state, docs.github.com/graphql/reference/enums#mergestatestatus: "The merge is blocked").
    return { mergeable: true, state: this.requirementsMet(repo, pull) ? 'clean' : 'blocked' };
  }

  /** Whether every rule of the base is met for the pull request's head: approving reviews and required checks (no bypass counted). */
  requirementsMet(repo: Repository, pull: EmulatedPull): boolean {
    const rules = repo.rules.get(pull.base);
    if (!rules) return true;
    const head = repo.branches.get(pull.head) ?? '';
    if (pull.approvals < (rules.requiredApprovingReviews ?? 0)) return false;
    return (rules.requiredStatusChecks ?? []).every((context) => repo.passedChecks.has(`${head} ${context}`));
  }

  /** `GET /compare/{base}...{head}`: how head stands to base, its own commits and the files it changed since their merge base. */
  compare(repo: Repository, baseRef: string, headRef: string) {
    const base = this.resolveRef(repo, baseRef);
    const head = this.resolveRef(repo, headRef);
    if (!base || !head) throw new ApiError(404, 'Not Found');
    const common = mergeBase(repo, base, head);
    if (!common) throw new ApiError(404, `No common ancestor between ${baseRef} and ${headRef}.`);
    const ahead = commitsBetween(repo, base, head);
    const behind = commitsBetween(repo, head, base);
    const before = this.filesOf(repo, common);
    const after = this.filesOf(repo, head);
    const files = [...new Set([...Object.keys(before), ...Object.keys(after)])]
      .filter((path) => before[path] !== after[path])
      .sort()
      .map((path) => ({ filename: path, status: before[path] === undefined ? 'added' : after[path] === undefined ? 'removed' : 'modified' }));
    const status = ahead.length === 0 && behind.length === 0 ? 'identical' : behind.length === 0 ? 'ahead' : ahead.length === 0 ? 'behind' : 'diverged';
    return { status, mergeBase: repo.commits.get(common) as StoredCommit, ahead, behindBy: behind.length, files };
  }

  /**
   * Merges a pull request by one of the three methods, as GitHub does: a merge commit (parents: the
   * base, then the head), one squashed commit, or the pull request's commits replayed one by one on
   * the base with its merge commits dropped. A rebase that would give another tree than a merge is
   * refused, as GitHub refuses it.
   */
  mergePull(repo: Repository, number: string, method: MergeMethod, token = '', options: MergeOptions = {}): { sha: string } {
    const pull = this.findPull(repo, number);
    if (!['merge', 'squash', 'rebase'].includes(method)) throw new ApiError(422, 'Validation Failed', { errors: [{ resource: 'PullRequest', field: 'merge_method', code: 'invalid' }] });
    if (!this.mergeMethodsOf(repo).includes(method)) throw new ApiError(405, NOT_ALLOWED[method]);
    if (pull.state !== 'open') throw new ApiError(405, 'Pull Request is not mergeable');
    if (options.sha !== undefined && options.sha !== repo.branches.get(pull.head)) throw new ApiError(409, githubSays('merge.head-branch-modified'));
    // A person who merges through the control API is a reviewer with the rights to: the rules are met.
    if (!options.person) this.checkRules(repo, pull, token, options);
    pull.closedHead = repo.branches.get(pull.head);
    const sha = this.mergedCommit(repo, pull, method, token, options);
    pull.state = 'closed';
    pull.merged = true;
    pull.mergedBy = options.person ? 'person' : token;
    pull.closedAt = new Date(options.at ?? Date.now()).toISOString();
    pull.autoMerge = undefined;
    pull.queuedAt = undefined;
    this.setBranch(repo, pull.base, sha, options.person ? 'person' : options.viaQueue ? 'merge-queue' : token, { at: options.at, mergedPull: pull.number });
    return { sha };
  }

  /** The merge methods the repository allows: its own setting, else the policy's. */
  mergeMethodsOf(repo: Repository): MergeMethod[] {
    return repo.mergeMethods ?? this.policy.mergeMethods;
  }

  /**
   * GitHub's 405 when the base's rules are not met, in its words; a token on the bypass list passes,
   * but not in auto-merge's merge, which never bypasses a rule (docs.github.com "Automatically merging a
   * pull request": it merges "when all required reviews are met and all required status checks have passed").
   */
  private checkRules(repo: Repository, pull: EmulatedPull, token: string, options: MergeOptions = {}): void {
    const rules = repo.rules.get(pull.base);
    if (!rules || (!options.auto && rules.bypass?.includes(token))) return;
    // "Require merge queue": the merge API refuses (pascalgn/automerge-action#235 quotes the words).
    if (rules.mergeQueue && !options.viaQueue) throw new ApiError(405, githubSays('merge.merge-queue-required'));
    const needed = rules.requiredApprovingReviews ?? 0;
    if (pull.approvals < needed) {
      throw new ApiError(405, needed === 1 ? githubSays('merge.approving-review-required') : `At least ${needed} approving reviews are required by reviewers with write access.`);
    }
    const head = repo.branches.get(pull.head) ?? '';
    const missing = rules.requiredStatusChecks?.find((context) => !repo.passedChecks.has(`${head} ${context}`));
    if (missing !== undefined) throw new ApiError(405, githubSays('merge.required-status-check-expected', { context: missing }));
  }

  /**
   * Test set-up: branch protection on `branch` (undefined removes it). GITHUB_TOKEN on the bypass list
   * is refused with GitHub's 422, as the rulesets API refuses the GitHub Actions app.
   */
  protectBranch(fullName: string, branch: string, rules: BranchRules | undefined): void {
    const repo = this.mustRepo(fullName);
    if (rules?.bypass?.includes(this.policy.token)) throw new ApiError(422, 'Validation Failed', { errors: [githubSays('bypass.github-actions-not-an-actor')] });
    if (rules) repo.rules.set(branch, rules);
    else repo.rules.delete(branch);
  }

  /** Test set-up: the merge methods this repository allows (Settings → General → Pull Requests). */
  setMergeMethods(fullName: string, methods: MergeMethod[]): void {
    this.mustRepo(fullName).mergeMethods = [...methods];
  }

  /** A person with write access approves the pull request. */
  approvePull(fullName: string, number: number): void {
    this.findPull(this.mustRepo(fullName), String(number)).approvals += 1;
  }

  /** A status check `context` succeeds on commit `sha`. */
  passCheck(fullName: string, sha: string, context: string): void {
    this.mustRepo(fullName).passedChecks.add(`${sha} ${context}`);
  }

  /** The files the base would hold after merging by `method`, or GitHub's refusal; nothing moves. */
  previewMerge(fullName: string, number: number, method: MergeMethod): Record<string, string> | string {
    const repo = this.mustRepo(fullName);
    try {
      return { ...this.filesOf(repo, this.mergedCommit(repo, this.findPull(repo, String(number)), method, '', {})) };
    } catch (error) {
      if (error instanceof ApiError) return error.message;
      throw error;
    }
  }

  /** The commit a merge by `method` would put on the base (stored, not yet on any branch). */
  private mergedCommit(repo: Repository, pull: EmulatedPull, method: MergeMethod, token: string, given: { title?: string; message?: string }): string {
    if (pull.state !== 'open') throw new ApiError(405, 'Pull Request is not mergeable');
    const baseSha = repo.branches.get(pull.base) as string;
    const headSha = repo.branches.get(pull.head);
    if (!headSha) throw new ApiError(405, 'Pull Request is not mergeable');
    const common = mergeBase(repo, baseSha, headSha) as string;
    const merged = mergeTrees(this.filesOf(repo, baseSha), this.filesOf(repo, common), this.filesOf(repo, headSha));
    if (!merged) throw new ApiError(405, 'Pull Request is not mergeable');
    if (method === 'merge') {
      const message = `${given.title ?? `Merge pull request #${pull.number} from ${repo.owner}/${pull.head}`}\n\n${given.message ?? pull.title}`;
      return this.storeCommit(repo, this.storeTree(repo, merged), [baseSha, headSha], message, token).sha;
    }
    if (method === 'squash') {
      const title = given.title ?? `${pull.title} (#${pull.number})`;
      return this.storeCommit(repo, this.storeTree(repo, merged), [baseSha], given.message ? `${title}\n\n${given.message}` : title, token).sha;
    }
    let sha = baseSha;
    for (const commit of commitsBetween(repo, baseSha, headSha)) {
      if (commit.parents.length !== 1) continue; // merge commits are dropped
      const replayed = mergeTrees(this.filesOf(repo, sha), this.filesOf(repo, commit.parents[0] as string), this.filesOf(repo, commit.sha));
      if (!replayed) throw new ApiError(405, "This branch can't be rebased");
      sha = this.storeCommit(repo, this.storeTree(repo, replayed), [sha], commit.message, token).sha;
    }
    if (!sameFiles(this.filesOf(repo, sha), merged)) throw new ApiError(405, "This branch can't be rebased");
    return sha;
  }

  /** The "Update branch" button: the base merged into the pull request's branch, a merge commit by the person who clicked. */
  updateBranch(repo: Repository, number: string): { sha: string } {
    const pull = this.findPull(repo, number);
    const baseSha = repo.branches.get(pull.base) as string;
    const headSha = repo.branches.get(pull.head);
    if (pull.state !== 'open' || !headSha) throw new ApiError(422, 'Pull request is not open');
    if (isAncestor(repo, baseSha, headSha)) throw new ApiError(422, 'There are no new commits on the base branch.');
    const common = mergeBase(repo, headSha, baseSha) as string;
    const merged = mergeTrees(this.filesOf(repo, headSha), this.filesOf(repo, common), this.filesOf(repo, baseSha));
    if (!merged) throw new ApiError(422, 'merge conflict between base and head');
    const commit = this.storeCommit(repo, this.storeTree(repo, merged), [headSha, baseSha], `Merge branch '${pull.base}' into ${pull.head}`, '');
    this.setBranch(repo, pull.head, commit.sha, 'person');
    return { sha: commit.sha };
  }

  /**
   * GraphQL's `updateRefs`: every ref moves only if it still points at its `beforeOid` (all zeros: must
   * not exist), all or none; a move that is not a fast-forward needs `force`.
   */
  updateRefs(repo: Repository, updates: { name: string; afterOid: string; beforeOid?: string; force?: boolean }[], by = ''): void {
    const ZERO = '0'.repeat(40);
    for (const update of updates) {
      if (!update.name.startsWith('refs/heads/')) throw new ApiError(422, `${update.name} is not a branch`);
      const branch = update.name.slice('refs/heads/'.length);
      const current = repo.branches.get(branch) ?? ZERO;
      if (update.beforeOid !== undefined && update.beforeOid !== current) {
        throw new ApiError(409, `${update.name} was expected at ${update.beforeOid} but is at ${current}`);
      }
      if (update.afterOid !== ZERO && !repo.commits.has(update.afterOid)) throw new ApiError(422, 'Object does not exist');
      if (this.policy.protectedBranches.includes(branch)) throw new ApiError(422, 'Changes must be made through a pull request.');
      if (!update.force && current !== ZERO && update.afterOid !== ZERO && !isAncestor(repo, current, update.afterOid)) {
        throw new ApiError(422, `${update.name} update is not a fast forward`);
      }
    }
    for (const update of updates) {
      const branch = update.name.slice('refs/heads/'.length);
      if (update.afterOid === ZERO) repo.branches.delete(branch);
      else this.setBranch(repo, branch, update.afterOid, by);
    }
  }

  /** The repository's GraphQL node id (repos.get's node_id). */
  nodeId(repo: Repository): string {
    return `R_${sha1(fullNameOf(repo)).slice(0, 16)}`;
  }

  repoByNodeId(id: string): Repository | undefined {
    return [...this.repos.values()].find((repo) => this.nodeId(repo) === id);
  }

  // Another run of the action writes the pull request branch: a commit of its own (with the action's
  // trailer) proposing the base's file unchanged, on top of the branch or new from the base. Like a
  // run that keeps the order rule, it does not replace a proposal another run already made.
  otherRunWrites(fullName: string, branch: string): void {
    const repo = this.repos.get(fullName.toLowerCase());
    if (!repo) return;
    const base = repo.branches.get(repo.defaultBranch) as string;
    const head = repo.branches.get(branch);
    if (head && !repo.commits.get(head)?.message.includes('(other run)')) return;
    const commit = this.storeCommit(repo, repo.commits.get(base)!.tree, head ? [base, head] : [base], 'Point the deployment at a new static export (other run)\n\nProposed-by: static-export-action', this.policy.token);
    this.setBranch(repo, branch, commit.sha, this.policy.token);
  }

  private findPull(repo: Repository, number: string): EmulatedPull {
    const pull = repo.pulls.find((p) => p.number === Number(number));
    if (!pull) throw new ApiError(404, 'Not Found');
    return pull;
  }

  mustRepo(fullName: string): Repository {
    const repo = this.repos.get(fullName.toLowerCase());
    if (!repo) throw new Error(`emulator: no repository ${fullName}`);
    return repo;
  }

  private storeTree(repo: Repository, files: Record<string, string>): string {
    const sha = treeSha(files);
    repo.trees.set(sha, { ...files });
    for (const content of Object.values(files)) repo.blobs.set(blobSha(content), content);
    return sha;
  }

  private storeCommit(repo: Repository, tree: string, parents: string[], message: string, token: string): StoredCommit {
    this.commitCount += 1;
    const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    // GitHub signs API commits made with a GitHub App installation token (ghs_...).
    const verified = token.startsWith('ghs_');
    const author = { ...(verified ? ACTIONS_BOT : USER), date };
    const committer = { ...(verified ? WEB_FLOW : USER), date };
    const sha = sha1(`commit\0${tree}\0${parents.join(',')}\0${message}\0${date}\0${this.commitCount}`);
    const commit: StoredCommit = { sha, tree, parents, message, author, committer, verified };
    repo.commits.set(sha, commit);
    return commit;
  }
}

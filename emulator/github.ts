// An emulator of the part of GitHub's REST API that keeps a pull request current.
// This file is the server and its routes, answering errors with GitHub's own bodies; the real state
// they change (branches, commits, trees, pull requests), which tests check afterwards, is in github-state.ts.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type GitHubFault, GitHubFaults, operationOf } from './github-faults.ts';
import { contractCheck } from './contract-check.ts';
import { FULL_REPOSITORY_EXTRAS, fileLinks, fullPullRequestExtras, labelExtras, pullRequestExtras, repositoryJson, restCommitExtras, userJson } from './github-json.ts';
import { ApiError, type BranchRules, type EmulatedPull, GitHubState, type MergeMethod, type Policy, type PushEvent, type Repository, type StoredCommit, type TreeEntry, blobSha, fullNameOf, repositoryPermissions, sha1 } from './github-state.ts';
import { type CheckFilter, type CheckRun, GitHubChecks } from './github-checks.ts';
import { type AutoMergeInput, autoMergeJson, autoMergeMutation, disableAutoMerge, enableAutoMerge, loginOf } from './github-auto-merge.ts';
import { listWorkflowRuns } from './github-runs.ts';

export interface GitHubEmulator {
  url: string;
  requests: { method: string; path: string; status: number }[];
  createRepo(fullName: string, files: Record<string, string>, defaultBranch?: string): void;
  commitOnBranch(fullName: string, branch: string, files: Record<string, string>, message: string): string;
  fileAt(fullName: string, ref: string, path: string): string | undefined;
  branchHead(fullName: string, branch: string): string | undefined;
  commit(
    fullName: string,
    sha: string
  ): { sha: string; parents: string[]; message: string; files: Record<string, string> } | undefined;
  pulls(fullName: string): EmulatedPull[];
  closePull(fullName: string, number: number): void;
  /** A person edits the pull request's title or body on GitHub. */
  editPull(fullName: string, number: number, change: { title?: string; body?: string }): void;
  /** A person (a reviewer with the rights to) merges the pull request by a method the repository allows; throws GitHub's refusal. */
  mergePull(fullName: string, number: number, method: MergeMethod): string;
  /** One pull request as the state holds it (a copy), with who merged it. */
  pull(fullName: string, number: number): EmulatedPull | undefined;
  /** Branch protection on a base: required reviews and checks, and who may bypass them (undefined removes it). */
  protectBranch(fullName: string, branch: string, rules: BranchRules | undefined): void;
  /** The merge methods this repository allows, over the policy's. */
  setMergeMethods(fullName: string, methods: MergeMethod[]): void;
  /** A person with write access approves the pull request. */
  approvePull(fullName: string, number: number): void;
  /** A status check succeeds on a commit (what waits on it, auto-merge, acts at once). */
  passCheck(fullName: string, sha: string, context: string): void;
  /** Settings → General → "Allow auto-merge" (REST allow_auto_merge); off by default, as on GitHub. */
  setAllowAutoMerge(fullName: string, allowed: boolean): void;
  /**
   * A person clicks "Approve workflows to run" on a pull request GITHUB_TOKEN opened or pushed: its held
   * runs on the head start (and run checkRunMs, or until completeChecks). Returns how many started.
   */
  approveWorkflows(fullName: string, number: number): number;
  /** Ends the running required-check runs that match (held ones stay held), by default with success; returns how many. */
  completeChecks(fullName: string, filter?: CheckFilter): number;
  /** The emulator's clock: runs due by `now` (default Date.now()) complete, and auto-merge and the queue act at their times. Every request and control call ticks first. */
  tick(now?: number): void;
  /** The required checks' runs of a repository, oldest first (copies). */
  checkRuns(fullName: string): CheckRun[];
  /** Every branch move as a `push` event, oldest first (copies): startsWorkflows false for GITHUB_TOKEN's. */
  pushes(fullName: string): PushEvent[];
  /** What merging by `method` would leave on the base, or GitHub's refusal; nothing moves. */
  previewMerge(fullName: string, number: number, method: MergeMethod): Record<string, string> | string;
  /** A person clicks "Update branch": the base is merged into the pull request's branch. */
  updateBranch(fullName: string, number: number): string;
  setPolicy(p: Partial<Policy>): void;
  /**
   * Holds the next call of `operation` (git.updateRef, pulls.merge, …) until `release()`: another run or
   * a person acts between a run's read and its write. `reached` resolves when the call arrives.
   */
  holdNext(operation: string): { reached: Promise<void>; release(): void };
  /** Arms a fault (see github-faults.ts); `clearFaults` disarms them all. */
  addFault(fault: GitHubFault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

interface Reply {
  status: number;
  body: unknown;
}

interface Call {
  state: GitHubState;
  checks: GitHubChecks;
  url: string; // the emulator's address, for the links in answers
  repo: Repository;
  params: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
  token: string;
}

interface Route {
  method: string;
  pattern: RegExp; // matched against the path after /repos/{owner}/{repo}
  doc: string;
  needs?: 'contents' | 'pulls';
  handle(call: Call): Reply;
}

const DOCS = 'https://docs.github.com/rest';

// GitHub wraps base64 content at 60 characters.
function base64Wrapped(content: string): string {
  const encoded = Buffer.from(content, 'utf8').toString('base64');
  return (encoded.match(/.{1,60}/g) ?? []).join('\n') + '\n';
}

function apiUrl(url: string, repo: Repository, rest: string): string {
  return `${url}/repos/${fullNameOf(repo)}${rest}`;
}

function refJson(url: string, repo: Repository, branch: string): unknown {
  const sha = repo.branches.get(branch) as string;
  return {
    ref: `refs/heads/${branch}`,
    node_id: `REF_${sha1(branch).slice(0, 12)}`,
    url: apiUrl(url, repo, `/git/refs/heads/${branch}`),
    object: { sha, type: 'commit', url: apiUrl(url, repo, `/git/commits/${sha}`) }
  };
}

function commitJson(url: string, repo: Repository, commit: StoredCommit): unknown {
  return {
    sha: commit.sha,
    node_id: `C_${commit.sha.slice(0, 12)}`,
    url: apiUrl(url, repo, `/git/commits/${commit.sha}`),
    html_url: `${url}/${fullNameOf(repo)}/commit/${commit.sha}`,
    author: commit.author,
    committer: commit.committer,
    message: commit.message,
    tree: { sha: commit.tree, url: apiUrl(url, repo, `/git/trees/${commit.tree}`) },
    parents: commit.parents.map((sha) => ({
      sha,
      url: apiUrl(url, repo, `/git/commits/${sha}`),
      html_url: `${url}/${fullNameOf(repo)}/commit/${sha}`
    })),
    verification: {
      verified: commit.verified,
      reason: commit.verified ? 'valid' : 'unsigned',
      signature: commit.verified ? '-----BEGIN PGP SIGNATURE-----\n\nemulated\n-----END PGP SIGNATURE-----\n' : null,
      payload: commit.verified ? `tree ${commit.tree}\n` : null,
      verified_at: commit.verified ? commit.committer.date : null
    }
  };
}

/** A commit as the REST commits API (and compare) shows it: the git object under `commit`. */
function restCommitJson(url: string, repo: Repository, commit: StoredCommit): unknown {
  const git = commitJson(url, repo, commit) as { parents: unknown };
  return { sha: commit.sha, url: apiUrl(url, repo, `/commits/${commit.sha}`), html_url: `${url}/${fullNameOf(repo)}/commit/${commit.sha}`, ...restCommitExtras(url, repo, commit), commit: { ...git, comment_count: 0 }, parents: git.parents };
}

function pullJson(url: string, repo: Repository, pull: EmulatedPull, state: GitHubState): unknown {
  const side = (ref: string, kept?: string): unknown => ({
    label: `${repo.owner}:${ref}`,
    ref,
    sha: kept ?? repo.branches.get(ref) ?? null,
    user: userJson(url, repo.owner),
    repo: repositoryJson(url, repo)
  });
  return {
    ...pullRequestExtras(url, repo, pull),
    ...fullPullRequestExtras(url, pull),
    url: apiUrl(url, repo, `/pulls/${pull.number}`),
    id: pull.number,
    node_id: state.pullNodeId(repo, pull),
    auto_merge: autoMergeJson(url, state, repo, pull),
    // Who opened it: GITHUB_TOKEN's bot, an App's, or a person's (a caller tells held workflows by it).
    user: userJson(url, loginOf(state, pull.openedBy ?? state.policy.token)),
    html_url: pull.html_url,
    number: pull.number,
    state: pull.state,
    title: pull.title,
    body: pull.body === '' ? null : pull.body,
    labels: pull.labels.map(labelJson(url, repo)),
    head: side(pull.head, pull.state === 'closed' ? pull.closedHead : undefined),
    base: side(pull.base),
    draft: false,
    merged: pull.merged,
    // The list of pull requests has no `merged`; a closed one tells a merge from a close by merged_at.
    merged_at: pull.merged ? pull.closedAt ?? null : null,
    closed_at: pull.state === 'closed' ? pull.closedAt ?? null : null
  };
}

function labelJson(url: string, repo: Repository): (name: string) => unknown {
  return (name) => ({ id: Number.parseInt(sha1(name).slice(0, 8), 16), ...labelExtras(url, repo, name), name, color: 'ededed', default: false, description: null });
}

/** A compared file's links, as compare shows them (the blob and raw links at the head). */
function compareFileLinks(url: string, repo: Repository, head: string, path: string): Record<string, string> {
  return { blob_url: `${url}/${fullNameOf(repo)}/blob/${head}/${path}`, raw_url: `${url}/${fullNameOf(repo)}/raw/${head}/${path}`, contents_url: apiUrl(url, repo, `/contents/${path}?ref=${head}`) };
}

function stringField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

const ROUTES: Route[] = [
  {
    method: 'GET',
    pattern: /^\/actions\/runs$/,
    doc: `${DOCS}/actions/workflow-runs#list-workflow-runs-for-a-repository`,
    handle: ({ state, checks, url, repo, query }) => ({ status: 200, body: listWorkflowRuns(url, repo, checks.list(repo), query, (token) => loginOf(state, token)) })
  },
  {
    method: 'GET',
    pattern: /^\/compare\/(.+?)\.\.\.(.+)$/,
    doc: `${DOCS}/commits/commits#compare-two-commits`,
    handle: ({ state, url, repo, params }) => {
      const compared = state.compare(repo, params[0] as string, params[1] as string);
      return {
        status: 200,
        body: {
          url: apiUrl(url, repo, `/compare/${params[0]}...${params[1]}`),
          html_url: `${url}/${fullNameOf(repo)}/compare/${params[0]}...${params[1]}`,
          permalink_url: `${url}/${fullNameOf(repo)}/compare/${compared.mergeBase.sha}...${compared.ahead.at(-1)?.sha ?? compared.mergeBase.sha}`,
          diff_url: `${url}/${fullNameOf(repo)}/compare/${params[0]}...${params[1]}.diff`,
          patch_url: `${url}/${fullNameOf(repo)}/compare/${params[0]}...${params[1]}.patch`,
          base_commit: restCommitJson(url, repo, compared.mergeBase),
          status: compared.status,
          ahead_by: compared.ahead.length,
          behind_by: compared.behindBy,
          total_commits: compared.ahead.length,
          merge_base_commit: restCommitJson(url, repo, compared.mergeBase),
          commits: compared.ahead.map((commit) => restCommitJson(url, repo, commit)),
          files: compared.files.map((file) => ({ ...file, sha: null, additions: 0, deletions: 0, changes: 0, ...compareFileLinks(url, repo, params[1] as string, file.filename) }))
        }
      };
    }
  },
  {
    method: 'PUT',
    pattern: /^\/pulls\/(\d+)\/merge$/,
    doc: `${DOCS}/pulls/pulls#merge-a-pull-request`,
    needs: 'contents',
    handle: ({ state, repo, params, body, token }) => {
      const method = (stringField(body, 'merge_method') ?? 'merge') as MergeMethod;
      const given = { sha: stringField(body, 'sha'), title: stringField(body, 'commit_title'), message: stringField(body, 'commit_message') };
      const { sha } = state.mergePull(repo, params[0] as string, method, token, given);
      return { status: 200, body: { sha, merged: true, message: 'Pull Request successfully merged' } };
    }
  },
  {
    method: 'PUT',
    pattern: /^\/pulls\/(\d+)\/update-branch$/,
    doc: `${DOCS}/pulls/pulls#update-a-pull-request-branch`,
    needs: 'contents',
    handle: ({ state, url, repo, params }) => {
      state.updateBranch(repo, params[0] as string);
      return { status: 202, body: { message: 'Updating pull request branch.', url: apiUrl(url, repo, `/pulls/${params[0]}`) } };
    }
  },
  {
    method: 'GET',
    pattern: /^$/,
    doc: `${DOCS}/repos/repos#get-a-repository`,
    handle: ({ state, url, repo, token }) => {
      // As GitHub does: a person's token is told its role here, an installation token nothing.
      const permissions = repositoryPermissions(state.grantOf(token));
      return {
        status: 200,
        body: {
          ...repositoryJson(url, repo),
          ...FULL_REPOSITORY_EXTRAS,
          // Settings → General → Pull Requests: the merge methods the repository allows.
          allow_merge_commit: state.mergeMethodsOf(repo).includes('merge'),
          allow_squash_merge: state.mergeMethodsOf(repo).includes('squash'),
          allow_rebase_merge: state.mergeMethodsOf(repo).includes('rebase'),
          allow_auto_merge: repo.allowAutoMerge,
          ...(permissions ? { permissions } : {})
        }
      };
    }
  },
  {
    method: 'GET',
    pattern: /^\/branches\/(.+)$/,
    doc: `${DOCS}/branches/branches#get-a-branch`,
    handle: ({ url, repo, params }) => {
      const branch = params[0] as string;
      const sha = repo.branches.get(branch);
      if (sha === undefined) throw new ApiError(404, 'Branch not found');
      const branchUrl = apiUrl(url, repo, `/branches/${branch}`);
      return {
        status: 200,
        body: {
          name: branch,
          commit: restCommitJson(url, repo, repo.commits.get(sha)!),
          _links: { self: branchUrl, html: `${url}/${fullNameOf(repo)}/tree/${branch}` },
          protected: repo.rules.has(branch),
          protection: { enabled: repo.rules.has(branch), required_status_checks: { enforcement_level: repo.rules.has(branch) ? 'non_admins' : 'off', contexts: [], checks: [] } },
          protection_url: `${branchUrl}/protection`
        }
      };
    }
  },
  {
    method: 'GET',
    pattern: /^\/git\/ref\/heads\/(.+)$/,
    doc: `${DOCS}/git/refs#get-a-reference`,
    handle: ({ url, repo, params }) => {
      const branch = params[0] as string;
      if (!repo.branches.has(branch)) throw new ApiError(404, 'Not Found');
      return { status: 200, body: refJson(url, repo, branch) };
    }
  },
  {
    method: 'POST',
    pattern: /^\/git\/refs$/,
    doc: `${DOCS}/git/refs#create-a-reference`,
    needs: 'contents',
    handle: ({ state, url, repo, body, token }) => {
      const branch = state.createBranch(repo, stringField(body, 'ref') ?? '', stringField(body, 'sha') ?? '', token);
      return { status: 201, body: refJson(url, repo, branch) };
    }
  },
  {
    method: 'PATCH',
    pattern: /^\/git\/refs\/heads\/(.+)$/,
    doc: `${DOCS}/git/refs#update-a-reference`,
    needs: 'contents',
    handle: ({ state, url, repo, params, body, token }) => {
      const branch = params[0] as string;
      state.moveBranch(repo, branch, stringField(body, 'sha') ?? '', body['force'] === true, token);
      return { status: 200, body: refJson(url, repo, branch) };
    }
  },
  {
    method: 'GET',
    pattern: /^\/git\/commits\/([0-9a-f]{40})$/,
    doc: `${DOCS}/git/commits#get-a-commit-object`,
    handle: ({ url, repo, params }) => {
      const commit = repo.commits.get(params[0] as string);
      if (!commit) throw new ApiError(404, 'Not Found');
      return { status: 200, body: commitJson(url, repo, commit) };
    }
  },
  {
    method: 'POST',
    pattern: /^\/git\/trees$/,
    doc: `${DOCS}/git/trees#create-a-tree`,
    needs: 'contents',
    handle: ({ state, url, repo, body }) => {
      const given = Array.isArray(body['tree']) ? (body['tree'] as Record<string, unknown>[]) : [];
      const entries: TreeEntry[] = given.map((entry) => ({
        path: stringField(entry, 'path') ?? '',
        content: stringField(entry, 'content'),
        sha: entry['sha'] === null ? null : stringField(entry, 'sha')
      }));
      const { sha, files } = state.createTree(repo, stringField(body, 'base_tree'), entries);
      const tree = Object.keys(files)
        .sort()
        .map((path) => ({
          path,
          mode: '100644',
          type: 'blob',
          sha: blobSha(files[path] as string),
          size: Buffer.byteLength(files[path] as string),
          url: apiUrl(url, repo, `/git/blobs/${blobSha(files[path] as string)}`)
        }));
      return { status: 201, body: { sha, url: apiUrl(url, repo, `/git/trees/${sha}`), tree, truncated: false } };
    }
  },
  {
    method: 'POST',
    pattern: /^\/git\/commits$/,
    doc: `${DOCS}/git/commits#create-a-commit`,
    needs: 'contents',
    handle: ({ state, url, repo, body, token }) => {
      const parents = Array.isArray(body['parents']) ? (body['parents'] as string[]) : [];
      const commit = state.createCommit(repo, stringField(body, 'tree') ?? '', parents, stringField(body, 'message') ?? '', token);
      return { status: 201, body: commitJson(url, repo, commit) };
    }
  },
  {
    method: 'GET',
    pattern: /^\/contents(?:\/(.*))?$/,
    doc: `${DOCS}/repos/contents#get-repository-content`,
    handle: ({ state, url, repo, params, query }) => {
      const path = (params[0] ?? '').replace(/\/$/, '');
      const ref = query.get('ref') ?? repo.defaultBranch;
      const sha = state.resolveRef(repo, ref);
      if (!sha) throw new ApiError(404, `No commit found for the ref ${ref}`);
      const files = state.filesOf(repo, sha);
      const content = files[path];
      const links = (p: string): Record<string, string> => ({
        url: apiUrl(url, repo, `/contents/${p}?ref=${ref}`),
        html_url: `${url}/${fullNameOf(repo)}/blob/${ref}/${p}`
      });
      if (content !== undefined) {
        // Above 1 MB GitHub sends no content: encoding "none" and an empty string.
        const large = Buffer.byteLength(content) > 1024 * 1024;
        return {
          status: 200,
          body: {
            type: 'file',
            encoding: large ? 'none' : 'base64',
            size: Buffer.byteLength(content),
            name: path.split('/').pop(),
            path,
            content: large ? '' : base64Wrapped(content),
            sha: blobSha(content),
            ...links(path),
            ...fileLinks(url, repo, ref, path, blobSha(content))
          }
        };
      }
      // A directory answers with the list of its entries.
      const prefix = path === '' ? '' : `${path}/`;
      const children = new Map<string, 'file' | 'dir'>();
      for (const file of Object.keys(files)) {
        if (!file.startsWith(prefix)) continue;
        const [first, ...rest] = file.slice(prefix.length).split('/');
        children.set(first as string, rest.length > 0 ? 'dir' : 'file');
      }
      if (children.size === 0) throw new ApiError(404, 'Not Found');
      const entries = [...children].sort().map(([name, type]) => ({ type, name, path: `${prefix}${name}`, size: 0, sha: sha1(`${sha}:${prefix}${name}`), ...links(`${prefix}${name}`), ...fileLinks(url, repo, ref, `${prefix}${name}`, null) }));
      return { status: 200, body: entries };
    }
  },
  {
    method: 'GET',
    pattern: /^\/pulls$/,
    doc: `${DOCS}/pulls/pulls#list-pull-requests`,
    handle: ({ state, url, repo, query }) => {
      const pulls = state.listPulls(repo, { state: query.get('state') ?? 'open', head: query.get('head'), base: query.get('base') });
      return { status: 200, body: pulls.map((p) => pullJson(url, repo, p, state)) };
    }
  },
  {
    method: 'POST',
    pattern: /^\/pulls$/,
    doc: `${DOCS}/pulls/pulls#create-a-pull-request`,
    needs: 'pulls',
    handle: ({ state, url, repo, body, token }) => {
      const input = { head: stringField(body, 'head') ?? '', base: stringField(body, 'base') ?? '', title: stringField(body, 'title'), body: stringField(body, 'body') };
      return { status: 201, body: pullJson(url, repo, state.createPull(repo, input, token), state) };
    }
  },
  {
    method: 'GET',
    pattern: /^\/pulls\/(\d+)$/,
    doc: `${DOCS}/pulls/pulls#get-a-pull-request`,
    handle: ({ state, url, repo, params }) => {
      const pull = state.getPull(repo, params[0] as string);
      // Only the single pull request carries GitHub's mergeability; the list does not.
      const { mergeable, state: mergeableState } = state.mergeability(repo, params[0] as string);
      return { status: 200, body: { ...(pullJson(url, repo, pull, state) as object), mergeable, mergeable_state: mergeableState } };
    }
  },
  {
    method: 'PATCH',
    pattern: /^\/pulls\/(\d+)$/,
    doc: `${DOCS}/pulls/pulls#update-a-pull-request`,
    needs: 'pulls',
    handle: ({ state, url, repo, params, body }) => {
      const change = { title: stringField(body, 'title'), body: stringField(body, 'body'), base: stringField(body, 'base'), state: stringField(body, 'state') };
      return { status: 200, body: pullJson(url, repo, state.updatePull(repo, params[0] as string, change), state) };
    }
  },
  {
    method: 'POST',
    pattern: /^\/issues\/(\d+)\/labels$/,
    doc: `${DOCS}/issues/labels#add-labels-to-an-issue`,
    needs: 'pulls',
    handle: ({ state, url, repo, params, body }) => {
      // GitHub takes either {labels: [...]} or a bare array of names.
      const given = Array.isArray(body) ? body : body['labels'];
      const names = Array.isArray(given) ? given.map(String) : [];
      return { status: 200, body: state.addLabels(repo, params[0] as string, names).map(labelJson(url, repo)) };
    }
  },
  {
    method: 'DELETE',
    pattern: /^\/issues\/(\d+)\/labels\/(.+)$/,
    doc: `${DOCS}/issues/labels#remove-a-label-from-an-issue`,
    needs: 'pulls',
    handle: ({ state, url, repo, params }) => ({ status: 200, body: state.removeLabel(repo, params[0] as string, params[1] as string).map(labelJson(url, repo)) })
  }
];

/**
 * GitHub's GraphQL endpoint, for the mutations the emulator models, each with its input in
 * `variables.input`: `updateRefs`, a compare-and-swap of branches, and auto-merge's
 * `enablePullRequestAutoMerge` and `disablePullRequestAutoMerge` (github-auto-merge.ts). Like GitHub,
 * it answers 200 with `errors` when the mutation is refused.
 */
function graphql(state: GitHubState, checks: GitHubChecks, raw: string, token: string): Reply {
  let request: { query?: string; variables?: { input?: { repositoryId?: string; refUpdates?: { name: string; afterOid: string; beforeOid?: string; force?: boolean }[] } & AutoMergeInput } };
  try {
    request = JSON.parse(raw) as typeof request;
  } catch {
    throw new ApiError(400, 'Problems parsing JSON');
  }
  const input = request.variables?.input;
  const autoMerge = autoMergeMutation(request.query ?? '');
  if (autoMerge && input) {
    return { status: 200, body: autoMerge === 'enablePullRequestAutoMerge' ? enableAutoMerge(state, checks, input, token) : disableAutoMerge(state, input, token) };
  }
  if (!/\bupdateRefs\b/.test(request.query ?? '') || !input) {
    return { status: 200, body: { errors: [{ message: 'The emulator answers only updateRefs, enablePullRequestAutoMerge and disablePullRequestAutoMerge, with their input in variables.input' }] } };
  }
  const repo = state.repoByNodeId(input.repositoryId ?? '');
  if (!repo) return { status: 200, body: { data: { updateRefs: null }, errors: [{ type: 'NOT_FOUND', message: `Could not resolve to a node with the global id of '${input.repositoryId}'` }] } };
  if (!state.mayWrite(token, 'contents')) return { status: 200, body: { data: { updateRefs: null }, errors: [{ type: 'FORBIDDEN', message: notAccessible(state, token) }] } };
  try {
    state.updateRefs(repo, input.refUpdates ?? [], token);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: 200, body: { data: { updateRefs: null }, errors: [{ type: 'UNPROCESSABLE', message: error.message }] } };
  }
  return { status: 200, body: { data: { updateRefs: { clientMutationId: null } } } };
}

/** GitHub's refusal of a write the token may not make, in its words for the kind of token. */
function notAccessible(state: GitHubState, token: string): string {
  return state.grantOf(token)?.kind === 'user' ? 'Resource not accessible by personal access token' : 'Resource not accessible by integration';
}

function route(method: string, rest: string): { route: Route; params: string[] } | undefined {
  for (const candidate of ROUTES) {
    if (candidate.method !== method) continue;
    const match = candidate.pattern.exec(rest);
    if (match) return { route: candidate, params: match.slice(1).map((p) => p ?? '') };
  }
  return undefined;
}

/** `port`: a fixed port for scripts that start it beside a workflow (0 or none: any free port). */
export async function startGitHubEmulator({ port = 0, ...options }: Partial<Policy> & { port?: number } = {}): Promise<GitHubEmulator> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const state = new GitHubState(url, options);
  const checks = new GitHubChecks(state);
  /** A control call: the clock first, so what was due before it happens before it. */
  const control = <T>(act: () => T): T => {
    checks.tick();
    return act();
  };
  const requests: { method: string; path: string; status: number }[] = [];
  let requestCount = 0;
  const faults = new GitHubFaults();
  const checkContract = contractCheck('github');
  const holds: { operation: string; arrived(): void; released: Promise<void> }[] = [];

  function answer(method: string, pathname: string, query: URLSearchParams, headers: IncomingMessage['headers'], raw: string): Reply {
    let doc = DOCS;
    try {
      const token = /^(?:token|bearer)\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]?.trim() ?? '';
      if (!state.grantOf(token)) throw new ApiError(401, 'Bad credentials');
      checks.tick();
      if (method === 'POST' && pathname === '/graphql') return graphql(state, checks, raw, token);
      const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(pathname);
      if (!repoPath) throw new ApiError(404, 'Not Found');
      // Octokit escapes the slashes inside {ref} and {path}, so match the decoded path.
      const found = route(method, decodeURIComponent(repoPath[3] ?? ''));
      if (!found) throw new ApiError(404, 'Not Found');
      doc = found.route.doc;
      const repo = state.repo(decodeURIComponent(repoPath[1] as string), decodeURIComponent(repoPath[2] as string));
      if (!repo) throw new ApiError(404, 'Not Found');
      if (found.route.needs && !state.mayWrite(token, found.route.needs)) {
        throw new ApiError(403, notAccessible(state, token));
      }
      let body: Record<string, unknown> = {};
      if (raw.trim() !== '') {
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          throw new ApiError(400, 'Problems parsing JSON');
        }
      }
      return found.route.handle({ state, checks, url, repo, params: found.params, query, body, token });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.status, body: { message: error.message, ...error.extra, documentation_url: doc, status: String(error.status) } };
    }
  }

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const method = request.method ?? 'GET';
      const target = new URL(request.url ?? '/', 'http://emulator');
      const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(target.pathname);
      const operation = operationOf(method, repoPath ? decodeURIComponent(repoPath[3] ?? '') : target.pathname);
      const held = holds.findIndex((hold) => hold.operation === operation);
      if (held < 0) return serve(operation);
      const [hold] = holds.splice(held, 1);
      hold!.arrived();
      // Answered once released, as the state then is.
      void hold!.released.then(() => serve(operation));
    });
    const serve = (operation: string | undefined) => {
      const method = request.method ?? 'GET';
      const target = new URL(request.url ?? '/', 'http://emulator');
      const path = target.pathname + target.search;
      const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(target.pathname);
      const fault = faults.take(operation);
      requestCount += 1;
      const requestId = `EMU0:${String(requestCount).padStart(6, '0')}`;
      const send = (status: number, body: string, headers: Record<string, string> = {}) => {
        requests.push({ method, path, status });
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-github-request-id': requestId, 'x-github-media-type': 'github.v3; format=json', ...headers });
        response.end(body);
      };
      const respond = () => {
        let reply: Reply;
        try {
          reply = answer(method, target.pathname, target.searchParams, request.headers, Buffer.concat(chunks).toString('utf8'));
        } catch (error) {
          reply = { status: 500, body: { message: `emulator error: ${String(error)}`, documentation_url: DOCS, status: '500' } };
        }
        checkContract?.({ method, path, requestBody: Buffer.concat(chunks).toString('utf8'), status: reply.status, answer: reply.body });
        if (fault?.kind === 'lost') {
          // Done, but the answer never arrives.
          requests.push({ method, path, status: 0 });
          request.socket.destroy();
          return;
        }
        send(reply.status, JSON.stringify(reply.body));
      };
      const limited = (status: number, message: string, headers: Record<string, string>) =>
        send(status, JSON.stringify({ message, documentation_url: `${DOCS}/using-the-rest-api/rate-limits-for-the-rest-api`, status: String(status) }), headers);
      switch (fault?.kind) {
        case undefined:
        case 'lost':
          return respond();
        case '502':
        case '503':
          return send(Number(fault.kind), `<html><head><title>${fault.kind}</title></head><body><h1>${fault.kind === '502' ? 'Bad Gateway' : 'Service Unavailable'}</h1></body></html>`, { 'content-type': 'text/html' });
        case 'reset':
          requests.push({ method, path, status: 0 });
          request.socket.destroy();
          return;
        case 'slow':
          setTimeout(respond, fault.value ?? 3000);
          return;
        case 'secondary':
          return limited(403, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', { 'retry-after': String(fault.value ?? 1) });
        case '429':
          return limited(429, 'Too many requests', { 'retry-after': String(fault.value ?? 1) });
        case 'primary':
          return limited(403, 'API rate limit exceeded for installation ID 1.', {
            'x-ratelimit-limit': '5000',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + (fault.value ?? 1))
          });
        case 'unresolved':
          return send(422, JSON.stringify({ message: "Could not resolve to a node with the global id of 'PR_kwDOemulated'.", documentation_url: DOCS, status: '422' }));
        case 'unresolved-errors':
          return send(422, JSON.stringify({ message: 'Validation Failed', errors: [{ message: "Could not resolve to a node with the global id of 'PR_kwDOemulated'." }], documentation_url: DOCS, status: '422' }));
        case 'base-modified':
          return send(405, JSON.stringify({ message: 'Base branch was modified. Review and try the merge again.', documentation_url: `${DOCS}/pulls/pulls#merge-a-pull-request`, status: '405' }));
        case 'computing':
          return send(405, JSON.stringify({ message: 'Pull Request is not mergeable', documentation_url: `${DOCS}/pulls/pulls#merge-a-pull-request`, status: '405' }));
        case 'exists':
          return send(422, JSON.stringify({ message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for an unlisted branch.' }], documentation_url: DOCS, status: '422' }));
        case 'writer':
          if (repoPath) state.otherRunWrites(`${decodeURIComponent(repoPath[1]!)}/${decodeURIComponent(repoPath[2]!)}`, fault.branch ?? 'static-export/deploy-values.yaml');
          return respond();
      }
    };
  });

  return {
    url,
    requests,
    createRepo: (fullName, files, defaultBranch) => state.createRepo(fullName, files, defaultBranch),
    commitOnBranch: (fullName, branch, files, message) => control(() => state.commitOnBranch(fullName, branch, files, message)),
    fileAt: (fullName, ref, path) => control(() => state.fileAt(fullName, ref, path)),
    branchHead: (fullName, branch) => control(() => state.branchHead(fullName, branch)),
    commit: (fullName, sha) => control(() => state.commit(fullName, sha)),
    pulls: (fullName) => control(() => state.pulls(fullName)),
    closePull: (fullName, number) => control(() => state.closePull(fullName, number)),
    editPull: (fullName, number, change) => control(() => void state.updatePull(state.mustRepo(fullName), String(number), change)),
    mergePull: (fullName, number, method) => control(() => state.mergePull(state.mustRepo(fullName), String(number), method, '', { person: true }).sha),
    pull: (fullName, number) => control(() => state.pull(fullName, number)),
    protectBranch: (fullName, branch, rules) => control(() => state.protectBranch(fullName, branch, rules)),
    setMergeMethods: (fullName, methods) => state.setMergeMethods(fullName, methods),
    // A review or a check that passes may be the last thing auto-merge waited for.
    approvePull: (fullName, number) =>
      control(() => {
        state.approvePull(fullName, number);
        checks.settle(state.mustRepo(fullName));
      }),
    passCheck: (fullName, sha, context) =>
      control(() => {
        state.passCheck(fullName, sha, context);
        checks.settle(state.mustRepo(fullName));
      }),
    setAllowAutoMerge: (fullName, allowed) => state.setAllowAutoMerge(fullName, allowed),
    approveWorkflows: (fullName, number) => control(() => checks.approveWorkflows(state.mustRepo(fullName), number)),
    completeChecks: (fullName, filter = {}) => control(() => checks.complete(state.mustRepo(fullName), filter)),
    tick: (now) => checks.tick(now),
    checkRuns: (fullName) => control(() => checks.list(state.mustRepo(fullName))),
    pushes: (fullName) => control(() => state.mustRepo(fullName).pushes.map((push) => ({ ...push }))),
    previewMerge: (fullName, number, method) => state.previewMerge(fullName, number, method),
    updateBranch: (fullName, number) => control(() => state.updateBranch(state.mustRepo(fullName), String(number)).sha),
    setPolicy: (p) => state.setPolicy(p),
    holdNext(operation) {
      let arrived!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.push({ operation, arrived, released });
      return { reached, release };
    },
    addFault(fault) {
      faults.arm(fault);
    },
    clearFaults() {
      faults.clear();
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    }
  };
}

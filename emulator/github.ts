// An emulator of the part of GitHub's REST API that keeps a pull request current.
// It keeps real state (branches, commits, trees, pull requests) so tests can check
// what a run left behind, and answers errors with GitHub's own bodies.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type GitHubFault, GitHubFaults, operationOf } from './github-faults.ts';

export interface Policy {
  token: string;
  allowActionsToCreatePullRequests: boolean;
  contentsWrite: boolean;
  pullRequestsWrite: boolean;
  protectedBranches: string[];
}

export interface EmulatedPull {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  html_url: string;
}

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
  setPolicy(p: Partial<Policy>): void;
  /** Arms a fault (see github-faults.ts); `clearFaults` disarms them all. */
  addFault(fault: GitHubFault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

interface Person {
  name: string;
  email: string;
  date: string;
}

interface StoredCommit {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
  author: Person;
  committer: Person;
  verified: boolean;
}

interface Repository {
  owner: string;
  name: string;
  defaultBranch: string;
  branches: Map<string, string>;
  commits: Map<string, StoredCommit>;
  trees: Map<string, Record<string, string>>; // tree sha → path → file content
  blobs: Map<string, string>;
  pulls: EmulatedPull[];
  nextNumber: number;
}

// GitHub answers every error as {message, documentation_url, status}.
class ApiError extends Error {
  status: number;
  extra: Record<string, unknown>;
  constructor(status: number, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
  }
}

interface Reply {
  status: number;
  body: unknown;
}

interface Call {
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
const ACTIONS_BOT: Omit<Person, 'date'> = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com'
};
const WEB_FLOW: Omit<Person, 'date'> = { name: 'GitHub', email: 'noreply@github.com' };
const USER: Omit<Person, 'date'> = { name: 'Emulated User', email: 'user@example.com' };

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

// The blob id is git's real one, so tests may compare it with `git hash-object`.
function blobSha(content: string): string {
  return sha1(`blob ${Buffer.byteLength(content)}\0${content}`);
}

function treeSha(files: Record<string, string>): string {
  const lines = Object.keys(files)
    .sort()
    .map((path) => `${path}\0${blobSha(files[path] ?? '')}`);
  return sha1(`tree\0${lines.join('\n')}`);
}

// GitHub wraps base64 content at 60 characters.
function base64Wrapped(content: string): string {
  const encoded = Buffer.from(content, 'utf8').toString('base64');
  return (encoded.match(/.{1,60}/g) ?? []).join('\n') + '\n';
}

function stripHeads(ref: string): string {
  return ref.replace(/^refs\//, '').replace(/^heads\//, '');
}

export async function startGitHubEmulator(options: Partial<Policy> = {}): Promise<GitHubEmulator> {
  const policy: Policy = {
    token: 'ghs_emulator_token',
    allowActionsToCreatePullRequests: true,
    contentsWrite: true,
    pullRequestsWrite: true,
    protectedBranches: [],
    ...options
  };
  const repos = new Map<string, Repository>();
  const requests: { method: string; path: string; status: number }[] = [];
  let commitCount = 0;
  let requestCount = 0;
  const faults = new GitHubFaults();
  let url = '';

  function repoKey(owner: string, name: string): string {
    return `${owner}/${name}`.toLowerCase();
  }

  function mustRepo(fullName: string): Repository {
    const repo = repos.get(fullName.toLowerCase());
    if (!repo) throw new Error(`emulator: no repository ${fullName}`);
    return repo;
  }

  function fullNameOf(repo: Repository): string {
    return `${repo.owner}/${repo.name}`;
  }

  function storeTree(repo: Repository, files: Record<string, string>): string {
    const sha = treeSha(files);
    repo.trees.set(sha, { ...files });
    for (const content of Object.values(files)) repo.blobs.set(blobSha(content), content);
    return sha;
  }

  function storeCommit(
    repo: Repository,
    tree: string,
    parents: string[],
    message: string,
    token: string
  ): StoredCommit {
    commitCount += 1;
    const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    // GitHub signs API commits made with a GitHub App installation token (ghs_...).
    const verified = token.startsWith('ghs_');
    const author = { ...(verified ? ACTIONS_BOT : USER), date };
    const committer = { ...(verified ? WEB_FLOW : USER), date };
    const sha = sha1(`commit\0${tree}\0${parents.join(',')}\0${message}\0${date}\0${commitCount}`);
    const commit: StoredCommit = { sha, tree, parents, message, author, committer, verified };
    repo.commits.set(sha, commit);
    return commit;
  }

  function filesOf(repo: Repository, commitSha: string): Record<string, string> {
    const commit = repo.commits.get(commitSha);
    return commit ? (repo.trees.get(commit.tree) ?? {}) : {};
  }

  function resolveRef(repo: Repository, ref: string): string | undefined {
    const branch = repo.branches.get(stripHeads(ref));
    if (branch) return branch;
    return repo.commits.has(ref) ? ref : undefined;
  }

  // True when `ancestor` is `sha` or reachable from it through parents.
  function isAncestor(repo: Repository, ancestor: string, sha: string): boolean {
    const seen = new Set<string>();
    const queue = [sha];
    while (queue.length > 0) {
      const current = queue.pop() as string;
      if (current === ancestor) return true;
      if (seen.has(current)) continue;
      seen.add(current);
      queue.push(...(repo.commits.get(current)?.parents ?? []));
    }
    return false;
  }

  function apiUrl(repo: Repository, rest: string): string {
    return `${url}/repos/${fullNameOf(repo)}${rest}`;
  }

  function refJson(repo: Repository, branch: string): unknown {
    const sha = repo.branches.get(branch) as string;
    return {
      ref: `refs/heads/${branch}`,
      node_id: `REF_${sha1(branch).slice(0, 12)}`,
      url: apiUrl(repo, `/git/refs/heads/${branch}`),
      object: { sha, type: 'commit', url: apiUrl(repo, `/git/commits/${sha}`) }
    };
  }

  function commitJson(repo: Repository, commit: StoredCommit): unknown {
    return {
      sha: commit.sha,
      node_id: `C_${commit.sha.slice(0, 12)}`,
      url: apiUrl(repo, `/git/commits/${commit.sha}`),
      html_url: `${url}/${fullNameOf(repo)}/commit/${commit.sha}`,
      author: commit.author,
      committer: commit.committer,
      message: commit.message,
      tree: { sha: commit.tree, url: apiUrl(repo, `/git/trees/${commit.tree}`) },
      parents: commit.parents.map((sha) => ({
        sha,
        url: apiUrl(repo, `/git/commits/${sha}`),
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

  function pullJson(repo: Repository, pull: EmulatedPull): unknown {
    const side = (ref: string): unknown => ({
      label: `${repo.owner}:${ref}`,
      ref,
      sha: repo.branches.get(ref) ?? null,
      repo: { name: repo.name, full_name: fullNameOf(repo), owner: { login: repo.owner } }
    });
    return {
      url: apiUrl(repo, `/pulls/${pull.number}`),
      id: pull.number,
      node_id: `PR_${pull.number}`,
      html_url: pull.html_url,
      number: pull.number,
      state: pull.state,
      title: pull.title,
      body: pull.body === '' ? null : pull.body,
      labels: pull.labels.map(labelJson),
      head: side(pull.head),
      base: side(pull.base),
      draft: false,
      merged: false
    };
  }

  function labelJson(name: string): unknown {
    return { id: Number.parseInt(sha1(name).slice(0, 8), 16), name, color: 'ededed', default: false, description: null };
  }

  function findPull(repo: Repository, number: string): EmulatedPull {
    const pull = repo.pulls.find((p) => p.number === Number(number));
    if (!pull) throw new ApiError(404, 'Not Found');
    return pull;
  }

  function stringField(body: Record<string, unknown>, name: string): string | undefined {
    const value = body[name];
    return typeof value === 'string' ? value : undefined;
  }

  const routes: Route[] = [
    {
      method: 'GET',
      pattern: /^$/,
      doc: `${DOCS}/repos/repos#get-a-repository`,
      handle: ({ repo }) => ({
        status: 200,
        body: {
          id: Number.parseInt(sha1(fullNameOf(repo)).slice(0, 8), 16),
          name: repo.name,
          full_name: fullNameOf(repo),
          owner: { login: repo.owner },
          private: false,
          html_url: `${url}/${fullNameOf(repo)}`,
          url: apiUrl(repo, ''),
          default_branch: repo.defaultBranch
        }
      })
    },
    {
      method: 'GET',
      pattern: /^\/git\/ref\/heads\/(.+)$/,
      doc: `${DOCS}/git/refs#get-a-reference`,
      handle: ({ repo, params }) => {
        const branch = params[0] as string;
        if (!repo.branches.has(branch)) throw new ApiError(404, 'Not Found');
        return { status: 200, body: refJson(repo, branch) };
      }
    },
    {
      method: 'POST',
      pattern: /^\/git\/refs$/,
      doc: `${DOCS}/git/refs#create-a-reference`,
      needs: 'contents',
      handle: ({ repo, body }) => {
        const ref = stringField(body, 'ref') ?? '';
        const sha = stringField(body, 'sha') ?? '';
        if (!ref.startsWith('refs/') || ref.split('/').length < 3) {
          throw new ApiError(422, "Reference name must start with 'refs/' and have at least two slashes.");
        }
        if (!ref.startsWith('refs/heads/')) throw new ApiError(422, 'Reference update failed');
        const branch = ref.slice('refs/heads/'.length);
        if (repo.branches.has(branch)) throw new ApiError(422, 'Reference already exists');
        if (!repo.commits.has(sha)) throw new ApiError(422, 'Object does not exist');
        // A rule on the branch refuses its creation with this generic message.
        if (policy.protectedBranches.includes(branch)) throw new ApiError(422, 'Reference update failed');
        repo.branches.set(branch, sha);
        return { status: 201, body: refJson(repo, branch) };
      }
    },
    {
      method: 'PATCH',
      pattern: /^\/git\/refs\/heads\/(.+)$/,
      doc: `${DOCS}/git/refs#update-a-reference`,
      needs: 'contents',
      handle: ({ repo, params, body }) => {
        const branch = params[0] as string;
        const sha = stringField(body, 'sha') ?? '';
        const force = body['force'] === true;
        const current = repo.branches.get(branch);
        if (current === undefined) throw new ApiError(422, 'Reference does not exist');
        if (!repo.commits.has(sha)) throw new ApiError(422, 'Object does not exist');
        if (policy.protectedBranches.includes(branch)) {
          // What GitHub answers for a branch protected by "require a pull request".
          const refusal = force
            ? 'Changes must be made through a pull request. Cannot force-push to this branch'
            : 'Changes must be made through a pull request.';
          throw new ApiError(422, refusal);
        }
        if (!force && !isAncestor(repo, current, sha)) throw new ApiError(422, 'Update is not a fast forward');
        repo.branches.set(branch, sha);
        return { status: 200, body: refJson(repo, branch) };
      }
    },
    {
      method: 'GET',
      pattern: /^\/git\/commits\/([0-9a-f]{40})$/,
      doc: `${DOCS}/git/commits#get-a-commit-object`,
      handle: ({ repo, params }) => {
        const commit = repo.commits.get(params[0] as string);
        if (!commit) throw new ApiError(404, 'Not Found');
        return { status: 200, body: commitJson(repo, commit) };
      }
    },
    {
      method: 'POST',
      pattern: /^\/git\/trees$/,
      doc: `${DOCS}/git/trees#create-a-tree`,
      needs: 'contents',
      handle: ({ repo, body }) => {
        const baseTree = stringField(body, 'base_tree');
        let files: Record<string, string> = {};
        if (baseTree !== undefined) {
          // Like GitHub, a commit id is accepted where a tree id is asked for.
          const base = repo.trees.get(baseTree) ?? repo.trees.get(repo.commits.get(baseTree)?.tree ?? '');
          if (!base) throw new ApiError(422, 'base_tree is not a valid tree oid');
          files = { ...base };
        }
        const entries = Array.isArray(body['tree']) ? (body['tree'] as Record<string, unknown>[]) : [];
        for (const entry of entries) {
          const path = stringField(entry, 'path') ?? '';
          const content = stringField(entry, 'content');
          if (content !== undefined) {
            files[path] = content;
          } else if (entry['sha'] === null) {
            if (!(path in files)) throw new ApiError(422, `Path ${path} does not exist in base tree`);
            delete files[path];
          } else {
            const blob = repo.blobs.get(stringField(entry, 'sha') ?? '');
            if (blob === undefined) throw new ApiError(422, 'Invalid tree info');
            files[path] = blob;
          }
        }
        const sha = storeTree(repo, files);
        const tree = Object.keys(files)
          .sort()
          .map((path) => ({
            path,
            mode: '100644',
            type: 'blob',
            sha: blobSha(files[path] as string),
            size: Buffer.byteLength(files[path] as string),
            url: apiUrl(repo, `/git/blobs/${blobSha(files[path] as string)}`)
          }));
        return { status: 201, body: { sha, url: apiUrl(repo, `/git/trees/${sha}`), tree, truncated: false } };
      }
    },
    {
      method: 'POST',
      pattern: /^\/git\/commits$/,
      doc: `${DOCS}/git/commits#create-a-commit`,
      needs: 'contents',
      handle: ({ repo, body, token }) => {
        const tree = stringField(body, 'tree') ?? '';
        const parents = Array.isArray(body['parents']) ? (body['parents'] as string[]) : [];
        if (!repo.trees.has(tree)) throw new ApiError(422, 'Tree SHA does not exist');
        for (const parent of parents) {
          if (!repo.commits.has(parent)) throw new ApiError(422, 'Parent SHA does not exist or is not a commit object');
        }
        const commit = storeCommit(repo, tree, parents, stringField(body, 'message') ?? '', token);
        return { status: 201, body: commitJson(repo, commit) };
      }
    },
    {
      method: 'GET',
      pattern: /^\/contents(?:\/(.*))?$/,
      doc: `${DOCS}/repos/contents#get-repository-content`,
      handle: ({ repo, params, query }) => {
        const path = (params[0] ?? '').replace(/\/$/, '');
        const ref = query.get('ref') ?? repo.defaultBranch;
        const sha = resolveRef(repo, ref);
        if (!sha) throw new ApiError(404, `No commit found for the ref ${ref}`);
        const files = filesOf(repo, sha);
        const content = files[path];
        const links = (p: string): Record<string, string> => ({
          url: apiUrl(repo, `/contents/${p}?ref=${ref}`),
          html_url: `${url}/${fullNameOf(repo)}/blob/${ref}/${p}`
        });
        if (content !== undefined) {
          return {
            status: 200,
            body: {
              type: 'file',
              encoding: 'base64',
              size: Buffer.byteLength(content),
              name: path.split('/').pop(),
              path,
              content: base64Wrapped(content),
              sha: blobSha(content),
              ...links(path)
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
        const entries = [...children].sort().map(([name, type]) => ({ type, name, path: `${prefix}${name}`, ...links(`${prefix}${name}`) }));
        return { status: 200, body: entries };
      }
    },
    {
      method: 'GET',
      pattern: /^\/pulls$/,
      doc: `${DOCS}/pulls/pulls#list-pull-requests`,
      handle: ({ repo, query }) => {
        const state = query.get('state') ?? 'open';
        const head = query.get('head');
        const base = query.get('base');
        const matches = repo.pulls.filter((pull) => {
          if (state !== 'all' && pull.state !== state) return false;
          if (base && pull.base !== base) return false;
          if (head) {
            const [owner, ref] = head.includes(':') ? head.split(/:(.*)/) : [repo.owner, head];
            if ((owner ?? '').toLowerCase() !== repo.owner.toLowerCase() || ref !== pull.head) return false;
          }
          return true;
        });
        return { status: 200, body: matches.sort((a, b) => b.number - a.number).map((p) => pullJson(repo, p)) };
      }
    },
    {
      method: 'POST',
      pattern: /^\/pulls$/,
      doc: `${DOCS}/pulls/pulls#create-a-pull-request`,
      needs: 'pulls',
      handle: ({ repo, body, token }) => {
        if (token.startsWith('ghs_') && !policy.allowActionsToCreatePullRequests) {
          throw new ApiError(403, 'GitHub Actions is not permitted to create or approve pull requests.');
        }
        const headInput = stringField(body, 'head') ?? '';
        const head = headInput.includes(':') ? headInput.slice(headInput.indexOf(':') + 1) : headInput;
        const base = stringField(body, 'base') ?? '';
        const invalid = (field: string): ApiError =>
          new ApiError(422, 'Validation Failed', { errors: [{ resource: 'PullRequest', field, code: 'invalid' }] });
        const custom = (message: string): ApiError =>
          new ApiError(422, 'Validation Failed', { errors: [{ resource: 'PullRequest', code: 'custom', message }] });
        if (!stringField(body, 'title')) throw new ApiError(422, 'Validation Failed', { errors: [{ resource: 'PullRequest', field: 'title', code: 'missing_field' }] });
        const headSha = repo.branches.get(head);
        const baseSha = repo.branches.get(base);
        if (headSha === undefined) throw invalid('head');
        if (baseSha === undefined) throw invalid('base');
        if (repo.pulls.some((p) => p.state === 'open' && p.head === head && p.base === base)) {
          throw custom(`A pull request already exists for ${repo.owner}:${head}.`);
        }
        if (isAncestor(repo, headSha, baseSha)) throw custom(`No commits between ${base} and ${head}`);
        const number = repo.nextNumber++;
        const pull: EmulatedPull = {
          number,
          head,
          base,
          title: stringField(body, 'title') as string,
          body: stringField(body, 'body') ?? '',
          state: 'open',
          labels: [],
          html_url: `${url}/${fullNameOf(repo)}/pull/${number}`
        };
        repo.pulls.push(pull);
        return { status: 201, body: pullJson(repo, pull) };
      }
    },
    {
      method: 'PATCH',
      pattern: /^\/pulls\/(\d+)$/,
      doc: `${DOCS}/pulls/pulls#update-a-pull-request`,
      needs: 'pulls',
      handle: ({ repo, params, body }) => {
        const pull = findPull(repo, params[0] as string);
        const base = stringField(body, 'base');
        if (base !== undefined && !repo.branches.has(base)) {
          throw new ApiError(422, 'Validation Failed', { errors: [{ resource: 'PullRequest', field: 'base', code: 'invalid' }] });
        }
        pull.title = stringField(body, 'title') ?? pull.title;
        pull.body = stringField(body, 'body') ?? pull.body;
        pull.base = base ?? pull.base;
        const state = stringField(body, 'state');
        if (state === 'open' || state === 'closed') pull.state = state;
        return { status: 200, body: pullJson(repo, pull) };
      }
    },
    {
      method: 'POST',
      pattern: /^\/issues\/(\d+)\/labels$/,
      doc: `${DOCS}/issues/labels#add-labels-to-an-issue`,
      needs: 'pulls',
      handle: ({ repo, params, body }) => {
        const pull = findPull(repo, params[0] as string);
        // GitHub takes either {labels: [...]} or a bare array of names.
        const given = Array.isArray(body) ? body : body['labels'];
        const names = Array.isArray(given) ? given.map(String) : [];
        for (const name of names) if (!pull.labels.includes(name)) pull.labels.push(name);
        return { status: 200, body: pull.labels.map(labelJson) };
      }
    }
  ];

  function route(method: string, rest: string): { route: Route; params: string[] } | undefined {
    for (const candidate of routes) {
      if (candidate.method !== method) continue;
      const match = candidate.pattern.exec(rest);
      if (match) return { route: candidate, params: match.slice(1).map((p) => p ?? '') };
    }
    return undefined;
  }

  function answer(method: string, pathname: string, query: URLSearchParams, headers: IncomingMessage['headers'], raw: string): Reply {
    let doc = DOCS;
    try {
      const token = /^(?:token|bearer)\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]?.trim() ?? '';
      if (token !== policy.token) throw new ApiError(401, 'Bad credentials');
      const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(pathname);
      if (!repoPath) throw new ApiError(404, 'Not Found');
      // Octokit escapes the slashes inside {ref} and {path}, so match the decoded path.
      const found = route(method, decodeURIComponent(repoPath[3] ?? ''));
      if (!found) throw new ApiError(404, 'Not Found');
      doc = found.route.doc;
      const repo = repos.get(repoKey(decodeURIComponent(repoPath[1] as string), decodeURIComponent(repoPath[2] as string)));
      if (!repo) throw new ApiError(404, 'Not Found');
      const allowed = found.route.needs === 'contents' ? policy.contentsWrite : found.route.needs === 'pulls' ? policy.pullRequestsWrite : true;
      if (!allowed) throw new ApiError(403, 'Resource not accessible by integration');
      let body: Record<string, unknown> = {};
      if (raw.trim() !== '') {
        try {
          body = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          throw new ApiError(400, 'Problems parsing JSON');
        }
      }
      return found.route.handle({ repo, params: found.params, query, body, token });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { status: error.status, body: { message: error.message, ...error.extra, documentation_url: doc, status: String(error.status) } };
    }
  }

  // Another run of the action writes the pull request branch: a commit of its own (with the action's
  // trailer) proposing the base's file unchanged, on top of the branch or new from the base. Like a
  // run that keeps the order rule, it does not replace a proposal another run already made.
  function otherWriter(fullName: string, branch: string): void {
    const repo = repos.get(fullName.toLowerCase());
    if (!repo) return;
    const base = repo.branches.get(repo.defaultBranch) as string;
    const head = repo.branches.get(branch);
    if (head && !repo.commits.get(head)?.message.includes('(other run)')) return;
    const commit = storeCommit(repo, repo.commits.get(base)!.tree, head ? [base, head] : [base], 'Point the deployment at a new static export (other run)\n\nProposed-by: static-export-action', policy.token);
    repo.branches.set(branch, commit.sha);
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const method = request.method ?? 'GET';
      const target = new URL(request.url ?? '/', 'http://emulator');
      const path = target.pathname + target.search;
      const repoPath = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(target.pathname);
      const fault = faults.take(operationOf(method, decodeURIComponent(repoPath?.[3] ?? '')));
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
        case 'writer':
          if (repoPath) otherWriter(`${decodeURIComponent(repoPath[1]!)}/${decodeURIComponent(repoPath[2]!)}`, fault.branch ?? 'static-export/docs.example.com');
          return respond();
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    createRepo(fullName, files, defaultBranch = 'main') {
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
        nextNumber: 1
      };
      repos.set(repoKey(owner, name), repo);
      const commit = storeCommit(repo, storeTree(repo, files), [], 'Initial commit', '');
      repo.branches.set(defaultBranch, commit.sha);
    },
    commitOnBranch(fullName, branch, files, message) {
      const repo = mustRepo(fullName);
      // A new branch starts from the default branch, as when a person pushes one.
      const parent = repo.branches.get(branch) ?? (repo.branches.get(repo.defaultBranch) as string);
      const tree = storeTree(repo, { ...filesOf(repo, parent), ...files });
      const commit = storeCommit(repo, tree, [parent], message, '');
      repo.branches.set(branch, commit.sha);
      return commit.sha;
    },
    fileAt(fullName, ref, path) {
      const repo = mustRepo(fullName);
      const sha = resolveRef(repo, ref);
      return sha ? filesOf(repo, sha)[path] : undefined;
    },
    branchHead(fullName, branch) {
      return mustRepo(fullName).branches.get(branch);
    },
    commit(fullName, sha) {
      const repo = mustRepo(fullName);
      const commit = repo.commits.get(sha);
      if (!commit) return undefined;
      return { sha, parents: [...commit.parents], message: commit.message, files: { ...filesOf(repo, sha) } };
    },
    pulls(fullName) {
      return mustRepo(fullName).pulls.map((pull) => ({ ...pull, labels: [...pull.labels] }));
    },
    closePull(fullName, number) {
      const pull = mustRepo(fullName).pulls.find((p) => p.number === number);
      if (!pull) throw new Error(`emulator: no pull request #${number} in ${fullName}`);
      pull.state = 'closed';
    },
    setPolicy(p) {
      Object.assign(policy, p);
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

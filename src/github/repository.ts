// What the action reads of the configuration repository: the repository itself (its default branch,
// its id, the token's role), a branch's head, and the values file at a commit or on the base.
import type { Octokit } from './client.ts';
import { PullRequestError, httpFailure, repoNotFound, step, toPullRequestError } from './errors.ts';

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

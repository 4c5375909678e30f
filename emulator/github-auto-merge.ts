// GitHub's auto-merge through GraphQL, for the emulator: `enablePullRequestAutoMerge(input:
// {pullRequestId, mergeMethod, expectedHeadOid, commitHeadline?, commitBody?})` and
// `disablePullRequestAutoMerge(input: {pullRequestId})`, refused with GitHub's words as
// recorded/github.json holds them, and the REST `auto_merge` field that shows it. The merge itself
// happens in github-checks.ts, the moment the last requirement is met.
import type { GitHubChecks } from './github-checks.ts';
import { BOT_LOGIN, userJson } from './github-json.ts';
import type { AutoMergeRequest, EmulatedPull, GitHubState, MergeMethod, Repository } from './github-state.ts';
import { githubSays } from './recorded.ts';

export interface AutoMergeInput {
  pullRequestId?: string;
  /** GraphQL's PullRequestMergeMethod: MERGE, SQUASH or REBASE. */
  mergeMethod?: string;
  expectedHeadOid?: string;
  commitHeadline?: string;
  commitBody?: string;
}

type GraphqlReply = { data: Record<string, unknown>; errors?: { type: string; path: string[]; message: string }[] };

function refused(mutation: string, type: string, message: string): GraphqlReply {
  return { data: { [mutation]: null }, errors: [{ type, path: [mutation], message }] };
}

/** The login GitHub shows for a token: the Actions bot for GITHUB_TOKEN, an App's bot, or a person. */
export function loginOf(state: GitHubState, token: string): string {
  if (token === state.policy.token) return BOT_LOGIN;
  if (token === 'person') return 'octocat';
  if (token === 'merge-queue') return 'github-merge-queue[bot]';
  return state.grantOf(token)?.kind === 'installation' ? 'emulated-app[bot]' : 'emulated-user';
}

/** The pull request's REST `auto_merge` (the auto-merge schema), null when it is not armed. */
export function autoMergeJson(url: string, state: GitHubState, repo: Repository, pull: EmulatedPull): Record<string, unknown> | null {
  const armed = pull.autoMerge;
  if (!armed) return null;
  return {
    enabled_by: userJson(url, loginOf(state, armed.enabledBy)),
    merge_method: armed.mergeMethod,
    commit_title: armed.commitTitle ?? (armed.mergeMethod === 'merge' ? `Merge pull request #${pull.number} from ${repo.owner}/${pull.head}` : `${pull.title} (#${pull.number})`),
    commit_message: armed.commitMessage ?? ''
  };
}

function pullRequestNode(state: GitHubState, repo: Repository, pull: EmulatedPull, armed: AutoMergeRequest | undefined): unknown {
  return {
    id: state.pullNodeId(repo, pull),
    number: pull.number,
    autoMergeRequest: armed ? { enabledAt: armed.enabledAt, mergeMethod: armed.mergeMethod.toUpperCase(), enabledBy: { login: loginOf(state, armed.enabledBy) } } : null
  };
}

/** Finds the pull request and checks the token may write, as both mutations begin. */
function resolve(state: GitHubState, mutation: string, input: AutoMergeInput, token: string): { repo: Repository; pull: EmulatedPull } | GraphqlReply {
  const found = state.pullByNodeId(input.pullRequestId ?? '');
  if (!found) return refused(mutation, 'NOT_FOUND', `Could not resolve to a node with the global id of '${input.pullRequestId ?? ''}'`);
  if (!state.mayWrite(token, 'contents')) return refused(mutation, 'FORBIDDEN', 'Resource not accessible by integration');
  return found;
}

/**
 * Arms auto-merge, in GitHub's order of refusals: the repository must allow it; the pull request must
 * be open, at `expectedHeadOid`, by a merge method the repository allows; something must still be
 * pending (a required review or check), else GitHub answers "clean status" and the caller merges
 * directly. With a merge queue required, it queues the pull request once its requirements are met.
 */
export function enableAutoMerge(state: GitHubState, checks: GitHubChecks, input: AutoMergeInput, token: string): GraphqlReply {
  const mutation = 'enablePullRequestAutoMerge';
  const found = resolve(state, mutation, input, token);
  if ('data' in found) return found;
  const { repo, pull } = found;
  if (!repo.allowAutoMerge) return refused(mutation, 'UNPROCESSABLE', githubSays('auto-merge.not-allowed'));
  // The emulator's own words for a closed pull request (not found in public).
  if (pull.state !== 'open') return refused(mutation, 'UNPROCESSABLE', 'Pull request is closed');
  // GitHub's words for this precondition on GraphQL were not found in public: the emulator answers with
  // the REST merge's for the same check (recorded answers.merge.head-branch-modified).
  if (input.expectedHeadOid !== undefined && input.expectedHeadOid !== repo.branches.get(pull.head)) {
    return refused(mutation, 'UNPROCESSABLE', githubSays('merge.head-branch-modified'));
  }
  const method = (input.mergeMethod ?? 'MERGE').toLowerCase() as MergeMethod;
  if (!['merge', 'squash', 'rebase'].includes(method)) return refused(mutation, 'UNPROCESSABLE', `Unknown merge method ${input.mergeMethod ?? ''}`);
  if (!state.mergeMethodsOf(repo).includes(method)) {
    return refused(mutation, 'UNPROCESSABLE', `${method === 'merge' ? 'Merge commits are' : method === 'squash' ? 'Squash merges are' : 'Rebase merges are'} not allowed on this repository.`);
  }
  const rules = repo.rules.get(pull.base);
  // Nothing pending: GitHub refuses (recorded answers.auto-merge.clean-status). A queue always takes it.
  if (!rules?.mergeQueue && state.requirementsMet(repo, pull)) return refused(mutation, 'UNPROCESSABLE', githubSays('auto-merge.clean-status'));
  const armed: AutoMergeRequest = { enabledBy: token, mergeMethod: method, enabledAt: new Date().toISOString() };
  if (input.commitHeadline !== undefined) armed.commitTitle = input.commitHeadline;
  if (input.commitBody !== undefined) armed.commitMessage = input.commitBody;
  pull.autoMerge = armed;
  checks.settle(repo);
  return { data: { [mutation]: { clientMutationId: null, pullRequest: pullRequestNode(state, repo, pull, pull.autoMerge) } } };
}

/** Disarms auto-merge (and takes the pull request out of the queue). */
export function disableAutoMerge(state: GitHubState, input: AutoMergeInput, token: string): GraphqlReply {
  const mutation = 'disablePullRequestAutoMerge';
  const found = resolve(state, mutation, input, token);
  if ('data' in found) return found;
  const { repo, pull } = found;
  // The emulator's own words; callers match "not enabled" (hivemoot/hivemoot-bot#372 tells this refusal by it).
  if (!pull.autoMerge) return refused(mutation, 'UNPROCESSABLE', 'Auto merge is not enabled for this pull request');
  pull.autoMerge = undefined;
  pull.queuedAt = undefined;
  return { data: { [mutation]: { clientMutationId: null, pullRequest: pullRequestNode(state, repo, pull, undefined) } } };
}

/** The mutation a GraphQL document sends, of those the emulator answers. */
export function autoMergeMutation(query: string): 'enablePullRequestAutoMerge' | 'disablePullRequestAutoMerge' | undefined {
  if (/\benablePullRequestAutoMerge\b/.test(query)) return 'enablePullRequestAutoMerge';
  if (/\bdisablePullRequestAutoMerge\b/.test(query)) return 'disablePullRequestAutoMerge';
  return undefined;
}

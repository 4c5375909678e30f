// GitHub's own auto-merge, armed on the head a run wrote: `enablePullRequestAutoMerge` with
// `expectedHeadOid` (GitHub's GraphQL API; REST has no route for it), so GitHub merges the pull request
// the moment its last required check passes, and never a head the run did not write. GitHub refuses to
// arm it when nothing is pending ("clean status": the caller merges directly) and where the repository
// does not allow auto-merge (Settings → General → "Allow auto-merge"). A lost answer is read back
// through REST's `auto_merge`, never resent blind. Sources: emulator/recorded/github.json
// (answers.auto-merge.*, facts.auto-merge-*).
import { githubSaid, type Octokit, type ReadBack } from './client.ts';
import type { MergeMethod } from './merge.ts';
import type { Repo } from './repository.ts';

export type ArmOutcome =
  /** Armed (or already armed by this head): GitHub merges when the requirements are met. `openedBy`: the pull request's author, as the read before the arming showed it. */
  | { kind: 'armed'; openedBy?: string }
  /** Nothing is pending: the pull request can be merged at once. */
  | { kind: 'clean' }
  /** The repository does not allow auto-merge. */
  | { kind: 'not-allowed'; said: string }
  /** The head moved, the pull request closed or merged, or another refusal: GitHub's words. */
  | { kind: 'refused'; said: string };

const ENABLE = `mutation($input: EnablePullRequestAutoMergeInput!) {
  enablePullRequestAutoMerge(input: $input) { pullRequest { number } }
}`;

interface PullNow {
  state: string;
  merged: boolean;
  head: { sha: string };
  node_id: string;
  auto_merge: unknown;
  user?: { login?: string } | null;
}

export async function armAutoMerge(
  octokit: Octokit,
  repo: Repo,
  request: { number: number; headSha: string; method: MergeMethod; title: string; message: string }
): Promise<ArmOutcome> {
  const read = async () => (await octokit.rest.pulls.get({ ...repo, pull_number: request.number })).data as unknown as PullNow;
  const pull = await read();
  if (pull.state !== 'open' || pull.head.sha !== request.headSha) return { kind: 'refused', said: `pull request #${request.number} is ${pull.merged ? 'merged' : pull.state === 'open' ? 'at another head' : 'closed'}` };
  const openedBy = pull.user?.login;
  if (pull.auto_merge) return { kind: 'armed', openedBy };
  // A lost answer: armed at this head, or merged meanwhile, stands in for it; anything else is GitHub's last word.
  const readBack: ReadBack = async () => {
    const now = await read();
    if (now.auto_merge || now.merged) return { data: { data: { enablePullRequestAutoMerge: { pullRequest: { number: request.number } } } } };
    return now.state === 'open' && now.head.sha === request.headSha ? 'resend' : 'stop';
  };
  try {
    await octokit.graphql(ENABLE, {
      input: { pullRequestId: pull.node_id, expectedHeadOid: request.headSha, mergeMethod: request.method.toUpperCase(), commitHeadline: request.title, commitBody: request.message },
      request: { readBack }
    });
    return { kind: 'armed', openedBy };
  } catch (error) {
    const said = graphqlSaid(error);
    if (/clean status/i.test(said)) return { kind: 'clean' };
    if (/auto.?merge is not allowed/i.test(said)) return { kind: 'not-allowed', said };
    return { kind: 'refused', said };
  }
}

/** GitHub's words in a GraphQL refusal (200 with `errors`), or in the HTTP failure. */
function graphqlSaid(error: unknown): string {
  const errors = (error as { errors?: { message?: string }[] }).errors;
  if (Array.isArray(errors) && errors.length > 0) return errors.map((e) => e.message ?? '').join('; ');
  return githubSaid(error) ?? (error instanceof Error ? error.message : String(error));
}

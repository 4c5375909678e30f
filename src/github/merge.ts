// Merging a pull request at the head a run judged, the way Renovate and the GitHub CLI do it: the merge
// carries `sha`, so a push in between is never merged blind; a lost answer is a question, not a
// failure (the pull request is read back, and `merged: true` is a success); GitHub's transient
// refusals are tried again by the client (client.ts), each time after that read.
import { answerLost, githubSaid, type Octokit, type ReadBack } from './client.ts';
import type { Repo } from './repository.ts';

export type MergeMethod = 'merge' | 'squash' | 'rebase';

export interface MergeRequest {
  number: number;
  /** The head the run judged: GitHub refuses the merge (409) when the branch moved since. */
  sha: string;
  method: MergeMethod;
  title: string;
  message: string;
}

export type MergeOutcome =
  /** Merged, by this call or by its lost answer's. */
  | { kind: 'merged'; sha?: string }
  /** The branch moved since the run judged it: a push, another run. Nothing was merged. */
  | { kind: 'moved'; head: string }
  /** Someone merged or closed it meanwhile: not this run's merge. */
  | { kind: 'closed'; merged: boolean }
  /** GitHub refused (a rule, a method, a conflict): its status and words. */
  | { kind: 'refused'; status: number; said: string };

interface PullNow {
  state: string;
  merged: boolean;
  merge_commit_sha: string | null;
  head: { sha: string };
  mergeable: boolean | null;
  merged_by?: { login?: string } | null;
}

async function readPull(octokit: Octokit, repo: Repo, number: number): Promise<PullNow> {
  return (await octokit.rest.pulls.get({ ...repo, pull_number: number })).data as PullNow;
}

export async function mergeAtHead(octokit: Octokit, repo: Repo, request: MergeRequest): Promise<MergeOutcome> {
  // Before each new try: a merge already done stands in for the lost answer; a moved head or a closed
  // or conflicting pull request ends the call with GitHub's last word.
  const readBack: ReadBack = async () => {
    const pull = await readPull(octokit, repo, request.number);
    if (pull.merged) return { data: { merged: true, sha: pull.merge_commit_sha, message: 'Pull Request successfully merged' } };
    return pull.state !== 'open' || pull.head.sha !== request.sha || pull.mergeable === false ? 'stop' : 'resend';
  };
  try {
    const { data } = await octokit.rest.pulls.merge({
      ...repo,
      pull_number: request.number,
      merge_method: request.method,
      sha: request.sha,
      commit_title: request.title,
      commit_message: request.message,
      request: { readBack }
    });
    return { kind: 'merged', sha: data.sha };
  } catch (error) {
    const status = (error as { status?: number }).status ?? 0;
    const said = githubSaid(error) ?? (error instanceof Error ? error.message : String(error));
    // A method the repository does not allow says nothing of the pull request.
    if (status === 405 && /are not allowed on this repository/i.test(said)) return { kind: 'refused', status, said };
    // Any other refusal, or no answer: what GitHub holds now is the truth.
    let pull: PullNow;
    try {
      pull = await readPull(octokit, repo, request.number);
    } catch {
      throw error;
    }
    if (pull.merged) return { kind: 'merged', sha: pull.merge_commit_sha ?? undefined };
    if (pull.state !== 'open') return { kind: 'closed', merged: false };
    if (pull.head.sha !== request.sha) return { kind: 'moved', head: pull.head.sha };
    if (answerLost(error)) throw error;
    return { kind: 'refused', status, said };
  }
}

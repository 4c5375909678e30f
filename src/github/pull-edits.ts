// One pull request read and edited as it stands: its state, title, body and labels. Each edit
// carries what the run read, and a lost answer is read back before anything is sent again.
import { answerLost, type Octokit, type ReadBack } from './client.ts';
import { PullRequestError, httpFailure, step, toPullRequestError } from './errors.ts';
import type { Repo } from './repository.ts';

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

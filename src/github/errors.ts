// GitHub's failures in the terms of the step that met them: what the action was doing, where, and
// what a person can do about it (a token's permission, a repository's settings, a name to check).
import { githubSaid } from './client.ts';

/** owner/name of the repository a step worked on. */
type RepoName = { owner: string; repo: string };

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
export function httpFailure(error: unknown): HttpFailure | undefined {
  if (!(error instanceof Error) || typeof (error as { status?: unknown }).status !== 'number') return undefined;
  const response = (error as { response?: { data?: unknown; headers?: Record<string, string | undefined> } }).response;
  return {
    status: (error as unknown as { status: number }).status,
    message: githubSaid(error) ?? error.message,
    requestId: response?.headers?.['x-github-request-id']
  };
}

export function toPullRequestError(error: unknown, doing: string, where: string, hints: Hints): PullRequestError {
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
export async function step<T>(doing: string, repo: RepoName, run: () => Promise<T>, hints: Hints = {}): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toPullRequestError(error, doing, `${repo.owner}/${repo.repo}`, hints);
  }
}

export function repoNotFound(repo: RepoName): string {
  return (
    `repository ${repo.owner}/${repo.repo} was not found; check its name, ` +
    'and that the token can see it (a token for another repository needs access there)'
  );
}

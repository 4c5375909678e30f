// The GitHub client every call of the pull request goes through: Octokit with the retry and
// throttling plugins, configured as peter-evans/create-pull-request does, and bounded by the step's
// one deadline.
// - 5xx, dropped or reset connections and timeouts: plugin-retry, 3 retries after 1, 4 and 9 s.
// - Rate limits (secondary-limit 403/429 with retry-after, x-ratelimit-remaining: 0): plugin-throttling
//   waits as GitHub asks, twice per call at most. A plain 429 is waited out here, twice at most,
//   through the one backoff helper (wait/backoff.ts).
// - 422 "Could not resolve to a node" on labels right after a pull request is created: twice, the same way.
// - Any other 4xx: never retried (plugin-retry's doNotRetry).
// - A write is never sent again blind: GitHub may have done it although no answer came (a 5xx, a lost
//   connection, a timeout). A write that passes `request.readBack` has it read what GitHub holds
//   before each new try, and the try is skipped when the write took effect; any other write that is
//   not content-addressed (a tree, a commit) is sent once, and its caller reads the state and decides.
// - The merge's transient refusals (405 "Base branch was modified", 405 "not mergeable" while GitHub
//   computes the merge after a push) are tried again, three times at most, through the one backoff
//   helper and after reading the pull request back.
// - Each attempt has its own time limit (30 s, the publish actions' constant, or what is left of the step), and no wait
//   starts that would end past the deadline: the step ends then, saying what GitHub asked for.
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { RequestError } from '@octokit/request-error';
import type { Deadline } from '../action/deadline.ts';
import { variable } from '../action/environment.ts';
import { formatDuration } from '../action/format.ts';
import { dnsAdvice, isDnsCode, isLoopbackHost, isTlsCode, networkCode, tlsAdvice } from '../action/network.ts';
import { parseRetryAfter, retryTransient } from '../wait/backoff.ts';
import { abortableSleep } from '../wait/sleep.ts';

export type Octokit = ReturnType<typeof getOctokit>;

export interface GitHubClientOptions {
  deadline: Deadline;
  /** Time limit of one attempt. */
  requestTimeoutMs: number;
  signal?: AbortSignal;
  /** A line for the log when GitHub makes the step wait or retry. */
  log: (line: string) => void;
  /**
   * How long one of GitHub's seconds lasts here: the retries' 1, 4 and 9 s, the waits GitHub asks
   * for, and the spacing of writes (1 s, 3 s after one that notifies people) are slept in it. 1000 on a runner; a test sets 1, so those run
   * at the speed of the CPU while the log, the deadline's checks and the order of calls stay the same.
   */
  secondMs?: number;
}

/**
 * What a write's caller reads back before the write is sent again: `{ data }` when GitHub holds what
 * the write asked for (that answer stands in for the lost one), `'resend'` when it does not, `'stop'`
 * when GitHub holds something else (another writer acted): the last error then ends the call.
 */
export type ReadBack = (lastError: unknown) => Promise<{ data: unknown } | 'resend' | 'stop'>;

/** The request option that carries a write's read-back (Octokit passes `request` through to the hooks). */
export interface WriteRequest {
  request: { readBack: ReadBack };
}

/** Writes GitHub addresses by content: sending one again makes at worst an unreferenced twin. */
const RESENDABLE = [/\/git\/trees$/, /\/git\/commits$/];

function isWrite(o: { method: string; url: string }): boolean {
  return !['GET', 'HEAD'].includes(o.method) && !RESENDABLE.some((pattern) => pattern.test(o.url));
}

/** GitHub's merge refusals that pass: the base moved at that moment, or the merge was still being computed after a push. */
function isMergeRace(error: unknown, o: { method: string; url: string }): boolean {
  return (
    (error as { status?: number }).status === 405 &&
    o.method === 'PUT' &&
    /\/merge$/.test(o.url) &&
    /base branch was modified|not mergeable/i.test(githubSaid(error) ?? '')
  );
}
const MERGE_RACE_RETRIES = 3;

/** How many times a rate limit is waited out for one call. */
const RATE_LIMIT_WAITS = 2;
/** plugin-retry's schedule: the n-th retry waits n² seconds. */
const RETRIES = 3;
const retryDelayMs = (retryCount: number) => (retryCount + 1) ** 2 * 1000;

/**
 * Ends a call for good: plugin-retry retries errors that carry their request, and reads its retry
 * budget from it, so this carries an empty one.
 */
class GitHubStop extends Error {
  readonly request = { request: undefined };
  /** No answer came (or GitHub's own failure did): a write may have taken effect. */
  readonly unanswered: boolean;
  constructor(message: string, options?: { cause?: unknown; unanswered?: boolean }) {
    super(message, options);
    this.name = 'GitHubStop';
    this.unanswered = options?.unanswered ?? false;
  }
}

/** True when a failed call may still have been done: GitHub answered 5xx, or no answer came. Its caller reads back before deciding. */
export function answerLost(error: unknown): boolean {
  if (error instanceof GitHubStop) return error.unanswered;
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status !== 'number' || status >= 500;
}

interface HookOptions {
  method: string;
  url: string;
  request?: { signal?: AbortSignal; retryCount?: number };
  [key: string]: unknown;
}

function responseHeaders(error: unknown): Record<string, string> {
  return (error as { response?: { headers?: Record<string, string> } }).response?.headers ?? {};
}

/** What to check when GitHub's host name does not resolve. */
const GITHUB_URL_FIX = "check GITHUB_API_URL (the runner sets it; a GitHub Enterprise Server's is https://<host>/api/v3)";

/** The host a call went to, for a message. */
function githubHost(o: Record<string, unknown>): string {
  return URL.parse(String(o.baseUrl))?.hostname ?? 'GitHub';
}

/** A failed fetch: Octokit gives it status 500, but no answer came (a dropped connection, a TLS failure). */
function noAnswer(error: unknown): boolean {
  return (error as { status?: number }).status === 500 && (error as { response?: unknown }).response === undefined;
}

/**
 * GitHub's own words for a failure: the top-level message and each `errors[].message`, where a 422
 * puts its reason ("Validation Failed: Could not resolve to a node with the global id of '…'").
 */
export function githubSaid(error: unknown): string | undefined {
  const data = (error as { response?: { data?: unknown } }).response?.data as { message?: unknown; errors?: unknown } | undefined;
  const errors = Array.isArray(data?.errors) ? data.errors : [];
  const said = [data?.message, ...errors.map((e: unknown) => (typeof e === 'string' ? e : (e as { message?: unknown } | null)?.message))].filter(
    (part): part is string => typeof part === 'string' && part !== ''
  );
  return said.length > 0 ? said.join(': ') : undefined;
}

/**
 * Right after a pull request is created, GitHub's stores may not know it yet and answer a label
 * request with 422 "Could not resolve to a node": the one 4xx worth retrying, briefly
 * (peter-evans/create-pull-request#4321).
 */
function isLabelRace(error: unknown, o: { url: string }): boolean {
  return (error as { status?: number }).status === 422 && /\/labels$/.test(o.url) && /could not resolve to a node/i.test(githubSaid(error) ?? '');
}

/** A 429 that is neither a secondary nor a primary limit: those the throttling plugin waits out. */
function isPlainRateLimit(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return (error as { status?: number }).status === 429 && !/secondary rate/i.test(message) && responseHeaders(error)['x-ratelimit-remaining'] !== '0';
}

/**
 * One of plugin-throttling's spacings (one call at a time, `ms` apart), for a client whose seconds
 * are not the runner's: what the plugin calls on its `write` and `notifications` limiters.
 */
function spacing(ms: number) {
  let last = Promise.resolve(-Infinity);
  const schedule = () =>
    (last = last.then(async (at) => {
      const wait = at + ms - Date.now();
      if (wait > 0) await abortableSleep(wait);
      return Date.now();
    }));
  return { key: () => ({ schedule }) };
}

/** A GitHub API URL on loopback (an emulator), as opposed to github.com or a GitHub Enterprise host. */
export function onThisMachine(apiUrl: string | undefined): boolean {
  if (!apiUrl) return false;
  try {
    return isLoopbackHost(new URL(apiUrl).hostname);
  } catch {
    return false;
  }
}

export function githubClient(token: string, options: GitHubClientOptions): Octokit {
  const { deadline, log } = options;
  const secondMs = options.secondMs ?? 1000;
  // GitHub asks integrators to space writes a second apart, against its secondary rate limits. A
  // GitHub API on this machine (the project's emulator: tests, `npm run try`) has no such limits,
  // and spacing there only makes every run that writes wait a second per write.
  // The run's API (a GitHub Enterprise Server's, the emulator's): @actions/github reads it from the
  // process once, when it is loaded; given here, each run uses its own.
  const apiUrl = variable('GITHUB_API_URL');
  const writeSecondMs = options.secondMs ?? (onThisMachine(apiUrl) ? 1 : 1000);
  // `POST /repos/acme/deploy/git/refs`: the route with its parameters filled in, without the host.
  const what = (o: { method: string; url: string }) =>
    `${o.method} ${o.url.replace(/^https?:\/\/[^/]+/, '').replace(/\{(\w+)\}/g, (hole, name: string) => String((o as Record<string, unknown>)[name] ?? hole))}`;
  const tooLong = (asked: number, o: { method: string; url: string }, reason: string) =>
    new GitHubStop(
      `GitHub ${reason} before ${what(o)} could go on (${formatDuration(asked)}), but only ${formatDuration(deadline.remaining())} of the step's timeout ` +
        `(${formatDuration(deadline.timeoutMs)}) is left. Raise timeout, or run again later.`
    );

  // One attempt of a call: its own time limit, and a transient fault retried by plugin-retry unless
  // the retry would end past the deadline.
  const attempt = async (request: (o: HookOptions) => Promise<unknown>, o: HookOptions): Promise<unknown> => {
    if (deadline.expired()) throw new GitHubStop(`The step's timeout (${formatDuration(deadline.timeoutMs)}) ran out before ${what(o)}.`);
    const limitMs = deadline.limit(options.requestTimeoutMs);
    const timeout = AbortSignal.timeout(limitMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    // In place: before-after-hook binds every hook to the same options object and ignores a new one.
    o.request = { ...o.request, signal };
    try {
      return await request(o);
    } catch (error) {
      if (options.signal?.aborted) throw new GitHubStop('Cancelled', { cause: options.signal.reason });
      const retryCount = o.request?.retryCount ?? 0;
      const retries = (o.request as { retries?: number } | undefined)?.retries ?? RETRIES;
      // A transient fault whose next retry would end past the deadline ends the step now.
      const noTimeToRetry = (said: string) =>
        new GitHubStop(`${said}, and the step's timeout leaves no time to retry. Raise timeout, or run again.`, { cause: error, unanswered: true });
      if (timeout.aborted) {
        const said = `GitHub did not answer ${what(o)} within ${formatDuration(limitMs)} (the limit of one request)`;
        if (retryCount < retries && !deadline.fits(retryDelayMs(retryCount))) throw noTimeToRetry(said);
        // A timeout is transient: a RequestError with its request, so plugin-retry retries it.
        log(retryCount < retries ? `${said}; retrying.` : `${said}.`);
        throw new RequestError(`GitHub did not answer within ${formatDuration(limitMs)}`, 500, { request: { ...o, headers: {} } as never });
      }
      const code = noAnswer(error) ? (networkCode(error) ?? 'ECONNRESET') : undefined;
      if (isTlsCode(code)) throw new GitHubStop(`${what(o)} could not reach GitHub: ${tlsAdvice(URL.parse(String(o.baseUrl))?.host ?? 'GitHub', code)}`, { cause: error });
      // A name that does not exist answers the same at every try: said now, not after 15 s of retries.
      if (code === 'ENOTFOUND') throw new GitHubStop(`${what(o)} ${dnsAdvice(githubHost(o), code, GITHUB_URL_FIX)}`, { cause: error });
      const status = (error as { status?: number }).status;
      const said = isDnsCode(code)
        ? `${what(o)} could not resolve ${githubHost(o)} (DNS, ${code})`
        : code
          ? `The connection to GitHub was lost before an answer to ${what(o)} (${code})`
          : `GitHub answered ${status} to ${what(o)}`;
      if (status !== undefined && status >= 500 && retryCount < retries && !deadline.fits(retryDelayMs(retryCount))) throw noTimeToRetry(said);
      if (status !== undefined && status >= 500 && retryCount < retries) {
        log(`${said}; ${o.request && 'readBack' in o.request ? 'reading back what GitHub holds, then ' : ''}retrying in ${formatDuration(retryDelayMs(retryCount))}.`);
      }
      throw error;
    }
  };

  // Innermost, so it applies to each attempt: the retry plugins call it again for every retry. A
  // plain 429 is waited out here, as GitHub asks, through the one backoff helper.
  const attemptLimit = (octokit: { hook: { wrap: (name: 'request', wrap: (request: (o: HookOptions) => Promise<unknown>, o: HookOptions) => Promise<unknown>) => void } }) => {
    octokit.hook.wrap('request', async (request, o) => {
      if (options.signal?.aborted) throw new GitHubStop('Cancelled', { cause: options.signal.reason });
      // Every try after the first of a write with a read-back reads first: the lost answer may have been a success.
      const send = async () => {
        const readBack = (o.request as { readBack?: ReadBack } | undefined)?.readBack;
        if (readBack && lastErrors.has(o)) {
          const last = lastErrors.get(o);
          const held = await readBack(last);
          if (held === 'stop') throw last;
          if (held !== 'resend') {
            log(`GitHub had done ${what(o)} although its answer was lost; carrying on from what it holds.`);
            return { status: 200, url: o.url, headers: {}, ...held };
          }
        }
        try {
          return await attempt(request, o);
        } catch (error) {
          lastErrors.set(o, error);
          throw error;
        }
      };
      return retryTransient(send, {
        retries: isMergeCall(o) ? MERGE_RACE_RETRIES : RATE_LIMIT_WAITS,
        minBackoffMs: 1000,
        sleep: (ms) => abortableSleep((ms * secondMs) / 1000, options.signal),
        transient: (error) => isPlainRateLimit(error) || isLabelRace(error, o) || isMergeRace(error, o),
        retryAfterMs: (error) => parseRetryAfter(responseHeaders(error)['retry-after']),
        deadline,
        pastDeadline: ({ waitMs, error }) =>
          tooLong(waitMs, o, isLabelRace(error, o) ? 'did not know the new pull request yet (422)' : isMergeRace(error, o) ? `refused the merge for now (405 "${githubSaid(error)}")` : 'asked to wait (429)'),
        onRetry: ({ waitMs, error }) =>
          log(
            isLabelRace(error, o)
              ? `GitHub did not know the new pull request yet at ${what(o)} (422 Could not resolve to a node); trying again in ${formatDuration(waitMs)}.`
              : isMergeRace(error, o)
                ? `GitHub refused ${what(o)} for now (405 "${githubSaid(error)}"), which passes; reading the pull request back and trying again in ${formatDuration(waitMs)}.`
                : `GitHub asked to wait ${formatDuration(waitMs)} (429) before ${what(o)}; waiting.`
          ),
        signal: options.signal
      });
    });
    return {};
  };

  const onLimit = (kind: string) => (retryAfter: number, o: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
    const asked = retryAfter * 1000;
    if (retryCount >= RATE_LIMIT_WAITS) return false;
    if (!deadline.fits(asked)) {
      stopped = tooLong(asked, o, `asked to wait for its ${kind}`);
      return false;
    }
    log(`GitHub's ${kind} was reached at ${what(o)}; waiting ${formatDuration(asked)} as it asks.`);
    return true;
  };
  // Set when a rate limit asked for a wait past the deadline; the call's error is replaced by it.
  let stopped: GitHubStop | undefined;
  // The last failure of each call in flight, for its read-back.
  const lastErrors = new WeakMap<object, unknown>();
  const isMergeCall = (o: { method: string; url: string }) => o.method === 'PUT' && /\/merge$/.test(o.url);

  const octokit = getOctokit(
    token,
    {
      ...(apiUrl ? { baseUrl: apiUrl } : {}),
      // plugin-retry's own list, with 405 and 409: a merge GitHub refuses (a rule, a moved head) answers the same each time.
      retry: { retries: RETRIES, retryAfterBaseValue: secondMs, doNotRetry: [400, 401, 403, 404, 405, 409, 410, 422, 451] },
      throttle: {
        onRateLimit: onLimit('rate limit'),
        onSecondaryRateLimit: onLimit('secondary rate limit'),
        retryAfterBaseValue: secondMs,
        // The plugin's own limiters are shared by every client in the process: kept on a runner.
        // Their type is Bottleneck's whole Group, of which the plugin calls key().schedule() alone.
        ...(writeSecondMs === 1000 ? {} : { write: spacing(writeSecondMs) as never, notifications: spacing(3 * writeSecondMs) as never })
      }
    },
    attemptLimit as never,
    retry,
    throttling
  );
  // Outermost, before the retry plugin reads it: a write without a read-back is sent once (plugin-retry's per-request `retries`).
  octokit.hook.before('request', (o) => {
    const request = (o.request ?? {}) as { readBack?: ReadBack; retries?: number };
    if (isWrite(o) && !request.readBack) o.request = { ...request, retries: 0 } as never;
  });
  // Outermost: a call refused for a wait past the deadline says so, not just "403".
  // A connection lost at every try says so, not "500" (Octokit gives a failed fetch that status).
  octokit.hook.error('request', (error, o) => {
    if (stopped) {
      const stop = stopped;
      stopped = undefined;
      throw stop;
    }
    if (noAnswer(error) && !(error instanceof GitHubStop)) {
      const code = networkCode(error);
      if (isDnsCode(code)) throw new GitHubStop(`${what(o)} ${dnsAdvice(githubHost(o), code, GITHUB_URL_FIX)}`, { cause: error });
      const lost = /did not answer within/.test(error.message) ? error.message : `GitHub's connection was lost before an answer (${code ?? 'ECONNRESET'})`;
      // plugin-retry counts each failed try, the last one included.
      const tries = Math.max(1, (o.request as { retryCount?: number } | undefined)?.retryCount ?? 0);
      throw new GitHubStop(`${lost} to ${what(o)}${tries > 1 ? `, at each of ${tries} tries` : ''}. Check the runner's network and proxy settings, or run again`, { cause: error, unanswered: true });
    }
    throw error;
  });
  return octokit;
}

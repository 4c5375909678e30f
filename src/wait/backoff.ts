// Retrying a transient fault, the one way every caller does it: the platform transport, the bundle
// download, the pod check, the feedback collector and GitHub's plain 429. The wait doubles from a
// first backoff, a server's Retry-After is honoured as the least wait, and no wait starts that would
// end past the step's deadline: the step ends then, saying what was asked, instead of overrunning.
// p-retry runs the loop; the waits are decided and slept here, so a fake clock sees every one.
import pRetry from 'p-retry';
import type { Deadline } from '../action/deadline.ts';
import { abortableSleep } from './sleep.ts';

export interface Backoff {
  /** Tries after the first. */
  retries: number;
  /** The wait after the first failed try; each later one doubles it. */
  minBackoffMs: number;
  /** Spread each wait over 1 to 2 times its length, so runs that failed together do not retry in step. */
  jitter?: boolean;
}

/** A failed try that will be tried again. */
export interface Retry {
  error: unknown;
  /** The try that failed, from 1. */
  attempt: number;
  retriesLeft: number;
  /** How long until the next try. */
  waitMs: number;
  /** True when the wait is the server's Retry-After, longer than the backoff would have been. */
  serverAsked: boolean;
}

export interface RetryOptions extends Backoff {
  /** Whether the fault may pass on another try (5xx, 429, a lost connection); any other is thrown at once. */
  transient: (error: unknown) => boolean;
  /** The wait the server asked for (Retry-After), when the fault carries one. */
  retryAfterMs?: (error: unknown) => number | undefined;
  /** A longer Retry-After is not waited for: the fault is thrown as it is, for the caller to say when to come back. */
  maxRetryAfterMs?: number;
  /** Who answers, for the message of a wait past the deadline: "the platform", "the storage". */
  server?: string;
  /** The step's deadline: a wait that would end past it is not started. */
  deadline?: Deadline;
  /** The error when the next wait would end past the deadline; by default a DeadlineError that names the fault. */
  pastDeadline?: (retry: Retry) => Error;
  /** Before each wait, for the log. What it throws ends the retrying instead (a request budget spent). */
  onRetry?: (retry: Retry) => void;
  /** Ends the retrying and cuts a wait short: a cancelled step must not sit out a backoff. */
  signal?: AbortSignal;
  /** How to wait (a fake clock's, in tests); by default a timer that the signal cuts short. */
  sleep?: (ms: number) => Promise<void>;
}

/** The backoff after the `attempt`-th failed try (from 1), before any Retry-After. */
export function backoffMs(backoff: Backoff, attempt: number, random: () => number = Math.random): number {
  const spread = backoff.jitter ? 1 + random() : 1;
  return Math.round(backoff.minBackoffMs * 2 ** (attempt - 1) * spread);
}

/** Runs `tryOnce` until it succeeds, a fault is not transient, the retries are used up, or a wait would not fit. */
export async function retryTransient<T>(tryOnce: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { deadline, signal } = options;
  const sleep = options.sleep ?? ((ms: number) => abortableSleep(ms, signal));
  return pRetry(tryOnce, {
    retries: options.retries,
    // The waits are decided and slept in onFailedAttempt; p-retry's own delay stays out of the way.
    minTimeout: 0,
    signal,
    shouldRetry: ({ error }) => options.transient(error),
    onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
      // p-retry throws the fault itself when no retry follows.
      if (retriesLeft === 0 || !options.transient(error)) return;
      const asked = options.retryAfterMs?.(error);
      if (asked !== undefined && options.maxRetryAfterMs !== undefined && asked > options.maxRetryAfterMs) throw error;
      const backoff = backoffMs(options, attemptNumber);
      const serverAsked = asked !== undefined && asked > backoff;
      const retry: Retry = { error, attempt: attemptNumber, retriesLeft, waitMs: serverAsked ? asked : backoff, serverAsked };
      if (deadline && options.pastDeadline && !deadline.fits(retry.waitMs)) throw options.pastDeadline(retry);
      const said = error.message.replace(/\.$/, '');
      deadline?.ensureFits(retry.waitMs, serverAsked ? `${said}; ${options.server ?? 'the server'} asked to wait before retrying` : `${said}; the next try would wait`);
      options.onRetry?.(retry);
      await sleep(retry.waitMs);
    }
  });
}

/** `Retry-After` is seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

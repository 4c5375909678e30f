// Waiting on a remote job: poll until a final status, on a schedule the caller supplies, within an
// overall time limit. p-retry drives the loop: each poll that finds the job unfinished is a "failed
// attempt" whose delay is the schedule's next interval.
import pRetry from 'p-retry';
import { abortableSleep } from './sleep.ts';

/** The poll bounds every schedule keeps (agent-job/'s `min-poll-interval` and `max-poll-interval`; constants in the publish actions). */
export interface ScheduleLimits {
  /** Never poll sooner than this after the previous poll. */
  floorMs: number;
  /** Never wait longer than this between polls. */
  ceilingMs: number;
}

/** What running a remote job to its end takes, whichever kind of job it is. */
export interface JobRunOptions {
  timeoutMs: number;
  limits: ScheduleLimits;
  signal?: AbortSignal;
  /** A line for the log: the start and each change worth a line. */
  log: (line: string) => void;
  /** Called as soon as the job id is known, so a cancellation can name it. */
  onJob?: (id: string) => void;
  now?: () => number;
}

export interface PollSchedule<T> {
  /** Record what a poll saw; `at` is when the answer came (ms epoch). */
  observe(state: T, at: number): void;
  /** How long to wait before the next poll, from `now`. */
  nextDelay(now: number): number;
}

export interface WaitOptions<T> {
  poll: () => Promise<T>;
  isFinal: (state: T) => boolean;
  schedule: PollSchedule<T>;
  /** Absolute deadline (ms epoch). */
  deadline: number;
  signal?: AbortSignal;
  /** Called after every poll with what it saw. */
  onPoll?: (state: T) => void;
  /** The state already known (the start's answer), so the first poll can be scheduled from it. */
  initial?: T;
  /** What is waited on, for the timeout error: `export`, `agent job`, `deployment`. */
  waitingOn: string;
  /** When the waiting began (ms epoch), if before this call: the start of the job, say. */
  began?: number;
  now?: () => number;
  /** How to wait (a fake clock's, in tests and the bench); by default a timer that the signal cuts short. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The one timeout error of every wait: the job did not reach a final status before the deadline.
 * `last` is what was seen last, `waitingOn` what was waited on, `waitedMs` for how long.
 */
export class WaitTimeoutError<T = unknown> extends Error {
  readonly last: T | undefined;
  readonly waitingOn: string;
  readonly waitedMs: number;
  constructor(last: T | undefined, waitingOn: string, waitedMs: number) {
    super(`The ${waitingOn} did not end within the time limit`);
    this.name = 'WaitTimeoutError';
    this.last = last;
    this.waitingOn = waitingOn;
    this.waitedMs = waitedMs;
  }
}

class NotFinished extends Error {
  constructor() {
    super('not finished');
  }
}
/**
 * The one "not finished" every poll throws. It only tells p-retry to wait and poll again, and p-retry
 * hands it back untouched, so it needs no stack of its own: capturing one per poll was a quarter of
 * the CPU of the suite's simulated waits (wait-promises.test.ts and the schedules' tests).
 */
const NOT_FINISHED = new NotFinished();

export async function waitUntilFinal<T>(options: WaitOptions<T>): Promise<T> {
  const now = options.now ?? Date.now;
  const { schedule, signal, deadline } = options;
  const sleep = options.sleep ?? ((ms: number) => abortableSleep(ms, signal));
  const began = options.began ?? now();
  const timedOut = () => new WaitTimeoutError(last, options.waitingOn, now() - began);
  let last = options.initial;
  if (last !== undefined) {
    if (options.isFinal(last)) return last;
    schedule.observe(last, now());
  }

  // Wait before the first poll too: the start's answer is a fresh observation.
  const pause = async () => {
    const left = deadline - now();
    if (left <= 0) throw timedOut();
    await sleep(Math.min(schedule.nextDelay(now()), left));
  };
  if (last !== undefined) await pause();

  return pRetry(
    async () => {
      // The last pause ran to the deadline: the wait is over, not one more request.
      if (last !== undefined && now() >= deadline) throw timedOut();
      const state = await options.poll();
      last = state;
      schedule.observe(state, now());
      options.onPoll?.(state);
      if (options.isFinal(state)) return state;
      throw NOT_FINISHED;
    },
    {
      retries: Number.POSITIVE_INFINITY,
      // The schedule decides each interval; p-retry's own backoff stays out of the way.
      minTimeout: 0,
      factor: 1,
      signal,
      // Anything but "not finished yet" (an API error that survived its own retries) ends the wait.
      shouldRetry: ({ error }) => error instanceof NotFinished,
      onFailedAttempt: async ({ error }) => {
        if (error instanceof NotFinished) await pause();
      }
    }
  );
}

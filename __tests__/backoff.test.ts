// The one backoff helper on a fake clock: random fault sequences (transient or not, with or without
// Retry-After, at random positions), random backoffs and deadlines, each run against a plain model
// of the rules. Whatever the faults, no wait ends past the deadline, no wait is shorter than the
// backoff or than what the server asked, and the tries never exceed the retries.
import { describe, expect, it } from '@jest/globals';
import { Deadline, DeadlineError } from '../src/action/deadline.ts';
import { type Retry, backoffMs, retryTransient } from '../src/wait/backoff.ts';
import { fakeClock } from './fake-clock.ts';

class Fault extends Error {
  readonly transient: boolean;
  readonly retryAfterMs?: number;
  constructor(transient: boolean, retryAfterMs?: number) {
    super(`fault (${transient ? 'transient' : 'final'}${retryAfterMs === undefined ? '' : `, retry after ${retryAfterMs} ms`})`);
    this.transient = transient;
    this.retryAfterMs = retryAfterMs;
  }
}

function seeded(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const transient = (error: unknown) => error instanceof Fault && error.transient;
const retryAfter = (error: unknown) => (error as Fault).retryAfterMs;

describe('retryTransient', () => {
  it('holds the rules for 1,000 random fault sequences, backoffs and deadlines', async () => {
    const seed = Number(process.env.TEST_SEED ?? 18);
    const rand = seeded(seed);
    const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)];
    for (let i = 0; i < 1000; i++) {
      const retries = Math.floor(rand() * 5);
      const minBackoffMs = pick([1, 100, 500, 1000]);
      const jitter = rand() < 0.5;
      const timeoutMs = pick([500, 5_000, 60_000, 3_600_000]);
      const maxRetryAfterMs = rand() < 0.3 ? pick([1_000, 60_000]) : undefined;
      // Each try fails with a random fault, or succeeds.
      const outcomes = Array.from({ length: retries + 2 }, () =>
        rand() < 0.25 ? 'ok' : new Fault(rand() < 0.85, rand() < 0.4 ? pick([0, 200, 1_000, 30_000, 3_600_000]) : undefined)
      );
      const clock = fakeClock();
      const deadline = new Deadline(timeoutMs, clock.now);
      const retried: Retry[] = [];
      let tries = 0;
      const result = await retryTransient(
        async () => {
          const outcome = outcomes[tries++];
          if (outcome === 'ok') return 'ok';
          throw outcome;
        },
        { retries, minBackoffMs, jitter, transient, retryAfterMs: retryAfter, maxRetryAfterMs, deadline, sleep: clock.sleep, onRetry: (retry) => retried.push(retry) }
      ).catch((error: unknown) => error);

      // The model: try, and after a transient fault wait max(backoff, Retry-After) while it fits. With
      // jitter the backoff is anywhere from 1 to 2 times its nominal length, so the model takes the
      // wait the helper slept, and checks it lies in those bounds.
      let elapsed = 0;
      let expected: unknown;
      let expectedTries: number;
      for (let n = 1; ; n++) {
        expectedTries = n;
        const outcome = outcomes[n - 1];
        if (outcome === 'ok' || !outcome.transient || n > retries) {
          expected = outcome;
          break;
        }
        if (outcome.retryAfterMs !== undefined && maxRetryAfterMs !== undefined && outcome.retryAfterMs > maxRetryAfterMs) {
          expected = outcome;
          break;
        }
        const nominal = minBackoffMs * 2 ** (n - 1);
        const shortest = Math.max(nominal, outcome.retryAfterMs ?? 0);
        const longest = Math.max(jitter ? 2 * nominal : nominal, outcome.retryAfterMs ?? 0);
        const slept = clock.sleeps[n - 1];
        if (slept === undefined) {
          // Not waited: only right when the longest wait it could have drawn does not fit.
          expected = elapsed + longest >= timeoutMs ? 'deadline' : 'a wait that fits';
          break;
        }
        expect({ n, slept, within: slept >= shortest && slept <= longest }).toEqual({ n, slept, within: true });
        elapsed += slept;
      }
      const context = { seed, i, retries, minBackoffMs, jitter, timeoutMs, maxRetryAfterMs, outcomes: outcomes.map(String) };
      expect({ ...context, tries }).toEqual({ ...context, tries: expectedTries });
      if (expected === 'deadline') expect({ ...context, result: result instanceof DeadlineError }).toEqual({ ...context, result: true });
      else expect({ ...context, result }).toEqual({ ...context, result: expected });
      expect({ ...context, tries: tries <= retries + 1 }).toEqual({ ...context, tries: true });
      // Every wait is over before the deadline, and the log heard of each one.
      expect(clock.sleeps).toEqual(retried.map((retry) => retry.waitMs));
      expect({ ...context, last: clock.now() < timeoutMs }).toEqual({ ...context, last: true });
    }
  });

  it('says what the server asked when its Retry-After does not fit, and waits for none of it', async () => {
    const clock = fakeClock();
    const error = await retryTransient(
      async () => {
        throw new Fault(true, 3_600_000);
      },
      { retries: 3, minBackoffMs: 1000, transient, retryAfterMs: retryAfter, server: 'the platform', deadline: new Deadline(15_000, clock.now), sleep: clock.sleep }
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect((error as Error).message).toBe(
      "fault (transient, retry after 3600000 ms); the platform asked to wait before retrying (1h 00m), but only 15 s of the step's timeout (15 s) is left. Raise the timeout input if waits this long are expected."
    );
    expect(clock.sleeps).toEqual([]);
  });

  it("throws the caller's own error for a wait past the deadline, and stops when onRetry throws", async () => {
    const clock = fakeClock();
    const mine = new Error('range given up');
    const pastDeadline = await retryTransient(
      async () => {
        throw new Fault(true);
      },
      { retries: 3, minBackoffMs: 10_000, transient, deadline: new Deadline(5_000, clock.now), pastDeadline: () => mine, sleep: clock.sleep }
    ).catch((e: unknown) => e);
    expect(pastDeadline).toBe(mine);

    let tries = 0;
    const budget = await retryTransient(
      async () => {
        tries += 1;
        throw new Fault(true);
      },
      {
        retries: 5,
        minBackoffMs: 1,
        transient,
        sleep: clock.sleep,
        onRetry: ({ attempt }) => {
          if (attempt === 2) throw mine;
        }
      }
    ).catch((e: unknown) => e);
    expect(budget).toBe(mine);
    expect(tries).toBe(2);
  });

  it('ends a wait at once when the step is cancelled', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = retryTransient(
      async () => {
        throw new Fault(true);
      },
      { retries: 3, minBackoffMs: 60_000, transient, signal: controller.signal }
    ).catch((e: unknown) => e);
    setTimeout(() => controller.abort(new Error('cancelled')), 50);
    expect(await waiting).toEqual(new Error('cancelled'));
    // Before the minute's backoff would have ended: the abort ended it (a bound of the backoff, not of the machine).
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});

describe('backoffMs', () => {
  it('doubles from the first backoff, and jitter spreads each wait over 1 to 2 times', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs({ retries: 4, minBackoffMs: 500 }, n))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffMs({ retries: 4, minBackoffMs: 500, jitter: true }, 3, () => 0)).toBe(2000);
    expect(backoffMs({ retries: 4, minBackoffMs: 500, jitter: true }, 3, () => 0.5)).toBe(3000);
  });
});

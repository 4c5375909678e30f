// The step's one deadline. `timeout` is a promise to the user about the whole step, so every wait
// (a poll gap, a Retry-After, a backoff, one request, the download, a GitHub call) takes its limit
// from the time left here instead of keeping a clock of its own.
import { formatDuration } from './format.ts';

export class Deadline {
  /** When the step must be done (ms epoch). */
  readonly at: number;
  readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(timeoutMs: number, now: () => number = Date.now) {
    this.now = now;
    this.timeoutMs = timeoutMs;
    this.at = now() + timeoutMs;
  }

  /** Milliseconds left, never below 0. */
  remaining(): number {
    // Whole milliseconds: AbortSignal.timeout refuses a fraction, and a clock may give one.
    return Math.max(0, Math.ceil(this.at - this.now()));
  }

  expired(): boolean {
    return this.remaining() <= 0;
  }

  /** How long one request may take: its own limit, or what is left of the step if that is less. */
  limit(requestTimeoutMs: number): number {
    return Math.min(requestTimeoutMs, this.remaining());
  }

  /** Whether a wait of `ms` ends before the deadline. */
  fits(ms: number): boolean {
    return ms < this.remaining();
  }

  /**
   * Throws a DeadlineError when a wait of `ms` that a server (or a backoff) asks for would end past
   * the deadline; `what` says who asked, for the message ("the platform asked to retry after 1h 00m").
   */
  ensureFits(ms: number, what: string): void {
    if (!this.fits(ms)) throw new DeadlineError(what, ms, this);
  }
}

/** A wait would have ended past the step's `timeout`: the step ends now instead of overrunning. */
export class DeadlineError extends Error {
  readonly askedMs: number;
  readonly remainingMs: number;
  readonly timeoutMs: number;
  /** `what` says who asked for a wait of `askedMs`; with `askedMs` 0, what was next when the time ran out. */
  constructor(what: string, askedMs: number, deadline: Deadline) {
    const left = deadline.remaining();
    super(
      askedMs === 0
        ? `The step's timeout (${formatDuration(deadline.timeoutMs)}) ran out before ${what}. Raise the timeout input, or run again.`
        : `${what} (${formatDuration(askedMs)}), but only ${formatDuration(left)} of the step's timeout ` +
            `(${formatDuration(deadline.timeoutMs)}) is left. Raise the timeout input if waits this long are expected.`
    );
    this.name = 'DeadlineError';
    this.askedMs = askedMs;
    this.remainingMs = left;
    this.timeoutMs = deadline.timeoutMs;
  }
}

// When to poll a job next: the one schedule of every wait (export, agent job, deployment).
//
// It keeps the beat of the platform's own loop (a status request every `max-poll-interval` from the
// start, 10 s by default, as the loop's `sleep 10`), so an end that nothing foretold (a failure, a
// jump to the end) is never seen later than the loop sees it, whatever the job does. On top of the
// beat it may look off the beat at most EXTRA_LOOKS times in the whole wait: just after an end that
// the job's progress foretold (the export), or soon after the start where short jobs are common (the
// agent job). Never skipping a beat is what keeps the promise; the few extra looks are what make a
// foretold end seen within a second. Raising `max-poll-interval` trades requests for lateness.
import { EndEstimate, type ProgressReading } from './end-estimate.ts';
import type { PollSchedule, ScheduleLimits } from './wait.ts';

/** Requests beyond the beat's, at any moment of the wait. */
export const EXTRA_LOOKS = 2;
/** Land this long after an estimated end, so the job has surely flipped to its final status. */
const LANDING_MARGIN_MS = 250;
/** How far an estimated end may be off: the runner's and the platform's clocks, dates in whole ms. */
const ESTIMATE_ERROR_MS = 100;

/** What differs between kinds of job. */
export interface ScheduleKind<T> {
  /** What an answer says of the job's progress; kinds that report none leave it out. */
  progress?: (job: T) => ProgressReading | undefined;
  /** Looks off the beat this long after the start, for kinds whose short jobs end in seconds. */
  earlyLooksMs?: readonly number[];
}

export class JobSchedule<T> implements PollSchedule<T> {
  private readonly limits: ScheduleLimits;
  private readonly kind: ScheduleKind<T>;
  private readonly estimate: EndEstimate | undefined;
  /** The start's answer (or the first poll's): the beat counts from it. */
  private startedAt: number | undefined;
  private lastPollAt: number | undefined;
  /** Status requests answered since the start. */
  private polls = 0;
  /** What the pending delay was planned for. */
  private planned: 'beat' | 'landing' | 'early' = 'beat';

  constructor(limits: ScheduleLimits, kind: ScheduleKind<T> = {}) {
    this.limits = limits;
    this.kind = kind;
    this.estimate = kind.progress ? new EndEstimate() : undefined;
  }

  observe(job: T, at: number): void {
    if (this.startedAt === undefined) this.startedAt = at;
    else this.polls += 1;
    this.lastPollAt = at;
    const reading = this.kind.progress?.(job);
    if (this.estimate && reading) {
      this.estimate.observe(reading, at);
      // A landing that finds the job still going (else the wait is over) is a missed estimate.
      if (this.planned === 'landing') this.estimate.missed();
    }
    this.planned = 'beat';
  }

  /** Whether the progress foretells the end (the export's log shows the time left only then). */
  confident(): boolean {
    return this.estimate?.confident() ?? false;
  }

  /** The estimated end on our clock: the confident one, or a rough guess; undefined without either. */
  estimatedEnd(): number | undefined {
    return this.estimate?.confidentEnd() ?? this.estimate?.guessedEnd();
  }

  nextDelay(now: number): number {
    const startedAt = (this.startedAt ??= now);
    const last = this.lastPollAt ?? now;
    const { floorMs, ceilingMs: beatMs } = this.limits;
    const earliest = last + floorMs;
    const beat = Math.max(earliest, startedAt + beatMs * (Math.floor((now - startedAt) / beatMs) + 1));
    // A look off the beat must leave the beat's next request where it is (at least the floor after it).
    const fits = (at: number) => at >= earliest && at <= beat - floorMs && this.polls + 1 <= Math.floor((at - startedAt) / beatMs) + EXTRA_LOOKS;
    const landing = this.landingAt(earliest, beat);
    const early = this.earlyLookAt(startedAt, last);
    const earlyAt = early === undefined ? undefined : Math.max(early, earliest);
    let next = beat;
    this.planned = 'beat';
    if (landing !== undefined && landing < next && fits(landing)) {
      next = landing;
      this.planned = 'landing';
    } else if (earlyAt !== undefined && earlyAt < next && fits(earlyAt)) {
      next = earlyAt;
      this.planned = 'early';
    }
    return Math.max(0, Math.ceil(next - now));
  }

  /** Just after the confident end, when that comes before the next beat; undefined otherwise. */
  private landingAt(earliest: number, beat: number): number | undefined {
    const end = this.estimate?.confidentEnd();
    if (end === undefined) return undefined;
    const at = Math.max(earliest, Math.ceil(end) + LANDING_MARGIN_MS);
    const latest = beat - this.limits.floorMs; // the beat keeps its place, the floor after the landing
    if (at <= latest) return at;
    // The end falls just before the beat. Land as late as the floor lets, even a little before the
    // estimate (it may err by the clocks' difference): if the job is not done then, it ends within a
    // floor before the beat. An end further in leaves too little time for a look: the beat sees it.
    return latest >= Math.max(earliest, end - ESTIMATE_ERROR_MS) ? latest : undefined;
  }

  private earlyLookAt(startedAt: number, last: number): number | undefined {
    return this.kind.earlyLooksMs?.map((ms) => startedAt + ms).find((at) => at > last);
  }
}

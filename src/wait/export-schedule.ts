// When to poll an export next. A fixed beat either notices the end late or spends requests; the
// job's own answers say when it will end. Progress and `updatedAt` give a rate, the rate gives an
// estimated end, and the next poll is placed just after that end: sparse far from it, on it near it.
import type { ExportJob } from '../platform/static-export.ts';
import type { PollSchedule, ScheduleLimits } from './wait.ts';

interface Sample {
  /** When progress last changed, on the server's clock (`updatedAt`). */
  at: number;
  progress: number;
}

/** Poll this long after the estimated end, so the job has surely flipped to `completed`. */
const MARGIN_MS = 250;
/** Before there is a rate, poll this soon after the start: jobs often leave `queued` quickly. */
const FIRST_LOOK_MS = 2000;
/** While queued, the next wait is this times the time waited so far. */
const QUEUE_BACKOFF = 1.5;
/** After the first progress sample, the longest wait for the second one. */
const SECOND_LOOK_MAX_MS = 5000;
const DAY_MS = 86_400_000;

export class ExportSchedule implements PollSchedule<ExportJob> {
  private readonly limits: ScheduleLimits;
  private readonly startedAt: number;
  /** Samples since the last time progress went backwards (a reset restarts the estimate). */
  private samples: Sample[] = [];
  /** Smallest seen (our receive time − server `updatedAt`): the servers' clock offset plus a little lag. */
  private offset: number | undefined;
  /** The last time the job was seen queued: running began after it. */
  private lastQueuedAt: number;

  constructor(limits: ScheduleLimits, startedAt = Date.now()) {
    this.limits = limits;
    this.startedAt = startedAt;
    this.lastQueuedAt = startedAt;
  }

  observe(job: ExportJob, at: number): void {
    if (job.status === 'queued') {
      this.lastQueuedAt = at;
      return;
    }
    // `updatedAt` dates the progress exactly, where our receive time adds the poll's own lag. A
    // server that sends no usable `updatedAt` is dated by our clock (offset 0).
    const updated = Date.parse(job.updatedAt);
    const changedAt = Number.isNaN(updated) || updated > at + DAY_MS ? at : updated;
    this.offset = Math.min(this.offset ?? Infinity, at - changedAt);
    const last = this.samples.at(-1);
    if (last && job.progress < last.progress) this.samples = []; // reset: the old rate says nothing
    if (last && job.progress === last.progress && this.samples.length > 0) return; // nothing new
    this.samples.push({ at: changedAt, progress: job.progress });
  }

  /** The estimated end on our clock, or undefined while there is no rate to go on. */
  estimatedEnd(): number | undefined {
    const rate = this.rate();
    const last = this.samples.at(-1);
    if (rate === undefined || !last) return undefined;
    return last.at + (this.offset ?? 0) + (100 - last.progress) / rate;
  }

  /** Whether the estimate rests on two real progress samples rather than a guess from one. */
  confident(): boolean {
    return this.samples.length >= 2;
  }

  nextDelay(now: number): number {
    const { floorMs, ceilingMs } = this.limits;
    const clamp = (ms: number) => Math.min(ceilingMs, Math.max(floorMs, ms));
    const end = this.estimatedEnd();
    if (end === undefined) {
      // Queued, or running with no progress yet: nothing to estimate from, so back off from a quick
      // first look, each wait 1.5 times the time waited so far: a queued job tells nothing by being
      // asked again, and the end is caught from the progress rate once it runs.
      return clamp(Math.max(FIRST_LOOK_MS, QUEUE_BACKOFF * (now - this.startedAt)));
    }
    const untilEnd = end - now;
    if (!this.confident()) {
      // One sample: the rate is a guess that errs slow (queue time included), so look again soon
      // for a second sample; two give a real rate.
      return clamp(Math.min(untilEnd / 2, SECOND_LOOK_MAX_MS));
    }
    // Far from the end only the ceiling matters; near it, land just after the end.
    return clamp(untilEnd + MARGIN_MS);
  }

  private rate(): number | undefined {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last) return undefined;
    if (this.samples.length >= 2 && last.at > first.at && last.progress > first.progress) {
      // The average over the whole run so far: a stall followed by a jump averages out.
      return (last.progress - first.progress) / (last.at - first.at);
    }
    // One sample: assume it began running when last seen queued, which overstates the time taken,
    // so the guess errs slow and the next look (half-way) comes before the end.
    const since = last.at + (this.offset ?? 0) - this.lastQueuedAt;
    if (last.progress <= 0 || since <= 0) return undefined;
    return last.progress / since;
  }
}

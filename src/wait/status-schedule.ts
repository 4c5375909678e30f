// When to poll a job that reports a status word and nothing to estimate its end from (an agent job,
// a deployment): a quick first look, then a gap that grows by half each time nothing changed, up to
// the ceiling. A new word means the job is moving, so the next look is quick again. The end of a
// job that ran for T is seen by T/2 + 2 s at the latest (never later than one ceiling), and a long
// run costs a request per ceiling, not one per fixed beat.
import type { PollSchedule, ScheduleLimits } from './wait.ts';

/** The first gap, before the floor and ceiling apply. */
const FIRST_LOOK_MS = 2000;
/** How much each unchanged answer stretches the next gap. */
const GROWTH = 1.5;

export class StatusSchedule<T extends { status: string }> implements PollSchedule<T> {
  private readonly limits: ScheduleLimits;
  /** Polls since the status last changed. */
  private unchanged = 0;
  private lastStatus: string | undefined;

  constructor(limits: ScheduleLimits) {
    this.limits = limits;
  }

  observe(job: T): void {
    if (job.status !== this.lastStatus) this.unchanged = 0;
    else this.unchanged += 1;
    this.lastStatus = job.status;
  }

  nextDelay(): number {
    const { floorMs, ceilingMs } = this.limits;
    const gap = FIRST_LOOK_MS * GROWTH ** this.unchanged;
    return Math.min(ceilingMs, Math.max(floorMs, Math.round(gap)));
  }
}

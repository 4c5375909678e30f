// When to poll an agent job next. An agent job reports no progress, only `active` until it ends, so
// there is nothing to estimate an end from: a quick first look (short prompts finish in seconds),
// then a gap that grows by half each time nothing changed, up to the ceiling. The end of a job that
// ran for T is seen by T/2 + 2 s at the latest (and never later than one ceiling), and a long run
// costs a request per ceiling, not one per fixed beat.
import type { AgentJob } from '../platform/agent.ts';
import type { PollSchedule, ScheduleLimits } from './wait.ts';

/** The first gap, before the floor and ceiling apply. */
export const FIRST_LOOK_MS = 2000;
/** How much each unchanged answer stretches the next gap. */
export const GROWTH = 1.5;

export class AgentSchedule implements PollSchedule<AgentJob> {
  private readonly limits: ScheduleLimits;
  /** Polls since the status last changed. */
  private unchanged = 0;
  private lastStatus: string | undefined;

  constructor(limits: ScheduleLimits) {
    this.limits = limits;
  }

  observe(job: AgentJob): void {
    // A new word (an unlisted one, or a job taken up again) says the job is moving: look soon again.
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

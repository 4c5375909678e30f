import { describe, expect, it } from '@jest/globals';
import type { AgentJob } from '../src/platform/agent.ts';
import { AgentSchedule } from '../src/wait/agent-schedule.ts';

const job = (status: string): AgentJob => ({ id: 'job_1', status });
const limits = { floorMs: 1000, ceilingMs: 30_000 };

/** Polls a job that ends at `endMs` on the schedule; returns the polls made and how late the end was seen. */
function simulate(endMs: number, scheduleLimits = limits) {
  const schedule = new AgentSchedule(scheduleLimits);
  schedule.observe(job('active'));
  let t = 0;
  let polls = 0;
  for (;;) {
    t += schedule.nextDelay();
    polls += 1;
    const status = t >= endMs ? 'completed' : 'active';
    schedule.observe(job(status));
    if (status === 'completed') return { polls, lateMs: t - endMs };
  }
}

describe('AgentSchedule', () => {
  it('looks after 2 s, then stretches each gap by half, up to the ceiling', () => {
    const schedule = new AgentSchedule(limits);
    const gaps: number[] = [];
    for (let i = 0; i < 10; i++) {
      schedule.observe(job('active'));
      gaps.push(schedule.nextDelay());
    }
    expect(gaps).toEqual([2000, 3000, 4500, 6750, 10_125, 15_188, 22_781, 30_000, 30_000, 30_000]);
  });

  it('keeps every gap between min-poll-interval and max-poll-interval', () => {
    const slow = new AgentSchedule({ floorMs: 5000, ceilingMs: 8000 });
    const gaps: number[] = [];
    for (let i = 0; i < 5; i++) {
      slow.observe(job('active'));
      gaps.push(slow.nextDelay());
    }
    expect(gaps).toEqual([5000, 5000, 5000, 6750, 8000]);
  });

  it('looks soon again when the status changes (a word the API does not list, then active)', () => {
    const schedule = new AgentSchedule(limits);
    for (let i = 0; i < 6; i++) schedule.observe(job('queued'));
    expect(schedule.nextDelay()).toBe(15_188);
    schedule.observe(job('active'));
    expect(schedule.nextDelay()).toBe(2000);
  });

  it('sees an end by half the run plus 2 s, and never more than one ceiling late', () => {
    for (let endMs = 500; endMs <= 20 * 60_000; endMs += 1700) {
      const { lateMs } = simulate(endMs);
      expect(lateMs).toBeLessThanOrEqual(Math.min(limits.ceilingMs, endMs / 2 + 2000));
    }
  });

  it('beats a fixed 10 s beat: sooner on short jobs, far fewer requests on long ones', () => {
    // A 4 s job: seen at 5 s, where a 10 s beat sees it at 10 s.
    expect(simulate(4000)).toEqual({ polls: 2, lateMs: 1000 });
    // A 10 minute job: 25 requests instead of 60.
    expect(simulate(10 * 60_000).polls).toBe(25);
  });
});

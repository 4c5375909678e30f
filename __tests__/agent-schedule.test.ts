import { describe, expect, it } from '@jest/globals';
import type { AgentJob } from '../src/platform/agent.ts';
import { AgentSchedule } from '../src/wait/agent-schedule.ts';
import { StatusSchedule } from '../src/wait/status-schedule.ts';
import { actionWait, loopWait, type SimJob } from './wait-sim.ts';

const job = (status: string): AgentJob => ({ id: 'job_1', status });
const limits = { floorMs: 1000, ceilingMs: 10_000 };

/** The times of the first `count` looks, each answered at once. */
function looks(schedule: AgentSchedule | StatusSchedule<AgentJob>, count: number, status = 'active'): number[] {
  let at = 0;
  schedule.observe(job(status), at);
  const times = [];
  for (let i = 0; i < count; i++) {
    at += schedule.nextDelay(at);
    times.push(at);
    schedule.observe(job(status), at);
  }
  return times;
}

const agentJob = (endsAfterMs: number): SimJob => ({
  shape: 'agent job',
  kind: 'agent',
  queuedMs: 0,
  knots: [[0, 0], [endsAfterMs, 100]],
  endsAfterMs,
  outcome: 'completed',
  runningWord: 'active',
  foretold: false
});

describe('AgentSchedule', () => {
  it('looks at 2 s and 5 s, for short prompts, then keeps the 10 s beat', () => {
    expect(looks(new AgentSchedule(limits), 6)).toEqual([2000, 5000, 10_000, 20_000, 30_000, 40_000]);
  });

  it('keeps the beat whatever status word it sees, one the API does not list included', () => {
    expect(looks(new AgentSchedule(limits), 5, 'queued')).toEqual([2000, 5000, 10_000, 20_000, 30_000]);
  });

  it('a deployment keeps the beat alone: its first seconds tell nothing', () => {
    expect(looks(new StatusSchedule<AgentJob>(limits), 3)).toEqual([10_000, 20_000, 30_000]);
  });

  it('keeps max-poll-interval as its beat and min-poll-interval between looks', () => {
    expect(looks(new AgentSchedule({ floorMs: 2500, ceilingMs: 30_000 }), 4)).toEqual([2500, 5000, 30_000, 60_000]);
  });

  it('sees a 4 s job at 5 s, and never later than the loop, for two requests more at most', async () => {
    expect(await actionWait(agentJob(4000))).toEqual({ polls: [2000, 5000], lateMs: 1000 });
    for (let endsAfterMs = 500; endsAfterMs <= 20 * 60_000; endsAfterMs += 1700) {
      const ours = await actionWait(agentJob(endsAfterMs));
      const loop = loopWait(agentJob(endsAfterMs));
      expect(ours.lateMs).toBeLessThanOrEqual(loop.lateMs);
      expect(ours.polls.length).toBeLessThanOrEqual(loop.polls.length + 2);
    }
  });
});

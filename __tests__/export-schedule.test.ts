import { describe, expect, it } from '@jest/globals';
import type { ExportJob } from '../src/platform/static-export.ts';
import { ExportSchedule } from '../src/wait/export-schedule.ts';

interface Profile {
  queuedMs: number;
  runMs: number;
  stall?: { at: number; forMs: number };
}

/** A job whose state is a function of time, as the emulator computes it (integer progress). */
function jobAt(profile: Profile, t: number): ExportJob {
  const base = { jobId: 'se_1', pageCount: 0, createdAt: new Date(0).toISOString() };
  if (t < profile.queuedMs) return { ...base, status: 'queued', progress: 0, updatedAt: new Date(0).toISOString() };
  const running = t - profile.queuedMs;
  const total = profile.runMs;
  let fraction = Math.min(1, running / total);
  if (profile.stall) {
    const stallStart = (profile.stall.at / 100) * total;
    if (running >= stallStart && running < stallStart + profile.stall.forMs) fraction = profile.stall.at / 100;
  }
  const progress = Math.floor(fraction * 100);
  const changedAt = profile.queuedMs + (progress / 100) * total;
  if (progress >= 100) return { ...base, status: 'completed', progress: 100, updatedAt: new Date(t).toISOString() };
  return { ...base, status: 'running', progress, updatedAt: new Date(Math.min(t, changedAt)).toISOString() };
}

/** Polls a simulated job with the schedule; returns the status requests and how late the end was seen. */
function simulate(profile: Profile, limits = { floorMs: 1000, ceilingMs: 30_000 }) {
  const schedule = new ExportSchedule(limits, 0);
  let t = 0;
  schedule.observe(jobAt(profile, 0), 0);
  let polls = 0;
  let previous = 0;
  const gaps: number[] = [];
  for (;;) {
    t += schedule.nextDelay(t);
    gaps.push(t - previous);
    previous = t;
    polls += 1;
    const job = jobAt(profile, t);
    schedule.observe(job, t);
    if (job.status === 'completed') return { polls, lateMs: t - firstCompleted(profile), gaps };
    if (polls > 500) throw new Error('never finished');
  }
}

function firstCompleted(profile: Profile): number {
  let lo = 0;
  let hi = (profile.queuedMs + profile.runMs + (profile.stall?.forMs ?? 0)) * 2;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (jobAt(profile, mid).status === 'completed') hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The documented template: a status request every 10 s from the start. */
function fixedPoller(profile: Profile, everyMs: number) {
  const end = firstCompleted(profile);
  const polls = Math.floor(end / everyMs) + (end % everyMs === 0 ? 1 : 2);
  return { polls };
}

describe('ExportSchedule', () => {
  const profiles: Record<string, Profile> = {
    'short (20 s)': { queuedMs: 300, runMs: 20_000 },
    'two minutes': { queuedMs: 300, runMs: 120_000 },
    'sits queued 15 s': { queuedMs: 15_000, runMs: 30_000 },
    'sits queued 20 s': { queuedMs: 20_000, runMs: 30_000 },
    'stall then jump': { queuedMs: 300, runMs: 60_000, stall: { at: 40, forMs: 15_000 } }
  };

  it.each(Object.entries(profiles))('%s: notices the end within a second, with no more requests than a 10 s poller', (_, profile) => {
    const result = simulate(profile);
    expect(result.lateMs).toBeLessThanOrEqual(1000);
    expect(result.polls).toBeLessThanOrEqual(fixedPoller(profile, 10_000).polls);
  });

  it('a job shorter than one 10 s beat: noticed within a second, with one request more at most', () => {
    const profile = { queuedMs: 1500, runMs: 8000 };
    const result = simulate(profile);
    expect(result.lateMs).toBeLessThanOrEqual(1000);
    expect(result.polls).toBeLessThanOrEqual(fixedPoller(profile, 10_000).polls + 1);
  });

  it('never polls faster than the floor nor waits longer than the ceiling', () => {
    for (const profile of Object.values(profiles)) {
      const { gaps } = simulate(profile, { floorMs: 1500, ceilingMs: 20_000 });
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1500);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(20_000);
    }
  });

  it('starts its estimate again when progress goes backwards', () => {
    const schedule = new ExportSchedule({ floorMs: 1000, ceilingMs: 30_000 }, 0);
    const at = (t: number, progress: number): ExportJob => ({
      jobId: 'se_1',
      status: 'running',
      progress,
      pageCount: progress,
      createdAt: new Date(0).toISOString(),
      updatedAt: new Date(t).toISOString()
    });
    schedule.observe(at(10_000, 50), 10_000);
    schedule.observe(at(20_000, 100 - 1), 20_000);
    const before = schedule.estimatedEnd();
    schedule.observe(at(21_000, 2), 21_000);
    expect(before).toBeLessThan(21_000);
    expect(schedule.confident()).toBe(false);
    expect(schedule.estimatedEnd()).toBeGreaterThan(40_000);
  });

  it('has no estimate while the job is queued, and looks again with a growing interval', () => {
    const schedule = new ExportSchedule({ floorMs: 1000, ceilingMs: 30_000 }, 0);
    const queued: ExportJob = { jobId: 'se_1', status: 'queued', progress: 0, pageCount: 0, createdAt: '', updatedAt: '' };
    schedule.observe(queued, 0);
    expect(schedule.estimatedEnd()).toBeUndefined();
    const first = schedule.nextDelay(0);
    schedule.observe(queued, 8000);
    expect(schedule.nextDelay(8000)).toBeGreaterThan(first);
  });
});

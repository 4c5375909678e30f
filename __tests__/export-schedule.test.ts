import { describe, expect, it } from '@jest/globals';
import type { ExportJob } from '../src/platform/static-export.ts';
import { ExportSchedule } from '../src/wait/export-schedule.ts';
import { actionWait, type SimJob } from './wait-sim.ts';

const limits = { floorMs: 1000, ceilingMs: 10_000 };

/** An answer: `percent` first shown at `changedAt`. */
const job = (status: string, percent: number, changedAt: number): ExportJob => ({
  jobId: 'se_1',
  status,
  progress: percent,
  pageCount: percent,
  createdAt: new Date(0).toISOString(),
  updatedAt: new Date(changedAt).toISOString()
});

/** A schedule that has seen the start's answer (queued) at 0 and then `answers` as [at, percent, changedAt]. */
function after(answers: [number, number, number][], scheduleLimits = limits) {
  const schedule = new ExportSchedule(scheduleLimits);
  schedule.observe(job('queued', 0, 0), 0);
  for (const [at, percent, changedAt] of answers) schedule.observe(job('running', percent, changedAt), at);
  return schedule;
}

const linear = (runMs: number, queuedMs = 300): SimJob => ({
  shape: 'linear',
  kind: 'export',
  queuedMs,
  knots: [[0, 0], [runMs, 100]],
  endsAfterMs: runMs,
  outcome: 'completed',
  runningWord: 'running',
  foretold: true
});

describe('ExportSchedule', () => {
  it('keeps the 10 s beat from the start while nothing foretells the end', () => {
    const schedule = new ExportSchedule(limits);
    schedule.observe(job('queued', 0, 0), 0);
    const delays = [];
    for (let at = 0; at <= 40_000; at += 10_000) {
      if (at > 0) schedule.observe(job('queued', 0, 0), at + 120); // each answer takes 120 ms
      delays.push(schedule.nextDelay(at === 0 ? 0 : at + 120));
    }
    expect(delays).toEqual([10_000, 9880, 9880, 9880, 9880]);
  });

  it('lands 250 ms after an end that two points of a steady start foretell', () => {
    // 1% every 250 ms since 300 ms: 100% at 25.3 s.
    const schedule = after([[10_000, 38, 9800], [20_000, 78, 19_800]]);
    expect(schedule.confident()).toBe(true);
    expect(schedule.estimatedEnd()).toBeCloseTo(25_300, 0);
    expect(schedule.nextDelay(20_000)).toBe(5550);
  });

  it('takes one point for a rough guess only, and keeps the beat', () => {
    const schedule = after([[10_000, 48, 9900]]);
    expect(schedule.confident()).toBe(false);
    expect(schedule.estimatedEnd()).toBeGreaterThan(20_300); // errs slow: the job may have started any time after 0
    expect(schedule.nextDelay(10_000)).toBe(10_000);
  });

  it('takes a stall as evidence: back on the beat until fresh points agree again', () => {
    const schedule = after([[10_000, 30, 9900], [20_000, 63, 19_800]]);
    expect(schedule.nextDelay(20_000)).toBe(10_000); // the end is at 31 s, after the beat
    schedule.observe(job('running', 63, 19_800), 30_000); // 64% was due at 20.1 s
    expect(schedule.confident()).toBe(false);
    expect(schedule.nextDelay(30_000)).toBe(10_000);
  });

  it('takes a missed estimate as evidence: the freshest two points wait for a third', () => {
    const schedule = after([[10_000, 38, 9800], [20_000, 78, 19_800]]);
    expect(schedule.nextDelay(20_000)).toBe(5550);
    schedule.observe(job('running', 96, 25_000), 25_550); // it slowed down: no end at 25.3 s
    expect(schedule.confident()).toBe(false);
    expect(schedule.nextDelay(25_550)).toBe(4450); // back to the beat at 30 s
  });

  it('starts again from fresh points when progress goes back', () => {
    const schedule = after([[10_000, 50, 10_000], [20_000, 99, 19_800]]);
    schedule.observe(job('running', 2, 20_500), 21_000);
    expect(schedule.confident()).toBe(false);
    expect(schedule.estimatedEnd()).toBeUndefined();
  });

  it('never looks sooner than min-poll-interval after the last look', () => {
    // 1% every 200 ms since 300 ms: 100% at 20.3 s, 300 ms after the look at 20 s.
    const schedule = after([[10_000, 48, 9900], [20_000, 98, 19_900]]);
    expect(schedule.nextDelay(20_000)).toBe(1000);
  });

  it('never moves a beat: an end just before it is landed on earlier, or left to the beat', () => {
    // 4% a second. An end at 28.95 s: a landing at 29.2 s would come less than the floor before the
    // beat at 30 s, so it comes at 29 s. An end at 29.4 s: the beat sees it 0.6 s late.
    expect(after([[10_000, 20, 8950], [20_000, 60, 18_950]]).nextDelay(20_000)).toBe(9000);
    expect(after([[10_000, 20, 9400], [20_000, 60, 19_400]]).nextDelay(20_000)).toBe(10_000);
  });

  it('sees a steady job that the beat looked at twice within a second, with at most two requests more than the loop', async () => {
    for (const runMs of [20_000, 45_000, 90_000, 10 * 60_000]) {
      const { polls, lateMs } = await actionWait(linear(runMs));
      expect(lateMs).toBeLessThanOrEqual(1000);
      expect(polls.length).toBeLessThanOrEqual(Math.ceil((runMs + 300) / 10_000) + 2);
    }
  });

  it('with a higher max-poll-interval, asks less and still lands on a foretold end', async () => {
    const { polls, lateMs } = await actionWait(linear(10 * 60_000), 0, { floorMs: 1000, ceilingMs: 60_000 });
    expect(polls.length).toBe(11); // ten beats and the landing, where the 10 s loop asks 61 times
    expect(lateMs).toBeLessThanOrEqual(1000);
  });
});

import { describe, expect, it } from '@jest/globals';
import { Deadline, DeadlineError } from '../src/action/deadline.ts';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('Deadline', () => {
  it('counts down from the timeout and never goes below zero', () => {
    const c = clock();
    const d = new Deadline(15_000, c.now);
    expect(d.remaining()).toBe(15_000);
    c.advance(10_000);
    expect(d.remaining()).toBe(5_000);
    expect(d.expired()).toBe(false);
    c.advance(20_000);
    expect(d.remaining()).toBe(0);
    expect(d.expired()).toBe(true);
  });

  it('limits a request to what is left of the step', () => {
    const c = clock();
    const d = new Deadline(45_000, c.now);
    expect(d.limit(30_000)).toBe(30_000);
    c.advance(40_000);
    expect(d.limit(30_000)).toBe(5_000);
  });

  it('holds for random timeouts, waits and elapsed times', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 1_000; i++) {
      const c = clock();
      const timeout = Math.floor(rand() * 3_600_000) + 1;
      const d = new Deadline(timeout, c.now);
      c.advance(Math.floor(rand() * timeout * 1.2));
      const wait = Math.floor(rand() * timeout);
      const left = Math.max(0, timeout - (c.now() - 1_000_000));
      expect(d.remaining()).toBe(left);
      expect(d.fits(wait)).toBe(wait < left);
      expect(d.limit(wait)).toBe(Math.min(wait, left));
    }
  });

  it('says what was asked, what is left and what to raise when a wait does not fit', () => {
    const c = clock();
    const d = new Deadline(15_000, c.now);
    c.advance(3_000);
    expect(() => d.ensureFits(3_600_000, 'The platform asked to retry after')).toThrow(DeadlineError);
    expect(() => d.ensureFits(3_600_000, 'The platform asked to retry after')).toThrow(
      "The platform asked to retry after (1h 00m), but only 12 s of the step's timeout (15 s) is left. Raise the timeout input if waits this long are expected."
    );
    expect(() => d.ensureFits(11_999, 'A backoff')).not.toThrow();
  });
});

// The run's plan (plan.ts) is a pure function of the inputs, the facts and the time: no request, no
// log line. Judged here on facts made in the test, at a fixed seed.
import { describe, expect, it } from '@jest/globals';
import { planRun } from '../src/publish/plan.ts';
import type { Facts } from '../src/publish/facts.ts';
import type { PublishInputs } from '../src/publish/inputs.ts';
import type { PullSummary } from '../src/github/pull-request.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-20T08:00:00Z');
const JOB = 'se_3f9a2c1b8e7d4a06';
/** A presigned link of JOB, signed `ageHours` ago for a week (the lifetime S3 allows at most). */
const link = (ageHours: number) => {
  const date = new Date(NOW - ageHours * HOUR).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  return `https://storage.invalid/${JOB}/bundle.tar.gz?X-Amz-Date=${date}&X-Amz-Expires=604800&X-Amz-Signature=0f`;
};
// Only what planRun reads: the inputs of a nightly renewal, and what GitHub holds.
const nightly = (over: Partial<PublishInputs> = {}) => ({ plan: 'auto', request: { domain: 'docs.example.com' }, minValidityMs: 72 * HOUR, ...over }) as PublishInputs;
const facts = (over: Partial<Facts> = {}): Facts => ({ proposal: { base: { branch: 'main' } } as Facts['proposal'], deployedEnabled: true, vetoes: new Map(), ...over });

describe('planRun', () => {
  it('leaves a link valid longer than renew-within, and renews the same export when it is due', () => {
    expect(planRun(nightly(), facts({ link: link(24) }), NOW)).toMatchObject({ kind: 'leave', validity: { due: false } });
    expect(planRun(nightly(), facts({ link: link(120) }), NOW)).toMatchObject({ kind: 'export', plan: { reuse: JOB, fallback: { domain: 'docs.example.com' } } });
  });

  it('says no to an export a person turned down, however it comes back', () => {
    const closed = { number: 4, state: 'closed', merged: false } as PullSummary;
    expect(planRun(nightly(), facts({ link: link(120), vetoes: new Map([[JOB, closed]]) }), NOW)).toMatchObject({ kind: 'vetoed', reason: expect.stringContaining('#4') });
  });

  it('never renews a URL without an expiry of its own', () => {
    expect(planRun(nightly(), facts({ link: 'https://docs-bundles.example.invalid/se_3f9a2c1b8e7d4a06.tar.gz' }), NOW)).toMatchObject({ kind: 'leave', validity: { hosted: true } });
  });

  it('is due exactly when the link has less than renew-within left, over 500 seeded cases', () => {
    let seed = 40;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 500; i++) {
      const age = Math.floor(random() * 200);
      const minValidity = Math.floor(random() * 168) * HOUR;
      const plan = planRun(nightly({ minValidityMs: minValidity }), facts({ link: link(age) }), NOW);
      const left = (168 - age) * HOUR;
      expect([age, minValidity / HOUR, plan.kind]).toEqual([age, minValidity / HOUR, left >= minValidity ? 'leave' : 'export']);
    }
  });
});

import { describe, expect, it } from '@jest/globals';
import { checkValidity, renewalPlan } from '../src/publish/renewal.ts';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const HOUR = 3_600_000;
const s3 = (date: string, seconds: number) =>
  `https://static-exports.s3.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=${date}&X-Amz-Expires=${seconds}&X-Amz-SignedHeaders=host&X-Amz-Signature=abc`;

describe('checkValidity', () => {
  it('is not due while the link stays valid at least renew-within', () => {
    const validity = checkValidity(s3('20261121T120000Z', 7 * 24 * 3600), 72 * HOUR, NOW);
    expect(validity).toMatchObject({ due: false, expiresAt: new Date('2026-11-28T12:00:00Z') });
    expect(validity.reason).toBe('The current link stays valid for 7d 0h, at least renew-within (3d 0h): nothing to do.');
  });

  it('is due when it expires sooner, or has expired', () => {
    expect(checkValidity(s3('20261121T120000Z', 3600), 72 * HOUR, NOW)).toMatchObject({ due: true, reason: 'The current link expires in 1h 00m, less than renew-within (3d 0h): renewing it.' });
    expect(checkValidity(s3('20261120T120000Z', 3600), 72 * HOUR, NOW).reason).toContain('expired 23h 00m ago');
  });

  it('is due when there is no link, or its expiry cannot be read', () => {
    expect(checkValidity(undefined, HOUR, NOW)).toMatchObject({ due: true, reason: 'The configuration holds no bundle link yet.' });
    expect(checkValidity('https://cdn.example.com/bundle.tar.gz', HOUR, NOW)).toEqual({ due: true, reason: 'The current link does not say when it expires, so it is renewed.' });
  });
});

describe('renewalPlan', () => {
  const request = { domain: 'docs.example.com' };

  it('reuses the job the link names, with a new export as the fallback', () => {
    expect(renewalPlan(s3('20261121T120000Z', 3600), request)).toEqual({
      reuse: 'se_3f9a2c1b8e7d4a06',
      fallback: request,
      renewal: true,
      note: 'The current link comes from export job se_3f9a2c1b8e7d4a06: generating a fresh link for it.'
    });
  });

  it('starts a new export when the file has no link, and says so', () => {
    expect(renewalPlan(undefined, request)).toEqual({ start: request, note: 'The configuration holds no bundle link yet: starting a new export of docs.example.com instead.' });
    expect(renewalPlan('https://cdn.example.com/site.tar.gz', request)).toMatchObject({ start: request });
  });

  it('cannot start one without a domain (renew/ has none), and says which action exports', () => {
    expect(renewalPlan(undefined, undefined)).toEqual({ impossible: expect.stringContaining('renew/ exports nothing. Run the root action (an export) once') });
  });
});

// The "What changes" row of the configuration pull request: a reviewer must be able to tell the old
// link from the new one, without the table ever showing a signature.
import { describe, expect, it } from '@jest/globals';
import { changeRow, pullRequestBody, showChange } from '../src/publish/pull-request-body.ts';

function presigned(jobId: string, signedAt: Date, lifetimeS: number, signature: string): string {
  const amzDate = signedAt.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return `https://exports.s3.invalid/${jobId}/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=${amzDate}&X-Amz-Expires=${lifetimeS}&X-Amz-Signature=${signature}`;
}

function cells(row: string): [string, string] {
  const [, before, after] = /before: (.*)<br>after: (.*) \|$/.exec(row)!;
  return [before!, after!];
}

describe('changeRow', () => {
  it('shows a link by origin and path, then its expiry, before above after, so a renewal reads apart', () => {
    const before = presigned('se_d296aa', new Date('2026-11-20T10:00:00Z'), 604_800, 'a'.repeat(64));
    const after = presigned('se_d296aa', new Date('2026-11-24T10:00:00Z'), 604_800, 'b'.repeat(64));
    expect(changeRow({ key: 'staticExport.bundleUrl', before, after })).toBe(
      '| `staticExport.bundleUrl` | before: `https://exports.s3.invalid` `/se_d296aa/bundle.tar.gz?…` (expires 2026-11-27 10:00 UTC)<br>' +
        'after: `https://exports.s3.invalid` `/se_d296aa/bundle.tar.gz?…` (expires 2026-12-01 10:00 UTC) |'
    );
  });

  it('shows other values as JSON, and an unset one as such', () => {
    expect(changeRow({ key: 'staticExport.version', before: undefined, after: '2024-06-01' })).toBe('| `staticExport.version` | before: (not set)<br>after: `"2024-06-01"` |');
  });

  it('tells any two different links apart and never shows a signature (500 random pairs)', () => {
    let seed = Number(process.env.TEST_SEED ?? 1234);
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
    for (let i = 0; i < 500; i++) {
      const job = `se_${hex(16)}`;
      const base = Date.UTC(2026, 10, 1) + Math.floor(rand() * 30 * 86_400_000);
      // Often the same instant or less than a minute apart, where the shown expiries match.
      const shift = [0, Math.floor(rand() * 59_000), Math.floor(rand() * 7 * 86_400_000)][Math.floor(rand() * 3)]!;
      const lifetime = [3600, 86_400, 604_800][Math.floor(rand() * 3)]!;
      const [sigA, sigB] = [hex(64), hex(64)];
      const before = presigned(job, new Date(base - (base % 1000)), lifetime, sigA);
      const after = presigned(job, new Date(base + shift - ((base + shift) % 1000)), lifetime, sigB);
      const row = changeRow({ key: 'staticExport.bundleUrl', before, after });
      const [was, will] = cells(row);
      expect({ seed: process.env.TEST_SEED ?? 1234, i, differ: was !== will }).toEqual({ seed: process.env.TEST_SEED ?? 1234, i, differ: true });
      expect(row).not.toContain(sigA);
      expect(row).not.toContain(sigB);
      expect(row).not.toContain('X-Amz-Signature');
    }
  });
});

describe('pullRequestBody', () => {
  it('names the docs commit the export holds, when the step waited for it to be published', () => {
    const target = { repo: { owner: 'acme', repo: 'deploy' }, path: 'deploy/values.yaml', key: 'staticExport', prBranch: 'static-export/deploy-values.yaml', labels: [], dryRun: false };
    const job = { jobId: 'se_1', status: 'completed', progress: 100, pageCount: 3, createdAt: '2026-11-24T00:00:00Z', updatedAt: '2026-11-24T00:00:00Z' };
    const bundle = { jobId: 'se_1', bundleUrl: 'https://s3.example.com/se_1/bundle.tar.gz?X-Amz-Signature=abc', sizeBytes: 10, expiresAt: '2026-11-25T00:00:00Z' };
    const sha = 'a'.repeat(40);
    const body = pullRequestBody(target, { domain: 'docs.example.com', job, bundle, docsCommit: { sha, branch: 'docs' } }, []);
    expect(body).toContain('| Docs commit | `aaaaaaaaaaaa` from docs |');
    expect(pullRequestBody(target, { job, bundle }, [])).not.toContain('Docs commit');
  });

  it('names its facts table by the export: no empty header row', () => {
    const target = { repo: { owner: 'acme', repo: 'deploy' }, path: 'deploy/values.yaml', key: 'staticExport', prBranch: 'static-export/deploy-values.yaml', labels: [], dryRun: false };
    const job = { jobId: 'se_1', status: 'completed', progress: 100, pageCount: 3, createdAt: '2026-11-24T00:00:00Z', updatedAt: '2026-11-24T00:00:00Z' };
    const bundle = { jobId: 'se_1', bundleUrl: 'https://s3.example.com/se_1/bundle.tar.gz?X-Amz-Signature=abc', sizeBytes: 10, expiresAt: '2026-11-25T00:00:00Z' };
    for (const body of [pullRequestBody(target, { job, bundle }, []), pullRequestBody(target, { job, bundle, hosted: { sha256: 'f'.repeat(64), sha256Checked: true } }, [])]) {
      expect(body).toContain('| Export job | `se_1` |\n|---|---|\n');
      expect(body).not.toMatch(/^\|(\s*\|)+\s*$/m);
    }
  });
});

describe('showChange', () => {
  it('gives the log the same distinguishable pair as the table', () => {
    const before = presigned('se_d296aa', new Date('2026-11-20T10:00:00Z'), 3600, 'c'.repeat(64));
    const after = presigned('se_d296aa', new Date('2026-11-20T10:00:00Z'), 3600, 'd'.repeat(64));
    const [was, will] = showChange({ before, after });
    expect(was).not.toBe(will);
    expect(was).toMatch(/\(link #[0-9a-f]{8}\)$/);
    expect(`${was} ${will}`).not.toContain('c'.repeat(64));
  });
});

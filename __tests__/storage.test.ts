// The storage capabilities on many random cases (seeded; the seed is in each failure's message):
// durable URLs from templates, the pod check against a real HTTP server with random sizes, the
// link margin, a hosted URL's validity, and the kept archive's placing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Deadline } from '../src/action/deadline.ts';
import { durableUrl, jobIdFromDurableUrl, templateProblem } from '../src/storage/durable-url.ts';
import { archiveStagingPath, checkKeepArchivePath, placeArchive, readArchive } from '../src/storage/kept-archive.ts';
import { checkLinkMargin } from '../src/storage/link-margin.ts';
import { checkAsPod, PodCheckError } from '../src/storage/pod-check.ts';
import { checkValidity } from '../src/publish/renewal.ts';
import { linkKind } from '../src/publish/reconcile.ts';
import { type StaticFileServer, startStaticFileServer } from '../emulator/static-files.ts';

const SEED = Number(process.env.TEST_SEED ?? Date.now() % 100_000);
let state = SEED;
const rand = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(items: T[]): T => items[int(items.length)];
const word = (chars: string, min: number, max: number) => Array.from({ length: min + int(max - min + 1) }, () => pick([...chars])).join('');
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const seeded = (what: string) => `${what} (TEST_SEED=${SEED})`;

/** A random https template with the placeholder in a segment, inside a file name, or in the query. */
function randomTemplate(placeholders = 1): string {
  const host = `${word('abcdefghijklmnopqrstuvwxyz', 1, 12)}.${pick(['example.com', 'internal', 'r2.dev', 's3.eu-west-1.invalid'])}${pick(['', ':8443'])}`;
  const segments = Array.from({ length: int(4) }, () => word(`${ALNUM}-._~`, 1, 10));
  const spots = [() => '<job-id>', () => `${word(ALNUM, 0, 5)}<job-id>${pick(['.tar.gz', '-bundle.tar.gz', '_x'])}`];
  for (let i = 0; i < placeholders; i++) segments.splice(int(segments.length + 1), 0, pick(spots)());
  const file = pick(['bundle.tar.gz', 'site.tgz', '']);
  return `https://${host}/${[...segments, file].filter(Boolean).join('/')}${pick(['', '?download=1'])}`;
}

describe('durable URLs from a template', () => {
  it('fills in and reads back the job id for 500 random templates and job ids', () => {
    for (let i = 0; i < 500; i++) {
      const template = randomTemplate();
      const jobId = `se_${word(ALNUM, 1, 24)}`;
      const where = seeded(`${template} with ${jobId}`);
      expect([where, templateProblem(template)]).toEqual([where, undefined]);
      const url = durableUrl(template, jobId);
      expect([where, url.includes(jobId), url.includes('<job-id>')]).toEqual([where, true, false]);
      expect([where, jobIdFromDurableUrl(template, url)]).toEqual([where, jobId]);
      // A URL of another template, or one with a different prefix, names no job.
      expect([where, jobIdFromDurableUrl(template, `${url}x/`)]).toEqual([where, undefined]);
      expect([where, jobIdFromDurableUrl(template, url.replace('https://', 'http://'))]).toEqual([where, undefined]);
    }
  });

  it('refuses a template without the placeholder, or with it more than once', () => {
    for (let i = 0; i < 200; i++) {
      const count = pick([0, 2, 3]);
      const template = randomTemplate(count);
      expect([seeded(template), templateProblem(template)]).toEqual([seeded(template), expect.stringContaining(`exactly once (it has it ${count} times)`)]);
    }
  });

  it.each([
    ['http://127.0.0.1:9000/<job-id>.tar.gz', undefined],
    ['http://localhost/<job-id>/bundle.tar.gz', undefined],
    ['http://[::1]:8080/b/<job-id>', undefined],
    ['http://bundles.example.com/<job-id>.tar.gz', 'is plain http://, which anyone on the path can read and replace: use https://, or, for storage inside the cluster\'s network (a MinIO or Ceph gateway), set allow-plain-http: true.'],
    ['ftp://bundles.example.com/<job-id>.tar.gz', 'must start with https://'],
    ['https://user:pass@bundles.example.com/<job-id>.tar.gz', 'user name or password'],
    ['bundles.example.com/<job-id>.tar.gz', 'is not a URL']
  ])('%s', (template, problem) => {
    if (problem === undefined) expect(templateProblem(template)).toBeUndefined();
    else expect(templateProblem(template)).toContain(problem);
  });

  it('reads a link\'s kind from the link alone: no signature and no expiry is hosted, a signature without one is renewed', () => {
    expect(linkKind('https://bundles.example.com/se_abc123/bundle.tar.gz')).toEqual({ kind: 'hosted' });
    expect(linkKind('https://b.example.com/se_abc123/bundle.tar.gz?sig=abcdefghijkl')).toEqual({ kind: 'signed' });
    expect(linkKind('https://acct.blob.core.windows.invalid/c/se_abc123/bundle.tar.gz?sv=2024-01-01&se=2026-12-01T00:00:00Z&sig=abcdefghijkl')).toEqual({ kind: 'expires', at: new Date('2026-12-01T00:00:00Z') });
    expect(checkValidity('https://b.example.com/se_abc123/bundle.tar.gz?sig=abcdefghijkl', 3_600_000, Date.now()).due).toBe(true);
  });
});

describe('link margin', () => {
  it('warns exactly when the link has less than the margin left (500 random cases)', () => {
    const now = Date.UTC(2026, 10, 24);
    for (let i = 0; i < 500; i++) {
      const leftMs = int(10 * 86_400_000) - 86_400_000;
      const marginMs = 1 + int(8 * 86_400_000);
      const short = checkLinkMargin(new Date(now + leftMs).toISOString(), marginMs, now);
      expect([seeded(`${leftMs} left, ${marginMs} margin`), short !== undefined]).toEqual([seeded(`${leftMs} left, ${marginMs} margin`), leftMs < marginMs]);
      if (short) expect(short.message).toMatch(/keep-archive, then host\/.*helm upgrade --set staticExport\.bundleUrl/);
    }
  });
});

describe('pod check against a real server, random sizes', () => {
  let server: StaticFileServer;
  beforeAll(async () => {
    server = await startStaticFileServer();
  });
  afterAll(() => server.close());

  it('accepts the right size and refuses any other, with and without check-sha256 (60 random cases)', async () => {
    for (let i = 0; i < 60; i++) {
      const size = 2 + int(300_000);
      const body = Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(size - 2)]);
      const path = `/case-${i}.tar.gz`;
      server.files.set(path, body);
      const delta = pick([0, 0, 1, -1, int(1000) + 1, -int(size - 1) - 1]);
      const expectedBytes = Math.max(0, size + delta);
      const withSha = rand() < 0.5;
      const where = seeded(`size ${size}, expected ${expectedBytes}, sha ${withSha}`);
      const result = await checkAsPod(`${server.url}${path}`, {
        expectedBytes,
        sha256: withSha ? createHash('sha256').update(body).digest('hex') : undefined,
        deadline: new Deadline(30_000),
        log: () => undefined
      }).then(
        (check) => ({ ok: true, bytes: check.bytes }),
        (error: unknown) => ({ ok: false, message: error instanceof PodCheckError ? error.message : String(error) })
      );
      if (expectedBytes === size) expect([where, result]).toEqual([where, { ok: true, bytes: size }]);
      else expect([where, result]).toEqual([where, { ok: false, message: expect.stringContaining(`serves ${size.toLocaleString('en-US')} bytes, but the kept archive has`) }]);
      server.files.delete(path);
    }
  });

  it('gives up on a storage that keeps failing within the step deadline, after a bounded number of tries', async () => {
    server.answer('/down.tar.gz', 503);
    const logs: string[] = [];
    const error = await checkAsPod(`${server.url}/down.tar.gz`, { expectedBytes: 10, deadline: new Deadline(30_000), log: (line) => logs.push(line), minBackoffMs: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PodCheckError);
    expect(logs).toHaveLength(2);
    const tight = await checkAsPod(`${server.url}/down.tar.gz`, { expectedBytes: 10, deadline: new Deadline(500), log: () => undefined, minBackoffMs: 1000 }).catch((e: unknown) => e);
    expect((tight as Error).name).toBe('DeadlineError');
  });
});

describe('kept archive', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kept-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('places the staged archive once, with a sha256sum line, and never over a file that appeared meanwhile', async () => {
    const bytes = Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(1000)]);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const path = join(dir, 'bundle.tar.gz');
    const staged = archiveStagingPath(path);
    writeFileSync(staged, bytes);
    const kept = await placeArchive('keep-archive', staged, path, sha, bytes.length);
    expect(kept).toEqual({ path, sha256: sha, sha256Path: `${path}.sha256`, bytes: bytes.length, contentType: 'application/gzip' });
    expect(readFileSync(`${path}.sha256`, 'utf8')).toBe(`${sha}  bundle.tar.gz\n`);
    expect(existsSync(staged)).toBe(false);
    expect(await readArchive('archive-path', path)).toEqual({ sha256: sha, bytes: bytes.length });

    const again = archiveStagingPath(path);
    writeFileSync(again, 'other');
    await expect(placeArchive('keep-archive', again, path, sha, 5)).rejects.toThrow('keep-archive: a file appeared at');
    expect(readFileSync(path).equals(bytes)).toBe(true);
    await expect(checkKeepArchivePath('keep-archive', 'bundle.tar.gz', path)).rejects.toThrow("keep-archive 'bundle.tar.gz': a file already exists there.");
  });

  it('refuses an archive-path that is not gzip, or missing', async () => {
    const page = join(dir, 'page.html');
    writeFileSync(page, '<html>');
    await expect(readArchive('archive-path', page)).rejects.toThrow("archive-path '" + page + "' is not a gzip archive");
    await expect(readArchive('archive-path', join(dir, 'none.tar.gz'))).rejects.toThrow('cannot be read (ENOENT)');
  });
});

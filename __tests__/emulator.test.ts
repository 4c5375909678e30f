import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { THREE_PAGE_SITE } from '../emulator/archive.ts';
import type { FeedbackEntry } from '../emulator/platform.ts';
import { startFromArgs } from '../emulator/cli.ts';
import { parseGitHubFault } from '../emulator/github-faults.ts';
import { offContract } from './contract.ts';
import { usePlatformPerTest } from './emulators.ts';

const KEY = 'mint_test_admin_key';
const T0 = Date.parse('2026-11-21T23:01:02.000Z');

// A fake clock: job state is computed from it, so tests move time instead of waiting.
const { clock, start, started } = usePlatformPerTest(T0);

interface Reply {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON under test
}

async function api(path: string, init: { method?: string; body?: unknown; rawBody?: string; key?: string | null } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  const key = init.key === undefined ? KEY : init.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const body = init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${started().url}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.includes('json') ?? false;
  return { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text };
}

// Lists a tar's entries by reading the ustar headers.
function tarEntries(tar: Buffer): { name: string; content: string }[] {
  const entries: { name: string; content: string }[] = [];
  const field = (block: Buffer, start: number, length: number): string => block.toString('utf8', start, start + length).replace(/\0[\s\S]*$/, '');
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const prefix = field(header, 345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(header, 0, 100);
    const size = parseInt(field(header, 124, 12).trim(), 8);
    entries.push({ name, content: tar.toString('utf8', offset + 512, offset + 512 + size) });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

describe('static export', () => {
  it('runs a job queued → running → completed and serves a real tar.gz through the bundle link', async () => {
    const platform = await start({ profile: { queuedMs: 300, runMs: 2000, pageCount: 120, site: THREE_PAGE_SITE }, linkTtlSeconds: 3600 });
    const started = await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com', version: '2024-06-01' } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'queued', progress: 0, pageCount: 0, createdAt: new Date(T0).toISOString() });
    expect(started.body.jobId).toMatch(/^se_[0-9a-f]{16}$/);
    expect(started.body.region).toBe('us-east-1'); // a field no schema lists
    expect(started.body).not.toHaveProperty('error');
    const jobId: string = started.body.jobId;

    clock.now = T0 + 300 + 500;
    const early = (await api(`/v1/static-export/jobs/${jobId}`)).body;
    expect(early).toMatchObject({ status: 'running', progress: 25, pageCount: 30 });
    clock.now = T0 + 300 + 1000;
    const later = (await api(`/v1/static-export/jobs/${jobId}`)).body;
    expect(later).toMatchObject({ status: 'running', progress: 50, pageCount: 60, updatedAt: new Date(clock.now).toISOString() });
    expect(Date.parse(later.updatedAt)).toBeGreaterThan(Date.parse(early.updatedAt));
    expect(platform.exportJobs.get(jobId)?.finishedAt).toBeUndefined();

    clock.now = T0 + 2300 + 40;
    const done = (await api(`/v1/static-export/jobs/${jobId}`)).body;
    expect(done).toMatchObject({ status: 'completed', progress: 100, pageCount: 120, updatedAt: new Date(T0 + 2300).toISOString() });
    expect(platform.exportJobs.get(jobId)).toMatchObject({ domain: 'docs.example.com', version: '2024-06-01', finishedAt: T0 + 2300 });

    const bundle = await api(`/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST' });
    expect(bundle.status).toBe(200);
    expect(bundle.body.bundleUrl).toMatch(
      new RegExp(
        `^${platform.url}/bundles/${jobId}/bundle\\.tar\\.gz\\?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=EMULATOR%2F20261121%2Fus-east-1%2Fs3%2Faws4_request` +
          '&X-Amz-Date=20261121T230104Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=[0-9a-f]{64}$'
      )
    );
    expect(bundle.body.expiresAt).toBe('2026-11-22T00:01:04.000Z');
    // Same job, same clock second: the same link.
    expect((await api(`/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST' })).body.bundleUrl).toBe(bundle.body.bundleUrl);

    const download = await fetch(bundle.body.bundleUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/gzip');
    const archive = Buffer.from(await download.arrayBuffer());
    expect(Number(download.headers.get('content-length'))).toBe(archive.length);
    expect(archive.length).toBe(bundle.body.sizeBytes);
    const entries = tarEntries(gunzipSync(archive));
    expect(entries.map((entry) => entry.name)).toEqual([
      'index.html',
      'guides/getting-started.html',
      'api-reference/introduction.html',
      '_next/static/css/app.css',
      '_next/static/chunks/main.js',
      'sitemap.xml'
    ]);
    expect(entries[0].content).toContain('<!DOCTYPE html>');
    expect(entries[5].content).toContain('https://docs.example.com/guides/getting-started.html');
    expect(platform.requests.map((request) => request.route)).toEqual(['start', 'status', 'status', 'status', 'bundle', 'bundle', 'download']);
  });

  it('answers 403 for an expired or altered link, and a fresh generate works again', async () => {
    await start({ linkTtlSeconds: 60 });
    const jobId = started().seedExportJob({ domain: 'docs.example.com' });
    const { bundleUrl, expiresAt } = (await api(`/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST' })).body;
    expect(expiresAt).toBe(new Date(T0 + 60_000).toISOString());

    clock.now = T0 + 60_000;
    const expired = await fetch(bundleUrl);
    expect(expired.status).toBe(403);
    const xml = await expired.text();
    expect(xml).toContain('<Code>AccessDenied</Code><Message>Request has expired</Message>');

    const altered = await fetch(bundleUrl.replace(/.$/, (last: string) => (last === '0' ? '1' : '0')));
    expect(altered.status).toBe(403);
    expect(await altered.text()).toContain('SignatureDoesNotMatch');
    expect((await fetch(`${bundleUrl}0`)).status).toBe(403);

    const fresh = (await api(`/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST' })).body;
    expect((await fetch(fresh.bundleUrl)).status).toBe(200);
    // Like S3, a presigned link refuses an Authorization header as well.
    expect((await fetch(fresh.bundleUrl, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(400);
  });

  it('rejects bad keys, bad bodies, unknown jobs and early bundles', async () => {
    // Bodies the description does not allow, sent to see the emulator refuse them.
    offContract(/received POST \/v1\/static-export\/jobs \(startStaticExportJob\) with a request body/);
    await start();
    for (const key of ['mint_wrong', null]) {
      const reply = await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' }, key });
      expect(reply).toMatchObject({ status: 401, body: { error: 'Invalid or expired API key' } });
    }
    for (const domain of ['https://docs.example.com', 'docs.example.com/', 'docs.example.com/docs', 'docs.example.com:443', '', 42]) {
      const reply = await api('/v1/static-export/jobs', { body: { domain } });
      expect(reply).toMatchObject({ status: 400, body: { error: 'Invalid domain: provide the hostname only, e.g. docs.example.com' } });
    }
    expect((await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com', paths: ['index', ''] } })).status).toBe(400);
    expect((await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com', paths: 'index' } })).status).toBe(400);
    expect((await api('/v1/static-export/jobs', { rawBody: '{"domain":' })).status).toBe(400);
    expect(started().exportJobs.size).toBe(0);

    expect(await api('/v1/static-export/jobs/se_0000000000000000')).toMatchObject({ status: 404, body: { error: 'Job not found' } });
    expect((await api('/v1/static-export/jobs/se_0000000000000000/bundle', { method: 'POST' })).status).toBe(404);
    const { jobId } = (await api('/v1/static-export/jobs', { body: { domain: 'acme.mintlify.app', paths: ['index'] } })).body;
    expect(await api(`/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST' })).toMatchObject({ status: 409, body: { error: 'Job has not finished yet' } });
    expect(started().requests.every((request) => request.status !== 0)).toBe(true);
  });

  it('answers 403 when static export is not enabled for the organization', async () => {
    await start({ staticExportEnabled: false });
    const reply = await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } });
    expect(reply.status).toBe(403);
    expect(reply.body.error).toMatch(/^Static export is not enabled for this organization/);
  });

  it('follows the profile: failure, stall, reset and an unknown status word', async () => {
    // A status word the enum does not list, as real servers send (shared/CONTEXT.md).
    offContract(/\/status must be equal to one of the allowed values/);
    await start({ profile: { queuedMs: 0, runMs: 1000, failAt: 50, error: 'Rendering failed on page /guides/broken: boom' } });
    const failing = (await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } })).body.jobId;
    clock.now = T0 + 400;
    expect((await api(`/v1/static-export/jobs/${failing}`)).body).toMatchObject({ status: 'running', progress: 40 });
    clock.now = T0 + 600;
    expect((await api(`/v1/static-export/jobs/${failing}`)).body).toMatchObject({
      status: 'failed',
      progress: 50,
      pageCount: 60,
      error: 'Rendering failed on page /guides/broken: boom',
      updatedAt: new Date(T0 + 500).toISOString()
    });
    const bundle = await api(`/v1/static-export/jobs/${failing}/bundle`, { method: 'POST' });
    expect(bundle.status).toBe(409);
    expect(bundle.body.error).toMatch(/failed/);
    expect(started().exportJobs.get(failing)?.finishedAt).toBe(T0 + 500);

    started().profile = { queuedMs: 0, runMs: 1000, stall: { at: 30, forMs: 1000 }, runningWord: 'rendering' };
    clock.now = T0;
    const stalled = (await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } })).body.jobId;
    const progressAt = async (ms: number): Promise<Reply['body']> => {
      clock.now = T0 + ms;
      return (await api(`/v1/static-export/jobs/${stalled}`)).body;
    };
    expect(await progressAt(600)).toMatchObject({ status: 'rendering', progress: 30, updatedAt: new Date(T0 + 300).toISOString() });
    expect(await progressAt(1200)).toMatchObject({ status: 'rendering', progress: 30, updatedAt: new Date(T0 + 300).toISOString() });
    expect(await progressAt(1300)).toMatchObject({ status: 'completed', progress: 100 });

    started().profile = { queuedMs: 0, runMs: 1000, resetAt: 50 };
    clock.now = T0;
    const retried = (await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } })).body.jobId;
    const seen: number[] = [];
    for (const ms of [450, 550, 900, 1400]) {
      clock.now = T0 + ms;
      seen.push((await api(`/v1/static-export/jobs/${retried}`)).body.progress);
    }
    expect(seen).toEqual([45, 5, 40, 90]);
    clock.now = T0 + 1500;
    expect((await api(`/v1/static-export/jobs/${retried}`)).body.status).toBe('completed');
  });
});

describe('faults', () => {
  it('answers a 429 fault with Retry-After, then handles the next request', async () => {
    await start();
    const jobId = started().seedExportJob({ domain: 'docs.example.com' });
    started().addFault({ route: 'status', kind: '429', retryAfterSeconds: 7 });
    const limited = await api(`/v1/static-export/jobs/${jobId}`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await api(`/v1/static-export/jobs/${jobId}`)).status).toBe(200);
  });

  it('does not create a job when the start answers 500, and counts `times`', async () => {
    await start();
    started().addFault({ route: 'start', kind: '500', times: 2 });
    expect((await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } })).status).toBe(500);
    expect((await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } })).body).toEqual({ error: 'Internal server error' });
    expect(started().exportJobs.size).toBe(0);
    expect((await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } })).status).toBe(202);
  });

  it('drops the connection for a drop fault', async () => {
    await start();
    started().addFault({ route: 'any', kind: 'drop' });
    await expect(api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } })).rejects.toThrow();
    expect(started().requests[0]).toMatchObject({ route: 'start', status: 0 });
    expect(started().exportJobs.size).toBe(0);
  });

  it('hangs for a hang fault, and close() still returns at once', async () => {
    await start();
    started().addFault({ route: 'status', kind: 'hang' });
    const pending = api('/v1/static-export/jobs/se_0000000000000000').then(
      () => 'answered',
      () => 'failed'
    );
    await waitFor(() => started().requests.length === 1);
    // A close that waited for the pending request would never end (the test's timeout says so).
    await started().close();
    expect(await pending).toBe('failed');
  });

  it('takes faults and reports requests and jobs through the control API', async () => {
    await start();
    const faultReply = await fetch(`${started().url}/_emulator/faults`, { method: 'POST', body: JSON.stringify({ route: 'bundle', kind: '409' }) });
    expect(faultReply.status).toBe(204);
    const jobId = started().seedExportJob({ domain: 'docs.example.com' });
    expect((await api(`/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST' })).status).toBe(409);
    expect((await api(`/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST' })).status).toBe(200);

    const requests = (await (await fetch(`${started().url}/_emulator/requests`)).json()) as unknown[];
    expect(requests).toHaveLength(2);
    expect(requests[0]).toEqual({ method: 'POST', path: `/v1/static-export/jobs/${jobId}/bundle`, query: '', route: 'bundle', status: 409, at: T0 });
    const jobs = (await (await fetch(`${started().url}/_emulator/jobs`)).json()) as unknown[];
    expect(jobs).toEqual([expect.objectContaining({ jobId, domain: 'docs.example.com', status: 'completed', finishedAt: T0 })]);
    expect((await fetch(`${started().url}/_emulator/faults`, { method: 'POST', body: '{"route":"nowhere","kind":"500"}' })).status).toBe(400);
  });
});

describe('agent jobs', () => {
  it('runs a job from active to completed with a pull request', async () => {
    // An empty and a missing prompt, sent to see the emulator refuse them.
    offContract(/received POST \/v2\/agent\/\{projectId\}\/job .* with a request body/);
    await start({ agent: { runMs: 1500 } });
    const created = await api('/v2/agent/proj_1/job', { body: { prompt: 'Document the new endpoint' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'active',
      source: { repository: 'https://github.com/acme/docs', ref: null },
      model: 'sonnet',
      prLink: null,
      archivedAt: null
    });
    clock.now = T0 + 1500;
    const done = (await api(`/v2/agent/proj_1/job/${created.body.id}`)).body;
    expect(done.status).toBe('completed');
    expect(done.source.ref).toMatch(/^mintlify\/agent-/);
    expect(done.prLink).toMatch(/^https:\/\/github\.com\/acme\/docs\/pull\/\d+$/);
    expect(await api(`/v2/agent/proj_2/job/${created.body.id}`)).toMatchObject({ status: 404, body: { error: 'Job not found' } });
    expect((await api('/v2/agent/proj_1/job', { body: { prompt: '' } })).status).toBe(400);
    expect((await api('/v2/agent/proj_1/job', { body: {} })).body.error).toEqual(expect.any(String));
  });

  it('reports no-change and failed outcomes of seeded jobs', async () => {
    await start();
    const unchanged = started().seedAgentJob({ projectId: 'proj_1', outcome: 'no-change', runMs: 0 });
    const failed = started().seedAgentJob({ projectId: 'proj_1', outcome: 'failed', runMs: 0 });
    expect((await api(`/v2/agent/proj_1/job/${unchanged}`)).body).toMatchObject({ status: 'completed', prLink: null });
    expect((await api(`/v2/agent/proj_1/job/${failed}`)).body).toMatchObject({ status: 'failed', prLink: null });
  });

  it('answers 429 with Retry-After over the hourly create limit', async () => {
    await start({ agent: { createLimitPerHour: 2 } });
    for (let i = 0; i < 2; i++) expect((await api('/v2/agent/proj_1/job', { body: { prompt: `task ${i}` } })).status).toBe(201);
    clock.now = T0 + 60_000;
    const limited = await api('/v2/agent/proj_1/job', { body: { prompt: 'one too many' } });
    expect(limited).toMatchObject({ status: 429, body: { error: 'Rate limit exceeded: 2 agent jobs per project per hour' } });
    expect(limited.headers.get('retry-after')).toBe('3540');
    expect((await api('/v2/agent/proj_2/job', { body: { prompt: 'another project' } })).status).toBe(201);
    clock.now = T0 + 3_600_000;
    expect((await api('/v2/agent/proj_1/job', { body: { prompt: 'an hour later' } })).status).toBe(201);
  });
});

describe('feedback by page', () => {
  const entry = (path: string, createdAt: string, source: FeedbackEntry['source'], helpful?: boolean, status: FeedbackEntry['status'] = 'pending'): FeedbackEntry => ({
    path,
    createdAt,
    source,
    status,
    helpful
  });
  const feedback: FeedbackEntry[] = [
    entry('/quickstart', '2026-11-01T10:00:00Z', 'contextual', false),
    entry('/quickstart', '2026-11-02T10:00:00Z', 'thumbs_only', true),
    entry('/quickstart', '2026-11-03T10:00:00Z', 'code_snippet'),
    entry('/api/auth', '2026-11-04T10:00:00Z', 'contextual', false, 'resolved'),
    entry('/api/auth', '2026-11-05T10:00:00Z', 'agent'),
    entry('/changelog', '2026-11-06T10:00:00Z', 'contextual', true),
    entry('/late', '2026-11-10T00:00:00Z', 'contextual', false) // exactly on dateTo: left out
  ];
  const byPage = (query: string): Promise<Reply> => api(`/v1/analytics/proj_1/feedback/by-page?${query}`);

  it('aggregates per page, sorts by total, honours limit/hasMore and an exclusive dateTo', async () => {
    await start({ feedback });
    const all = await byPage('dateFrom=2026-11-01&dateTo=2026-11-10');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({
      feedback: [
        { path: '/quickstart', thumbsUp: 1, thumbsDown: 1, code: 1, total: 3 },
        { path: '/api/auth', thumbsUp: 0, thumbsDown: 1, code: 0, total: 2 },
        { path: '/changelog', thumbsUp: 1, thumbsDown: 0, code: 0, total: 1 }
      ],
      hasMore: false
    });
    const first = (await byPage('dateFrom=2026-11-01&dateTo=2026-11-10T00:00:00.001Z&limit=2')).body;
    expect(first.feedback.map((row: { path: string }) => row.path)).toEqual(['/quickstart', '/api/auth']);
    expect(first.hasMore).toBe(true);
    expect((await byPage('source=contextual&status=pending,resolved')).body.feedback).toEqual([
      { path: '/api/auth', thumbsUp: 0, thumbsDown: 1, code: 0, total: 1 },
      { path: '/changelog', thumbsUp: 1, thumbsDown: 0, code: 0, total: 1 },
      { path: '/late', thumbsUp: 0, thumbsDown: 1, code: 0, total: 1 },
      { path: '/quickstart', thumbsUp: 0, thumbsDown: 1, code: 0, total: 1 }
    ]);
  });

  it('answers 400 with details for bad parameters', async () => {
    // Parameters the description does not allow, sent to see the emulator refuse them.
    offContract(/feedback\/by-page .* with the query parameter (limit|source)=/);
    await start({ feedback });
    expect(await byPage('dateFrom=yesterday')).toMatchObject({
      status: 400,
      body: { error: 'Invalid query parameters', details: [{ message: 'dateFrom: Invalid date' }] }
    });
    expect((await byPage('dateTo=2026-02-30')).body.details).toEqual([{ message: 'dateTo: Invalid date' }]);
    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'source=email', 'status=pending,open']) {
      const reply = await byPage(query);
      expect(reply.status).toBe(400);
      expect(reply.body.details).toHaveLength(1);
    }
  });

  it('shares an hourly limit across analytics requests and answers faults with details', async () => {
    offContract(/feedback\/by-page .* with the query parameter limit=0,/);
    await start({ feedback, analyticsLimitPerHour: 2 });
    expect((await byPage('')).status).toBe(200);
    expect((await byPage('limit=0')).status).toBe(400);
    const limited = await byPage('');
    expect(limited).toMatchObject({ status: 429, body: { error: 'Rate limit exceeded' } });
    expect(limited.headers.get('retry-after')).toBe('3600');
    clock.now = T0 + 3_600_000;
    started().addFault({ route: 'feedback', kind: '503' });
    const failed = await byPage('');
    expect(failed.status).toBe(503);
    expect(failed.body.details).toEqual([{ message: expect.any(String) }]);
    expect((await byPage('')).status).toBe(200);
  });
});

describe('emulator CLI', () => {
  it('prints the URL and admin key, serves the API, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['emulator/cli.ts', '--port', '0', '--queued-ms', '0', '--run-ms', '50'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('\n')) resolve(output.split('\n')[0]);
      });
      child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
    });
    const match = /^Platform emulator listening on (http:\/\/127\.0\.0\.1:\d+) \(admin key: mint_test_admin_key\)$/.exec(line);
    expect(match).not.toBeNull();
    const reply = await fetch(`${match![1]}/v1/static-export/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ domain: 'docs.example.com' })
    });
    expect(reply.status).toBe(202);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

/** A port free a moment ago: for the fixed-port flags. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('npm run emulator, as the README calls it', () => {
  it('prints its usage for npm run emulator -- --help, fixed-port and deployment flags included, and exits 0', async () => {
    const child = spawn('npm', ['run', '-s', 'emulator', '--', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect([code, output]).toEqual([0, expect.stringMatching(/^Usage: npm run emulator -- /)]);
    for (const flag of ['--port', '--github-port', '--deploy-branch', '--deploy-ms', '--github-fault']) expect([flag, output.includes(flag)]).toEqual([flag, true]);
  }, 20_000);

  it('serves a push run with its defaults: a deployment queued without --deploy-branch or --deploy-ms succeeds', async () => {
    const { emulator: cli, banner } = await startFromArgs(['--port', '0']);
    try {
      expect(banner).toContain('it deploys main: a push run wants GITHUB_REF=refs/heads/main');
      const headers = { authorization: `Bearer ${KEY}` };
      const queued = (await (await fetch(`${cli.url}/v1/project/update/proj_docs`, { method: 'POST', headers })).json()) as { statusId: string };
      let status: Reply;
      do {
        const reply = await fetch(`${cli.url}/v1/project/update-status/${queued.statusId}`, { headers });
        status = { status: reply.status, headers: reply.headers, body: await reply.json() };
        expect([status.status, status.body.error]).toEqual([200, undefined]);
        if (status.body.status !== 'success') await new Promise((resolve) => setTimeout(resolve, 100));
      } while (status.body.status !== 'success');
      expect(status.body.commit.ref).toBe('main');
    } finally {
      await cli.close();
    }
  }, 20_000);

  it('listens on the ports given by --port and --github-port', async () => {
    const [platformPort, githubPort] = [await freePort(), await freePort()];
    const { emulator: cli, github, banner } = await startFromArgs(['--port', String(platformPort), '--github', '--github-port', String(githubPort)]);
    try {
      expect([cli.url, github?.url]).toEqual([`http://127.0.0.1:${platformPort}`, `http://127.0.0.1:${githubPort}`]);
      expect(banner).toContain(`GITHUB_API_URL=http://127.0.0.1:${githubPort}`);
      // A second emulator on the same port is refused with the reason, and leaves nothing listening.
      await expect(startFromArgs(['--port', '0', '--github', '--github-port', String(githubPort)])).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await cli.close();
      await github?.close();
    }
  });

  it.each([
    [['--github-port', '4011'], '--github-port needs --github'],
    [['--github-port', 'x', '--github'], '--github-port expects a number >= 0, got "x"'],
    [['--deploy-fault', 'boom'], '--deploy-fault expects one of']
  ])('refuses %j, saying what it takes', async (args, message) => {
    await expect(startFromArgs(['--port', '0', ...args])).rejects.toThrow(message);
  });
});

describe('npm run emulator -- --github', () => {
  it('starts the GitHub REST emulator beside the platform, prints GITHUB_API_URL, and arms faults from the command line', async () => {
    const { emulator, github, banner } = await startFromArgs(['--port', '0', '--github', '--github-fault', '502@1', '--github-fault', 'lost@git.createRef']);
    try {
      expect(github).toBeDefined();
      expect(banner).toContain(`GITHUB_API_URL=${github!.url}`);
      expect(banner).toContain('fault armed: 502 at call 1');
      const headers = { authorization: 'token ghs_emulator_token' };
      const first = await fetch(`${github!.url}/repos/acme/deploy`, { headers });
      expect(first.status).toBe(502);
      const second = await fetch(`${github!.url}/repos/acme/deploy/contents/deploy/values.yaml`, { headers });
      expect(second.status).toBe(200);
    } finally {
      await emulator.close();
      await github?.close();
    }
  });

  it.each([
    ['502@3', { kind: '502', call: 3 }],
    ['lost@git.createRef', { kind: 'lost', operation: 'git.createRef' }],
    ['secondary@pulls.create*2=5', { kind: 'secondary', operation: 'pulls.create', times: 2, value: 5 }],
    ['base-modified@pulls.merge', { kind: 'base-modified', operation: 'pulls.merge' }],
    ['unresolved-errors@issues.addLabels', { kind: 'unresolved-errors', operation: 'issues.addLabels' }],
    ['lost@write*2', { kind: 'lost', operation: 'write', times: 2 }]
  ])('reads --github-fault %s', (spec, fault) => {
    expect(parseGitHubFault(spec)).toEqual(fault);
  });

  it.each(['nope@1', '502@pulls.rebase', '502', 'lost@'])('refuses --github-fault %s, saying what it takes', (spec) => {
    expect(() => parseGitHubFault(spec)).toThrow(/--github-fault/);
  });
});

describe('GitHub emulator: merging as GitHub does', () => {
  it('merges by each method, refuses a rebase that would not give the merge\'s files, and moves refs only by compare-and-swap', async () => {
    const { startGitHubEmulator } = await import('../emulator/github.ts');
    const gh = await startGitHubEmulator();
    try {
      gh.createRepo('acme/m', { 'v.yaml': 'a: 1\nb: 1\n' });
      // A proposal whose update is a merge commit (parents: the base, then the replaced proposal), as the action once made.
      const first = gh.commitOnBranch('acme/m', 'p', { 'v.yaml': 'a: 2\nb: 1\n' }, 'first');
      const octokit = (await import('@actions/github')).getOctokit('ghs_emulator_token', { baseUrl: gh.url });
      const base = gh.branchHead('acme/m', 'main')!;
      const { data: tree } = await octokit.rest.git.createTree({ owner: 'acme', repo: 'm', base_tree: base, tree: [{ path: 'v.yaml', mode: '100644', type: 'blob', content: 'a: 3\nb: 1\n' }] });
      const { data: update } = await octokit.rest.git.createCommit({ owner: 'acme', repo: 'm', message: 'update', tree: tree.sha, parents: [base, first] });
      await octokit.rest.git.updateRef({ owner: 'acme', repo: 'm', ref: 'heads/p', sha: update.sha, force: false });
      const { data: pull } = await octokit.rest.pulls.create({ owner: 'acme', repo: 'm', head: 'p', base: 'main', title: 't' });
      expect(gh.previewMerge('acme/m', pull.number, 'rebase')).toBe("This branch can't be rebased");
      expect(gh.previewMerge('acme/m', pull.number, 'squash')).toEqual({ 'v.yaml': 'a: 3\nb: 1\n' });
      // A move that is not a fast-forward is refused without force, as GitHub refuses it.
      const other = gh.commitOnBranch('acme/m', 'q', { 'v.yaml': 'x\n' }, 'other');
      await expect(octokit.rest.git.updateRef({ owner: 'acme', repo: 'm', ref: 'heads/p', sha: other, force: false })).rejects.toMatchObject({ status: 422 });
      // updateRefs moves it only from the sha it names.
      const { data: repo } = await octokit.rest.repos.get({ owner: 'acme', repo: 'm' });
      const mutation = 'mutation($input: UpdateRefsInput!) { updateRefs(input: $input) { clientMutationId } }';
      await expect(octokit.graphql(mutation, { input: { repositoryId: repo.node_id, refUpdates: [{ name: 'refs/heads/p', beforeOid: first, afterOid: other, force: true }] } })).rejects.toThrow(/expected at/);
      await octokit.graphql(mutation, { input: { repositoryId: repo.node_id, refUpdates: [{ name: 'refs/heads/p', beforeOid: update.sha, afterOid: other, force: true }] } });
      expect(gh.branchHead('acme/m', 'p')).toBe(other);
      // "Update branch" merges the base into the branch; a squash then merges it.
      gh.commitOnBranch('acme/m', 'main', { 'README.md': 'r\n' }, 'elsewhere');
      gh.updateBranch('acme/m', pull.number);
      expect(gh.commit('acme/m', gh.branchHead('acme/m', 'p')!)!.parents).toEqual([other, gh.branchHead('acme/m', 'main')]);
      gh.mergePull('acme/m', pull.number, 'squash');
      expect(gh.fileAt('acme/m', 'main', 'v.yaml')).toBe('x\n');
      expect(gh.pulls('acme/m')[0]).toMatchObject({ state: 'closed', merged: true });
    } finally {
      await gh.close();
    }
  });
});

// The platform's next static export API, as its description says (openapi/platform/static-export-next.json, from
// mintlify/docs commit decfe56): project-scoped routes, no body, no bundle call, export.zip.
describe("the platform's next static export API (apiShape)", () => {
  it('next: today\'s routes are gone; a start takes no body, a completed status carries a fresh link to a zip; 409 while one runs; 429 past the hourly starts', async () => {
    await start({ apiShape: 'next', profile: { queuedMs: 100, runMs: 1000 }, exportStartsPerHour: 2 });
    expect((await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } })).status).toBe(404);
    const started = await api('/v1/static-export/proj_1/jobs', { method: 'POST' });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ jobId: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'queued', createdAt: new Date(T0).toISOString(), updatedAt: new Date(T0).toISOString(), error: null });
    const busy = await api('/v1/static-export/proj_1/jobs', { method: 'POST' });
    expect(busy).toMatchObject({ status: 409, body: { error: 'A static export job is already in progress for this deployment. Wait for the active job to complete before starting a new one.' } });
    const jobId = started.body.jobId as string;
    clock.now = T0 + 500;
    // updatedAt: when the job last changed status (it began running at 100 ms), not when a percent moved.
    expect((await api(`/v1/static-export/proj_1/jobs/${jobId}`)).body).toEqual({ jobId, status: 'running', createdAt: new Date(T0).toISOString(), updatedAt: new Date(T0 + 100).toISOString(), error: null });
    clock.now = T0 + 2000;
    const done = await api(`/v1/static-export/proj_1/jobs/${jobId}`);
    expect(done.body).toMatchObject({ status: 'completed', updatedAt: new Date(T0 + 1100).toISOString(), error: null, sizeBytes: expect.any(Number) });
    expect(done.body.bundleUrl).toContain(`/bundles/${jobId}/export.zip?`);
    clock.now = T0 + 3000;
    expect((await api(`/v1/static-export/proj_1/jobs/${jobId}`)).body.bundleUrl).not.toBe(done.body.bundleUrl);
    const archive = await fetch(done.body.bundleUrl as string);
    expect(archive.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await archive.arrayBuffer()).readUInt32BE(0)).toBe(0x504b0304);
    expect((await api(`/v1/static-export/proj_2/jobs/${jobId}`)).body).toEqual({ error: 'No job exists with the provided ID for this deployment.' });
    expect((await api(`/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST' })).status).toBe(404);
    expect((await api('/v1/static-export/proj_1/jobs', { method: 'POST' })).status).toBe(202);
    const limited = await api('/v1/static-export/proj_1/jobs', { method: 'POST' });
    clock.now = T0 + 10_000;
    const limitedAgain = await api('/v1/static-export/proj_3/jobs', { method: 'POST' });
    expect([limited.status, limitedAgain.status, limitedAgain.headers.get('retry-after')]).toEqual([409, 429, null]);
    expect(limitedAgain.body).toEqual({ error: 'Rate limit exceeded. The static export API allows up to 10 job starts per organization per hour.' });
  });

  it('both: today\'s routes and the next ones answer at once, each for its own jobs', async () => {
    await start({ apiShape: 'both', profile: { queuedMs: 0, runMs: 0 } });
    const today = await api('/v1/static-export/jobs', { body: { domain: 'docs.example.com' } });
    const next = await api('/v1/static-export/proj_1/jobs', { method: 'POST' });
    expect([today.status, today.body.jobId, next.status, next.body.jobId]).toEqual([202, expect.stringMatching(/^se_/), 202, expect.stringMatching(/^[0-9a-f]{24}$/)]);
    expect((await api(`/v1/static-export/jobs/${today.body.jobId}/bundle`, { method: 'POST' })).body.bundleUrl).toContain('/bundle.tar.gz?');
    expect((await api(`/v1/static-export/jobs/${next.body.jobId}`)).status).toBe(404);
    expect((await api(`/v1/static-export/proj_1/jobs/${today.body.jobId}`)).status).toBe(404);
  });
});

// The API client against a small loopback server that answers exactly what each test scripts,
// including what the emulator never sends: bodies that break the contract.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getExport, startExport } from '../src/platform/static-export.ts';
import { createAgentJob } from '../src/platform/agent.ts';
import { ApiClient, ApiError, ResponseShapeError } from '../src/platform/transport.ts';
import { parseRetryAfter } from '../src/wait/backoff.ts';

type Reply = (req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let url: string;
let replies: Reply[] = [];
let seen: { method?: string; url?: string; at: number }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, at: Date.now() });
    req.resume();
    req.on('end', () => (replies.shift() ?? ((_, r) => r.writeHead(500).end()))(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  replies = [];
  seen = [];
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (_, res) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const drop: Reply = (req) => req.socket.destroy();
const job = { jobId: 'se_1', status: 'running', progress: 5, pageCount: 3, createdAt: '2026-11-21T00:00:00Z', updatedAt: '2026-11-21T00:00:01Z' };
const client = (extra = {}) => new ApiClient({ baseUrl: url, apiKey: 'mint_k', minBackoffMs: 20, ...extra });

describe('responses are checked at the boundary', () => {
  it('ignores fields the contract does not name', async () => {
    replies.push(json(200, { ...job, region: 'eu', nested: { x: 1 } }));
    await expect(getExport(client(), 'se_1')).resolves.toEqual({ ...job, error: undefined });
  });

  it('names a missing required field', async () => {
    const { pageCount: _, ...incomplete } = job;
    replies.push(json(200, incomplete));
    const error = await getExport(client(), 'se_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseShapeError);
    expect((error as Error).message).toBe("The API's answer to GET /v1/static-export/jobs/se_1 lacks the required field `pageCount`. The API may have changed; report this with the job id.");
  });

  it('names a field of the wrong type, and a body that is not JSON', async () => {
    replies.push(json(200, { ...job, progress: '5%' }));
    await expect(getExport(client(), 'se_1')).rejects.toThrow('has `progress` that is not a number');
    replies.push((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>'));
    await expect(getExport(client(), 'se_1')).rejects.toThrow('GET /v1/static-export/jobs/se_1 is not JSON');
  });
});

describe('retries', () => {
  it('retries a read after 5xx and a dropped connection, and no more than it is told', async () => {
    replies.push(json(503, { error: 'busy' }), drop, json(200, job));
    await expect(getExport(client(), 'se_1')).resolves.toMatchObject({ jobId: 'se_1' });
    expect(seen).toHaveLength(3);
    replies.push(json(500, {}), json(500, {}), json(500, {}));
    await expect(getExport(client({ retries: 2 }), 'se_1')).rejects.toMatchObject({ status: 500 });
  });

  it('does not retry 4xx', async () => {
    replies.push(json(401, { error: 'Invalid key' }));
    const error = (await getExport(client(), 'se_1').catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ status: 401, serverMessage: 'Invalid key' });
    expect(seen).toHaveLength(1);
  });

  it('waits as long as Retry-After asks', async () => {
    replies.push(json(429, { error: 'slow down' }, { 'retry-after': '1' }), json(200, job));
    await getExport(client(), 'se_1');
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
  });

  it('sends an export start again after a fault that may hide a started job, and warns that a second export may run', async () => {
    for (const fault of [json(502, {}), json(504, {}), json(500, {}), drop]) {
      seen = [];
      const warnings: string[] = [];
      replies.push(fault, json(202, job));
      await expect(startExport(client({ warn: (m: string) => warnings.push(m) }), { domain: 'docs.example.com' })).resolves.toMatchObject({ jobId: 'se_1' });
      expect(seen.filter((r) => r.method === 'POST')).toHaveLength(2);
      expect(warnings).toEqual([expect.stringContaining('so the platform may have started the export although no answer arrived. Sending the start again: a second export may run')]);
    }
  });

  it('never sends an agent job create again after a fault that may hide a created job (a second job would open a second pull request)', async () => {
    for (const fault of [json(502, {}), json(504, {}), json(500, {}), drop]) {
      seen = [];
      replies.push(fault, json(201, { id: 'a1' }));
      const error = (await createAgentJob(client(), 'proj', 'Fix typos').catch((e: unknown) => e)) as ApiError;
      expect(error).toBeInstanceOf(ApiError);
      expect(seen.filter((r) => r.method === 'POST')).toHaveLength(1);
      replies.length = 0;
    }
  });

  it('sends an export start again after 503 and 429 without a warning: the platform surely did not take it', async () => {
    for (const fault of [json(503, {}), json(429, {})]) {
      seen = [];
      const warnings: string[] = [];
      replies.push(fault, json(202, job));
      await expect(startExport(client({ warn: (m: string) => warnings.push(m) }), { domain: 'docs.example.com' })).resolves.toMatchObject({ jobId: 'se_1' });
      expect(seen.filter((r) => r.method === 'POST')).toHaveLength(2);
      expect(warnings).toEqual([]);
    }
  });

  it('retries a start whose connection was refused: the server never saw it', async () => {
    const retried: string[] = [];
    const closed = new ApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'mint_k', minBackoffMs: 10, retries: 2, onRetry: (m) => retried.push(m) });
    const error = (await startExport(closed, { domain: 'docs.example.com' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ code: 'ECONNREFUSED', maybeTaken: false });
    expect(retried).toHaveLength(2);
    expect(retried[0]).toMatch(/could not reach 127\.0\.0\.1:9 \(ECONNREFUSED\); retrying in/);
  });

  it('gives up on an answer that never comes, within the time limit', async () => {
    replies.push(() => undefined, json(200, job));
    await expect(getExport(client({ requestTimeoutMs: 300 }), 'se_1')).resolves.toMatchObject({ jobId: 'se_1' });
    // The first answer never comes: without the time limit this call would hang until the test's own
    // timeout. The second request is the retry the limit made room for.
    expect(seen).toHaveLength(2);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

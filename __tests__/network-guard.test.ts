// The test suite's network guard (__tests__/setup/): a connection outside loopback fails, naming
// the host, in the test's own process and in an action the runner emulator starts; loopback passes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, get as httpGet, type Server } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAction } from '../emulator/runner.ts';
// @ts-expect-error: plain JavaScript, loaded by node --import as well (no declarations).
import { isLoopback, takeViolations } from './setup/network-guard.mjs';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_request, response) => response.end('loopback'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('in the test process', () => {
  it('refuses a host outside loopback, naming it, before any DNS look-up', async () => {
    const error = (await fetch('http://static-exports.s3.invalid/se_1/bundle.tar.gz').catch((e: unknown) => e)) as Error & { cause?: Error & { code?: string } };
    expect(error.cause?.code).toBe('ENETGUARD');
    expect(error.cause?.message).toContain('a connection to static-exports.s3.invalid:80 was refused');
    // The test that did it is failed by the set-up's afterEach; this one takes the record to pass.
    expect(takeViolations()).toEqual(['static-exports.s3.invalid:80']);
  });

  it('refuses a request of node:http and node:https, as the bundle download makes them', async () => {
    const refused = (get: typeof httpGet, url: string) => new Promise<{ code?: string }>((resolve) => get(url, () => resolve({})).on('error', resolve));
    expect((await refused(httpGet, 'http://static-exports.s3.invalid/se_1/bundle.tar.gz')).code).toBe('ENETGUARD');
    expect((await refused(httpsGet, 'https://static-exports.s3.invalid/se_1/bundle.tar.gz')).code).toBe('ENETGUARD');
    expect(takeViolations()).toEqual(['static-exports.s3.invalid:80', 'static-exports.s3.invalid:443']);
  });

  it('refuses an address outside loopback too (TEST-NET-1, never routed), over TLS as well', async () => {
    const error = (await fetch('https://192.0.2.1:8443/').catch((e: unknown) => e)) as Error & { cause?: { code?: string } };
    expect(error.cause?.code).toBe('ENETGUARD');
    expect(takeViolations()).toEqual(['192.0.2.1:8443']);
  });

  it('lets loopback through', async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('loopback');
    expect((await fetch(`http://localhost:${port}/`)).status).toBe(200);
    expect(takeViolations()).toEqual([]);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['api.localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['docs.example.com', false],
    ['localhost.example.com', false],
    ['::ffff:10.0.0.1', false]
  ])('%s is loopback: %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
  });
});

describe('in an action the runner emulator starts', () => {
  it('ends the action at once, naming the host, so no test passes on the failure it caused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guard-'));
    try {
      const script = join(dir, 'reach-out.mjs');
      writeFileSync(script, `await fetch('http://static-exports.s3.invalid/bundle.tar.gz').catch(() => {});\nconsole.log('carried on');\n`);
      expect(process.env.NETWORK_GUARD).toBeDefined();
      const run = await runAction(script, {});
      expect(run.code).toBe(86);
      expect(run.log).toContain('Network guard: a connection to static-exports.s3.invalid:80 was refused.');
      expect(run.log).not.toContain('carried on');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets the action reach loopback', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'guard-'));
    try {
      const script = join(dir, 'reach-loopback.mjs');
      writeFileSync(script, `console.log(await (await fetch('http://127.0.0.1:${port}/')).text());\n`);
      const run = await runAction(script, {});
      expect({ code: run.code, log: run.log.trim() }).toEqual({ code: 0, log: 'loopback' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

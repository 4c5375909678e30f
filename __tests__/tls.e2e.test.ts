// End to end through dist/index.js behind a proxy that inspects HTTPS: it answers with a certificate
// of its own CA, which Node does not trust. The platform, the storage and GitHub each fail at once,
// saying so and naming NODE_EXTRA_CA_CERTS, without a retry, a warning about a second export or a
// "lost connection"; given the CA through NODE_EXTRA_CA_CERTS, the same run goes through.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { valuesFixture } from './fixture-values.ts';
import { runAction } from '../emulator/runner.ts';

const REPO = 'acme/deploy';
let dir = '';
let caFile = '';

interface TlsProxy {
  url: string;
  /** Where requests go once the handshake succeeds. */
  upstream: string;
  /** Handshakes the client broke off (it refused the certificate). */
  refused: number;
  close(): Promise<void>;
}

/** A TLS-terminating proxy with a leaf certificate for 127.0.0.1 signed by a CA of its own. */
async function startTlsProxy(): Promise<TlsProxy> {
  const proxy = { url: '', upstream: '', refused: 0, close: async () => undefined } as TlsProxy;
  const server: Server = createServer(
    { key: readFileSync(join(dir, 'leaf.key')), cert: readFileSync(join(dir, 'leaf.pem')) + readFileSync(caFile, 'utf8') },
    (req, res) => {
      const forward = httpRequest(`${proxy.upstream}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    }
  );
  server.on('tlsClientError', () => (proxy.refused += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tls-'));
  caFile = join(dir, 'ca.pem');
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Inspecting Proxy CA', '-addext', 'basicConstraints=critical,CA:TRUE');
  openssl('req', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'leaf.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '2', '-extfile', 'leaf.ext');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What every refused run must show: the error names the certificate and the fix, and nothing was retried. */
function expectTlsRefusal(log: string, code: number | null): void {
  expect(code).toBe(1);
  const error = log.split('\n').find((line) => line.startsWith('::error::')) ?? '';
  expect(error).toMatch(/TLS certificate .* was refused \(SELF_SIGNED_CERT_IN_CHAIN\)/);
  expect(error).toContain('NODE_EXTRA_CA_CERTS');
  expect(log).not.toMatch(/retrying|second export may run|lost its connection|may already have acted|answered 500/i);
}

describe('a proxy that inspects HTTPS', () => {
  let platform: PlatformEmulator;
  let proxy: TlsProxy;
  beforeAll(async () => {
    proxy = await startTlsProxy();
    platform = await startPlatformEmulator({ profile: { queuedMs: 50, runMs: 200 } });
    proxy.upstream = platform.url;
  });
  afterAll(async () => {
    await proxy.close();
    await platform.close();
  });

  it('the platform: the start is refused once, sent nowhere, and goes through with NODE_EXTRA_CA_CERTS', async () => {
    platform.requests.length = 0;
    proxy.refused = 0;
    const inputs = { 'api-key': DEFAULT_API_KEY, 'api-url': proxy.url, domain: 'docs.example.com', timeout: '1m' };
    const refused = await runAction('dist/index.js', inputs);
    expectTlsRefusal(refused.log, refused.code);
    expect(proxy.refused).toBe(1);
    expect(platform.requests).toEqual([]);

    const trusted = await runAction('dist/index.js', inputs, { NODE_EXTRA_CA_CERTS: caFile });
    expect(trusted.code).toBe(0);
    expect(trusted.outputs['bundle-url']).toMatch(/\/bundle\.tar\.gz\?X-Amz-/);
  });

  it('the storage: the download is refused once, and goes through with NODE_EXTRA_CA_CERTS', async () => {
    const storageProxy = await startTlsProxy();
    const storage = await startPlatformEmulator({ storageUrl: storageProxy.url });
    storageProxy.upstream = storage.url;
    const workspace = mkdtempSync(join(tmpdir(), 'workspace-'));
    try {
      const job = storage.seedExportJob({ domain: 'docs.example.com' });
      const inputs = { 'api-key': DEFAULT_API_KEY, 'api-url': storage.url, domain: 'docs.example.com', 'job-id': job, 'download-path': 'site' };
      const refused = await runAction('dist/index.js', inputs, { GITHUB_WORKSPACE: workspace });
      expectTlsRefusal(refused.log, refused.code);
      expect(storageProxy.refused).toBe(1);
      expect(storage.requests.filter((r) => r.route === 'download')).toEqual([]);

      const trusted = await runAction('dist/index.js', inputs, { GITHUB_WORKSPACE: workspace, NODE_EXTRA_CA_CERTS: caFile });
      expect(trusted.code).toBe(0);
      expect(trusted.summary).toContain('Downloaded site');
    } finally {
      rmSync(workspace, { recursive: true, force: true });
      await storageProxy.close();
      await storage.close();
    }
  });

  it('GitHub: the first call is refused once, and the pull request is opened with NODE_EXTRA_CA_CERTS', async () => {
    const github: GitHubEmulator = await startGitHubEmulator();
    const githubProxy = await startTlsProxy();
    githubProxy.upstream = github.url;
    try {
      // Production's link on the platform emulator: the content diff downloads it, on loopback.
      github.createRepo(REPO, { 'deploy/values.yaml': valuesFixture('values.yaml', `${platform.url}/bundles`) });
      const inputs = {
        'api-key': DEFAULT_API_KEY,
        'api-url': platform.url,
        domain: 'docs.example.com',
        'job-id': platform.seedExportJob({ domain: 'docs.example.com' }),
        'github-token': 'ghs_emulator_token',
        'config-path': 'deploy/values.yaml'
      };
      const env = { GITHUB_API_URL: githubProxy.url, GITHUB_REPOSITORY: REPO };
      const refused = await runAction('dist/index.js', inputs, env);
      expectTlsRefusal(refused.log, refused.code);
      expect(githubProxy.refused).toBe(1);
      expect(github.requests).toEqual([]);

      const trusted = await runAction('dist/index.js', inputs, { ...env, NODE_EXTRA_CA_CERTS: caFile });
      expect(trusted.code).toBe(0);
      expect(trusted.outputs['pull-request-operation']).toBe('created');
    } finally {
      await githubProxy.close();
      await github.close();
    }
  });
});

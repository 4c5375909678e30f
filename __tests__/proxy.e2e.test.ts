// End to end behind a proxy, as on a self-hosted runner that reaches the internet through one: each
// bundle, run as the runner runs it with `http_proxy` set, must send every request through the
// proxy. agent-job and feedback are bundled without undici (scripts/build.mjs); these runs are what
// show that they still honour a proxy. The root action keeps undici because its GitHub client
// reaches a proxy through undici's ProxyAgent, which the configuration pull request exercises here.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { type AddressInfo, type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { valuesFixture } from './fixture-values.ts';
import { runAction } from '../emulator/runner.ts';

const PROJECT = 'proj_docs';
const REPO = 'acme/deploy';

/**
 * A forward proxy that only tunnels (CONNECT), as corporate proxies commonly do. Hosts under
 * `.test` do not resolve on this machine, so a request to one can only arrive through the proxy,
 * which sends it to the loopback port it names. (Loopback hosts themselves are never proxied.)
 */
interface Proxy {
  url: string;
  tunnels: string[];
  close(): Promise<void>;
}

async function startProxy(): Promise<Proxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => res.writeHead(405).end('this proxy only tunnels'));
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    tunnels.push(target);
    const [host, port] = target.split(':');
    if (!host?.endsWith('.test')) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    }
  };
}

/** The emulator's address as a `.test` host, reachable only through the proxy. */
const viaProxy = (url: string, host: string) => url.replace('127.0.0.1', host);
const hostOf = (url: string) => new URL(url).host;

let proxy: Proxy;
let platform: PlatformEmulator;
let github: GitHubEmulator;

beforeAll(async () => {
  proxy = await startProxy();
  platform = await startPlatformEmulator({
    storageHost: 'storage.test',
    agent: { runMs: 300 },
    feedback: [{ path: '/quickstart', createdAt: '2024-06-02T10:00:00.000Z', source: 'contextual', status: 'pending', helpful: false }]
  });
  github = await startGitHubEmulator();
});
afterAll(async () => {
  await proxy.close();
  await platform.close();
  await github.close();
});
beforeEach(() => {
  proxy.tunnels.length = 0;
  platform.requests.length = 0;
});

const PLATFORM_HOST = 'platform.test';
const proxied = () => ({ http_proxy: proxy.url });
const platformUrl = () => viaProxy(platform.url, PLATFORM_HOST);

describe('behind a proxy', () => {
  it('agent-job reaches the platform through http_proxy', async () => {
    const id = platform.seedAgentJob({ projectId: PROJECT, outcome: 'no-change', runMs: 300 });
    const run = await runAction('dist/agent-job/index.js', { 'api-key': DEFAULT_API_KEY, 'project-id': PROJECT, 'api-url': platformUrl(), 'job-id': id }, proxied());

    expect(run.log).not.toContain('::error::');
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('completed');
    expect(platform.requests.filter((r) => r.route === 'agent-get').length).toBeGreaterThan(0);
    expect(new Set(proxy.tunnels)).toEqual(new Set([hostOf(platformUrl())]));
  });

  it('feedback reaches the platform through http_proxy', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'proxy-ws-'));
    try {
      const run = await runAction(
        'dist/feedback/index.js',
        { 'api-key': DEFAULT_API_KEY, 'project-id': PROJECT, 'api-url': platformUrl(), 'date-from': '2024-06-01', 'date-to': '2024-07-01' },
        { ...proxied(), GITHUB_WORKSPACE: workspace }
      );

      expect(run.log).not.toContain('::error::');
      expect(run.code).toBe(0);
      expect(run.outputs).toMatchObject({ pages: '1', 'thumbs-down': '1', complete: 'true' });
      expect(platform.requests.filter((r) => r.route === 'feedback')).toHaveLength(1);
      expect(new Set(proxy.tunnels)).toEqual(new Set([hostOf(platformUrl())]));
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('the root action reaches the platform, the storage and the GitHub API through http_proxy', async () => {
    github.setPolicy({ allowActionsToCreatePullRequests: true, contentsWrite: true, pullRequestsWrite: true, protectedBranches: [] });
    // Production's link on the storage's .test host too: the content diff downloads it through the proxy.
    github.createRepo(REPO, { 'deploy/values.yaml': valuesFixture('values.yaml', `${viaProxy(platform.url, 'storage.test')}/bundles`) });
    const githubUrl = viaProxy(github.url, 'github.test');
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const workspace = mkdtempSync(join(tmpdir(), 'proxy-ws-'));
    try {
      const run = await runAction(
        'dist/index.js',
        {
          'api-key': DEFAULT_API_KEY,
          'api-url': platformUrl(),
          'job-id': job,
          domain: 'docs.example.com',
          'download-path': 'site',
          'github-token': 'ghs_emulator_token',
          'config-path': 'deploy/values.yaml'
        },
        { ...proxied(), GITHUB_API_URL: githubUrl, GITHUB_REPOSITORY: REPO, GITHUB_WORKSPACE: workspace }
      );

      expect(run.log).not.toContain('::error::');
      expect(run.code).toBe(0);
      expect(run.summary).toContain('Downloaded site');
      expect(readFileSync(join(workspace, 'site', 'index.html'), 'utf8')).toContain('<html');
      expect(run.outputs['pull-request-operation']).toBe('created');
      expect(github.pulls(REPO)).toHaveLength(1);
      expect(new Set(proxy.tunnels)).toEqual(new Set([hostOf(platformUrl()), hostOf(githubUrl), hostOf(platformUrl().replace(PLATFORM_HOST, 'storage.test'))]));
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe('the bundles without undici', () => {
  const undiciMarker = 'UND_ERR_SOCKET';

  it('agent-job and feedback leave undici out; the root action keeps it', () => {
    // Compared as flags, so that a failure names the bundle instead of printing it whole.
    const carriesUndici = (bundle: string) => readFileSync(bundle, 'utf8').includes(undiciMarker);
    expect({
      'dist/agent-job/index.js': carriesUndici('dist/agent-job/index.js'),
      'dist/feedback/index.js': carriesUndici('dist/feedback/index.js'),
      'dist/index.js': carriesUndici('dist/index.js')
    }).toEqual({ 'dist/agent-job/index.js': false, 'dist/feedback/index.js': false, 'dist/index.js': true });
  });

  it('their stand-in ProxyAgent stops the step with what to do, if anything ever constructs it', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', "const { ProxyAgent } = await import('./scripts/no-undici.mjs'); new ProxyAgent({ uri: 'http://proxy' });"], {
      encoding: 'utf8'
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('This action was bundled without undici, and something asked for its ProxyAgent.');
    expect(run.stderr).toContain('scripts/build.mjs');
  });
});

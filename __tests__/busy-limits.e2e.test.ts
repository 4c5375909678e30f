// Every wait and every CPU-heavy step ends by the step's deadline and on cancel. A values file is read
// only up to GitHub's own 1 MB, and one that size is patched; the labels' retry waits end on SIGTERM;
// a zip being unpacked stops on SIGINT and by the step's timeout, leaving nothing behind; a GitHub
// attempt cut by its request limit is retried only when the retry fits in the step's timeout. (The
// times themselves: npm run bench:limits.) The signals and the unpack's timeout run through
// dist/index.js, as the runner starts it; the rest runs the real action in this process (in-process.ts).
import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildZip } from '../emulator/archive.ts';
import type { GitHubEmulator } from '../emulator/github.ts';
import type { GitHubFault } from '../emulator/github-faults.ts';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import { runAction, startAction } from '../emulator/runner.ts';
import { DOMAIN, REPO, errorLine, useEmulators } from './emulators.ts';
import { runInProcess } from './in-process.ts';

const { platform, github, publish, proposing, env } = useEmulators();

/** A values file of `keys` settings of another chart, each `padding` characters longer, then the static export block. */
function valuesFile(keys: number, padding = 0): string {
  const lines = ['other:'];
  for (let i = 0; i < keys; i++) lines.push(`  setting${i}: "value of setting number ${i}${'.'.repeat(padding)}"`);
  // Production's link on the emulator (a job it never had): the content diff tries it, on loopback.
  lines.push('staticExport:', '  enabled: true', `  bundleUrl: "${platform.url}/bundles/se_old/bundle.tar.gz"`, '');
  return lines.join('\n');
}

/** The repository made anew with `values` and only `faults` armed: each test starts from the same GitHub. */
async function withGitHub<T>(values: string, faults: GitHubFault[], use: (github: GitHubEmulator, inputs: Record<string, string>, env: Record<string, string>) => Promise<T>): Promise<T> {
  github.createRepo(REPO, { 'deploy/values.yaml': values });
  github.clearFaults();
  github.requests.length = 0;
  for (const fault of faults) github.addFault(fault);
  return use(github, proposing({ 'job-id': platform.seedExportJob({ domain: DOMAIN }), 'pr-labels': 'docs' }), env(REPO));
}


describe('a large values file', () => {
  it('over 1 MB is refused before anything is proposed, saying what to do', async () => {
    await withGitHub(valuesFile(40_000), [], async (github, inputs, env) => {
      const run = await runInProcess(publish, inputs, env);
      expect(run.code).toBe(1);
      expect(errorLine(run.log)).toMatch(/deploy\/values\.yaml in acme\/deploy: the file is larger than GitHub's contents API returns \(1 MB\)\. Keep the settings this action edits in a file of their own, under 1 MB/);
      expect(github.pulls(REPO)).toEqual([]);
    });
  });

  it('just under 1 MB is patched: the pull request changes the link line and nothing else', async () => {
    // GitHub's limit is on bytes: long lines make the size, and fewer of them keep the YAML parses
    // short (22,000 short settings cost about 15 s of CPU to read, patch and show).
    const values = valuesFile(2_200, 380);
    expect(Buffer.byteLength(values)).toBeGreaterThan(900_000);
    await withGitHub(values, [], async (github, inputs, env) => {
      const run = await runInProcess(publish, inputs, env);
      expect(errorLine(run.log)).toBeUndefined();
      expect(run.outputs['pull-request-operation']).toBe('created');
      const proposed = github.fileAt(REPO, 'static-export/deploy-values.yaml', 'deploy/values.yaml')!;
      const before = values.split('\n');
      const changed = proposed.split('\n').filter((line, i) => line !== before[i]);
      expect(changed).toEqual([`  bundleUrl: "${run.outputs['bundle-url']}"`]);
    });
  });
});

describe('waits that end on cancel and by the deadline', () => {
  it("the labels' retry wait ends on SIGTERM: no label request after it", async () => {
    const faults: GitHubFault[] = [{ kind: 'unresolved-errors', operation: 'issues.addLabels', times: 3 }];
    await withGitHub(valuesFile(10), faults, async (github, inputs, env) => {
      const labelRequests = () => github.requests.filter((r) => r.path.endsWith('/labels')).length;
      const started = startAction('dist/index.js', inputs, env);
      await started.waitFor('GitHub did not know the new pull request yet');
      const before = labelRequests();
      started.child.kill('SIGTERM');
      const run = await started.done;
      expect(run.code).toBe(1);
      expect(run.log).toContain('Received SIGTERM');
      // Cut, not sat out: the process ended (done is its exit) without the retry 1 s later.
      expect(labelRequests()).toBe(before);
    });
  });

  it("a GitHub attempt cut by its request limit is not retried past the step's timeout", async () => {
    const faults: GitHubFault[] = [{ kind: 'slow', operation: 'repos.get', times: 10, value: 5000 }];
    await withGitHub(valuesFile(10), faults, async (_github, inputs, env) => {
      const run = await runInProcess(publish, { ...inputs, timeout: '4s' }, env, { knobs: { requestTimeoutMs: 2000 } });
      expect(run.code).toBe(1);
      expect(errorLine(run.log)).toMatch(/GitHub did not answer GET \/repos\/acme\/deploy within \d s \(the limit of one request\), and the step's timeout leaves no time to retry\. Raise timeout, or run again\./);
    });
  });
});

describe('a zip being unpacked', () => {
  // Many small files, so the unpack itself (not the download) is what the step is doing when it ends.
  const FILES = 15_000;
  let jobId: string;
  beforeAll(() => {
    const files = [{ path: 'index.html', content: '<html><body>home</body></html>' }];
    for (let i = 0; i < FILES; i++) files.push({ path: `pages/${i % 50}/page-${i}.html`, content: `<p>page ${i}</p>` });
    jobId = platform.seedExportJob({ domain: 'docs.example.com', archive: buildZip(files) });
  });

  /** Every name in the workspace, the hidden staging folder included. */
  const listed = (workspace: string) => readdirSync(workspace);
  /** Files the unpack has written so far into the staging folder (0 before it exists). */
  const unpackedSoFar = (workspace: string): number => {
    const staging = listed(workspace).find((name) => name.startsWith('.site.partial-') && !name.endsWith('.zip'));
    if (!staging) return 0;
    return readdirSync(join(workspace, staging), { recursive: true }).length;
  };
  const inputs = () => ({ 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'job-id': jobId, 'download-path': 'site' });

  async function untilUnpacking(workspace: string): Promise<void> {
    for (let waited = 0; waited < 30_000; waited += 20) {
      try {
        if (unpackedSoFar(workspace) > 0) return;
      } catch {
        // the staging folder is being made; look again
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the unpack never started');
  }

  // SIGINT is what the runner sends on cancel; SIGTERM follows 7.5 s later (the second case's probe).
  it('stops on SIGINT and removes what it had unpacked: nothing is left in the workspace', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'workspace-'));
    try {
      const started = startAction('dist/index.js', inputs(), { GITHUB_WORKSPACE: workspace });
      await untilUnpacking(workspace);
      started.child.kill('SIGINT');
      const run = await started.done;
      expect(run.code).toBe(1);
      expect(run.log).toContain('Received SIGINT');
      // The unpack ended on the signal and cleaned up; a process ended by the grace timer instead
      // would leave the staging folder and its files behind.
      expect(listed(workspace)).toEqual([]);
      expect(run.outputs['bundle-path']).toBeUndefined();
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("ends by the step's timeout, saying so, with nothing left in the workspace", async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'workspace-'));
    try {
      // The timeout is measured from the start of the step; give it just past the start of the unpack.
      const probe = startAction('dist/index.js', inputs(), { GITHUB_WORKSPACE: workspace });
      const t0 = Date.now();
      await untilUnpacking(workspace);
      const toUnpack = Date.now() - t0;
      probe.child.kill('SIGTERM');
      expect((await probe.done).log).toContain('Received SIGTERM');
      expect(listed(workspace)).toEqual([]);

      const timeout = Math.max(2, Math.ceil((toUnpack + 500) / 1000));
      const run = await runAction('dist/index.js', { ...inputs(), timeout: `${timeout}s` }, { GITHUB_WORKSPACE: workspace });
      expect(run.code).toBe(1);
      expect(errorLine(run.log)).toMatch(/did not finish within the step's timeout \(\d+ s\); nothing was unpacked or kept\. Raise timeout\./);
      expect(existsSync(join(workspace, 'site'))).toBe(false);
      expect(listed(workspace)).toEqual([]);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

// The content diff as it streams. Pages are paths whatever the layout of the files, the pages added
// and changed link to the site, and a comparison that is still reading production's export stops on
// a cancel or by the step's timeout, with nothing left in the runner's temp folder. The real publish action runs in this process (in-process.ts); the cancel runs through
// dist/index.js, since a signal needs a process of its own.
import { describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SiteSpec, bundleFormats, pageFiles, siteFiles } from '../emulator/archive.ts';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import { startAction } from '../emulator/runner.ts';
import { DOMAIN, REPO, useEmulators, useTempDir } from './emulators.ts';
import { runInProcess } from './in-process.ts';

const PROFILE = { queuedMs: 50, runMs: 300 };
const { platform, github, publish, proposing: inputs, env: runnerEnv } = useEmulators({ platform: { profile: PROFILE, linkTtlSeconds: 7 * 24 * 3600 } });
const temp = useTempDir('content-stream-');

const values = (bundleUrl: string) => `staticExport:\n  enabled: true\n  bundleUrl: "${bundleUrl}"\n`;

/** Production serves an export of `site`, through a link the platform generated. */
async function deploy(site: SiteSpec): Promise<void> {
  platform.profile = { ...PROFILE, site };
  const jobId = platform.seedExportJob({ domain: DOMAIN });
  const answer = await fetch(`${platform.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
  github.createRepo(REPO, { 'deploy/values.yaml': values(((await answer.json()) as { bundleUrl: string }).bundleUrl) });
}

const env = () => ({ ...runnerEnv(REPO), RUNNER_TEMP: temp() });

/** The step exports `site` anew (its own build id) and proposes it. */
function exportAndPropose(site: SiteSpec, extra: Record<string, string> = {}) {
  platform.profile = { ...PROFILE, site };
  return runInProcess(publish, inputs(extra), env());
}

/** Every Markdown link's target in `text`, once each (the summary shows the section twice: its own, and in the body it proposes). */
const linkTargets = (text: string) => [...new Set([...text.matchAll(/\]\((https:[^)\s]+)\)/g)].map((match) => match[1]))].sort();

describe('pages are paths, not files', () => {
  it('a site whose pages moved from x.html to x/index.html has no page added or removed, and passes the gate', async () => {
    const flat = ['index.html', 'guides/auth.html', 'guides/webhooks.html', 'api/list.html', 'api/get.html'];
    await deploy({ pages: flat });
    const run = await exportAndPropose({ pages: ['index.html', ...flat.slice(1).map((path) => path.replace(/\.html$/, '/index.html'))] });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.outputs['content-diff'])).toEqual({ status: 'compared', added: 0, removed: 0, changed: 0, unchanged: 5 });
    expect(github.pulls(REPO)).toHaveLength(1);
    expect(github.pulls(REPO)[0].body).toContain('**Pages: 0 added, 0 removed, 0 changed**, 5 unchanged');
  });
});

describe('one click to the page', () => {
  it('links the pages added and changed to the site in the pull request and the summary; removed pages stay plain text', async () => {
    const pages = pageFiles(8);
    await deploy({ pages });
    const next = [...pages.filter((path) => path !== 'pages/page-0007.html'), 'guides/webhooks (beta).html'];
    const run = await exportAndPropose({ pages: next, edits: { 'pages/page-0002.html': 'Tokens now expire after one hour.', 'pages/page-0005.html': 'Use a service key.' } });
    expect(run.code).toBe(0);
    const expected = [
      `https://${DOMAIN}/guides/webhooks%20%28beta%29`,
      `https://${DOMAIN}/pages/page-0002`,
      `https://${DOMAIN}/pages/page-0005`
    ];
    const [pull] = github.pulls(REPO);
    expect(linkTargets(pull.body)).toEqual(expected);
    expect(linkTargets(run.summary)).toEqual(expected);
    expect(pull.body).toContain('**Removed** (1)\n\n- `/pages/page-0007`\n');
    expect(pull.body).toContain(`- [\`/pages/page-0002\`](https://${DOMAIN}/pages/page-0002)\n\n\`\`\`diff\n+ Tokens now expire after one hour.\n\`\`\``);
  });
});

/**
 * Production's export from a host that sends half of it and then nothing more, keeping the
 * connection open: the comparison is still reading it when the step is stopped.
 */
async function stallingHost(archive: Buffer): Promise<{ url: string; halfSent: Promise<void>; close: () => Promise<void> }> {
  let sent: () => void = () => undefined;
  const halfSent = new Promise<void>((resolve) => (sent = resolve));
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.length });
    response.write(archive.subarray(0, archive.length >> 1), () => sent());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bundles/se_00000000000000bb/bundle.tar.gz`,
    halfSent,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve())))
  };
}

describe('a comparison stops when the step stops', () => {
  const production = () => bundleFormats['tar.gz'].build(siteFiles(DOMAIN, { pages: 400, buildId: 'deployed', padBytes: 2_000 }));
  // The new export is small, so that reading it ends long before the step does, however loaded the machine.
  const newExport = { ...PROFILE, site: { pages: 10 } };

  it('ends within two seconds of SIGTERM, leaving nothing in the runner temp folder', async () => {
    const host = await stallingHost(production());
    try {
      github.createRepo(REPO, { 'deploy/values.yaml': values(host.url) });
      platform.profile = newExport;
      const action = startAction('dist/index.js', inputs(), env());
      await action.waitFor("beside the new one, to compare them page by page");
      await host.halfSent;
      action.child.kill('SIGTERM');
      const run = await action.done;
      expect(run.code).not.toBe(0);
      expect(run.log).toContain('Received SIGTERM');
      // Ended by its own wind-down, not by the runtime's 2 s grace timer, whatever the machine's load:
      // a process ended by that timer would leave production's half-read export in the runner's temp folder.
      expect(readdirSync(temp())).toEqual([]);
      expect(github.pulls(REPO)).toEqual([]);
    } finally {
      await host.close();
    }
  });

  it("ends by the step's timeout, saying so, leaving nothing in the runner temp folder", async () => {
    const host = await stallingHost(production());
    try {
      github.createRepo(REPO, { 'deploy/values.yaml': values(host.url) });
      platform.profile = newExport;
      // The error names the step's timeout: the deadline ended the stalled read (no wall-clock bound here,
      // which a loaded machine would break; the stalled host would otherwise hold the run forever).
      const run = await runInProcess(publish, inputs({ timeout: '5s' }), env());
      expect(run.code).toBe(1);
      expect(run.log).toContain("::error::The new export was read, but production's export, read beside it to compare the pages, did not finish within the step's timeout (5 s); nothing was proposed. Raise timeout.");
      expect(readdirSync(temp())).toEqual([]);
      expect(github.pulls(REPO)).toEqual([]);
    } finally {
      await host.close();
    }
  });
});

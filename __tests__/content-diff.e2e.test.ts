// The real publish action in this process (in-process.ts): what merging changes for readers. Production's export and the
// new one come from the platform emulator with generated sites that differ in controlled ways
// (pages added, removed, edited), each export with its own build id in every page; the step compares
// them page by page, shows the result in the pull request and the summary, and refuses an export
// that lost most of the site before anything is proposed.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SiteSpec, bundleFormats, pageFiles, siteFiles } from '../emulator/archive.ts';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import { DOMAIN, REPO, WEEK_S as WEEK_SECONDS, useEmulators, useTempDir } from './emulators.ts';
import { runInProcess } from './in-process.ts';

const PROFILE = { queuedMs: 50, runMs: 300 };
const { platform, github, storage: files, publish, proposing, env } = useEmulators({ platform: { profile: PROFILE }, storage: true });
const temp = useTempDir('content-diff-');
beforeEach(() => {
  platform.requests.length = 0;
  github.requests.length = 0;
  // A week, as S3 allows at most: production's link is far from expiry unless a test says otherwise.
  platform.linkTtlSeconds = WEEK_SECONDS;
});

const values = (bundleUrl: string) => `staticExport:\n  enabled: true\n  bundleUrl: "${bundleUrl}"\n`;

/** Production serves an export of `site`, through a link the platform generated. */
async function deploy(site: SiteSpec): Promise<{ jobId: string; link: string }> {
  platform.profile = { ...PROFILE, site };
  const jobId = platform.seedExportJob({ domain: DOMAIN });
  const answer = await fetch(`${platform.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
  const { bundleUrl } = (await answer.json()) as { bundleUrl: string };
  github.createRepo(REPO, { 'deploy/values.yaml': values(bundleUrl) });
  return { jobId, link: bundleUrl };
}

/** The step exports `site` anew (its own build id) and proposes it. */
function exportAndPropose(site: SiteSpec | undefined, extra: Record<string, string> = {}) {
  platform.profile = { ...PROFILE, site };
  return runInProcess(publish, proposing(extra), { ...env(REPO), RUNNER_TEMP: temp() });
}

// The report stays in the runner's temporary folder for a later step (the root action passes on content-diff, the counts).
const REPORT = () => join(temp(), 'static-export-content-diff.json');
const report = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> & { counts: Record<string, number> };
const writes = () => github.requests.filter((r) => r.method !== 'GET');
const tenPages = pageFiles(10);

describe('content diff against production', () => {
  it('reports only the real changes between two exports whose every page carries another build id', async () => {
    await deploy({ pages: tenPages });
    const next = [...tenPages.filter((path) => path !== 'pages/page-0009.html'), 'guides/new-page.html'];
    const run = await exportAndPropose({ pages: next, edits: { 'pages/page-0003.html': 'Tokens now expire after one hour.' } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.outputs['content-diff'])).toEqual({ status: 'compared', added: 1, removed: 1, changed: 1, unchanged: 8 });
    const full = report(REPORT());
    expect([full.added, full.removed, full.changed]).toEqual([['/guides/new-page'], ['/pages/page-0009'], ['/pages/page-0003']]);
    const [pull] = github.pulls(REPO);
    // The settings first; then the count line, and the paths with a readable excerpt of the change, collapsed.
    expect(pull.body).toContain('### What readers see after the merge\n\n**Pages: 1 added, 1 removed, 1 changed**, 8 unchanged');
    expect(pull.body.indexOf('### What changes in')).toBeLessThan(pull.body.indexOf('**Pages: 1 added'));
    expect(pull.body.indexOf('**Pages: 1 added')).toBeLessThan(pull.body.indexOf('| Export job |'));
    expect(pull.body).toContain('<details><summary>Every page added, removed or changed (3), by path, with what changed on 1 of them</summary>');
    expect(pull.body).toContain('**Added** (1)\n\n- [`/guides/new-page`](https://docs.example.com/guides/new-page)');
    expect(pull.body).toContain('**Removed** (1)\n\n- `/pages/page-0009`');
    expect(pull.body).toContain('- [`/pages/page-0003`](https://docs.example.com/pages/page-0003)\n\n```diff\n+ Tokens now expire after one hour.\n```');
    expect(pull.body).not.toContain('No page change');
    expect(run.summary).toContain('**Pages: 1 added, 1 removed, 1 changed**, 8 unchanged');
    expect(run.log).toContain('1 added, 1 removed, 1 changed, 8 unchanged');
  });

  it('lists every page on the pull request, collapsed; the report holds every path too', async () => {
    await deploy({ pages: 30 });
    const run = await exportAndPropose({ pages: [...pageFiles(30), ...Array.from({ length: 14 }, (_, i) => `new/n-${i}.html`)] });
    expect(run.code).toBe(0);
    const [pull] = github.pulls(REPO);
    expect(pull.body).toContain('**Added** (14)');
    expect(pull.body).toContain('- [`/new/n-13`](https://docs.example.com/new/n-13)');
    expect(pull.body).not.toContain('more,');
    expect((report(REPORT()).added as string[]).length).toBe(14);
  });

  it('a renewal of the deployed export says no page changes, and reads no bundle', async () => {
    // Production's link was made with less time left than a fresh one gets, so the renewal changes it
    // (the emulator gives the same link twice within a second).
    platform.linkTtlSeconds = 3 * 24 * 3600;
    const { jobId } = await deploy({ pages: tenPages });
    platform.linkTtlSeconds = WEEK_SECONDS;
    const run = await exportAndPropose(undefined, { 'job-id': jobId });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.outputs['content-diff'])).toEqual({ status: 'renewal', added: 0, removed: 0, changed: 0 });
    const [pull] = github.pulls(REPO);
    expect(pull.body).toContain(`No page changes: this renews the link of export \`${jobId}\`, the one production serves.`);
    expect(platform.requests.filter((r) => r.route === 'download')).toEqual([]);
  });

  it('refuses an export that lost most pages, naming them and the input; accepts it with the input', async () => {
    await deploy({ pages: 20 });
    const refused = await exportAndPropose({ pages: 5 });
    expect(refused.code).toBe(1);
    expect(refused.log).toContain("::error::The new export loses 15 of production's 20 pages (75%), more than max-page-loss allows (25%): /pages/page-0005, /pages/page-0006");
    expect(refused.log).toContain('and 10 more.');
    expect(refused.log).toContain('run again with max-page-loss: 75%.');
    expect(github.pulls(REPO)).toEqual([]);
    expect(writes()).toEqual([]);
    expect(refused.summary).toContain('**Pages: 0 added, 15 removed, 0 changed**, 5 unchanged');
    expect(JSON.parse(refused.outputs['content-diff'])).toMatchObject({ removed: 15 });
    expect(report(REPORT()).gate).toMatchObject({ passed: false });

    const accepted = await exportAndPropose({ pages: 5 }, { 'max-page-loss': '75%' });
    expect(accepted.code).toBe(0);
    expect(github.pulls(REPO)).toHaveLength(1);
    expect(github.pulls(REPO)[0].body).toContain('**Pages: 0 added, 15 removed, 0 changed**, 5 unchanged');
  });

  it('refuses an export without its home page, and names the input that accepts it', async () => {
    await deploy({ pages: tenPages });
    const run = await exportAndPropose({ pages: tenPages.slice(1) });
    expect(run.code).toBe(1);
    expect(run.log).toContain("::error::The new export has no home page (/, index.html at the bundle's root), which production's has");
    expect(run.log).toContain('allow-missing-home-page: true');
    expect(writes()).toEqual([]);
    const accepted = await exportAndPropose({ pages: tenPages.slice(1) }, { 'allow-missing-home-page': 'true' });
    expect(accepted.code).toBe(0);
  });

  it('refuses an export with no pages at all', async () => {
    await deploy({ pages: tenPages });
    const run = await exportAndPropose({ pages: [] }, { 'max-page-loss': '100%' });
    expect(run.code).toBe(1);
    expect(run.log).toContain('::error::The new export has no pages at all (no .html file in the bundle, while production\'s has 10)');
    expect(writes()).toEqual([]);
  });

  it('reads production\'s export through a fresh link when its deployed link has expired', async () => {
    // A link that lives no second: expired as soon as it is made, with no wait.
    platform.linkTtlSeconds = 0;
    const { jobId } = await deploy({ pages: tenPages });
    platform.linkTtlSeconds = WEEK_SECONDS;
    platform.requests.length = 0;
    const run = await exportAndPropose({ pages: tenPages, edits: { 'index.html': 'Version 2 is out.' } });
    // The step fails once the pull request is open, as it does whenever production's link has expired.
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/::error::Production's link in deploy\/values\.yaml on main expired at/);
    expect(github.pulls(REPO)).toHaveLength(1);
    expect(run.log).toContain(`Compared with production's export (10 pages, read from a fresh link for export ${jobId} (its deployed link expired`);
    expect(platform.requests.filter((r) => r.route === 'bundle' && r.path.includes(jobId))).toHaveLength(1);
    expect(JSON.parse(run.outputs['content-diff'])).toEqual({ status: 'compared', added: 0, removed: 0, changed: 1, unchanged: 9 });
  });

  it('reads production\'s export from the URL the team hosts it at', async () => {
    files.files.set('/bundles/se_00000000000000aa/bundle.tar.gz', bundleFormats['tar.gz'].build(siteFiles(DOMAIN, { pages: tenPages, buildId: 'hosted' })));
    github.createRepo(REPO, { 'deploy/values.yaml': values(`${files.url}/bundles/se_00000000000000aa/bundle.tar.gz`) });
    const run = await exportAndPropose({ pages: [...tenPages, 'extra.html'] });
    expect(run.code).toBe(0);
    expect(run.log).toContain(`read from its deployed link ${files.url}/bundles/se_00000000000000aa/bundle.tar.gz`);
    expect(JSON.parse(run.outputs['content-diff'])).toEqual({ status: 'compared', added: 1, removed: 0, changed: 0, unchanged: 10 });
  });

  it('passes the first export with a notice: nothing is deployed to compare with', async () => {
    github.createRepo(REPO, { 'deploy/values.yaml': 'staticExport:\n  enabled: false\n' });
    const run = await exportAndPropose({ pages: tenPages });
    expect(run.code).toBe(0);
    expect(run.log).toContain('::notice::Nothing is deployed yet, so the new export (10 pages) is the first');
    expect(github.pulls(REPO)[0].body).toContain('Nothing is deployed yet, so there is nothing to compare with: this first export has 10 pages.');
    expect(JSON.parse(run.outputs['content-diff'])).toEqual({ status: 'first' });
  });

  it('refuses a max-page-loss that is not a share, before any request', async () => {
    github.createRepo(REPO, { 'deploy/values.yaml': 'staticExport:\n  enabled: false\n' });
    github.requests.length = 0;
    const run = await exportAndPropose({ pages: 3 }, { 'max-page-loss': 'half' });
    expect(run.code).toBe(1);
    expect(run.log).toContain("::error::Input 'max-page-loss': 'half' is not a share of pages from 0% to 100%.");
    expect(platform.requests).toEqual([]);
  });
});

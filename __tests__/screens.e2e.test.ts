// What the reviewer and the maintainer see: each kind of run against the emulators (new export,
// renewal, a link shorter than link-margin, hosted URL, failure: the real publish action in this
// process, in-process.ts; the feedback report and the agent job: their bundles under dist/), and the pull request body and the job summary each wrote are shown as GitHub shows them
// (__tests__/github-screen.ts) at GitHub's content width, then looked at as a person would: nothing
// wider than the page, every table with a header, the chart drawn, no Markdown or HTML left as text.
// Screenshots land in screens/ (gitignored); `npm run screens` also writes the README's image.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type SiteSpec, pageFiles } from '../emulator/archive.ts';
import { DEFAULT_API_KEY, type FeedbackEntry, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { type ActionRun, runAction } from '../emulator/runner.ts';
import { chromiumMissing } from '../scripts/chromium.ts';
import { type GitHubScreen, openGitHubScreen } from './github-screen.ts';
import { useEmulators, useTempDir } from './emulators.ts';
import { runInProcess } from './in-process.ts';
import { presignedLink } from './finished-export.ts';

const REPO = 'acme/deploy';
const TOKEN = 'ghs_emulator_token';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const S3 = 'https://static-exports.s3.us-east-1.invalid';
const PROFILE = { queuedMs: 50, runMs: 300, pageCount: 8 };
/** Production's site, and the next export of it: a page added, one removed, two edited. */
const PAGES = ['index.html', 'quickstart.html', 'guides/authentication.html', 'guides/self-hosting.html', 'guides/webhooks.html', 'api-reference/exports/create.html', 'api-reference/exports/status.html', 'changelog.html'];
const SITE: SiteSpec = { pages: PAGES };
const NEXT_SITE: SiteSpec = {
  pages: [...PAGES.filter((page) => page !== 'guides/webhooks.html'), 'guides/rotating-keys.html'],
  edits: { 'quickstart.html': 'Install the CLI with npm i -g mint, then run mint dev.', 'api-reference/exports/create.html': 'The paths field now takes up to 500 page paths.' }
};
/** `npm run screens` sets it: the new export's body becomes the README's image. */
const README_IMAGE = process.env.README_IMAGE;

/** A presigned-S3-shaped link to a job's bundle, signed at `signedAt`, valid `seconds`. */
function link(jobId: string, signedAt: number, seconds: number): string {
  const date = new Date(signedAt).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  return `${S3}/${jobId}/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F${date.slice(0, 8)}%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=${date}&X-Amz-Expires=${seconds}&X-Amz-SignedHeaders=host&X-Amz-Signature=${'5e'.repeat(32)}`;
}
const values = (bundleUrl: string) => `# Helm values for the docs deployment.\nstaticExport:\n  enabled: true\n  # Presigned link returned by the generate operation.\n  bundleUrl: "${bundleUrl}"\n`;

const missing = chromiumMissing();
if (missing && process.env.CI !== 'true') console.warn(`Skipping the rendering test: ${missing}. With CI=true it fails instead.`);

(missing && process.env.CI !== 'true' ? describe.skip : describe)('what the reviewer sees, rendered as GitHub renders it', () => {
  let screen: GitHubScreen;
  // platform: exports whose pages differ from one job to the next, in controlled ways
  const { platform, github, storage: files, publish: publishRun } = useEmulators({ platform: { profile: PROFILE }, storage: true });
  let local: PlatformEmulator; // bundle links the run can fetch (keep-archive), feedback, agent jobs
  const workspace = useTempDir('workspace-');
  const shown: string[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`The rendering test needs Chromium: ${missing}`);
    screen = await openGitHubScreen();
    local = await startPlatformEmulator({ profile: { queuedMs: 50, runMs: 300 }, feedback: feedback(), agent: { runMs: 0 } });
  });
  afterAll(async () => {
    await screen?.close();
    await local?.close();
    if (shown.length) console.log(`Screenshots, as GitHub would show them:\n${shown.map((path) => `  ${path}`).join('\n')}`);
  });
  beforeEach(() => {
    platform.linkTtlSeconds = 7 * 24 * 3600;
    platform.profile = PROFILE;
  });

  /** Production: an export of `site`, its link (the emulator's own, so the run can read it) in the values file. */
  async function deploy(site: SiteSpec, createdAt: number): Promise<string> {
    platform.profile = { ...PROFILE, site };
    const jobId = platform.seedExportJob({ domain: 'docs.example.com', createdAt });
    const answer = await fetch(`${platform.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
    const { bundleUrl } = (await answer.json()) as { bundleUrl: string };
    github.createRepo(REPO, { 'deploy/values.yaml': values(bundleUrl) });
    platform.profile = { ...PROFILE, site: NEXT_SITE };
    return jobId;
  }

  const env = () => ({ GITHUB_WORKSPACE: workspace(), GITHUB_API_URL: github.url, GITHUB_REPOSITORY: REPO });
  const publish = (inputs: Record<string, string>, on = platform) =>
    runInProcess(publishRun, { 'api-key': DEFAULT_API_KEY, 'api-url': on.url, domain: 'docs.example.com', 'config-path': 'deploy/values.yaml', 'github-token': TOKEN, ...inputs }, env());
  const body = () => github.pulls(REPO).at(-1)!.body;

  /** Renders and checks one screen; a person's objections fail the test, named by the screenshot. */
  async function expectReadable(name: string, markdown: string, kind: 'body' | 'summary', png?: string): Promise<void> {
    expect(markdown.trim()).not.toBe('');
    const { problems, path } = await screen.show(name, markdown, { breaks: kind === 'body', png });
    shown.push(path);
    expect({ screen: path, problems }).toEqual({ screen: path, problems: [] });
  }

  async function expectBodyAndSummary(name: string, run: ActionRun, code = 0): Promise<void> {
    expect({ code: run.code, log: run.code === code ? '' : run.log }).toEqual({ code, log: '' });
    await expectReadable(`${name}-body`, body(), 'body');
    await expectReadable(`${name}-summary`, run.summary, 'summary');
  }

  it('a new export: the body a reviewer decides on, and the summary', async () => {
    // Made three days ago with a week to live.
    platform.linkTtlSeconds = 4 * 24 * 3600;
    await deploy(SITE, Date.now() - 3 * DAY);
    platform.linkTtlSeconds = 7 * 24 * 3600;
    const run = await publish({ version: '2026-11-20' });
    expect(body()).toContain('**Pages: 1 added, 1 removed, 2 changed**');
    await expectBodyAndSummary('new-export', run);
    if (README_IMAGE) {
      mkdirSync(join(README_IMAGE, '..'), { recursive: true });
      const { path } = await screen.show('readme', body(), { breaks: true, png: README_IMAGE });
      console.log(`README image: ${path} (${Math.round(statSync(path).size / 1024)} KB)`);
    }
  });

  it('60 changed pages: the settings change and the deadline on the first screen, the pages collapsed below', async () => {
    // Production: 100 pages; the next export edits 60 of them.
    const pages = pageFiles(100);
    await deploy({ pages }, Date.now() - 5 * DAY);
    platform.profile = { ...PROFILE, pageCount: 100, site: { pages, edits: Object.fromEntries(pages.slice(20, 80).map((page) => [page, `Updated for the 2026-11 release of ${page}.`])) } };
    const run = await publish({});
    expect(run.code).toBe(0);
    const text = body();
    expect(text).toContain('**Pages: 0 added, 0 removed, 60 changed**, 40 unchanged');
    await expectReadable('sixty-changed-body', text, 'body');
    // GitHub's window shows about 800 px of the body under the pull request's header: both must be there.
    const firstScreen = 800;
    const deadline = await screen.whereIs('Merge and roll out before');
    const setting = await screen.whereIs('staticExport.bundleUrl');
    const after = await screen.whereIs('after: ');
    expect({ deadline: deadline && deadline.bottom <= firstScreen, setting: setting && setting.bottom <= firstScreen, after: after && after.bottom <= firstScreen }).toEqual({ deadline: true, setting: true, after: true });
    // The whole list reaches the reviewer on the pull request, a click away: each of the 60 pages, by path.
    const details = await screen.whereIs('Every page added, removed or changed (60)');
    expect(details!.top).toBeGreaterThan(setting!.bottom);
    for (const page of pages.slice(20, 80)) expect(text).toContain(`/${page.replace(/\.html$/, '')}\`](https://docs.example.com/`);
    console.log(`60 changed pages: the deadline ends at ${deadline!.bottom} px, the setting's after at ${after!.bottom} px, the collapsed list starts at ${details!.top} px`);
  });

  it('a renewal: the same export, a fresh link, told apart by expiry', async () => {
    // Production's link was signed five and a half days ago for a week: a day and a half left.
    const deployed = await deploy(SITE, Date.now() - 6 * DAY);
    github.createRepo(REPO, { 'deploy/values.yaml': values(presignedLink(platform, deployed, Date.now() - 5.5 * DAY, 7 * 24 * 3600)) });
    const run = await publish({ 'renew-within': '72h' });
    expect(body()).toContain('Renews the static export link');
    // Production's own link runs out within renew-within: the step fails so a person hears of it, and the summary opens with that.
    expect(run.summary).toContain('Production is about to lose its site.');
    await expectBodyAndSummary('renewal', run, 1);
  });

  it('a link shorter than link-margin: one warning, in its own paragraph', async () => {
    platform.linkTtlSeconds = 3600;
    github.createRepo(REPO, { 'deploy/values.yaml': values('') });
    const run = await publish({});
    // Once in the summary, the collapsed pull request text included; once in the body, for the reviewer.
    expect(run.summary.match(/may not outlive the review/g)).toHaveLength(1);
    expect(body().match(/may not outlive the review/g)).toHaveLength(1);
    await expectBodyAndSummary('short-link', run);
  });

  it('a URL the team hosts: the body and the summary', async () => {
    github.createRepo(REPO, { 'deploy/values.yaml': values('') });
    const exported = await runInProcess(publishRun, { 'api-key': DEFAULT_API_KEY, 'api-url': local.url, domain: 'docs.example.com', 'keep-archive': 'out/bundle.tar.gz', 'link-margin': 'off' }, env());
    expect(exported.code).toBe(0);
    const jobId = exported.outputs['job-id'];
    files.files.set(`/team-bundles/docs/${jobId}/bundle.tar.gz`, readFileSync(join(workspace(), 'out', 'bundle.tar.gz')));
    const run = await runInProcess(
      publishRun,
      { 'job-id': jobId, 'bundle-url-template': `${files.url}/team-bundles/docs/<job-id>/bundle.tar.gz`, 'archive-path': 'out/bundle.tar.gz', 'check-sha256': 'true', 'config-path': 'deploy/values.yaml', 'github-token': TOKEN },
      env()
    );
    expect(body()).toContain('hosted by your team');
    await expectBodyAndSummary('hosted', run);
  });

  it('a failed export: the summary says what happened and what to do', async () => {
    github.createRepo(REPO, { 'deploy/values.yaml': values('') });
    platform.profile = { ...PROFILE, failAt: 40, error: 'Page /guides/intro failed to render: the component Tabs is not defined' };
    const run = await publish({});
    expect(run.code).toBe(1);
    await expectReadable('failure-summary', run.summary, 'summary');
  });

  it('a feedback report: tables and the Mermaid chart drawn', async () => {
    const run = await runAction('dist/feedback/index.js', { 'api-key': DEFAULT_API_KEY, 'project-id': 'proj_docs', 'api-url': local.url, 'date-from': '2026-10-01', 'date-to': '2026-11-01' }, { GITHUB_WORKSPACE: workspace() });
    expect(run.code).toBe(0);
    expect(run.summary).toContain('```mermaid');
    await expectReadable('feedback-summary', run.summary, 'summary');
  });

  it('an agent job: the summary links its pull request', async () => {
    const id = local.seedAgentJob({ projectId: 'proj_docs', outcome: 'pr', runMs: 0, prompt: 'Document the new --dry-run flag in the CLI reference' });
    const run = await runAction('dist/agent-job/index.js', { 'api-key': DEFAULT_API_KEY, 'project-id': 'proj_docs', 'api-url': local.url, 'job-id': id }, {});
    expect(run.code).toBe(0);
    await expectReadable('agent-job-summary', run.summary, 'summary');
  });

  it('fails when a wide value is put back in a table: a full signed link in the change table', async () => {
    const older = await deploy(SITE, Date.now() - 3 * DAY);
    const run = await publish({});
    expect(run.code).toBe(0);
    const full = run.outputs['bundle-url'];
    // The real body with one table row put back as it was before the layout: both whole links side by side.
    const wide = `${body()}\n\n| setting | before | after |\n|---|---|---|\n| \`staticExport.bundleUrl\` | \`${link(older, Date.now() - 3 * DAY, 604_800)}\` | \`${full}\` |\n`;
    const { problems } = await screen.show('wide-value', wide, { breaks: true });
    console.log(`With a full signed link put back in a table, the check reports:\n${problems.join('\n')}`);
    expect(problems).toEqual([expect.stringMatching(/^table "setting before after staticExport\.bundleUrl https:\/\/static-e" is \d+ px wide in a 780 px column: it scrolls sideways and hides its right part$/)]);
  });
});

/** October: a few pages readers disliked, so the chart has bars. */
function feedback(): FeedbackEntry[] {
  const entries: FeedbackEntry[] = [];
  const pages = ['/quickstart', '/guides/authentication/service-accounts-and-rotating-keys', '/api-reference/exports/create', '/changelog', '/guides/self-hosting/helm'];
  pages.forEach((path, p) => {
    for (let i = 0; i < 12 - 2 * p; i++) {
      const createdAt = new Date(Date.UTC(2026, 9, 1 + i, 10 + p)).toISOString();
      entries.push({ path, createdAt, source: i % 3 === 0 ? 'thumbs_only' : 'contextual', status: 'pending', helpful: i % 4 === 3 });
    }
  });
  entries.push({ path: '/quickstart', createdAt: new Date(Date.UTC(2026, 9, 20)).toISOString(), source: 'code_snippet', status: 'resolved' });
  return entries;
}

// The runs a team makes against one values file, each in the state the others left (issue 22's
// bullets, each shown fixed). The platform emulator, the GitHub emulator (merges by method, "Update
// branch", refs moved only by compare-and-swap) and a static file server for a hosted URL.
//
// The real publish action runs in this process (in-process.ts), on a short beat and GitHub's second
// shrunk; the README's workflows run it through dist/index.js (readme-workflows.e2e).
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { THREE_PAGE_SITE, bundleFormats, defaultSiteFiles } from '../emulator/archive.ts';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import { BRANCH, HOUR, PATH, REPO, TOKEN, useEmulators, useTempDir } from './emulators.ts';
import { runInProcess } from './in-process.ts';
import { readSetting } from '../src/values/values-file.ts';
// A real site: the hosted step compares the kept archive's pages with production's before proposing it.
const archive = bundleFormats['tar.gz'].build(defaultSiteFiles('docs.example.com', 3));

// Production's exports and the kept archive hold the same three pages.
const { platform, github, storage: files, publish } = useEmulators({ platform: { profile: { site: THREE_PAGE_SITE } }, storage: true });
const workspace = useTempDir('workspace-');
beforeEach(() => {
  platform.linkTtlSeconds = 7 * 24 * 3600;
  github.setPolicy({ mergeMethods: ['merge', 'squash', 'rebase'] });
  mkdirSync(join(workspace(), 'out'));
  writeFileSync(join(workspace(), 'out', 'bundle.tar.gz'), archive);
});

/** A presigned link of the platform's shape that expires `hoursLeft` from now, on the emulator (its signature is refused there). */
function presigned(jobId: string, hoursLeft: number, lifetimeHours = 168): string {
  const signedAt = new Date(Date.now() + (hoursLeft - lifetimeHours) * HOUR).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${platform.url}/bundles/${jobId}/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=${signedAt}&X-Amz-Expires=${lifetimeHours * 3600}&X-Amz-Signature=${'ab'.repeat(32)}`;
}

const values = (link: string, enabled = false) => `# Docs deployment\nreplicaCount: 2\n\nstaticExport:\n  enabled: ${enabled}\n  bundleUrl: "${link}"\n`;

const run = (inputs: Record<string, string>, env: Record<string, string> = {}) =>
  runInProcess(publish, { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, 'github-token': TOKEN, 'config-path': PATH, ...inputs }, { GITHUB_REPOSITORY: REPO, GITHUB_WORKSPACE: workspace(), ...env });
const push = (jobId: string, extra: Record<string, string> = {}) => run({ 'job-id': jobId, domain: 'docs.example.com', ...extra });
const renewal = (extra: Record<string, string> = {}) => run({ 'renew-within': '72h', ...extra });
const setting = (ref: string, name: string) => readSetting(PATH, github.fileAt(REPO, ref, PATH)!, 'staticExport', name);
const openPulls = () => github.pulls(REPO).filter((pull) => pull.state === 'open');

describe('every run reconciles what is deployed, what is proposed and what was exported', () => {
  it('a renewal keeps the open pull request\'s settings and describes it against production', async () => {
    const deployedJob = platform.seedExportJob({ domain: 'docs.example.com' });
    github.createRepo(REPO, { [PATH]: values(presigned(deployedJob, 100)) });
    // Links that live an hour: the nightly renewal finds the proposed one due.
    platform.linkTtlSeconds = 3600;
    const pushed = await push(platform.seedExportJob({ domain: 'docs.example.com' }), { version: '2024-06-01' });
    expect(pushed.code).toBe(0);
    const renewed = await renewal();
    expect(renewed.code).toBe(0);
    expect(renewed.log).toContain(`Pull request #${pushed.outputs['pull-request-number']} proposes ${pushed.outputs['job-id']}, not yet merged`);
    expect(renewed.outputs['pull-request-number']).toBe(pushed.outputs['pull-request-number']);
    expect([setting(BRANCH, 'enabled'), setting(BRANCH, 'version'), setting(BRANCH, 'bundleUrl')]).toEqual([true, '2024-06-01', renewed.outputs['bundle-url']]);
    const [pull] = openPulls();
    // Merging still changes the export production serves, so the pull request says so (renew/ takes no domain to name).
    expect(pull!.title).toBe('Static export: new bundle');
    expect(pull!.body).not.toContain('No page changed');
    expect(pull!.body).toContain('| `staticExport.enabled` | before: `false`<br>after: `true` |');
  });

  it('the deployed link is guarded: a warning within link-margin, a failed step within two days, naming the pull request', async () => {
    const deployedJob = platform.seedExportJob({ domain: 'docs.example.com' });
    github.createRepo(REPO, { [PATH]: values(presigned(deployedJob, 60), true) });
    const pushed = await push(platform.seedExportJob({ domain: 'docs.example.com' }));
    // 60 hours left: inside link-margin (72h), not yet two days.
    expect(pushed.code).toBe(0);
    // No renewal is open yet: the push names none to merge, and never asks to merge its content for production's sake.
    expect(pushed.log).toMatch(/::warning::Production's link in deploy\/values\.yaml on main expires at .*, in 2d 1[12]h: .* No renewal pull request is open: the nightly renew\/ step opens one/);
    expect(pushed.log).not.toMatch(/Merge pull request/);
    expect(pushed.summary.indexOf("Production's link runs out before long")).toBeLessThan(pushed.summary.indexOf('<h2>'));
    const number = pushed.outputs['pull-request-number'];

    // The next night production has 12 hours left; the pull request's link has 7 days.
    github.commitOnBranch(REPO, 'main', { [PATH]: values(presigned(deployedJob, 12), true) }, 'Back to a short link');
    const night = await renewal();
    expect(night.code).toBe(1);
    // The content's link stays valid; production's renewal is opened beside it, and the failure names that one.
    const renewalPull = openPulls().find((pull) => pull.head.endsWith('-renewal'))!;
    expect(night.outputs).toMatchObject({ 'pull-request-number': String(renewalPull.number), 'pull-request-operation': 'created' });
    expect(night.log).toMatch(new RegExp(`::error::Production's link in deploy/values\\.yaml on main expires at .*, in 1[12]h \\d+m\\. Merge renewal pull request #${renewalPull.number} \\(`));
    expect(night.log.split('\n').filter((line) => line.startsWith('::error::'))).toEqual([expect.not.stringContaining(`#${number} `)]);
    // Both expiries, told apart.
    expect(Date.parse(night.outputs['deployed-expires-at']!) - Date.now()).toBeLessThan(13 * HOUR);
    expect(Date.parse(night.outputs['expires-at']!) - Date.now()).toBeGreaterThan(6 * 24 * HOUR);
    expect(night.summary).toMatch(/Production is about to lose its site/);
    expect(night.summary).toMatch(/keeps its own link until the pull request is merged; that link expires/);
    expect(night.summary.indexOf('Production is about to lose its site')).toBeLessThan(night.summary.indexOf('<h2>'));
  });

  it('a URL without an expiry of its own is never renewed, by a renewal without a template', async () => {
    const hosted = `${files.url}/bundles/${platform.seedExportJob({ domain: 'docs.example.com' })}/bundle.tar.gz`;
    github.createRepo(REPO, { [PATH]: values(hosted, true) });
    platform.requests.length = 0;
    const night = await renewal();
    expect(night.code).toBe(0);
    expect(night.outputs).toMatchObject({ skipped: 'true', 'expires-at': 'never', 'deployed-expires-at': 'never' });
    expect(night.log).toContain('a URL without an expiry of its own: it is never renewed');
    expect(platform.requests).toEqual([]);
    expect(files.requests.filter((request) => request.method === 'GET')).toEqual([]);
    expect(openPulls()).toEqual([]);
    expect(github.fileAt(REPO, 'main', PATH)).toBe(values(hosted, true));
  });

  // host/ always proposes the template (issue 41): without the archive it would check the URL against, it stops at once.
  it('host/ without archive-path asks for it, before the storage, GitHub or the platform is asked', async () => {
    github.createRepo(REPO, { [PATH]: values(presigned(platform.seedExportJob({ domain: 'docs.example.com' }), 10), true) });
    platform.requests.length = 0;
    files.requests.length = 0;
    github.requests.length = 0;
    const hosted = await run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }), 'bundle-url-template': `${files.url}/bundles/<job-id>/bundle.tar.gz` });
    expect(hosted.code).toBe(1);
    expect(hosted.log).toContain("::error::Input 'archive-path': is required: give the archive-path output of the step that kept the archive (keep-archive)");
    expect([platform.requests, files.requests, github.requests]).toEqual([[], [], []]);
  });

  it('the push workflow and the hosted-URL step land on one pull request', async () => {
    github.createRepo(REPO, { [PATH]: values(presigned(platform.seedExportJob({ domain: 'docs.example.com' }), 150)) });
    const jobId = platform.seedExportJob({ domain: 'docs.example.com' });
    const pushed = await push(jobId);
    files.files.set(`/bundles/${jobId}/bundle.tar.gz`, archive);
    // The hosted step as the README writes it: no domain.
    const hosted = await run({ 'job-id': jobId, 'bundle-url-template': `${files.url}/bundles/<job-id>/bundle.tar.gz`, 'archive-path': 'out/bundle.tar.gz' });
    expect([pushed.code, hosted.code]).toEqual([0, 0]);
    expect(hosted.outputs['pull-request-number']).toBe(pushed.outputs['pull-request-number']);
    expect(openPulls().map((pull) => pull.head)).toEqual([BRANCH]);
    expect(setting(BRANCH, 'bundleUrl')).toBe(`${files.url}/bundles/${jobId}/bundle.tar.gz`);
    expect(openPulls()[0]!.title).toBe('Static export: host the bundle');
  });

  it('"Update branch" and a reviewer\'s commit never stall a run, and a rebase-only repository can merge the result', async () => {
    github.setPolicy({ mergeMethods: ['rebase'] });
    github.createRepo(REPO, { [PATH]: values(presigned(platform.seedExportJob({ domain: 'docs.example.com' }), 150)), 'README.md': '# deploy\n' });
    const first = await push(platform.seedExportJob({ domain: 'docs.example.com' }));
    const number = Number(first.outputs['pull-request-number']);
    github.commitOnBranch(REPO, BRANCH, { [PATH]: `${github.fileAt(REPO, BRANCH, PATH)}# reviewed: keep two replicas\n` }, 'Review note');
    github.commitOnBranch(REPO, 'main', { 'README.md': '# deploy\n\nOwned by the docs team.\n' }, 'Another pull request merged');
    github.updateBranch(REPO, number);

    const next = await push(platform.seedExportJob({ domain: 'docs.example.com' }));
    expect(next.code).toBe(0);
    expect(next.outputs['pull-request-number']).toBe(String(number));
    const text = github.fileAt(REPO, BRANCH, PATH)!;
    expect(text).toContain('# reviewed: keep two replicas\n');
    expect(setting(BRANCH, 'bundleUrl')).toBe(next.outputs['bundle-url']);
    // The branch holds no merge commit any more: the three methods would leave the same files.
    const [merge, squash, rebase] = (['merge', 'squash', 'rebase'] as const).map((method) => JSON.stringify(github.previewMerge(REPO, number, method)));
    expect([squash, rebase]).toEqual([merge, merge]);
    const merged = github.mergePull(REPO, number, 'rebase');
    expect(github.commit(REPO, merged)!.files).toMatchObject({ [PATH]: text, 'README.md': '# deploy\n\nOwned by the docs team.\n' });
  });

  it('a person who changes the static export settings on the branch is left alone, and told so', async () => {
    github.createRepo(REPO, { [PATH]: values(presigned(platform.seedExportJob({ domain: 'docs.example.com' }), 150)) });
    const first = await push(platform.seedExportJob({ domain: 'docs.example.com' }));
    const mine = github.fileAt(REPO, BRANCH, PATH)!.replace('enabled: true', 'enabled: false');
    const theirs = github.commitOnBranch(REPO, BRANCH, { [PATH]: mine }, 'Not yet: keep it off');
    const next = await push(platform.seedExportJob({ domain: 'docs.example.com' }));
    expect(next.code).toBe(0);
    expect(next.log).toContain(`::notice::A commit of a person (${theirs.slice(0, 7)} "Not yet: keep it off") changed the static export settings on ${BRANCH} (pull request #${first.outputs['pull-request-number']}); this run leaves them as they are.`);
    expect(next.outputs['pull-request-number']).toBe(first.outputs['pull-request-number']);
    expect(github.branchHead(REPO, BRANCH)).toBe(theirs);
  });

  it('a signed bundle-url-template is masked everywhere and expires like the platform\'s links', async () => {
    github.createRepo(REPO, { [PATH]: values(presigned(platform.seedExportJob({ domain: 'docs.example.com' }), 150)) });
    const jobId = platform.seedExportJob({ domain: 'docs.example.com' });
    files.files.set(`/sas/${jobId}/bundle.tar.gz`, archive);
    const expires = new Date(Date.now() + 5 * 24 * HOUR).toISOString().replace(/\.\d+Z$/, 'Z');
    const signature = 'Zm9vYmFyc2VjcmV0c2lnbmF0dXJl';
    const hosted = await run({ 'job-id': jobId, 'bundle-url-template': `${files.url}/sas/<job-id>/bundle.tar.gz?sv=2024-11-04&se=${encodeURIComponent(expires)}&sr=b&sp=r&sig=${signature}`, 'archive-path': 'out/bundle.tar.gz' });
    expect(hosted.code).toBe(0);
    expect(hosted.outputs['expires-at']).toBe(new Date(expires).toISOString());
    expect(hosted.log).not.toContain(signature);
    expect(hosted.summary).not.toContain(signature);
    const [pull] = openPulls();
    expect(pull!.body).not.toContain(signature);
    expect(pull!.body).toContain(`| URL expires | ${expires.slice(0, 10)} ${expires.slice(11, 16)} UTC |`);
    // The file holds the whole URL: the pods need the signature.
    expect(setting(BRANCH, 'bundleUrl')).toContain(`sig=${signature}`);
  });
});

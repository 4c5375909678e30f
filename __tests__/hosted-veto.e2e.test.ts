// The real publish action in this process (in-process.ts): a person's veto stands when the export comes back by its hosted
// URL. The pull request that proposed an export's platform link (a loss of pages a person accepted with
// max-page-loss: 100%) was closed without merging; the step that starts hosting that export's kept
// archive (bundle-url-template) proposes nothing and says why, before checking the URL, instead of
// judging the same export again and failing on the loss the person had accepted.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SiteSpec, bundleFormats, pageFiles, siteFiles } from '../emulator/archive.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { finishedExport } from './finished-export.ts';
import { type StaticFileServer, startStaticFileServer } from '../emulator/static-files.ts';
import { loadPublish, type PublishRun, QUICK_POLLS, runInProcess } from './in-process.ts';

const REPO = 'acme/deploy';
const PATH = 'deploy/values.yaml';
const DOMAIN = 'docs.example.com';

let platform: PlatformEmulator;
let github: GitHubEmulator;
let files: StaticFileServer;
let temp: string;
let publish: PublishRun;

beforeAll(async () => {
  platform = await startPlatformEmulator({ profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: 7 * 24 * 3600 });
  github = await startGitHubEmulator();
  files = await startStaticFileServer();
  publish = await loadPublish(github.url);
  temp = mkdtempSync(join(tmpdir(), 'hosted-veto-'));
});
afterAll(async () => {
  await platform.close();
  await github.close();
  await files.close();
  rmSync(temp, { recursive: true, force: true });
});

/** Production's site, and the one that loses all pages but the home page. */
const FULL: SiteSpec = { pages: pageFiles(4) };
const SHRUNK: SiteSpec = { pages: pageFiles(1) };

/** An export the platform has finished, of `site`; its fresh link. */
const exported = (site: SiteSpec) => finishedExport(platform, DOMAIN, site);

const run = (inputs: Record<string, string>) =>
  runInProcess(
    publish,
    { ...QUICK_POLLS, 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, 'github-token': 'ghs_emulator_token', 'config-path': PATH, domain: DOMAIN, ...inputs },
    { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: REPO, GITHUB_WORKSPACE: temp, RUNNER_TEMP: temp }
  );

describe('a veto stands by whichever URL the export comes back', () => {
  it('the hosted URL of an export whose pull request was closed without merging is not proposed: the run says so and opens nothing', async () => {
    github.createRepo(REPO, { [PATH]: `staticExport:\n  enabled: true\n  bundleUrl: "${(await exported(FULL)).link}"\n` });
    const turnedDown = (await exported(SHRUNK)).jobId;
    const first = await run({ 'job-id': turnedDown, 'max-page-loss': '100%' });
    expect(first.outputs['pull-request-operation']).toBe('created');
    const closed = Number(first.outputs['pull-request-number']);
    github.closePull(REPO, closed);

    // The team starts hosting: the kept archive of that same export is uploaded and proposed by its URL.
    const archive = bundleFormats['tar.gz'].build(siteFiles(DOMAIN, SHRUNK));
    writeFileSync(join(temp, 'bundle.tar.gz'), archive);
    files.files.set(`/bundles/${turnedDown}/bundle.tar.gz`, archive);
    const hosted = await run({ 'job-id': turnedDown, 'bundle-url-template': `${files.url}/bundles/<job-id>/bundle.tar.gz`, 'archive-path': 'bundle.tar.gz' });
    expect(hosted.code).toBe(0);
    expect(hosted.log).toContain(`::notice::Export ${turnedDown} was proposed in pull request #${closed}`);
    expect(hosted.outputs['pull-request-operation']).toBe('none');
    expect(github.pulls(REPO).filter((pull) => pull.state === 'open')).toEqual([]);
    // Decided from the facts alone: the hosted URL was not even fetched.
    expect(files.requests).toEqual([]);
  });
});

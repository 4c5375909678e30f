// The real publish action in this process (in-process.ts): a person's veto stands when the export comes back by its hosted
// URL. The pull request that proposed an export's platform link (a loss of pages a person accepted with
// max-page-loss: 100%) was closed without merging; the step that starts hosting that export's kept
// archive (bundle-url-template) proposes nothing and says why, before checking the URL, instead of
// judging the same export again and failing on the loss the person had accepted.
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type SiteSpec, bundleFormats, pageFiles, siteFiles } from '../emulator/archive.ts';
import { DOMAIN, PATH, REPO, useEmulators, useTempDir } from './emulators.ts';
import { finishedExport } from './finished-export.ts';
import { runInProcess } from './in-process.ts';

const { platform, github, storage: files, publish, proposing, env } = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: 7 * 24 * 3600 }, storage: true });
const temp = useTempDir('hosted-veto-', { each: false });

/** Production's site, and the one that loses all pages but the home page. */
const FULL: SiteSpec = { pages: pageFiles(4) };
const SHRUNK: SiteSpec = { pages: pageFiles(1) };

/** An export the platform has finished, of `site`; its fresh link. */
const exported = (site: SiteSpec) => finishedExport(platform, DOMAIN, site);

const run = (inputs: Record<string, string>) => runInProcess(publish, proposing(inputs), { ...env(REPO), GITHUB_WORKSPACE: temp(), RUNNER_TEMP: temp() });

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
    writeFileSync(join(temp(), 'bundle.tar.gz'), archive);
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

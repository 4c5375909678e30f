// End to end through dist/index.js, as the runner starts it with the event it names: the guard on
// production's link reaches whoever can act. A push run warns and never fails for it; a scheduled run
// that cannot renew production fails, naming the pull request; enabled: false guards nothing; a dry run
// reports; one-day links are not flagged the moment they are made. The guard's cases, one by one, are
// in production-guard.test.ts; its marks on the pull request, run after run, in production-guard-marks.e2e.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { runAction } from '../emulator/runner.ts';
import { finishedExport, presignedLink } from './finished-export.ts';
import { regionOf } from '../src/publish/body.ts';
import { firstLineOf } from '../src/publish/production-guard.ts';

const firstLineOfGuard = (body: string) => firstLineOf(regionOf(body));
import { bundleOfStep } from './in-process.ts';

const REPO = 'acme/deploy';
const PATH = 'deploy/values.yaml';
const DOMAIN = 'docs.example.com';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const LABEL = 'production-link-expiring';

let platform: PlatformEmulator;
let github: GitHubEmulator;
let temp: string;

beforeAll(async () => {
  platform = await startPlatformEmulator({ profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: 7 * 24 * 3600 });
  github = await startGitHubEmulator();
  temp = mkdtempSync(join(tmpdir(), 'production-guard-'));
});
afterAll(async () => {
  await platform.close();
  await github.close();
  rmSync(temp, { recursive: true, force: true });
});

const values = (link: string, enabled = true) => `# Helm values for the docs deployment.\nstaticExport:\n  enabled: ${enabled}\n  bundleUrl: "${link}"\n`;

/**
 * Production serves an export whose link was made to live `lifetimeMs` and has `leftMs` left (half
 * an hour past the hour, so the hours the first line shows stay the same while the test runs).
 */
async function production(leftMs: number, { lifetimeMs = 7 * DAY, enabled = true } = {}): Promise<void> {
  const { jobId } = await finishedExport(platform, DOMAIN);
  const link = presignedLink(platform, jobId, Date.now() - (lifetimeMs - leftMs), lifetimeMs / 1000);
  github.createRepo(REPO, { [PATH]: values(link, enabled) });
}

/** One step of a workflow started by `event`. */
const run = (event: string, inputs: Record<string, string>) =>
  runAction(
    bundleOfStep(inputs),
    { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, 'github-token': 'ghs_emulator_token', 'config-path': PATH, domain: DOMAIN, ...inputs },
    { GITHUB_EVENT_NAME: event, GITHUB_API_URL: github.url, GITHUB_REPOSITORY: REPO, GITHUB_WORKSPACE: temp, RUNNER_TEMP: temp }
  );
/** The README's nightly renewal. */
const NIGHTLY = { 'renew-within': '72h' };
const newExport = async () => ({ 'job-id': (await finishedExport(platform, DOMAIN)).jobId });
const openPull = () => github.pulls(REPO).find((pull) => pull.state === 'open');
const writes = () => github.requests.filter((request) => request.method !== 'GET');

describe("production's link: the warning reaches whoever can act", () => {
  it("a push run with production's link at 20 h and no renewal open: exit 0, a warning that says to run renew/, and no mark on the content", async () => {
    await production(20.5 * HOUR);
    const pushed = await run('push', await newExport());
    expect(pushed.code).toBe(0);
    const pull = openPull()!;
    // Production's life never waits on content: the warning says how to get a renewal, and leaves the content to its review.
    expect(pushed.log).toMatch(
      new RegExp(
        `::warning::Production's link in deploy/values\\.yaml on main expires at .*, in 20h 2\\dm: After that, every pod that restarts cannot fetch the site\\. No renewal pull request is open: the nightly renew/ step opens one .* pull request #${pull.number} \\(${pull.html_url}\\), which holds new content, waits for its review as it is\\. This push run only warns`
      )
    );
    expect(pushed.log).not.toContain('::error::');
    expect(pushed.log).not.toMatch(/Merge pull request/);
    expect(firstLineOfGuard(pull.body)).toBeUndefined();
    expect(pull.labels).not.toContain(LABEL);
    // The summary opens with it.
    expect(pushed.summary.indexOf('🛑 **Production is about to lose its site.**')).toBeLessThan(pushed.summary.indexOf('<h2>'));
    expect(pushed.summary).toContain('No renewal pull request is open');
  });

  it('a scheduled run at 20 h that cannot renew production fails, naming the renewal pull request', async () => {
    await production(20.5 * HOUR);
    const night = await run('schedule', NIGHTLY);
    // The renewal is proposed, but only a merge renews production: the step fails so the workflow's owner is told.
    expect(night.code).toBe(1);
    const pull = openPull()!;
    expect(pull.title).toBe('Static export: renew the bundle link');
    expect(pull.head).toBe('static-export/deploy-values.yaml-renewal');
    expect(night.log).toMatch(new RegExp(`::error::Production's link in deploy/values\\.yaml on main expires at .*, in 20h 2\\dm\\. Merge renewal pull request #${pull.number} \\(${pull.html_url}\\) and roll it out before then`));
    expect(night.outputs['pull-request-number']).toBe(String(pull.number));
    expect(regionOf(pull.body).split('\n')[0]).toContain("**Production's link expires in 20 hours**");
    expect(pull.labels).toEqual([LABEL]);
  });

  it('enabled: false on the base: production serves no bundle, so its link at 20 h guards nothing', async () => {
    await production(20.5 * HOUR, { enabled: false });
    const night = await run('schedule', NIGHTLY);
    expect(night.code).toBe(0);
    expect(night.log).not.toMatch(/::(error|warning)::Production's link/);
    const pull = openPull()!;
    expect([pull.labels, regionOf(pull.body).startsWith('Renews the static export link')]).toEqual([[], true]);
  });

  it('a dry run reports production at 20 h and never fails, writing nothing', async () => {
    await production(20.5 * HOUR);
    github.requests.length = 0;
    const dry = await run('schedule', { ...NIGHTLY, 'dry-run': 'true' });
    expect(dry.code).toBe(0);
    expect(dry.log).toMatch(/::warning::Production's link in deploy\/values\.yaml on main expires at .*\. Merge the renewal pull request this dry run would open and roll it out before then: .* A dry run reports this and does not fail\./);
    expect(writes()).toEqual([]);
    expect(openPull()).toBeUndefined();
  });

  it('one-day links: the push right after a merge (23 h left) is quiet (the scheduled run with 11 h left fails: production-guard.test)', async () => {
    await production(23.5 * HOUR, { lifetimeMs: DAY });
    const pushed = await run('push', await newExport());
    expect(pushed.code).toBe(0);
    expect(pushed.log).not.toMatch(/::(error|warning)::Production's link/);
    const pull = openPull()!;
    expect([pull.labels, regionOf(pull.body).startsWith('A new static export')]).toEqual([[], true]);
  });
});

// Every message says exactly what happened (issue 36): the real publish action runs in this process
// (in-process.ts) against the platform and GitHub emulators, and each test reads the new text where
// a user reads it: the log, the ::error:: line, the job summary, the pull request.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { fakeSha } from '../emulator/deployments.ts';
import { POLL_LIMITS } from '../src/action/platform-inputs.ts';
import type { ScheduleLimits } from '../src/wait/wait.ts';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import { overrideDns } from './dns-override.ts';
import { REPO, useEmulators, useTempDir } from './emulators.ts';
import { presignedLink } from './finished-export.ts';
import { runInProcess } from './in-process.ts';

const VALUES = (link: string) => `staticExport:\n  enabled: true\n  bundleUrl: "${link}"\n`;
const { platform, github, publish, proposing } = useEmulators({ platform: { profile: { queuedMs: 20, runMs: 100 }, deployments: { branch: 'main', deployMs: 300 } }, reset: true });
const workspace = useTempDir('messages-');
beforeEach(() => {
  // A link of an hour, as the tests below need (the emulator's default may be longer).
  platform.linkTtlSeconds = 3600;
  platform.profile = { queuedMs: 20, runMs: 100 };
  github.setPolicy({ allowActionsToCreatePullRequests: true, contentsWrite: true, pullRequestsWrite: true, protectedBranches: [] });
  github.createRepo(REPO, { 'deploy/values.yaml': VALUES('') });
});

const env = (extra: Record<string, string> = {}) => ({ GITHUB_REPOSITORY: REPO, GITHUB_WORKSPACE: workspace(), ...extra });
const run = (inputs: Record<string, string>, extraEnv: Record<string, string> = {}) => runInProcess(publish, proposing(inputs), env(extraEnv));
/** The summary's "What happened" paragraph. */
const whatHappened = (summary: string) => /<p><strong>What happened:<\/strong> (.*?)<\/p>/s.exec(summary)?.[1] ?? '';

describe('a link that may not outlive the review', () => {
  it("points to docs/hosting.md's section as a full link, at the version the runner runs", async () => {
    const result = await run({}, { GITHUB_ACTION_REPOSITORY: 'acme/static-export-action', GITHUB_ACTION_REF: 'v1' });
    expect(result.code).toBe(0);
    const link = 'https://github.com/acme/static-export-action/blob/v1/docs/hosting.md#links-that-outlive-the-review';
    expect(result.log).toMatch(new RegExp(`::warning::The platform's link expires at .*see ${link.replace(/[.?]/g, '\\$&')}\\)`));
    expect(github.pulls(REPO)[0].body).toContain(`see ${link})`);
    // Clickable in the summary too, where an HTML block links nothing by itself.
    expect(result.summary).toContain(`see <a href="${link}">${link}</a>)`);
    expect(result.log).not.toContain('in the README');
  });
});

describe('the dry run', () => {
  it('counts one setting in the singular', async () => {
    const result = await run({ 'dry-run': 'true' });
    expect(result.code).toBe(0);
    expect(result.log).toContain('Dry run: one setting would change; nothing was written.');
    expect(result.log).not.toContain('setting(s)');
  });
});

describe('a push run', () => {
  const pushEnv = (sha: string, branch: string) => ({ GITHUB_EVENT_NAME: 'push', GITHUB_SHA: sha, GITHUB_REF: `refs/heads/${branch}` });
  const push = (extra: Record<string, string>, sha: string, branch = 'main', limits?: ScheduleLimits) =>
    runInProcess(publish, { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'project-id': 'proj_123', ...extra }, env(pushEnv(sha, branch)), limits ? { knobs: { limits } } : {});

  it('that times out names the unit, and counts the wait for the deployment', async () => {
    const sha = fakeSha('timeout push');
    platform.deployments.push('main', sha);
    platform.profile = { queuedMs: 60_000, runMs: 60_000 };
    const result = await push({ timeout: '2' }, sha, 'main', { floorMs: 100, ceilingMs: 300 });
    expect(result.code).toBe(1);
    expect(result.log).toMatch(
      /::error::The export job (se_\w+) did not finish within the step's timeout of 2 s \(timeout: 2\): it was queued at 0% with 0 pages after \d s of export, after \d s waiting for the platform to publish\. The job goes on on the server: re-run with job-id: \1 to pick it up, or raise timeout \(such as 30m\)\./
    );
  });

  it('from a branch the platform does not deploy stops at the first look, before the beat', async () => {
    const sha = fakeSha('feature push');
    platform.deployments.push('feature', sha);
    const result = await push({}, sha, 'feature', { ...POLL_LIMITS });
    expect(result.code).toBe(1);
    expect(result.log).toContain('::error::This run is for a push to feature, but the platform deploys main');
    const [queued] = platform.requests.filter((r) => r.route === 'deploy');
    const looks = platform.requests.filter((r) => r.route === 'deploy-status');
    // One look, off the 10 s beat: the branch is known once the deployment started.
    expect(looks).toHaveLength(1);
    expect(looks[0].at - queued.at).toBeLessThan(10_000);
    expect(platform.requests.filter((r) => r.route === 'start')).toEqual([]);
  });
});

describe('a nightly run', () => {
  it('that finds a URL the team hosts says why it skips in the log, not only in the summary', async () => {
    github.createRepo(REPO, { 'deploy/values.yaml': VALUES('https://bundles.example.invalid/docs/se_0123456789abcdef/bundle.tar.gz') });
    const result = await run({ 'renew-within': '72h' }, { GITHUB_EVENT_NAME: 'schedule' });
    expect(result.code).toBe(0);
    expect(result.outputs.skipped).toBe('true');
    expect(result.log).toContain('main holds https://bundles.example.invalid/docs/se_0123456789abcdef/bundle.tar.gz, a URL without an expiry of its own: it is never renewed, so this run changes nothing.');
    expect(platform.requests).toEqual([]);
  });
});

describe('a token without write permission', () => {
  it('is shown the permissions block as text that renders, without literal backticks', async () => {
    github.setPolicy({ contentsWrite: false });
    const result = await run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }) });
    expect(result.code).toBe(1);
    const said = whatHappened(result.summary);
    expect(said).toContain('add permissions: { contents: write, pull-requests: write } to the workflow or job');
    expect(said).not.toContain('`');
  });
});

describe("production's link that does not serve its export", () => {
  let restoreDns: () => void;
  afterEach(() => restoreDns());

  it('is said in one plain sentence, then the reason, without nested parentheses or a double period', async () => {
    restoreDns = overrideDns({ 'old-bucket.nowhere.localhost': 'ENOTFOUND' });
    const production = platform.seedExportJob({ domain: 'docs.example.com' });
    const link = presignedLink(platform, production, Date.now(), 7 * 86_400).replace(platform.url, 'https://old-bucket.nowhere.localhost');
    github.createRepo(REPO, { 'deploy/values.yaml': VALUES(link) });
    const result = await run({});
    expect(result.code).toBe(0);
    const line = result.log.split('\n').find((text) => text.startsWith("Production's link did not serve its export"));
    expect(line).toBe(
      `Production's link did not serve its export, so the run asks the platform for a fresh link to export ${production}. ` +
        `The download of the bundle from https://old-bucket.nowhere.localhost/bundles/${production}/bundle.tar.gz?… failed: could not resolve old-bucket.nowhere.localhost (DNS, ENOTFOUND: no such name): ` +
        "check the link's host, and that this runner's DNS resolves it (a name in a private zone needs a runner inside that network)."
    );
    expect(line).not.toContain('..');
  });
});

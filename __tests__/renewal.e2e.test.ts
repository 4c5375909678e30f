// A scheduled renewal (renew/, renew-within) against the platform and GitHub emulators. It
// must skip while the link is fresh, renew without re-rendering when it is due, and fall back to a
// new export when the link's job is gone. The real action runs in this process (in-process.ts), on a
// short beat; the README's nightly workflow runs it through dist/index.js (readme-workflows.e2e).
import { describe, expect, it } from '@jest/globals';
import { presignedLink } from './finished-export.ts';
import { runInProcess } from './in-process.ts';
import { REPO, TOKEN, useEmulators } from './emulators.ts';

const HOUR = 3_600_000;
const { platform, github, publish, inputs } = useEmulators({ platform: { profile: { queuedMs: 100, runMs: 1500 } }, reset: true });

const link = (jobId: string, signedAt: number, seconds: number) => presignedLink(platform, jobId, signedAt, seconds);

const values = (bundleUrl: string) =>
  `# Helm values for the docs deployment.\nstaticExport:\n  # Chosen by the platform team; a renewal must not flip it.\n  enabled: false\n  bundleUrl: "${bundleUrl}"\n`;

const renew = (extra: Record<string, string> = {}) =>
  runInProcess(
    publish,
    {
      ...inputs({ 'renew-within': '72h', 'config-path': 'deploy/values.yaml', 'github-token': TOKEN }),
      ...extra
    },
    { GITHUB_REPOSITORY: REPO }
  );
const writes = () => github.requests.filter((r) => r.method !== 'GET');
const calls = (route: string) => platform.requests.filter((r) => r.route === route).length;

describe('renewal on a schedule', () => {
  it('skips a link far from expiry, with zero calls to the platform', async () => {
    const signedAt = Date.now() - 1.5 * HOUR;
    github.createRepo(REPO, { 'deploy/values.yaml': values(link('se_1111111111111111', signedAt, 7 * 24 * 3600)) });
    const run = await renew();
    expect(run.code).toBe(0);
    expect(run.outputs.skipped).toBe('true');
    expect(run.log).toMatch(/^The current link stays valid for 6d 22h, at least renew-within \(3d 0h\): nothing to do\.$/m);
    expect(run.outputs['expires-at']).toBe(new Date(Math.floor(signedAt / 1000) * 1000 + 7 * 24 * HOUR).toISOString());
    expect(platform.requests).toEqual([]);
    expect(writes()).toEqual([]);
    expect(run.summary).toContain('link still valid, nothing to do');
  });

  it('renews a link near expiry without a new export (one status call, one bundle call); production has enabled: false, so its expiring link fails nothing', async () => {
    const jobId = platform.seedExportJob({ domain: 'docs.example.com' });
    const signedAt = Date.now() - 23 * HOUR;
    const oldLink = link(jobId, signedAt, 24 * 3600);
    github.createRepo(REPO, { 'deploy/values.yaml': values(oldLink) });
    const run = await renew();
    // Production serves no bundle (enabled: false), so its link expiring within the hour is nothing to guard.
    expect(run.code).toBe(0);
    expect(run.log).not.toMatch(/::(error|warning)::Production's link/);
    expect(run.summary).not.toContain('Production is about to lose its site');
    expect(run.outputs['deployed-expires-at']).toBe(new Date(Math.floor(signedAt / 1000) * 1000 + 24 * HOUR).toISOString());
    // skipped is said only when true: a run that did its work sets no skipped output at all.
    expect(run.outputs.skipped).toBeUndefined();
    expect(run.log).toContain(`The current link comes from export job ${jobId}: generating a fresh link for it.`);
    expect([calls('start'), calls('status'), calls('bundle')]).toEqual([0, 1, 1]);
    // Only bundleUrl changes; `enabled: false` stays as the team set it.
    const [pull] = github.pulls(REPO);
    expect(github.fileAt(REPO, pull.head, 'deploy/values.yaml')).toBe(values(run.outputs['bundle-url']));
    // renew/ takes no domain: the title names what it does, and the file's link says whose site.
    expect(pull.title).toBe('Static export: renew the bundle link');
    expect(pull.body).toMatch(/\| Production's link expires \| \d{4}-\d\d-\d\d \d\d:\d\d UTC \|/);
    // Production serves no bundle: no deadline for pods that would fetch it, and the body says why merging changes little.
    expect(pull.body).not.toMatch(/\*\*Merge and roll out before|cannot fetch the site/);
    expect(pull.body).toContain('`staticExport.enabled` is false on the base: production serves no bundle');
    expect(pull.body).toMatch(/\| New link expires \| \d{4}-\d\d-\d\d \d\d:\d\d UTC \|/);
    expect(pull.body).not.toContain('| `staticExport.enabled` |');
    // The reviewer and the log both tell the old link from the new one, without their signatures.
    const logged = /^ {2}staticExport\.bundleUrl: (.*) → (.*)$/m.exec(run.log);
    expect(logged).not.toBeNull();
    expect(logged![1]).not.toBe(logged![2]);
    const row = pull.body.split('\n').find((line) => line.startsWith('| `staticExport.bundleUrl` |'))!;
    const [, before, after] = /before: (.*)<br>after: (.*) \|$/.exec(row)!;
    expect(before).not.toBe(after);
    expect(row).not.toMatch(/X-Amz-Signature/);
  });

  // renew/ exports nothing (issue 41): where the old nightly fell back to a new export of its domain,
  // it now stops before any write and names the action that exports.
  it('stops when the link\'s job is gone, naming the root action, and writes nothing', async () => {
    github.createRepo(REPO, { 'deploy/values.yaml': values(link('se_0000000000000000', Date.now() - 23 * HOUR, 24 * 3600)) });
    const run = await renew();
    expect(run.code).toBe(1);
    expect(run.log).toContain('::error::Export job se_0000000000000000, which the link in the values file comes from, is gone (404): no fresh link can be made for it, and renew/ exports nothing. Run the root action (an export) to propose a new bundle.');
    expect(calls('start')).toBe(0);
    expect(github.pulls(REPO)).toEqual([]);
  });

  it('stops when the file holds no link yet, naming the root action, before any platform request', async () => {
    github.createRepo(REPO, { 'deploy/values.yaml': 'replicaCount: 2\n' });
    const run = await renew();
    expect(run.code).toBe(1);
    expect(run.log).toContain("::error::Input 'config-path': The configuration holds no bundle link yet, so there is nothing to renew: renew/ exports nothing. Run the root action (an export) once to propose a first link, then renew/ keeps it fresh.");
    expect(platform.requests).toEqual([]);
  });
});

describe('renewal: bad input fails before any request', () => {
  it.each([
    [{ 'renew-within': 'three days' }, "Input 'renew-within': 'three days' is not a duration."],
    [{ 'renew-within': '0s' }, "Input 'renew-within': '0s' is zero"],
    [{ 'config-path': '' }, "Input 'config-path': is required: renew/ proposes a change to the deployment's values file. Give its path, for example deploy/values.yaml."],
    [{ 'api-key': '' }, "Input 'api-key': is empty."]
  ])('%j', async (extra, message) => {
    github.createRepo(REPO, { 'deploy/values.yaml': 'replicaCount: 2\n' });
    github.requests.length = 0;
    const run = await renew(extra);
    expect(run.code).toBe(1);
    expect(run.log).toContain(`::error::${message}`);
    expect(run.log.split('\n').filter((line) => line.startsWith('::error::'))).toHaveLength(1);
    expect(platform.requests).toEqual([]);
    expect(github.requests).toEqual([]);
  });
});

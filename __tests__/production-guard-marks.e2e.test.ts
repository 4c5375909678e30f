// The guard's marks on the pull request production waits on, run after run: its first line and the
// production-link-expiring label are written once and left alone while nothing changes, come off once
// production's link is safe again, and a pull request GitHub cannot merge is never told "merge".
// The real publish action runs in this process (in-process.ts), as nightly runs would run it.
import { describe, expect, it } from '@jest/globals';
import { finishedExport, presignedLink } from './finished-export.ts';
import { runInProcess } from './in-process.ts';
import { regionOf } from '../src/publish/body.ts';
import { BRANCH, DOMAIN, PATH, REPO, TOKEN, WEEK_S as WEEK_SECONDS, useEmulators } from './emulators.ts';

/** Production's renewal lives on a branch of its own. */
const RENEWAL_BRANCH = `${BRANCH}-renewal`;
const HOUR = 3_600_000;
const LABEL = 'production-link-expiring';

const { platform, github, publish, inputs } = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: WEEK_SECONDS }, reset: true });

const values = (link: string, comment = 'Helm values for the docs deployment.') => `# ${comment}\nstaticExport:\n  enabled: true\n  bundleUrl: "${link}"\n`;
/** A week-long link to `jobId`'s bundle with `leftMs` left. */
const weekLink = (jobId: string, leftMs: number) => presignedLink(platform, jobId, Date.now() - (WEEK_SECONDS * 1000 - leftMs), WEEK_SECONDS);

/** The README's nightly renewal, as a scheduled run. */
const nightly = (extra: Record<string, string> = {}) =>
  runInProcess(
    publish,
    inputs({ 'github-token': TOKEN, 'config-path': PATH, 'renew-within': '72h', ...extra }),
    { GITHUB_EVENT_NAME: 'schedule', GITHUB_REPOSITORY: REPO }
  );
const openPull = () => github.pulls(REPO).find((pull) => pull.state === 'open')!;
const writes = () => github.requests.filter((request) => request.method !== 'GET').map((request) => `${request.method} ${request.path.replace(/^\/repos\/acme\/deploy/, '')}`);

describe("the guard's marks on the pull request", () => {
  it('are written once, left alone by a run that changes nothing, and taken off once production is safe', async () => {
    const { jobId } = await finishedExport(platform, DOMAIN);
    github.createRepo(REPO, { [PATH]: values(weekLink(jobId, 20.5 * HOUR)) });
    const first = await nightly();
    expect(first.code).toBe(1);
    expect(regionOf(openPull().body)).toMatch(/^🛑 \*\*Production's link expires in 20 hours\*\*/);
    expect(openPull().labels).toEqual([LABEL]);

    // The next run within the hour: the same first line, the label already there. Nothing to write.
    github.requests.length = 0;
    const again = await nightly();
    expect(again.code).toBe(1);
    expect(writes()).toEqual([]);

    // Production gets a fresh link (a person rolled one out): the marks come off, the rest of the body stays.
    const body = openPull().body;
    github.commitOnBranch(REPO, 'main', { [PATH]: values(weekLink(jobId, 6 * 24 * HOUR)) }, 'Roll out a fresh link by hand');
    github.requests.length = 0;
    const safe = await nightly();
    expect(safe.code).toBe(0);
    expect(safe.log).not.toMatch(/::(error|warning)::Production's link/);
    expect(writes()).toContain(`DELETE /issues/${openPull().number}/labels/${LABEL}`);
    expect(openPull().labels).toEqual([]);
    const region = regionOf(body);
    expect(regionOf(openPull().body)).toBe(region.slice(region.indexOf('\n\n') + 2));
  });

  it('a pull request that conflicts with the base is never told "merge": the run and its first line say to resolve the conflict', async () => {
    const { jobId } = await finishedExport(platform, DOMAIN);
    github.createRepo(REPO, { [PATH]: values(weekLink(jobId, 20.5 * HOUR)) });
    expect((await nightly()).code).toBe(1);
    // A person's line on the branch and another on the base, the same line: GitHub cannot merge it.
    const proposed = github.fileAt(REPO, RENEWAL_BRANCH, PATH)!;
    github.commitOnBranch(REPO, RENEWAL_BRANCH, { [PATH]: proposed.replace('Helm values for the docs deployment.', 'Values of the docs (reviewed by the platform team).') }, 'Say who reviews this');
    github.commitOnBranch(REPO, 'main', { [PATH]: github.fileAt(REPO, 'main', PATH)!.replace('Helm values for the docs deployment.', 'Values of the docs deployment, production.') }, 'Name production');
    const night = await nightly();
    expect(night.code).toBe(1);
    const pull = openPull();
    expect(night.log).toContain(`::error::Production's link in deploy/values.yaml on main expires at`);
    expect(night.log).toContain(`Renewal pull request #${pull.number} (${pull.html_url}) cannot be merged as it is: it conflicts with main. Resolve the conflict on its branch`);
    expect(night.log).not.toMatch(/::error::.*Merge pull request/);
    expect(regionOf(pull.body).split('\n')[0]).toContain('this pull request cannot be merged as it is (it conflicts with main): resolve the conflict, then merge it and roll it out.');
  });

  // renew-within is the guard's one time input now (fail-when-production-expires is gone: the nightly fails, a push warns).
  it('a renew-within that is not a duration fails before any request', async () => {
    platform.requests.length = 0;
    github.requests.length = 0;
    const night = await nightly({ 'renew-within': 'sometimes' });
    expect(night.code).toBe(1);
    expect(night.log).toContain("::error::Input 'renew-within': 'sometimes' is not a duration.");
    expect([github.requests, platform.requests]).toEqual([[], []]);
  });
});

// Production's renewal as teams configure GitHub (issue 42): a pull request of its own that follows
// production (closed with why once it no longer renews what production serves), opened beside any
// content pull request, named by the guard instead of content, and merged as soon as its required
// checks pass through GitHub's auto-merge, or held with the exact reason. The GitHub behaviours these
// stand on are in emulator/recorded/github.json, each with its public source. Three runs go through
// the built bundles (dist/renew/index.js), as the nightly runs it; the rest runs run() in this process.
import { describe, expect, it } from '@jest/globals';
import { type ActionRun, runAction } from '../emulator/runner.ts';
import { jobIdFromLink, linkExpiry } from '../src/values/link.ts';
import { readSetting } from '../src/values/values-file.ts';
import { regionOf } from '../src/publish/body.ts';
import { finishedExport, presignedLink } from './finished-export.ts';
import { runInProcess } from './in-process.ts';
import { BRANCH, DOMAIN, PATH, TOKEN, errors, helmValues as values, productionRepo, useEmulators } from './emulators.ts';

const RENEWAL_BRANCH = `${BRANCH}-renewal`;
/** A GitHub App's installation token (actions/create-github-app-token), beside the workflow's GITHUB_TOKEN. */
const APP = 'ghs_app_installation';
const { platform, github, publish, inputs } = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: 7 * 24 * 3600 }, github: { tokens: { [APP]: { kind: 'installation', write: true } } } });

/** A repository of its own whose base serves an export by a week-long link with `leftHours` to live. */
const production = (leftHours: number) => productionRepo({ platform, github }, 'renewal-life', { leftHours });

const nightly = (extra: Record<string, string> = {}) => {
  const { domain: _domain, ...platformInputs } = inputs();
  return { ...platformInputs, 'renew-within': '72h', 'config-path': PATH, 'github-token': TOKEN, 'auto-merge': 'renewals', ...extra };
};
const nightlyThroughDist = (repo: string, extra: Record<string, string> = {}) =>
  runAction('dist/renew/index.js', nightly(extra), { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: repo, GITHUB_EVENT_NAME: 'schedule' });
const nightlyInProcess = (repo: string, extra: Record<string, string> = {}) => runInProcess(publish, nightly(extra), { GITHUB_REPOSITORY: repo, GITHUB_EVENT_NAME: 'schedule' });

/** The push workflow's step: new content, the pull request a person reviews. */
async function proposeContent(repo: string): Promise<{ number: number; jobId: string }> {
  const { jobId } = await finishedExport(platform, DOMAIN);
  const run = await runInProcess(publish, inputs({ 'job-id': jobId, 'config-path': PATH, 'github-token': TOKEN }), { GITHUB_REPOSITORY: repo, GITHUB_EVENT_NAME: 'push' });
  expect(errors(run)).toEqual([]);
  return { number: Number(run.outputs['pull-request-number']), jobId };
}

const linkOn = (repo: string, ref: string) => readSetting(PATH, github.fileAt(repo, ref, PATH)!, 'staticExport', 'bundleUrl') as string;
const warnings = (run: ActionRun) => run.log.split('\n').filter((line) => line.startsWith('::warning::'));
const renewalOf = (repo: string) => github.pulls(repo).find((pull) => pull.head === RENEWAL_BRANCH);

describe("production's renewal, through dist/", () => {
  it('closes a stale renewal once content is merged, with a line that says why, and proposes no older export', async () => {
    // A required review and no bypass: the renewal cannot merge itself and waits beside the content.
    const { repo, jobId } = await production(60);
    github.protectBranch(repo, 'main', { requiredApprovingReviews: 1 });
    const content = await proposeContent(repo);
    const first = await nightlyThroughDist(repo);
    expect(first.code).toBe(0);
    const renewal = renewalOf(repo)!;
    expect(renewal).toMatchObject({ state: 'open', merged: false });
    expect(jobIdFromLink(linkOn(repo, RENEWAL_BRANCH))).toBe(jobId);
    // A person merges the content: production now serves a newer export, and the renewal would take it back.
    github.mergePull(repo, content.number, 'merge');
    const second = await nightlyThroughDist(repo);
    expect(errors(second)).toEqual([]);
    const closed = github.pull(repo, renewal.number)!;
    expect(closed).toMatchObject({ state: 'closed', merged: false });
    const why = `deploy/values.yaml on main now holds export ${content.jobId}, not export ${jobId}, which this pull request renews: merging it would take production back to older content.`;
    expect(regionOf(closed.body).split('\n')[0]).toBe(`**Closed by the static export action:** ${why} Production keeps the link on its base; the nightly opens a new renewal when that one is due.`);
    expect(second.log).toContain(`Closed renewal pull request #${renewal.number} (${renewal.html_url}): ${why}`);
    // The job summary says it too, the pull request a link to click.
    expect(second.summary).toContain(`<h3>Production's renewal</h3>`);
    expect(second.summary).toContain(`Closed renewal <a href="${renewal.html_url}">pull request #${renewal.number}</a>: deploy/values.yaml on main now holds export ${content.jobId}`);
    // Production's new link is fresh: nothing is proposed in the closed one's place, and no open pull request names an older export.
    expect(github.pulls(repo).filter((pull) => pull.state === 'open')).toEqual([]);
    expect(jobIdFromLink(linkOn(repo, 'main'))).toBe(content.jobId);
  }, 60_000);

  it("merges the renewal when its required check passes after the run ended (GitHub's auto-merge, armed on the head it wrote)", async () => {
    const { repo, jobId, link } = await production(60);
    github.protectBranch(repo, 'main', { requiredStatusChecks: ['ci'] });
    github.setAllowAutoMerge(repo, true);
    const run = await nightlyThroughDist(repo, { 'github-token': APP });
    expect(errors(run)).toEqual([]);
    const renewal = renewalOf(repo)!;
    const head = github.branchHead(repo, RENEWAL_BRANCH)!;
    expect(run.log).toContain(`Renewal pull request #${renewal.number} (${renewal.html_url}) waits for its required checks (GitHub answered "Required status check "ci" is expected."); GitHub's auto-merge is armed on it at ${head.slice(0, 7)}, so it merges the moment they pass.`);
    // Nothing merged during the run: the roll-out step of this run has nothing to roll out.
    expect(run.outputs.merged).toBe('false');
    expect(linkOn(repo, 'main')).toBe(link);
    // The App's pull request started its check at once; it passes after the run, and GitHub merges the renewal then.
    expect(github.checkRuns(repo)).toEqual([expect.objectContaining({ sha: head, context: 'ci', status: 'queued' })]);
    expect(github.completeChecks(repo, { pull: renewal.number })).toBe(1);
    expect(github.pull(repo, renewal.number)).toMatchObject({ state: 'closed', merged: true, mergedBy: APP });
    expect(jobIdFromLink(linkOn(repo, 'main'))).toBe(jobId);
    expect(linkExpiry(linkOn(repo, 'main'))!.getTime()).toBeGreaterThan(linkExpiry(link)!.getTime());
  }, 60_000);

  it('says when the checks wait for approval because GITHUB_TOKEN opened the renewal, names the renewal in the failing scheduled run, and gives the App token path', async () => {
    // 40 hours left: inside the guard's two days, so the scheduled run fails for it.
    const { repo, link } = await production(40);
    github.protectBranch(repo, 'main', { requiredStatusChecks: ['ci'] });
    github.setAllowAutoMerge(repo, true);
    const content = await proposeContent(repo);
    const run = await nightlyThroughDist(repo);
    expect(run.code).toBe(1);
    const renewal = renewalOf(repo)!;
    expect(github.checkRuns(repo).filter((check) => check.pull === renewal.number)).toEqual([expect.objectContaining({ status: 'waiting', conclusion: 'action_required' })]);
    const [error] = errors(run);
    expect(error).toContain(`Merge renewal pull request #${renewal.number} (${renewal.html_url}) and roll it out before then`);
    expect(error).toContain('It cannot merge itself: its required checks wait for a person to approve them: GitHub holds the workflows of a pull request opened with GITHUB_TOKEN.');
    // Content is never what production's life waits on.
    expect(error).not.toContain(`#${content.number}`);
    const held = warnings(run).find((line) => line.includes('will not run by themselves'))!;
    expect(held).toContain('give this step a GitHub App token (actions/create-github-app-token) as github-token');
    // The marks are on the renewal, not on the content.
    expect(github.pull(repo, renewal.number)!.labels).toContain('production-link-expiring');
    expect(regionOf(github.pull(repo, renewal.number)!.body)).toMatch(/^🛑 \*\*Production's link expires in 39 hours\*\*/);
    expect(github.pull(repo, content.number)!.labels).not.toContain('production-link-expiring');
    expect(linkOn(repo, 'main')).toBe(link);
  }, 60_000);
});

describe("production's renewal, in-process", () => {
  it('opens the renewal beside a content pull request without auto-merge, keeps it current, and the guard never asks to merge content', async () => {
    const { repo, jobId } = await production(40);
    const content = await proposeContent(repo);
    const run = await nightlyInProcess(repo, { 'auto-merge': 'off' });
    expect(run.code).toBe(1);
    const renewal = renewalOf(repo)!;
    expect(renewal).toMatchObject({ state: 'open', base: 'main' });
    expect(jobIdFromLink(linkOn(repo, RENEWAL_BRANCH))).toBe(jobId);
    expect(errors(run)).toEqual([expect.stringContaining(`Merge renewal pull request #${renewal.number}`)]);
    expect(errors(run)[0]).not.toContain(`#${content.number} `);
    // The next night, with nothing changed, it is left as it is (one pull request, the same head).
    const head = github.branchHead(repo, RENEWAL_BRANCH);
    await nightlyInProcess(repo, { 'auto-merge': 'off' });
    expect(github.branchHead(repo, RENEWAL_BRANCH)).toBe(head);
    expect(github.pulls(repo).filter((pull) => pull.head === RENEWAL_BRANCH)).toHaveLength(1);
    // The base moves under it (a person's edit away from the block): the renewal is rebuilt on it, still one click.
    github.commitOnBranch(repo, 'main', { [PATH]: github.fileAt(repo, 'main', PATH)!.replace('replicaCount: 2', 'replicaCount: 3') }, 'Scale up');
    await nightlyInProcess(repo, { 'auto-merge': 'off' });
    expect(github.fileAt(repo, RENEWAL_BRANCH, PATH)).toContain('replicaCount: 3');
    expect(github.previewMerge(repo, renewal.number, 'merge')).toEqual(expect.objectContaining({ [PATH]: github.fileAt(repo, RENEWAL_BRANCH, PATH) }));
  });

  it('keeps the renewal on its own branch: a push proposes content beside it and never turns it into content', async () => {
    const { repo, jobId } = await production(60);
    const first = await nightlyInProcess(repo, { 'auto-merge': 'off' });
    expect(first.outputs['pull-request-operation']).toBe('created');
    const renewal = renewalOf(repo)!;
    const head = github.branchHead(repo, RENEWAL_BRANCH);
    const content = await proposeContent(repo);
    expect(content.number).not.toBe(renewal.number);
    expect(github.branchHead(repo, RENEWAL_BRANCH)).toBe(head);
    expect(jobIdFromLink(linkOn(repo, RENEWAL_BRANCH))).toBe(jobId);
    expect(jobIdFromLink(linkOn(repo, BRANCH))).toBe(content.jobId);
  });

  it('closes a renewal whose export the base changed by hand, and one a newer renewal made needless', async () => {
    const { repo } = await production(60);
    await nightlyInProcess(repo, { 'auto-merge': 'off' });
    const renewal = renewalOf(repo)!;
    // A person points production at another export by hand.
    const { jobId: other } = await finishedExport(platform, DOMAIN);
    const handLink = presignedLink(platform, other, Date.now(), 168 * 3600);
    github.commitOnBranch(repo, 'main', { [PATH]: values(handLink) }, 'Point production at another export');
    const run = await nightlyInProcess(repo, { 'auto-merge': 'off' });
    expect(run.code).toBe(0);
    expect(github.pull(repo, renewal.number)).toMatchObject({ state: 'closed', merged: false });
    expect(regionOf(github.pull(repo, renewal.number)!.body)).toContain(`now holds export ${other}, not export`);

    // A renewal merged by a person leaves an older one needless: production's link already lives longer.
    const second = await production(60);
    await nightlyInProcess(second.repo, { 'auto-merge': 'off' });
    const older = renewalOf(second.repo)!;
    const longer = presignedLink(platform, second.jobId, Date.now(), 168 * 3600);
    github.commitOnBranch(second.repo, 'main', { [PATH]: values(longer) }, 'Renew by hand');
    await nightlyInProcess(second.repo, { 'auto-merge': 'off' });
    expect(github.pull(second.repo, older.number)).toMatchObject({ state: 'closed', merged: false });
    expect(regionOf(github.pull(second.repo, older.number)!.body)).toMatch(/^\*\*Closed by the static export action:\*\* main already holds a link for export .+ no sooner than this pull request's .+: a newer renewal was merged\./);

    // The team now hosts production's export at a URL that never expires: a renewal would take it back to one that does.
    const third = await production(60);
    await nightlyInProcess(third.repo, { 'auto-merge': 'off' });
    const beforeHosting = renewalOf(third.repo)!;
    github.commitOnBranch(third.repo, 'main', { [PATH]: values(`https://docs-bundles.example.invalid/${third.jobId}/bundle.tar.gz`) }, 'Serve the kept archive');
    await nightlyInProcess(third.repo, { 'auto-merge': 'off' });
    expect(github.pull(third.repo, beforeHosting.number)).toMatchObject({ state: 'closed', merged: false });
    expect(regionOf(github.pull(third.repo, beforeHosting.number)!.body)).toContain(`main serves export ${third.jobId} from a URL without an expiry of its own`);
  });

  it('queues the renewal where the base requires a merge queue, and says so when no workflow runs on merge_group', async () => {
    // No workflow of the configuration repository runs on merge_group: the queue never reports, and the step says so.
    const { repo } = await production(60);
    github.protectBranch(repo, 'main', { requiredStatusChecks: ['ci'], mergeQueue: { mergeGroupCi: false } });
    github.setAllowAutoMerge(repo, true);
    const run = await nightlyInProcess(repo, { 'github-token': APP });
    expect(errors(run)).toEqual([]);
    const renewal = renewalOf(repo)!;
    const queue = warnings(run).find((line) => line.includes("main's merge queue"))!;
    expect(queue).toContain(`Renewal pull request #${renewal.number} (${renewal.html_url}) is in main's merge queue (GitHub's auto-merge is armed on it at`);
    expect(queue).toContain("but no workflow in .github/workflows on main is triggered by merge_group: the queue's required checks never report, and it never merges.");
    // The guard's warning (60 hours left) names the renewal and why it cannot merge itself.
    expect(warnings(run)).toContainEqual(expect.stringContaining(`Merge renewal pull request #${renewal.number}`));
    expect(regionOf(github.pull(repo, renewal.number)!.body)).toContain('no workflow in .github/workflows runs on merge_group');
    // Where CI runs on merge_group, the queue merges it once the group's checks pass.
    const other = await production(60);
    github.commitOnBranch(other.repo, 'main', { '.github/workflows/ci.yml': 'on:\n  pull_request:\n  merge_group:\njobs: {}\n' }, 'CI on the merge queue');
    github.protectBranch(other.repo, 'main', { requiredStatusChecks: ['ci'], mergeQueue: { mergeGroupCi: true } });
    github.setAllowAutoMerge(other.repo, true);
    const queued = await nightlyInProcess(other.repo, { 'github-token': APP });
    expect(warnings(queued).filter((line) => line.includes("main's merge queue"))).toEqual([]);
    const second = renewalOf(other.repo)!;
    expect(queued.log).toContain(`Renewal pull request #${second.number} (${second.html_url}) is in main's merge queue`);
    github.completeChecks(other.repo, { pull: second.number });
    github.completeChecks(other.repo, { event: 'merge_group' });
    expect(github.pull(other.repo, second.number)).toMatchObject({ merged: true });
  });

  it('merges directly when nothing is pending: a required check that already passed on the head', async () => {
    const { repo } = await production(60);
    github.protectBranch(repo, 'main', { requiredStatusChecks: ['ci'] });
    github.setAllowAutoMerge(repo, true);
    // The first night opens it with auto-merge off; its check passes; the next night merges it at once.
    await nightlyInProcess(repo, { 'github-token': APP, 'auto-merge': 'off' });
    const renewal = renewalOf(repo)!;
    github.completeChecks(repo, { pull: renewal.number });
    const run = await nightlyInProcess(repo, { 'github-token': APP });
    expect(run.outputs.merged).toBe('true');
    expect(run.outputs['merged-pull-request-number']).toBe(String(renewal.number));
    expect(github.pull(repo, renewal.number)).toMatchObject({ merged: true, mergedBy: APP });
  });
});

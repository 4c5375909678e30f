// Renewals that merge themselves (auto-merge: renewals), against the platform and GitHub emulators.
// Three runs go through the built bundle (dist/index.js), as the nightly workflow runs it: a renewal
// merged by the action; a renewal while a content pull request waits for review (production renewed
// on a branch of its own, the content pull request rebuilt and still mergeable); a renewal that branch
// protection refuses (left open, marked urgent, the rule named). The rest runs the real run() in this
// process (in-process.ts).
import { describe, expect, it } from '@jest/globals';
import { type ActionRun, runAction } from '../emulator/runner.ts';
import { jobIdFromLink, linkExpiry } from '../src/values/link.ts';
import { readSetting } from '../src/values/values-file.ts';
import { finishedExport } from './finished-export.ts';
import { runInProcess } from './in-process.ts';
import { regionOf } from '../src/publish/body.ts';
import { BRANCH, DOMAIN, HOUR, PATH, TOKEN, errors, productionRepo, useEmulators } from './emulators.ts';

const RENEWAL_BRANCH = `${BRANCH}-renewal`;
// The platform's links live a week, as S3's presigned links at most.
const { platform, github, publish, inputs } = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: 7 * 24 * 3600 } });

/** A repository of its own whose base serves an export by a link with `leftHours` to live. */
const production = (leftHours: number) => productionRepo({ platform, github }, 'deploy', { leftHours, files: { 'README.md': '# deploy\n' } });

/** The nightly workflow's step, with auto-merge: renewals. */
const nightly = (extra: Record<string, string> = {}) => inputs({ 'renew-within': '72h', 'config-path': PATH, 'github-token': TOKEN, 'auto-merge': 'renewals', ...extra });

const nightlyThroughDist = (repo: string, extra: Record<string, string> = {}) => runAction('dist/renew/index.js', nightly(extra), { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: repo, GITHUB_EVENT_NAME: 'schedule' });
const nightlyInProcess = (repo: string, extra: Record<string, string> = {}) => runInProcess(publish, nightly(extra), { GITHUB_REPOSITORY: repo, GITHUB_EVENT_NAME: 'schedule' });

const linkOn = (repo: string, ref: string) => readSetting(PATH, github.fileAt(repo, ref, PATH)!, 'staticExport', 'bundleUrl') as string;
const warnings = (run: ActionRun) => run.log.split('\n').filter((line) => line.startsWith('::warning::'));

/** A push run (the README's push workflow, without auto-merge) proposes new content: the content pull request a person has to review. */
async function proposeContent(repo: string): Promise<{ number: number; jobId: string }> {
  const { jobId } = await finishedExport(platform, DOMAIN);
  const run = await runInProcess(publish, inputs({ 'job-id': jobId, 'config-path': PATH, 'github-token': TOKEN }), { GITHUB_REPOSITORY: repo, GITHUB_EVENT_NAME: 'push' });
  expect(errors(run)).toEqual([]);
  return { number: Number(run.outputs['pull-request-number']), jobId };
}

describe('renewals that merge themselves, through dist/', () => {
  it('merges a renewal of the export production serves by itself, at the head it read, and leaves the pull request as the trail', async () => {
    const { repo, jobId, link } = await production(40);
    const run = await nightlyThroughDist(repo);
    expect(errors(run)).toEqual([]);
    expect(run.code).toBe(0);
    const [pull] = github.pulls(repo);
    // Merged by the action's token, not by a person; production now serves a fresh link of the same export.
    expect(pull).toMatchObject({ head: RENEWAL_BRANCH, state: 'closed', merged: true, mergedBy: TOKEN });
    const renewed = linkOn(repo, 'main');
    expect(jobIdFromLink(renewed)).toBe(jobId);
    expect(linkExpiry(renewed)!.getTime()).toBeGreaterThan(linkExpiry(link)!.getTime());
    // The trail: the body and the commit on the base name the job and both expiries.
    expect(pull!.body).toContain(`| Export job | \`${jobId}\` |`);
    expect(pull!.body).toMatch(/\| Production's link expires \| .+ \|\n\| New link expires \| .+ \|/);
    const commit = github.commit(repo, github.branchHead(repo, 'main')!)!;
    expect(commit.message).toMatch(new RegExp(`^Renew the static export link \\(${jobId}\\) \\(#${pull!.number}\\)\\n\\nMerged by the static export action \\(auto-merge: renewals\\): the same export ${jobId}, a fresh link; production's link expired or expiring at .+, the new link expiring at .+\\.$`));
    expect(run.log).toContain(`Merged renewal pull request #${pull!.number} (${pull!.html_url}) by squash`);
    // The guard judges the link production serves now: nothing to warn of.
    expect(warnings(run)).toEqual([]);
    expect(Date.parse(run.outputs['deployed-expires-at']!)).toBe(linkExpiry(renewed)!.getTime());
  }, 60_000);

  it('renews production apart from a content pull request that waits for review, then rebuilds that one on the new base with its export and a reviewer\'s line', async () => {
    // 60 hours: within renew-within, so due; beyond the guard's two days, so the push run does not fail.
    const { repo, jobId } = await production(60);
    const content = await proposeContent(repo);
    const note = '# reviewed by ops: the new pages read well\n';
    github.commitOnBranch(repo, BRANCH, { [PATH]: `${github.fileAt(repo, BRANCH, PATH)!}${note}` }, 'Review note');
    const run = await nightlyThroughDist(repo);
    expect(errors(run)).toEqual([]);
    expect(run.code).toBe(0);
    // Production: a fresh link of its own export, through a pull request of its own, merged by the action.
    const renewal = github.pulls(repo).find((pull) => pull.head === RENEWAL_BRANCH)!;
    expect(renewal).toMatchObject({ state: 'closed', merged: true, mergedBy: TOKEN });
    expect(jobIdFromLink(linkOn(repo, 'main'))).toBe(jobId);
    expect(linkExpiry(linkOn(repo, 'main'))!.getTime() - Date.now()).toBeGreaterThan(100 * HOUR);
    // The content pull request: still open and unmerged, on the new base, its export and the note kept.
    const pull = github.pull(repo, content.number)!;
    expect(pull).toMatchObject({ state: 'open', merged: false });
    expect(jobIdFromLink(linkOn(repo, BRANCH))).toBe(content.jobId);
    expect(github.fileAt(repo, BRANCH, PATH)).toContain(note);
    for (const method of ['merge', 'squash', 'rebase'] as const) {
      expect(github.previewMerge(repo, content.number, method)).toEqual(expect.objectContaining({ [PATH]: github.fileAt(repo, BRANCH, PATH) }));
    }
    expect(run.log).toContain(`Rebuilt pull request #${content.number} on main's renewed file`);
  }, 60_000);

  it('leaves a renewal that branch protection refuses open, its first line urgent, and names the rule and how to allow it', async () => {
    const { repo, link } = await production(60);
    github.protectBranch(repo, 'main', { requiredApprovingReviews: 1 });
    const run = await nightlyThroughDist(repo);
    // The refusal alone does not fail the step (production has 60 hours): it warns.
    expect(errors(run)).toEqual([]);
    expect(run.code).toBe(0);
    const [pull] = github.pulls(repo);
    expect(pull).toMatchObject({ state: 'open', merged: false });
    expect(linkOn(repo, 'main')).toBe(link);
    // The guard's time-left line comes first (production is inside link-margin); the refusal's urgent line right under it.
    const [first, , second] = regionOf(pull!.body).split('\n');
    expect(first).toMatch(/^⚠️ \*\*Production's link expires in 2 days\*\*/);
    expect(second).toMatch(/^\*\*🚨 Urgent: production's link expires at .+, in (2d 1[12]h|2d 12h)\.\*\* This renewal changes no page; it could not merge itself \(GitHub refused to merge it: "At least 1 approving review is required by reviewers with write access\."\)\. Merge it and roll it out\.$/);
    const refused = warnings(run).find((line) => line.includes('could not merge itself'));
    expect(refused).toContain(`Renewal pull request #${pull!.number}`);
    expect(refused).toContain('GitHub answered 405 "At least 1 approving review is required by reviewers with write access."');
    expect(refused).toContain("main's branch protection or ruleset requires approving reviews");
    expect(refused).toContain('bypass list');
  }, 60_000);
});

describe('renewals that merge themselves, in-process', () => {
  it('names a required status check, and the repository setting that keeps the renewal from merging itself once it passes', async () => {
    const { repo } = await production(60);
    github.protectBranch(repo, 'main', { requiredStatusChecks: ['helm-lint'] });
    const run = await nightlyInProcess(repo);
    expect(run.code).toBe(0);
    const refused = warnings(run).find((line) => line.includes('could not merge itself'))!;
    expect(refused).toContain('GitHub answered 405 "Required status check "helm-lint" is expected."');
    // GitHub's own words (emulator/recorded/github.json answers.auto-merge.not-allowed), then what to turn on.
    expect(refused).toContain('the repository does not allow auto-merge (GitHub answered "Auto merge is not allowed for this repository")');
    expect(refused).toContain('Settings → General → "Allow auto-merge"');
    // The next night, once the check passed on the head, it merges itself.
    const [pull] = github.pulls(repo);
    github.passCheck(repo, github.branchHead(repo, RENEWAL_BRANCH)!, 'helm-lint');
    const again = await nightlyInProcess(repo);
    expect(again.code).toBe(0);
    expect(github.pull(repo, pull!.number)).toMatchObject({ merged: true, mergedBy: TOKEN });
  });

  it('merges with a method the repository allows (a rebase-only repository)', async () => {
    const { repo } = await production(40);
    github.setMergeMethods(repo, ['rebase']);
    const run = await nightlyInProcess(repo);
    expect(errors(run)).toEqual([]);
    expect(run.log).toMatch(/Merged renewal pull request #1 \(.+\) by rebase/);
    expect(github.pulls(repo)[0]).toMatchObject({ merged: true, mergedBy: TOKEN });
  });

  it('never merges content, nor a renewal a person committed to', async () => {
    const { repo } = await production(100);
    const content = await proposeContent(repo);
    // A fresh production link (100 hours): the content pull request waits for a person, and nothing else happens.
    const run = await nightlyInProcess(repo);
    expect(run.code).toBe(0);
    expect(github.pulls(repo)).toEqual([expect.objectContaining({ number: content.number, state: 'open', merged: false })]);
    // A renewal with a person's commit on it is theirs to merge.
    const other = await production(60);
    const first = await nightlyInProcess(other.repo, { 'auto-merge': 'off' });
    expect(first.code).toBe(0);
    github.commitOnBranch(other.repo, RENEWAL_BRANCH, { [PATH]: `${github.fileAt(other.repo, RENEWAL_BRANCH, PATH)!}# checked by ops\n` }, 'Checked');
    const second = await nightlyInProcess(other.repo);
    expect(second.code).toBe(0);
    expect(github.pulls(other.repo)[0]).toMatchObject({ state: 'open', merged: false });
  });

  it('merges nothing in a dry run, nor with auto-merge off', async () => {
    const { repo, link } = await production(60);
    expect((await nightlyInProcess(repo, { 'dry-run': 'true' })).code).toBe(0);
    expect(github.pulls(repo)).toEqual([]);
    expect((await nightlyInProcess(repo, { 'auto-merge': 'off' })).code).toBe(0);
    expect(github.pulls(repo)).toEqual([expect.objectContaining({ state: 'open', merged: false })]);
    expect(linkOn(repo, 'main')).toBe(link);
  });

  it('refuses a value of auto-merge it does not know, before any request', async () => {
    const { repo } = await production(40);
    platform.requests.length = 0;
    github.requests.length = 0;
    const run = await nightlyInProcess(repo, { 'auto-merge': 'yes' });
    expect(run.code).toBe(1);
    expect(errors(run)).toEqual([expect.stringMatching(/^::error::Input 'auto-merge': 'yes' is neither off nor renewals\. renewals lets the step merge/)]);
    expect(platform.requests).toEqual([]);
    expect(github.requests).toEqual([]);
  });
});

// What the action writes to GitHub, when GitHub answers as it really does: a merge whose answer was
// lost, a merge refused for a moment, a push landing while the nightly merges, a person merging the
// pull request while a push run writes to it. Runs go through the built bundle (dist/index.js, or
// PUBLISH_BUNDLE to check another build, such as main's), as the runner starts it; two runs at once
// are two processes, interleaved at a write by the GitHub emulator's hold (`holdNext`). The push
// beside the nightly's merge runs both ways: two processes, and two real run()s of src/ in this
// process (WAYS).
import { describe, expect, it } from '@jest/globals';
import { type ActionRun, startAction, runAction } from '../emulator/runner.ts';
import { jobIdFromLink } from '../src/values/link.ts';
import { readSetting } from '../src/values/values-file.ts';
import { BRANCH, DOMAIN, PATH, TOKEN, annotations, productionRepo, useEmulators } from './emulators.ts';
import { finishedExport } from './finished-export.ts';
import { runInProcess, startInProcess } from './in-process.ts';

const BUNDLE = process.env.PUBLISH_BUNDLE ?? 'dist/index.js';
const RENEW_BUNDLE = process.env.PUBLISH_RENEW_BUNDLE ?? 'dist/renew/index.js';
const emulators = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: 7 * 24 * 3600 } });
const { platform, github, proposing, env, publish } = emulators;

/** A repository of its own whose base serves an export by a link with `leftHours` to live. */
const production = (leftHours: number) => productionRepo(emulators, 'writes', { leftHours, files: { 'README.md': '# deploy\n' } });

/** The README's nightly workflow, with auto-merge: renewals. */
const nightlyInputs = () => proposing({ 'renew-within': '72h', 'auto-merge': 'renewals' });
/** The README's push workflow: a new export proposed for review. */
const pushInputs = (jobId: string) => proposing({ 'job-id': jobId });

const linkOn = (repo: string, ref: string) => readSetting(PATH, github.fileAt(repo, ref, PATH)!, 'staticExport', 'bundleUrl') as string;

/**
 * The two ways two runs go at once: two processes of the built bundle (as two workflows on runners),
 * or two real run()s of src/ in this process, each in an environment of its own (in-process.ts).
 */
interface Way {
  start(bundle: string, inputs: Record<string, string>, vars: Record<string, string>): { done: Promise<ActionRun> };
  run(bundle: string, inputs: Record<string, string>, vars: Record<string, string>): Promise<ActionRun>;
}
const WAYS: [string, Way][] = [
  ['two processes of dist/', { start: startAction, run: runAction }],
  ['two run()s in one process', { start: (_, inputs, vars) => startInProcess(publish, inputs, vars), run: (_, inputs, vars) => runInProcess(publish, inputs, vars) }]
];

describe('a merge is read back, not resent blind', () => {
  it('a merge whose answer was lost is a success: merged, reported so, and nothing marks it urgent', async () => {
    const { repo, jobId } = await production(40);
    github.addFault({ kind: 'lost', operation: 'pulls.merge' });
    const run = await runAction(RENEW_BUNDLE, nightlyInputs(), env(repo, 'schedule'));
    github.clearFaults();
    expect(annotations(run, 'error')).toEqual([]);
    expect(annotations(run, 'warning')).toEqual([]);
    expect(run.code).toBe(0);
    const [pull] = github.pulls(repo);
    expect(pull).toMatchObject({ state: 'closed', merged: true, mergedBy: TOKEN, labels: [] });
    expect(pull!.body).not.toMatch(/Urgent|could not merge itself/);
    expect(jobIdFromLink(linkOn(repo, 'main'))).toBe(jobId);
    expect(run.log).toContain(`Merged renewal pull request #${pull!.number}`);
    // One merge sent: the second try was a read of the pull request, which showed it merged.
    expect(github.requests.filter((r) => r.method === 'PUT' && r.path.startsWith(`/repos/${repo}/pulls/`))).toHaveLength(1);
  }, 60_000);

  it.each([
    ['base-modified', '405 "Base branch was modified. Review and try the merge again."'],
    ['computing', '405 "Pull Request is not mergeable" while GitHub computes the merge after a push'],
    ['502', "the gateway's 502"]
  ] as ['base-modified' | 'computing' | '502', string][])('a transient refusal of the merge (%s: %s) is tried again within the deadline, and the renewal merges', async (kind) => {
    const { repo } = await production(40);
    github.addFault({ kind, operation: 'pulls.merge' });
    const run = await runAction(RENEW_BUNDLE, nightlyInputs(), env(repo, 'schedule'));
    github.clearFaults();
    expect(annotations(run, 'warning')).toEqual([]);
    expect(run.code).toBe(0);
    const [pull] = github.pulls(repo);
    expect(pull).toMatchObject({ state: 'closed', merged: true, mergedBy: TOKEN });
    expect(pull!.body).not.toMatch(/Urgent/);
    expect(run.log).not.toMatch(/GitHub App|bypass/);
  }, 60_000);
});

describe('two writers at once, interleaved at a write', () => {
  it.each(WAYS)(
    "a push landing while the nightly merges its renewal (%s): the renewal merges on its own branch, the push's content pull request is never called a renewal, and each run reports only its own",
    async (_, way) => {
      const { repo, jobId: production_ } = await production(60);
      const hold = github.holdNext('pulls.merge');
      const nightly = way.start(RENEW_BUNDLE, nightlyInputs(), env(repo, 'schedule'));
      await hold.reached;
      // The nightly read the renewal and sent its merge; before GitHub answers, the push workflow proposes new content.
      const { jobId: content } = await finishedExport(platform, DOMAIN);
      const push = await way.run(BUNDLE, pushInputs(content), env(repo, 'push'));
      expect(annotations(push, 'error')).toEqual([]);
      // The renewal lives on a branch of its own: the push opens the content pull request beside it, never over it.
      expect(push.outputs['pull-request-operation']).toBe('created');
      hold.release();
      const night = await nightly.done;
      expect(annotations(night, 'error')).toEqual([]);
      const renewal = github.pull(repo, 1)!;
      const pull = github.pull(repo, Number(push.outputs['pull-request-number']))!;
      expect(renewal).toMatchObject({ head: `${BRANCH}-renewal`, state: 'closed', merged: true });
      expect(jobIdFromLink(linkOn(repo, 'main'))).toBe(production_);
      // The content pull request: open, its content, rebuilt on the renewed base, its body about new content.
      expect(pull).toMatchObject({ head: BRANCH, state: 'open', merged: false });
      expect(jobIdFromLink(linkOn(repo, BRANCH))).toBe(content);
      expect(pull.body).toContain(`| Export job | \`${content}\` |`);
      expect(pull.body).not.toMatch(/Urgent|changes no page|No page changed|Renews the static export link/);
      expect(night.log).toMatch(/Merged renewal pull request #1 /);
      expect(night.log).not.toMatch(/could not merge itself/);
      // Each run's outputs, log and summary are its own: the push's name its content and export, the
      // nightly's its renewal; neither shows the other's.
      expect(push.outputs).toMatchObject({ 'job-id': content, 'pull-request-number': '2' });
      expect(night.outputs).toMatchObject({ 'job-id': production_, merged: 'true', 'merged-pull-request-number': '1' });
      expect(push.log).not.toMatch(/Merged renewal pull request/);
      expect(night.log).not.toContain(content);
      expect(push.summary).toContain(content);
      expect(night.summary).not.toContain(content);
    },
    60_000
  );

  it.each(['git.createRef', 'pulls.create', 'pulls.merge'])(
    'the push run writing while the nightly waits on its %s: neither run leaves a body that claims what the branch does not hold',
    async (operation) => {
      const { repo, jobId: deployed } = await production(60);
      const hold = github.holdNext(operation);
      const nightly = startAction(RENEW_BUNDLE, nightlyInputs(), env(repo, 'schedule'));
      await hold.reached;
      const { jobId: content } = await finishedExport(platform, DOMAIN);
      const push = await runAction(BUNDLE, pushInputs(content), env(repo, 'push'));
      hold.release();
      const night = await nightly.done;
      for (const run of [push, night]) expect(annotations(run, 'error')).toEqual([]);
      // The content stays in review, proposed once, and its pull request speaks of content.
      const open = github.pulls(repo).filter((pull) => pull.state === 'open');
      expect(open.map((pull) => pull.head)).toEqual([BRANCH]);
      expect(jobIdFromLink(linkOn(repo, BRANCH))).toBe(content);
      expect(open[0]!.body).toContain(`| Export job | \`${content}\` |`);
      expect(open[0]!.body).not.toMatch(/Urgent|changes no page|Renews the static export link/);
      // Production serves its own export still (renewed apart, on its own branch, or not at all).
      expect(jobIdFromLink(linkOn(repo, 'main'))).toBe(deployed);
      // Each run's outputs name a pull request that holds what it wrote: open, or merged by the action.
      for (const run of [push, night]) {
        const named = run.outputs['pull-request-number'];
        if (named) expect(github.pull(repo, Number(named))).toEqual(expect.objectContaining(run === push ? { state: 'open' } : {}));
      }
    },
    60_000
  );

  it('a person merging the pull request while a push run writes to it: the run opens a new pull request and says so, never "updated" on a merged one', async () => {
    const { repo } = await production(150);
    const { jobId: first } = await finishedExport(platform, DOMAIN);
    const opened = await runAction(BUNDLE, pushInputs(first), env(repo, 'push'));
    expect(opened.outputs['pull-request-operation']).toBe('created');
    const { jobId: second } = await finishedExport(platform, DOMAIN);
    const hold = github.holdNext('git.updateRef');
    const push = startAction(BUNDLE, pushInputs(second), env(repo, 'push'));
    await hold.reached;
    github.mergePull(repo, 1, 'squash');
    hold.release();
    const run = await push.done;
    expect(annotations(run, 'error')).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.outputs['pull-request-operation']).toBe('created');
    expect(run.outputs['pull-request-number']).toBe('2');
    // #1 keeps what it was merged with; #2 proposes the second export on the base that holds the first.
    const merged = github.pull(repo, 1)!;
    expect(merged).toMatchObject({ state: 'closed', merged: true });
    expect(merged.body).toContain(`| Export job | \`${first}\` |`);
    expect(merged.body).not.toContain(second);
    expect(jobIdFromLink(linkOn(repo, 'main'))).toBe(first);
    expect(github.pull(repo, 2)).toMatchObject({ state: 'open', head: BRANCH });
    expect(jobIdFromLink(linkOn(repo, BRANCH))).toBe(second);
    expect(github.pull(repo, 2)!.body).toContain(`| Export job | \`${second}\` |`);
  }, 60_000);
});

describe('two runs at once in one process (src/, each run in an environment of its own)', () => {
  it('a push and the nightly started at the same moment: both end green, production keeps its export, the content waits in review', async () => {
    const { repo, jobId: deployed } = await production(60);
    const { jobId: content } = await finishedExport(platform, DOMAIN);
    const [push, night] = await Promise.all([runInProcess(publish, pushInputs(content), env(repo, 'push')), runInProcess(publish, nightlyInputs(), env(repo, 'schedule'))]);
    for (const run of [push, night]) expect([run.code, annotations(run, 'error')]).toEqual([0, []]);
    expect(jobIdFromLink(linkOn(repo, 'main'))).toBe(deployed);
    const open = github.pulls(repo).filter((pull) => pull.state === 'open');
    expect(open.map((pull) => pull.head)).toEqual([BRANCH]);
    expect(jobIdFromLink(linkOn(repo, BRANCH))).toBe(content);
    expect(push.outputs['job-id']).toBe(content);
    expect(night.outputs['job-id']).toBe(deployed);
  }, 60_000);
});

// The fault matrix of GitHub's writes: every write route the action uses (refs created, moved and
// swapped, the pull request opened and edited, labels added and removed, the merge), each with its
// answer lost after GitHub did it and with a transient refusal before it did. Whatever happened, the
// run ends with the write done once, nothing in a body or a label that the branch does not hold, and
// outputs that name the pull request the run wrote. The real publish action runs in this process
// (in-process.ts), GitHub's second shrunk to a millisecond.
import { describe, expect, it } from '@jest/globals';
import type { GitHubFaultKind } from '../emulator/github-faults.ts';
import type { ActionRun } from '../emulator/runner.ts';
import { jobIdFromLink } from '../src/values/link.ts';
import { readSetting } from '../src/values/values-file.ts';
import { regionOf } from '../src/publish/body.ts';
import { BRANCH, DOMAIN, HOUR, PATH, TOKEN, WEEK_S, productionRepo, useEmulators } from './emulators.ts';
import { finishedExport, presignedLink } from './finished-export.ts';
import { runInProcess } from './in-process.ts';

const LABEL = 'production-link-expiring';
const emulators = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: WEEK_S } });
const { platform, github, publish, proposing, env } = emulators;

// Not imported from proposal.ts: that loads @actions/github, which reads GITHUB_API_URL once, before loadPublish sets it.
const exportOfBody = (body: string) => /^\| Export job \| `([^`]+)` \|$/m.exec(body)?.[1];
const values = (link: string) => `# Helm values.\nstaticExport:\n  enabled: true\n  bundleUrl: "${link}"\n`;
const weekLink = (jobId: string, leftMs: number) => presignedLink(platform, jobId, Date.now() - (WEEK_S * 1000 - leftMs), WEEK_S);

const repoWith = (leftMs: number) => productionRepo(emulators, 'matrix', { leftHours: leftMs / HOUR, values });

const run = (repo: string, inputs: Record<string, string>, event = 'push') => runInProcess(publish, proposing({ timeout: '2m', ...inputs }), env(repo, event), { knobs: { requestTimeoutMs: 2000 } });
const push = (repo: string, jobId: string) => run(repo, { 'job-id': jobId, 'pr-labels': 'docs' });
const nightly = (repo: string, extra: Record<string, string> = {}) => run(repo, { 'renew-within': '72h', ...extra }, 'schedule');

/** What every run must leave: a body that names what its branch holds, labels the run can stand behind, outputs that name what it wrote. */
function expectTruthful(repo: string, result: ActionRun, context: object): void {
  const open = github.pulls(repo).filter((pull) => pull.state === 'open');
  expect({ ...context, open: open.length <= 1 }).toEqual({ ...context, open: true });
  for (const pull of open) {
    const onBranch = jobIdFromLink(readSetting(PATH, github.fileAt(repo, pull.head, PATH)!, 'staticExport', 'bundleUrl') as string);
    expect({ ...context, body: exportOfBody(regionOf(pull.body)) }).toEqual({ ...context, body: onBranch });
    // The urgent line speaks of a renewal: only on a branch that holds production's own export.
    if (/🚨 Urgent/.test(pull.body)) expect({ ...context, urgentOn: onBranch }).toEqual({ ...context, urgentOn: jobIdFromLink(readSetting(PATH, github.fileAt(repo, 'main', PATH)!, 'staticExport', 'bundleUrl') as string) });
    if (pull.labels.includes(LABEL)) expect({ ...context, labelSaid: /Production's link in deploy\/values\.yaml/.test(result.log) }).toEqual({ ...context, labelSaid: true });
  }
  const written = result.outputs['pull-request-operation'];
  if (written === 'created' || written === 'updated') {
    // The pull request the run wrote: still open, or merged by this run itself (auto-merge).
    const named = github.pull(repo, Number(result.outputs['pull-request-number']));
    expect({ ...context, named: named?.state === 'open' || named?.mergedBy === TOKEN }).toEqual({ ...context, named: true });
  }
}

type Kind = Extract<GitHubFaultKind, 'lost' | '502' | 'base-modified'>;

const cases: { operation: string; scenario: string; kinds: Kind[]; act: (kind: Kind) => Promise<{ repo: string; result: ActionRun; check: () => void }> }[] = [
  ...['git.createRef', 'pulls.create', 'issues.addLabels'].map((operation) => ({
    operation,
    scenario: 'a new pull request',
    kinds: ['lost', '502'] as Kind[],
    act: async (kind: Kind) => {
      const { repo } = await repoWith(6 * 24 * HOUR);
      const { jobId } = await finishedExport(platform, DOMAIN);
      github.addFault({ kind, operation });
      const result = await push(repo, jobId);
      return {
        repo,
        result,
        check: () => {
          expect(result.code).toBe(0);
          expect(result.outputs['pull-request-operation']).toBe('created');
          expect(github.pulls(repo)).toEqual([expect.objectContaining({ number: 1, state: 'open', labels: ['docs'] })]);
        }
      };
    }
  })),
  ...['git.updateRef', 'pulls.update'].map((operation) => ({
    operation,
    scenario: 'an update',
    kinds: ['lost', '502'] as Kind[],
    act: async (kind: Kind) => {
      const { repo } = await repoWith(6 * 24 * HOUR);
      expect((await push(repo, (await finishedExport(platform, DOMAIN)).jobId)).code).toBe(0);
      const { jobId } = await finishedExport(platform, DOMAIN);
      github.addFault({ kind, operation });
      const result = await push(repo, jobId);
      return {
        repo,
        result,
        check: () => {
          expect(result.code).toBe(0);
          expect(result.outputs['pull-request-operation']).toBe('updated');
          expect(github.pull(repo, 1)!.body).toContain(`| Export job | \`${jobId}\` |`);
        }
      };
    }
  })),
  {
    operation: 'graphql',
    scenario: 'a rebuild on a moved base (updateRefs, the compare-and-swap)',
    kinds: ['lost', '502'],
    act: async (kind: Kind) => {
      const { repo } = await repoWith(6 * 24 * HOUR);
      expect((await push(repo, (await finishedExport(platform, DOMAIN)).jobId)).code).toBe(0);
      github.commitOnBranch(repo, 'main', { 'README.md': '# deploy\n' }, 'A change elsewhere on the base');
      const { jobId } = await finishedExport(platform, DOMAIN);
      github.addFault({ kind, operation: 'graphql' });
      const result = await push(repo, jobId);
      return {
        repo,
        result,
        check: () => {
          expect(result.code).toBe(0);
          expect(result.outputs['pull-request-operation']).toBe('updated');
          expect(github.commit(repo, github.branchHead(repo, BRANCH)!)!.parents).toEqual([github.branchHead(repo, 'main')]);
        }
      };
    }
  },
  {
    operation: 'issues.removeLabel',
    scenario: "the guard's label taken off once production is safe",
    kinds: ['lost', '502'],
    act: async (kind: Kind) => {
      const { repo, jobId } = await repoWith(20.5 * HOUR);
      expect((await nightly(repo)).code).toBe(1);
      expect(github.pull(repo, 1)!.labels).toEqual([LABEL]);
      github.commitOnBranch(repo, 'main', { [PATH]: values(weekLink(jobId, 6 * 24 * HOUR)) }, 'Roll out a fresh link by hand');
      github.addFault({ kind, operation: 'issues.removeLabel' });
      const result = await nightly(repo);
      return {
        repo,
        result,
        check: () => {
          expect(result.code).toBe(0);
          expect(github.pull(repo, 1)!.labels).toEqual([]);
        }
      };
    }
  },
  {
    operation: 'pulls.merge',
    scenario: 'a renewal that merges itself',
    kinds: ['lost', '502', 'base-modified'],
    act: async (kind: Kind) => {
      const { repo, jobId } = await repoWith(40 * HOUR);
      github.addFault({ kind, operation: 'pulls.merge' });
      const result = await nightly(repo, { 'auto-merge': 'renewals' });
      return {
        repo,
        result,
        check: () => {
          expect(result.code).toBe(0);
          expect(github.pull(repo, 1)).toMatchObject({ state: 'closed', merged: true, mergedBy: TOKEN, labels: [] });
          expect(github.pull(repo, 1)!.body).not.toContain('Urgent');
          expect(jobIdFromLink(readSetting(PATH, github.fileAt(repo, 'main', PATH)!, 'staticExport', 'bundleUrl') as string)).toBe(jobId);
          expect(result.log).not.toMatch(/could not merge itself/);
        }
      };
    }
  }
];

describe('every write route, its answer lost and refused for a moment', () => {
  const matrix = cases.flatMap((c) => c.kinds.map((kind) => [c.operation, kind, c.scenario, c] as const));
  it.each(matrix)('%s, %s (%s): done once, and the pull request says only what its branch holds', async (operation, kind, _scenario, c) => {
    const { repo, result, check } = await c.act(kind);
    github.clearFaults();
    const context = { operation, kind };
    expect({ ...context, error: result.log.split('\n').find((line) => line.startsWith('::error::') && !line.includes("Production's link")) }).toEqual({ ...context, error: undefined });
    check();
    expectTruthful(repo, result, context);
  });

  it('counts: every route of the action is in the matrix', () => {
    expect(new Set(matrix.map(([operation]) => operation))).toEqual(new Set(['git.createRef', 'git.updateRef', 'graphql', 'pulls.create', 'pulls.update', 'issues.addLabels', 'issues.removeLabel', 'pulls.merge']));
    expect(matrix).toHaveLength(17);
  });
});

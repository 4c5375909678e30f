// The configuration pull request against a GitHub REST emulator that answers as GitHub does on a
// bad day. Whatever fault is armed at whichever call, a run ends with exactly one correct pull
// request, or a clear failure that leaves nothing half-written; the base branch is never touched,
// and no token, key or link signature reaches the log (step debug on).
//
// The real publish action runs in this process (in-process.ts), over HTTP to the emulators, with
// GitHub's second shrunk to a millisecond: its 1, 4 and 9 s retries and the waits it asks for take
// no real time, while the log says what a user reads. Runs take turns, each on the repository made
// anew. Two runs at the same moment need two processes: that test runs dist/index.js.
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { GitHubFault } from '../emulator/github-faults.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import { type ActionRun, runAction } from '../emulator/runner.ts';
import { valuesFixture } from './fixture-values.ts';
import { useEmulators } from './emulators.ts';
import { inTurn, runInProcess } from './in-process.ts';
import { parse } from 'yaml';

const BUNDLE = 'dist/index.js';
const REPO = 'acme/deploy';
const TOKEN = 'ghs_emulator_token';
const BRANCH = 'static-export/deploy-values.yaml';
/** The base's values file, its production link served by the platform emulator. */
let VALUES: string;
/** The calls of a run that opens a new pull request with a label, in order. */
const NEW_PR_CALLS = 10;

// Links of an hour: every renewal finds the link due.
const { platform, github: shared, publish } = useEmulators({ platform: { linkTtlSeconds: 3600 } });
beforeAll(() => {
  VALUES = valuesFixture('values.yaml', `${platform.url}/bundles`);
});

interface Scenario {
  github: GitHubEmulator;
  run(inputs?: Record<string, string>): Promise<ActionRun>;
  /** GitHub's requests since the scenario began. */
  requests(): GitHubEmulator['requests'];
}

const inputsOf = (inputs: Record<string, string>) => ({
  'api-key': DEFAULT_API_KEY,
  'api-url': platform.url,
  'github-token': TOKEN,
  'config-path': 'deploy/values.yaml',
  domain: 'docs.example.com',
  'pr-labels': 'docs',
  timeout: '2m',
  ...inputs
});
const ENV = { GITHUB_REPOSITORY: REPO, RUNNER_DEBUG: '1' };

/**
 * `steps` with the repository made anew and no fault armed, its runs in this process; the scenarios
 * of a test take turns (a test's Promise.all of them runs one after another).
 */
function scenario<T>(steps: (s: Scenario) => Promise<T>): Promise<T> {
  return inTurn(async () => {
    shared.clearFaults();
    shared.createRepo(REPO, { 'deploy/values.yaml': VALUES });
    const from = shared.requests.length;
    // One request's limit of 2 s, so that a slow answer is abandoned and retried within the test.
    const run = (inputs: Record<string, string> = {}) => runInProcess(publish, inputsOf(inputs), ENV, { knobs: { requestTimeoutMs: 2000 } });
    try {
      return await steps({ github: shared, run, requests: () => shared.requests.slice(from) });
    } finally {
      shared.clearFaults();
    }
  });
}

const linkIn = (text: string | undefined): string | undefined => (text === undefined ? undefined : (parse(text) as { staticExport?: { bundleUrl?: string } }).staticExport?.bundleUrl);

/** What the checks read of the repository: the emulator's, or what it held when a scenario ended. */
type Repository = Pick<GitHubEmulator, 'pulls' | 'fileAt' | 'requests'>;

/** The repository as a scenario left it, for checks made once later scenarios have made it anew. */
function ended(s: Scenario): Repository {
  const pulls = s.github.pulls(REPO);
  const files = new Map(['main', BRANCH].map((ref) => [ref, s.github.fileAt(REPO, ref, 'deploy/values.yaml')]));
  return { pulls: () => pulls, fileAt: (_repo, ref) => files.get(ref), requests: s.requests() };
}

/** What every run must leave, whatever happened. */
function expectSound(github: Repository, run: ActionRun, context: object): void {
  const open = github.pulls(REPO).filter((pull) => pull.state === 'open');
  expect({ ...context, base: github.fileAt(REPO, 'main', 'deploy/values.yaml') === VALUES }).toEqual({ ...context, base: true });
  expect({ ...context, openPulls: open.length <= 1 }).toEqual({ ...context, openPulls: true });
  const branchText = github.fileAt(REPO, BRANCH, 'deploy/values.yaml');
  // A branch, if any, holds a whole file with a link.
  if (branchText !== undefined) expect({ ...context, whole: typeof linkIn(branchText) }).toEqual({ ...context, whole: 'string' });
  const signature = /X-Amz-Signature=([0-9a-f]+)/.exec(run.outputs['bundle-url'] ?? '')?.[1];
  for (const secret of [TOKEN, DEFAULT_API_KEY, signature].filter(Boolean) as string[]) {
    expect({ ...context, leaked: run.stdout.includes(secret) && !run.stdout.split('\n').every((l) => !l.includes(secret) || l.startsWith('::add-mask::')) }).toEqual({ ...context, leaked: false });
  }
}

/** A successful run: exactly one open pull request, whose branch proposes this run's link. */
function expectOnePullRequest(github: Repository, run: ActionRun, context: object): void {
  expect({ ...context, code: run.code, error: run.log.split('\n').find((l) => l.startsWith('::error::')) }).toEqual({ ...context, code: 0, error: undefined });
  const open = github.pulls(REPO).filter((pull) => pull.state === 'open');
  expect({ ...context, open: open.length, labels: open[0]?.labels }).toEqual({ ...context, open: 1, labels: ['docs'] });
  expect({ ...context, proposed: linkIn(github.fileAt(REPO, BRANCH, 'deploy/values.yaml')) === run.outputs['bundle-url'] }).toEqual({ ...context, proposed: true });
  expectSound(github, run, context);
}

function withFault(faults: GitHubFault[], context: object, job = platform.seedExportJob({ domain: 'docs.example.com' })) {
  return scenario(async (s) => {
    for (const fault of faults) s.github.addFault(fault);
    const run = await s.run({ 'job-id': job });
    return { run, github: ended(s), context };
  });
}

describe('transient answers are retried: each ends in one correct pull request', () => {
  it.each(['502', '503', 'reset'] as const)('%s on each call of a new pull request in turn', async (kind) => {
    const results = await Promise.all(Array.from({ length: NEW_PR_CALLS }, (_, i) => withFault([{ kind, call: i + 1 }], { kind, call: i + 1 })));
    for (const { run, github, context } of results) expectOnePullRequest(github, run, context);
  });

  it('a lost answer after each write of a new pull request: read back, carried on', async () => {
    const writes = ['git.createTree', 'git.createCommit', 'git.createRef', 'pulls.create', 'issues.addLabels'];
    const results = await Promise.all(writes.map((operation) => withFault([{ kind: 'lost', operation }], { operation })));
    for (const { run, github, context } of results) expectOnePullRequest(github, run, context);
  });

  it('a lost answer after each write of an update: read back, carried on', async () => {
    const writes = ['git.createTree', 'git.createCommit', 'git.updateRef', 'pulls.update'];
    const results = await Promise.all(
      writes.map((operation) =>
        scenario(async (s) => {
          expect((await s.run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }) })).code).toBe(0);
          s.github.addFault({ kind: 'lost', operation });
          const run = await s.run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }) });
          expect(run.outputs['pull-request-operation']).toBe('updated');
          return { run, github: ended(s), context: { operation } };
        })
      )
    );
    for (const { run, github, context } of results) expectOnePullRequest(github, run, context);
  });

  it('a slow answer past the request limit is abandoned and retried', async () => {
    const { run, github, context } = await withFault([{ kind: 'slow', operation: 'pulls.list', value: 4000 }], { kind: 'slow' });
    expectOnePullRequest(github, run, context);
    expect(run.log).toContain('GitHub did not answer GET /repos/acme/deploy/pulls within 2 s (the limit of one request); retrying.');
  });

  it.each([
    ['a secondary rate limit', 'secondary', "GitHub's secondary rate limit was reached at POST /repos/acme/deploy/git/refs; waiting 1 s as it asks."],
    ['a 429 with retry-after', '429', 'GitHub asked to wait 1 s (429) before POST /repos/acme/deploy/git/refs; waiting.'],
    ['the primary rate limit', 'primary', "GitHub's rate limit was reached at POST /repos/acme/deploy/git/refs"]
  ] as [string, 'secondary' | '429' | 'primary', string][])('%s is waited out as GitHub asks', async (_name, kind, line) => {
    const { run, github, context } = await withFault([{ kind, operation: 'git.createRef', value: 1 }], { kind });
    expectOnePullRequest(github, run, context);
    expect(run.log).toContain(line);
  });

  it('GitHub failing past the retries: a clear failure that says it usually passes, and the re-run it names proposes the export', async () => {
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    await scenario(async (s) => {
      s.github.addFault({ kind: '502', operation: 'pulls.create', times: 4 });
      const failed = await s.run({ 'job-id': job });
      expect(failed.code).toBe(1);
      expect(failed.log).toMatch(
        new RegExp(`::error::Could not open a pull request from ${BRANCH} into main in acme/deploy: GitHub answered 502.*\\. GitHub kept failing after retries, which usually passes: in a few minutes, re-run with job-id: ${job} to propose this export without exporting again\\.`)
      );
      expect(s.github.pulls(REPO)).toHaveLength(0);
      expectSound(s.github, failed, { run: 'failed' });
      const again = await s.run({ 'job-id': job });
      expectOnePullRequest(s.github, again, { run: 'again' });
    });
  });

  it('the 422 "Could not resolve to a node" on the labels right after creation is retried', async () => {
    const { run, github, context } = await withFault([{ kind: 'unresolved', operation: 'issues.addLabels' }], { kind: 'unresolved' });
    expectOnePullRequest(github, run, context);
  });

  it('the same 422 in the shape GitHub really sends ("Validation Failed", the reason in errors[].message) is retried too', async () => {
    const { run, github, context } = await withFault([{ kind: 'unresolved-errors', operation: 'issues.addLabels', times: 2 }], { kind: 'unresolved-errors' });
    expectOnePullRequest(github, run, context);
    expect(github.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/labels'))).toHaveLength(3);
    expect(run.log).toContain('GitHub did not know the new pull request yet at POST /repos/acme/deploy/issues/1/labels (422 Could not resolve to a node); trying again in 1 s.');
  });

  it('a connection dropped at every try is named so, never "GitHub answered 500"', async () => {
    const { run, github, context } = await withFault([{ kind: 'reset', operation: 'repos.get', times: 4 }], { kind: 'reset×4' });
    expect(run.code).toBe(1);
    expect(run.log).toContain("GitHub's connection was lost before an answer (");
    expect(run.log).toMatch(/::error::Could not read the repository in acme\/deploy: GitHub's connection was lost before an answer \(\w+\) to GET \/repos\/acme\/deploy, at each of 4 tries/);
    expect(run.log).not.toMatch(/answered 500/);
    expectSound(github, run, context);
  });

  it('"A pull request already exists" that no list shows ends after 3 tries, saying what to do', async () => {
    const { run, github, context } = await withFault([{ kind: 'exists', operation: 'pulls.create', times: 10 }], { kind: 'exists' });
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/::error::Could not open a pull request from static-export\/deploy-values\.yaml into main in acme\/deploy: GitHub says one already exists .* but 3 lists of open pull requests/);
    expect(github.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/pulls'))).toHaveLength(3);
    expectSound(github, run, context);
  });

  it('another writer creating or moving the branch at each call: re-read and re-judged', async () => {
    const results = await Promise.all(Array.from({ length: NEW_PR_CALLS }, (_, i) => withFault([{ kind: 'writer', call: i + 1 }], { writer: i + 1 })));
    for (const { run, github, context } of results) {
      expectOnePullRequest(github, run, context);
      expect(run.log).not.toMatch(/protect/i);
    }
  });

  it('faults at random calls (seeded): one correct pull request or a clear failure, never a half-state', async () => {
    const seed0 = Number(process.env.TEST_SEED ?? 4321);
    let seed = seed0;
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const kinds = ['502', '503', 'reset', 'lost', 'secondary', '429', 'writer', 'primary'] as const;
    const cases = Array.from({ length: 10 }, () => Array.from({ length: 1 + rand(3) }, () => ({ kind: kinds[rand(kinds.length)]!, call: 1 + rand(NEW_PR_CALLS + 2), value: 1 })));
    const results = await Promise.all(cases.map((faults, i) => withFault(faults, { seed: seed0, i, faults: faults.map((f) => `${f.kind}@${f.call}`).join(' ') })));
    for (const { run, github, context } of results) {
      if (run.code === 0) expectOnePullRequest(github, run, context);
      else {
        expect({ ...context, clear: /::error::Could not .* in acme\/deploy: /.test(run.stdout) }).toEqual({ ...context, clear: true });
        expectSound(github, run, context);
      }
    }
  });
});

describe('order and people: never older content, never a dropped commit', () => {
  it('two runs at the same time (two processes of dist/index.js) end with one pull request proposing the newer export', async () => {
    const github = await startGitHubEmulator();
    try {
      github.createRepo(REPO, { 'deploy/values.yaml': VALUES });
      const older = platform.seedExportJob({ domain: 'docs.example.com', createdAt: Date.now() - 60_000 });
      const newer = platform.seedExportJob({ domain: 'docs.example.com' });
      const runBundle = (job: string) => runAction(BUNDLE, inputsOf({ 'job-id': job }), { ...ENV, GITHUB_API_URL: github.url });
      const [a, b] = await Promise.all([runBundle(older), runBundle(newer)]);
      expect([a.code, b.code]).toEqual([0, 0]);
      const open = github.pulls(REPO).filter((pull) => pull.state === 'open');
      expect(open).toHaveLength(1);
      expect(linkIn(github.fileAt(REPO, BRANCH, 'deploy/values.yaml'))).toBe(b.outputs['bundle-url']);
      expectSound(github, b, { run: 'newer' });
    } finally {
      await github.close();
    }
  });

  it('a branch another run has written but not yet opened a pull request from: an older export leaves it alone', async () => {
    await scenario(async (s) => {
      const older = platform.seedExportJob({ domain: 'docs.example.com', createdAt: Date.now() - 60_000 });
      const newer = platform.seedExportJob({ domain: 'docs.example.com' });
      // The newer run, caught between creating the branch and opening its pull request.
      const newerLink = `${platform.url}/bundles/${newer}/bundle.tar.gz?X-Amz-Date=20261125T000000Z&X-Amz-Expires=604800`;
      const proposed = VALUES.replace(/bundleUrl: .*/, `bundleUrl: "${newerLink}"`);
      const head = s.github.commitOnBranch(REPO, BRANCH, { 'deploy/values.yaml': proposed }, `Point the deployment at a new static export (${newer})\n\nProposed-by: static-export-action`);
      const run = await s.run({ 'job-id': older });
      expect(run.code).toBe(0);
      expect(s.github.branchHead(REPO, BRANCH)).toBe(head);
      expect(run.log).toContain(`Branch ${BRANCH} holds export ${newer}`);
      expect(s.github.pulls(REPO)).toEqual([]);
    });
  });

  it('a renewal after a push renews the export the pull request proposes, not the base’s older one', async () => {
    await scenario(async (s) => {
      const pushed = platform.seedExportJob({ domain: 'docs.example.com' });
      expect((await s.run({ 'job-id': pushed })).code).toBe(0);
      const renewal = await s.run({ 'renew-within': '72h' });
      expect(renewal.code).toBe(0);
      expect(renewal.log).toMatch(/Pull request #\d+ proposes se_\w+, not yet merged: judging and renewing that link/);
      expect(renewal.outputs['job-id']).toBe(pushed);
      expect(linkIn(s.github.fileAt(REPO, BRANCH, 'deploy/values.yaml'))).toContain(`/${pushed}/`);
    });
  });

  it('a run of an older export leaves a pull request of a newer one alone, and says why', async () => {
    await scenario(async (s) => {
      const older = platform.seedExportJob({ domain: 'docs.example.com', createdAt: Date.now() - 3_600_000 });
      const newer = platform.seedExportJob({ domain: 'docs.example.com' });
      const first = await s.run({ 'job-id': newer });
      const head = s.github.branchHead(REPO, BRANCH);
      const late = await s.run({ 'job-id': older });
      expect(late.code).toBe(0);
      expect(late.outputs['pull-request-operation']).toBe('none');
      expect(late.log).toContain(`::notice::The open pull request proposes export ${newer}`);
      expect(late.summary).toContain('Nothing proposed: The open pull request proposes export');
      expect(s.github.branchHead(REPO, BRANCH)).toBe(head);
      expect(linkIn(s.github.fileAt(REPO, BRANCH, 'deploy/values.yaml'))).toBe(first.outputs['bundle-url']);
    });
  });

  it("a reviewer's commit on the branch is kept: its lines stay, the new link goes on top", async () => {
    await scenario(async (s) => {
      const first = await s.run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }) });
      const number = first.outputs['pull-request-number'];
      const reviewed = s.github.commitOnBranch(REPO, BRANCH, { 'deploy/values.yaml': `${s.github.fileAt(REPO, BRANCH, 'deploy/values.yaml')}# reviewed\n` }, 'Tune the replica count');
      const next = await s.run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }) });
      expect(next.code).toBe(0);
      expect(next.outputs['pull-request-number']).toBe(number);
      const text = s.github.fileAt(REPO, BRANCH, 'deploy/values.yaml')!;
      expect(text).toContain('# reviewed\n');
      expect(linkIn(text)).toBe(next.outputs['bundle-url']);
      // The reviewer's commit stays in the branch's history, under this run's.
      expect(s.github.commit(REPO, s.github.branchHead(REPO, BRANCH)!)!.parents).toEqual([reviewed]);
      expectOnePullRequest(s.github, next, { reviewed: true });
    });
  });

  it('a rate-limit wait too long for the timeout ends the step at once, saying what GitHub asked', async () => {
    const { run, github, context } = await withFault([{ kind: 'secondary', operation: 'git.createRef', value: 3600 }], { long: true });
    expect(run.code).toBe(1);
    // At once: the refused write was the last call, never tried again after a wait.
    expect(github.requests.at(-1)).toMatchObject({ method: 'POST', path: '/repos/acme/deploy/git/refs', status: 403 });
    expect(github.requests.filter((r) => r.path.endsWith('/git/refs'))).toHaveLength(1);
    expect(run.log).toMatch(/GitHub asked to wait for its secondary rate limit before POST \/repos\/acme\/deploy\/git\/refs could go on \(1h 00m\), but only .* of the step's timeout \(2m 00s\) is left/);
    expectSound(github, run, context);
  });
});

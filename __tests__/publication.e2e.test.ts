// On a push, the export holds the docs that push published, never the version before it. The platform emulator deploys one deployment at a time, each publishing the
// branch head as it stands when it starts, and each export holds what was published when it began
// (its home page names the commit, so the downloaded bundle says which docs it holds).
//
// The real publish action runs in this process (in-process.ts), so a test can push while it waits;
// the README's push workflow runs it through dist/index.js (readme-workflows.e2e).
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeSha } from '../emulator/deployments.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { useEmulators } from './emulators.ts';
import { runInProcess, startInProcess } from './in-process.ts';
import { offContract } from './contract.ts';

const BRANCH = 'docs';
let platform: PlatformEmulator;
let workspace: string;
/** The docs repository's GitHub, for the compare; @actions/github reads its URL once, when loaded. */
const { github, publish } = useEmulators({ platform: false });

beforeEach(async () => {
  // Deployments and exports of a fraction of a second, polled on a short beat: what matters here is
  // the order of pushes, deployments and exports, which the emulator keeps at any length.
  platform = await startPlatformEmulator({ profile: { queuedMs: 50, runMs: 150 }, deployments: { branch: BRANCH, deployMs: 250 } });
  workspace = mkdtempSync(join(tmpdir(), 'publication-'));
});
afterEach(async () => {
  await platform.close();
  rmSync(workspace, { recursive: true, force: true });
});

/** The push event of a run: the commit and branch the workflow was triggered by. */
const pushEnv = (sha: string, branch = BRANCH) => ({ GITHUB_EVENT_NAME: 'push', GITHUB_SHA: sha, GITHUB_REF: `refs/heads/${branch}`, GITHUB_WORKSPACE: workspace });
const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': DEFAULT_API_KEY,
  'api-url': platform.url,
  domain: 'docs.example.com',
  'project-id': 'proj_123',
  'download-path': 'site',
  timeout: '30s',
  ...extra
});
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}
const routeCalls = (route: string) => platform.requests.filter((r) => r.route === route).length;
const exportedCommit = () => /Published from commit ([0-9a-f]{40})/.exec(readFileSync(join(workspace, 'site', 'index.html'), 'utf8'))?.[1];

describe('publish on a push: wait for the platform to publish, then export', () => {
  it('a deployment still running when the run starts: the export holds the pushed commit', async () => {
    const old = platform.deployments.published().sha;
    const sha = fakeSha('push 1');
    platform.deployments.push(BRANCH, sha);
    const run = await runInProcess(publish, inputs(), pushEnv(sha));
    expect(run.code).toBe(0);
    expect(exportedCommit()).toBe(sha);
    expect(exportedCommit()).not.toBe(old);
    // The summary names the docs commit the export holds (no docs-commit output since issue 41).
    expect(run.summary).toContain(`<code>${sha.slice(0, 12)}</code> from docs, published before the export started`);
    expect(run.log).toContain(`Waiting for the platform to publish ${sha.slice(0, 7)} from docs before exporting`);
    expect(run.log).toMatch(new RegExp(`Bundle ready: \\d+ pages, link valid until .*, holding ${sha.slice(0, 7)} from docs\\.`));
    expect(run.summary).toContain(`<th>Docs commit</th><td><code>${sha.slice(0, 12)}</code> from docs`);
    // One line per change of state, not one per poll.
    const lines = run.log.split('\n').filter((line) => line.startsWith('deployment '));
    expect(new Set(lines).size).toBe(lines.length);
    expect(routeCalls('deploy')).toBe(1);
  });

  it('a deployment that fails: no export, the platform summary and log lines shown, no pull request', async () => {
    github.createRepo('acme/deploy', { 'deploy/values.yaml': 'staticExport:\n  enabled: false\n' });
    platform.deployments.arm('failure');
    const sha = fakeSha('broken push');
    platform.deployments.push(BRANCH, sha);
    const run = await runInProcess(
      publish,
      inputs({ 'config-path': 'deploy/values.yaml', 'github-token': 'ghs_emulator_token', 'download-path': '' }),
      { ...pushEnv(sha), GITHUB_REPOSITORY: 'acme/deploy' }
    );
    expect(run.code).toBe(1);
    expect(run.log).toContain(`::error::The platform's deployment of ${sha.slice(0, 7)} from docs failed: Build failed: 1 broken link. Nothing was exported`);
    expect(run.log).toContain('  Error: broken link /guides/missing in guides/setup.mdx');
    expect(run.summary).toContain("<h3>The deployment's last log lines</h3>");
    expect(run.summary).toContain('Build failed');
    expect(run.summary).toContain('No configuration was changed');
    // The summary is where it is read, so it does not send the reader to the summary.
    expect(run.summary).toContain("Fix what the deployment's last log lines (below) name, then push again.");
    expect(run.summary).not.toContain('see the job summary');
    expect(routeCalls('start')).toBe(0);
    expect(github.pulls('acme/deploy')).toHaveLength(0);
  });

  it('a push to a branch the platform does not deploy: told plainly, nothing exported', async () => {
    const sha = fakeSha('feature push');
    platform.deployments.push('feature', sha);
    const run = await runInProcess(publish, inputs(), pushEnv(sha, 'feature'));
    expect(run.code).toBe(1);
    expect(run.log).toContain('::error::This run is for a push to feature, but the platform deploys docs');
    expect(routeCalls('start')).toBe(0);
  });

  it('another commit deployed meanwhile, and no token to compare: exported, with no claim that it is newer', async () => {
    // Deployments of 1 s: the second push lands while the first still deploys, since the test pushes it
    // as soon as the run (in this process) logs its wait, before the run's next request.
    await platform.close();
    platform = await startPlatformEmulator({ profile: { queuedMs: 50, runMs: 150 }, deployments: { branch: BRANCH, deployMs: 1000 } });
    const mine = fakeSha('mine');
    platform.deployments.push(BRANCH, mine);
    const action = startInProcess(publish, inputs(), pushEnv(mine));
    await action.waitFor('Waiting for the platform to publish');
    const theirs = fakeSha('theirs');
    platform.deployments.push(BRANCH, theirs);
    const run = await action.done;
    expect(run.code).toBe(0);
    expect(exportedCommit()).toBe(theirs);
    expect(run.summary).toContain(`<code>${theirs.slice(0, 12)}</code> from docs, published before the export started`);
    // Without a token nothing was checked, so nothing is claimed: it could as well be older.
    expect(run.log).toContain(`The platform published ${theirs.slice(0, 7)}, not this run's ${mine.slice(0, 7)}, and the run could not ask GitHub whether it includes this push (no github-token is at hand). Exporting what is published.`);
    expect(run.log).not.toMatch(/newer|includes this push\./);
  });

  it.each([
    ['a scheduled run', () => ({ GITHUB_EVENT_NAME: 'schedule', GITHUB_WORKSPACE: workspace }), {}],
    ['a manual run', () => ({ GITHUB_EVENT_NAME: 'workflow_dispatch', GITHUB_WORKSPACE: workspace }), {}],
    ['a push with wait-for-deployment: false', () => pushEnv(fakeSha('x')), { 'wait-for-deployment': 'false', 'project-id': '' }]
  ])('%s does not wait and sends no deployment request', async (_name, env, extra) => {
    const run = await runInProcess(publish, inputs(extra), env());
    expect(run.code).toBe(0);
    expect(routeCalls('deploy') + routeCalls('deploy-status')).toBe(0);
    expect(run.summary).not.toContain('published before the export started');
  });

  it.each(['502-taken', 'drop-taken'] as const)('a deployment trigger whose answer was lost (%s) is not sent again: one deployment queued, a clear error, nothing exported', async (kind) => {
    platform.addFault({ route: 'deploy', kind });
    const sha = fakeSha(`push ${kind}`);
    platform.deployments.push(BRANCH, sha);
    const run = await runInProcess(publish, inputs(), pushEnv(sha));
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/::error::Queuing a deployment of project proj_123 got no clear answer: POST \/v1\/project\/update\/proj_123 .*The platform may have queued it, so it was not sent again .*Nothing was exported\. Re-run/);
    expect(routeCalls('deploy')).toBe(1);
    expect(platform.deployments.triggered()).toBe(1);
    expect(routeCalls('start')).toBe(0);
  });

  it('a deployment trigger the platform surely did not take (503) is sent again, and the run goes on', async () => {
    platform.addFault({ route: 'deploy', kind: '503' });
    const sha = fakeSha('push 503');
    platform.deployments.push(BRANCH, sha);
    const run = await runInProcess(publish, inputs(), pushEnv(sha));
    expect(run.code).toBe(0);
    expect(routeCalls('deploy')).toBe(2);
    expect(platform.deployments.triggered()).toBe(1);
    expect(exportedCommit()).toBe(sha);
  });

  it('a renewal on a push (job-id) exports nothing new, so it does not wait', async () => {
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const run = await runInProcess(publish, inputs({ 'job-id': job, 'download-path': '' }), pushEnv(fakeSha('y')));
    expect(run.code).toBe(0);
    expect(routeCalls('deploy')).toBe(0);
  });

  it('an unknown status word keeps the wait going', async () => {
    // A status word the description's enum does not list, as real servers send (shared/CONTEXT.md).
    offContract(/update-status.*\/status must be equal to one of the allowed values/);
    platform.deployments.arm('unknown-status');
    const sha = fakeSha('odd words');
    platform.deployments.push(BRANCH, sha);
    const run = await runInProcess(publish, inputs(), pushEnv(sha));
    expect(run.code).toBe(0);
    expect(run.log).toContain('deployment building');
    expect(exportedCommit()).toBe(sha);
  });

  it('a success without a commit: a clear error naming the field, nothing exported', async () => {
    platform.deployments.arm('missing-commit');
    const sha = fakeSha('no commit');
    platform.deployments.push(BRANCH, sha);
    const run = await runInProcess(publish, inputs(), pushEnv(sha));
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/::error::The platform's deployment dep_\w+ succeeded but its answer has no `commit` field/);
    expect(routeCalls('start')).toBe(0);
  });

  it('a push without project-id fails before any request, saying what to add', async () => {
    const run = await runInProcess(publish, inputs({ 'project-id': '' }), pushEnv(fakeSha('z')));
    expect(run.code).toBe(1);
    expect(run.log).toContain("::error::Input 'project-id': is needed to wait for the platform to publish this push before exporting");
    expect(run.log).toContain('set wait-for-deployment: false');
    expect(platform.requests).toHaveLength(0);
  });

  it('a deployment longer than the timeout ends the step by its timeout, with nothing exported', async () => {
    await platform.close();
    platform = await startPlatformEmulator({ deployments: { branch: BRANCH, deployMs: 60_000 } });
    const sha = fakeSha('slow');
    platform.deployments.push(BRANCH, sha);
    const run = await runInProcess(publish, inputs({ timeout: '2s' }), pushEnv(sha));
    expect(run.code).toBe(1);
    // Ended by its own 2 s timeout, not by the 60 s deployment: that one has not published yet.
    expect(platform.deployments.published().sha).not.toBe(sha);
    expect(run.log).toContain("::error::The platform had not published the push within the step's timeout");
    expect(routeCalls('start')).toBe(0);
  });
});

describe('random deployments: whatever ends well exports the pushed commit or newer', () => {
  it('holds for seeded random deployment lengths, pushes mid-wait, failures, wrong branches and faults', async () => {
    const seed0 = Number(process.env.TEST_SEED ?? 12);
    let seed = seed0;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 12; i++) {
      await platform.close();
      platform = await startPlatformEmulator({ profile: { queuedMs: 0, runMs: 100 }, deployments: { branch: BRANCH, deployMs: 50 + Math.floor(rand() * 250) } });
      rmSync(join(workspace, 'site'), { recursive: true, force: true });
      const pushedTo = rand() < 0.15 ? 'feature' : BRANCH;
      const mine = fakeSha(`case ${seed0}/${i}`);
      // Earlier pushes, still deploying when the run starts.
      for (let k = Math.floor(rand() * 3); k > 0; k--) platform.deployments.push(BRANCH, fakeSha(`earlier ${i}/${k}`));
      platform.deployments.push(pushedTo, mine);
      const fails = rand() < 0.2;
      if (fails) platform.deployments.arm('failure');
      if (rand() < 0.3) platform.addFault({ route: 'deploy-status', kind: '503' });
      const later: string[] = [];
      const action = startInProcess(publish, inputs(), pushEnv(mine, pushedTo));
      const pushesMidWait = Math.floor(rand() * 3);
      for (let k = 0; k < pushesMidWait; k++) {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(rand() * 200)));
        const sha = fakeSha(`later ${i}/${k}`);
        later.push(sha);
        platform.deployments.push(BRANCH, sha);
      }
      const run = await action.done;
      const context = { seed: seed0, i, code: run.code, pushedTo, fails };
      if (run.code === 0) {
        // Never older than this run's commit: the pushed one, or one pushed after it.
        const order = [mine, ...later];
        const exported = order.indexOf(exportedCommit() ?? '');
        expect({ ...context, holds: exported >= 0 }).toEqual({ ...context, holds: true });
        // The summary's docs commit is what the run's deployment published. A later push that the platform
        // publishes in the moments before the export starts is in the export instead, so the
        // export holds docs-commit or a newer push, never an older one (the API cannot list the
        // deployments the platform's GitHub app started, so the run cannot see that push).
        const reported = order.findIndex((sha) => run.summary.includes(`<code>${sha.slice(0, 12)}</code> from docs, published before the export started`));
        expect({ ...context, reported: reported >= 0 && reported <= exported }).toEqual({ ...context, reported: true });
      } else {
        // A run that ends in error exported nothing.
        expect({ ...context, starts: routeCalls('start') }).toEqual({ ...context, starts: 0 });
      }
      if (pushedTo !== BRANCH || fails) expect({ ...context, ok: run.code === 0 }).toEqual({ ...context, ok: false });
    }
    // Runs one after another: a busy machine needs more than the default minute for all of them.
  }, 180_000);
});

describe("the published commit compared with the pushed one through GitHub's compare", () => {
  const DOCS_REPO = 'acme/docs';
  beforeEach(() => {
    github.requests.length = 0;
    github.createRepo(DOCS_REPO, { 'index.mdx': '# Docs\n' }, BRANCH);
  });
  const commit = (message: string, branch = BRANCH) => github.commitOnBranch(DOCS_REPO, branch, { 'index.mdx': `# ${message}\n` }, message);
  const withGitHub = (sha: string) => ({ ...pushEnv(sha), GITHUB_API_URL: github.url, GITHUB_REPOSITORY: DOCS_REPO });
  const compares = () => github.requests.filter((r) => r.path.includes('/compare/')).length;

  it('ahead: another push landed meanwhile, and the log says so as checked', async () => {
    const mine = commit('mine');
    platform.deployments.push(BRANCH, mine);
    // The next push reaches the platform before this run's deployment starts, whatever the
    // machine's speed: the run's deployment publishes it.
    const theirs = commit('theirs');
    platform.deployments.push(BRANCH, theirs);
    const run = await runInProcess(publish, inputs({ 'github-token': 'ghs_emulator_token' }), withGitHub(mine));
    expect(run.code).toBe(0);
    expect(exportedCommit()).toBe(theirs);
    expect(run.log).toContain(`The platform published ${theirs.slice(0, 7)}, 1 commit ahead of this run's ${mine.slice(0, 7)} (GitHub's compare): another push landed meanwhile. Exporting that, which includes this push.`);
    expect(compares()).toBe(1);
  });

  it('behind: the next deployment is waited for once, then the run fails clearly, exporting nothing', async () => {
    const older = commit('older');
    const mine = commit('mine');
    // The platform never saw this run's push: it publishes the older commit each time.
    platform.deployments.push(BRANCH, older);
    const run = await runInProcess(publish, inputs({ 'github-token': 'ghs_emulator_token' }), withGitHub(mine));
    expect(run.code).toBe(1);
    expect(run.log).toContain(`The platform published ${older.slice(0, 7)}, 1 commit behind this run's ${mine.slice(0, 7)} (GitHub's compare): it had not seen this push yet. Queuing the next deployment and waiting for it.`);
    expect(run.log).toMatch(new RegExp(`::error::The platform published ${older.slice(0, 7)}, 1 commit behind this run's ${mine.slice(0, 7)} \\(GitHub's compare\\), after 2 deployments: it has not seen this push\\. Nothing was exported`));
    expect(run.log).not.toMatch(/newer/);
    expect(routeCalls('deploy')).toBe(2);
    expect(routeCalls('start')).toBe(0);
  });

  it('behind, then caught up: the queued deployment publishes the push, and that is exported', async () => {
    const older = commit('older');
    const mine = commit('mine');
    platform.deployments.push(BRANCH, older);
    await until(() => platform.deployments.published().sha === older);
    // The platform hears of this push late: just after the run's own deployment started on the
    // older commit. The push lands once the run has been told its deployment is queued, on a later
    // millisecond of the emulator's clock than the deployment's start (a push in that same
    // millisecond would be in it), long before that deployment ends, however slow the run is.
    const action = startInProcess(publish, inputs({ 'github-token': 'ghs_emulator_token' }), withGitHub(mine));
    await action.waitFor('Waiting for the platform to publish');
    const queued = Date.now();
    await until(() => Date.now() > queued);
    platform.deployments.push(BRANCH, mine);
    const run = await action.done;
    expect(run.log).toContain(`The platform published ${older.slice(0, 7)}, 1 commit behind this run's ${mine.slice(0, 7)} (GitHub's compare): it had not seen this push yet. Queuing the next deployment and waiting for it.`);
    expect(run.code).toBe(0);
    expect(exportedCommit()).toBe(mine);
    expect(run.log).not.toMatch(/newer/);
    // The run's own deployment of the push, then the one queued after it saw the older commit.
    expect(routeCalls('deploy')).toBe(2);
    expect(routeCalls('start')).toBe(1);
  });

  it('diverged: the published commit does not contain the push; nothing exported', async () => {
    const mine = commit('mine', 'feature');
    const theirs = commit('force-pushed');
    platform.deployments.push(BRANCH, theirs);
    const run = await runInProcess(publish, inputs({ 'github-token': 'ghs_emulator_token' }), withGitHub(mine));
    expect(run.code).toBe(1);
    expect(run.log).toContain(`::error::The platform published ${theirs.slice(0, 7)}, which does not contain this run's ${mine.slice(0, 7)} (GitHub's compare: 1 commit ahead, 1 commit behind;`);
    expect(routeCalls('start')).toBe(0);
  });
});

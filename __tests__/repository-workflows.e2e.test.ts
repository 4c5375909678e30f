// This repository's own workflows, run as the runner would (emulator/workflow.ts): every job of
// .github/workflows/*.yml that uses one of the actions locally, once for each event the workflow is
// triggered by. `run:` steps go to bash, `uses: ./…` steps run dist/ as a separate process, outputs
// pass between steps, and the job is green only when every step is. The GitHub emulator stands for this
// repository: it holds the dry-run fixtures (.github/dry-run/values.yaml, hosted-values.yaml) on its
// default branch, and the workflow's token there may do what the job's `permissions:` grant, so a step
// that writes would fail.
// Needs `npm run build` first (dist/ is what the steps run).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';
import { createServer } from 'node:net';
import { fakeSha } from '../emulator/deployments.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { ownActionFile, parseWorkflow, runJob, type StepRun, type WorkflowJob, type WorkflowStep } from '../emulator/workflow.ts';

const DIR = '.github/workflows';
/** This repository, as the runner names it in GITHUB_REPOSITORY. */
const REPOSITORY = 'acme/static-export-action';
const TOKEN = 'ghs_emulator_token';
/** The values file the dry-run job renews, read from this repository by renew/. */
const FIXTURE = '.github/dry-run/values.yaml';
/** The values file that already holds the hosted URL, read from this repository by host/ in the same job. */
const HOSTED_FIXTURE = '.github/dry-run/hosted-values.yaml';

/** What a fresh runner does that this machine has done already: the checkout, Node, the install. */
function prepared(step: WorkflowStep): string | undefined {
  if (step.uses?.startsWith('actions/checkout@')) return 'the test runs in the checkout';
  if (step.uses?.startsWith('actions/setup-node@')) return 'npm run puts Node 24 on PATH';
  if (step.run?.trim() === 'npm ci') return 'node_modules is installed (and in use by the test)';
  return undefined;
}

/** What the runner sets for each event, on this repository. */
function eventEnv(event: string): Record<string, string> {
  const sha = fakeSha(`a ${event} of this repository`);
  if (event === 'push') return { GITHUB_EVENT_NAME: 'push', GITHUB_SHA: sha, GITHUB_REF: 'refs/heads/main', GITHUB_REF_NAME: 'main' };
  if (event === 'pull_request') return { GITHUB_EVENT_NAME: 'pull_request', GITHUB_SHA: sha, GITHUB_REF: 'refs/pull/7/merge', GITHUB_REF_NAME: '7/merge' };
  if (event === 'schedule' || event === 'workflow_dispatch') return { GITHUB_EVENT_NAME: event, GITHUB_SHA: sha, GITHUB_REF: 'refs/heads/main', GITHUB_REF_NAME: 'main' };
  throw new Error(`the test does not know the event ${event}: add what the runner sets for it`);
}

/** A port free a moment ago, for a port the workflow fixes (4010 may be taken on a shared machine). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const cases = readdirSync(DIR)
  .filter((name) => /\.ya?ml$/.test(name))
  .flatMap((file) => {
    const text = readFileSync(`${DIR}/${file}`, 'utf8');
    const workflow = { ...parseWorkflow(text), permissions: (parse(text) as { permissions?: Record<string, string> }).permissions };
    return Object.entries(workflow.jobs)
      .filter(([, job]) => job.steps.some((step) => ownActionFile(step.uses) !== undefined))
      .flatMap(([name, job]) => workflow.events.map((event) => ({ file, name, job, event, policy: tokenPolicy(workflow, job) })));
  });

let github: GitHubEmulator;
beforeAll(async () => {
  github = await startGitHubEmulator({ token: TOKEN });
});
afterAll(() => github.close());

/**
 * This repository as a job reads it: both fixtures on its default branch. The committed
 * hosted-values.yaml names the port the workflow fixes (BUNDLES_PORT), where the job serves the
 * archive on GitHub; the test serves it on a free port instead (the fixed one may be taken on a shared
 * machine), so the repository's copy names that port. With the fixed one it would hold another URL
 * than the one served, and host/ would propose a change.
 */
function repositoryFiles(bundlesPort: string | undefined): Record<string, string> {
  const hosted = readFileSync(HOSTED_FIXTURE, 'utf8');
  const committedPort = /^\s*bundleUrl: "http:\/\/127\.0\.0\.1:(\d+)\//m.exec(hosted)?.[1];
  if (!committedPort) throw new Error(`${HOSTED_FIXTURE} holds no bundleUrl on 127.0.0.1 with a port`);
  return {
    [FIXTURE]: readFileSync(FIXTURE, 'utf8'),
    [HOSTED_FIXTURE]: bundlesPort === undefined ? hosted : hosted.replace(`http://127.0.0.1:${committedPort}/`, `http://127.0.0.1:${bundlesPort}/`)
  };
}

/**
 * The workflow token's write permissions, as the job (or else the workflow) grants them: a key left
 * out of `permissions:` is none ("all of those that are not specified are set to none":
 * https://docs.github.com/actions/writing-workflows/choosing-what-your-workflow-does/controlling-permissions-for-github_token).
 */
function tokenPolicy(workflow: { permissions?: Record<string, string> }, job: WorkflowJob & { permissions?: Record<string, string> }): { contentsWrite: boolean; pullRequestsWrite: boolean } {
  const granted = job.permissions ?? workflow.permissions;
  if (!granted) return { contentsWrite: true, pullRequestsWrite: true };
  return { contentsWrite: granted.contents === 'write', pullRequestsWrite: granted['pull-requests'] === 'write' };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What a job's own steps must say, beyond passing: by file and job. */
const SAYS: Record<string, (runs: StepRun[], repository: { files: Record<string, string>; bundlesPort?: string }) => void> = {
  'ci.yml:dry-run': (runs, { files, bundlesPort }) => {
    // renew/ read the fixture from this repository and showed the renewal it would propose: a fresh
    // link for the export the fixture's link names, the pull request's text in the summary.
    const renew = runs.find((run) => run.step.uses === './renew')!;
    const jobId = /\/(se_[0-9a-f]{16})\//.exec(readFileSync(FIXTURE, 'utf8'))![1];
    expect(renew.outputs).toMatchObject({ 'job-id': jobId, 'config-changed': 'true', 'pull-request-operation': 'none', merged: 'false' });
    expect(renew.outputs['pull-request-number']).toBeUndefined();
    expect(renew.outputs['bundle-url']).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/bundles/${jobId}/bundle\\.tar\\.gz\\?`));
    expect(renew.log).toContain(`The current link comes from export job ${jobId}: generating a fresh link for it.`);
    expect(renew.log).toContain('Dry run: one setting would change; nothing was written.');
    expect(renew.log.split('\n').filter((line) => line.startsWith('::warning::'))).toEqual([]);
    expect(renew.action!.summary).toContain(`<p><strong>Dry run:</strong> nothing was written. This is the pull request the step would open against <code>${FIXTURE}</code> in ${REPOSITORY}:</p>`);
    expect(renew.action!.summary).toContain('Renews the static export link: the same export, a fresh link.');
    // The step after it checked the same in the shell, as it does on a real runner.
    const check = runs.find((run) => run.step.env?.JOB_ID === '${{ steps.renew.outputs.job-id }}')!;
    expect([check.skipped, check.code]).toEqual([undefined, 0]);

    // host/ read hosted-values.yaml, which holds the URL the job serves the export's archive at: it
    // fetched the URL as a pod would, found the file holding it already, and proposed nothing.
    const host = runs.find((run) => run.step.uses === './host')!;
    const hostedUrl = `http://127.0.0.1:${bundlesPort}/${jobId}/bundle.tar.gz`;
    expect(files[HOSTED_FIXTURE]).toContain(`bundleUrl: "${hostedUrl}"`);
    expect(host.outputs).toMatchObject({ 'bundle-url': hostedUrl, 'expires-at': 'never', 'config-changed': 'false', 'pull-request-operation': 'none' });
    expect(host.outputs['pull-request-number']).toBeUndefined();
    expect(host.outputs['pull-request-url']).toBeUndefined();
    expect(host.outputs['archive-sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(host.log).toContain(`Checking ${hostedUrl} as a pod would fetch it (a GET without credentials)…`);
    expect(host.log).toMatch(new RegExp(`^${escapeRegExp(hostedUrl)} answers 200 to anyone: [\\d.]+ KB of gzip, the same SHA-256 as the kept archive\\.$`, 'm'));
    expect(host.log).toContain(`${HOSTED_FIXTURE} in ${REPOSITORY} on main already holds these values: no pull request needed.`);
    // The export production serves, at the URL the team hosts: no page changes, and no renewal of a link that never expires.
    expect(host.log).toContain(`No page changes: export ${jobId}, the one production serves, at the URL your team hosts.`);
    expect(host.log).not.toMatch(/renews the link/);
    expect(host.action!.summary).toContain(`<tr><th>SHA-256</th><td><code>${host.outputs['archive-sha256']}</code></td></tr>`);
    expect(host.action!.summary).toContain(`<p><code>${HOSTED_FIXTURE}</code> in ${REPOSITORY} on <code>main</code> already holds this link: no pull request needed.</p>`);
    // No merge to come, so no section on what readers see after one.
    expect(host.action!.summary).not.toContain('What readers see after the merge');
    expect(host.log.split('\n').filter((line) => /^::(warning|error)/.test(line))).toEqual([]);
    // The steps around it: the archive served before, and the outputs (the SHA-256 against sha256sum of
    // the served file) checked in the shell after, as on a real runner.
    const serve = runs.find((run) => run.step.name === "Serve the export's archive as the team's storage would")!;
    const hostCheck = runs.find((run) => run.step.env?.SHA256 === '${{ steps.host.outputs.archive-sha256 }}')!;
    expect([serve.skipped, serve.code, hostCheck.skipped, hostCheck.code]).toEqual([undefined, 0, undefined, 0]);

    // Nothing was written to this repository: no branch moved, no pull request, both fixtures as they were.
    expect(github.pushes(REPOSITORY)).toEqual([]);
    expect(github.pulls(REPOSITORY)).toEqual([]);
    expect(github.fileAt(REPOSITORY, 'main', FIXTURE)).toBe(readFileSync(FIXTURE, 'utf8'));
    expect(github.fileAt(REPOSITORY, 'main', HOSTED_FIXTURE)).toBe(files[HOSTED_FIXTURE]);
  }
};

describe("the repository's own workflows", () => {
  it('include at least one job that uses an action of this repository', () => {
    expect(cases.map(({ file, name }) => `${file}:${name}`)).toContain('ci.yml:dry-run');
  });

  it("include the dry-run job that renews this repository's fixture with renew/ and checks the hosted one with host/, reading only", () => {
    const dryRun = cases.find(({ file, name }) => `${file}:${name}` === 'ci.yml:dry-run')!;
    expect(dryRun.job.steps.map((step) => step.uses).filter((uses) => ownActionFile(uses))).toEqual(['./', './renew', './host']);
    expect(dryRun.job.steps.find((step) => step.uses === './renew')!.with).toMatchObject({ 'config-repository': '${{ github.repository }}', 'config-path': FIXTURE, 'dry-run': true });
    // host/ has no dry-run input: it writes nothing because the file it reads holds the URL already.
    const host = dryRun.job.steps.find((step) => step.uses === './host')!;
    expect(host.with).toMatchObject({ 'config-repository': '${{ github.repository }}', 'config-path': HOSTED_FIXTURE, 'bundle-url-template': 'http://127.0.0.1:${{ env.BUNDLES_PORT }}/<job-id>/bundle.tar.gz' });
    // The test serves the archive on a free port; on GitHub it is BUNDLES_PORT, which the committed file must name.
    const jobId = /\/(se_[0-9a-f]{16})\//.exec(readFileSync(FIXTURE, 'utf8'))![1];
    expect(readFileSync(HOSTED_FIXTURE, 'utf8')).toContain(`bundleUrl: "http://127.0.0.1:${String(dryRun.job.env!.BUNDLES_PORT)}/${jobId}/bundle.tar.gz"`);
    expect(dryRun.policy).toEqual({ contentsWrite: false, pullRequestsWrite: false });
  });

  it.each(cases.map((c) => [c.file, c.name, c.event, c] as const))('%s job %s on %s: every step passes, and says what it should', async (file, name, event, { job, policy }) => {
    github.setPolicy(policy);
    // Ports the workflow fixes (4010, 4012) may be taken on a shared machine: free ones instead.
    const jobEnv: Record<string, string> = {};
    for (const name of ['EMULATOR_PORT', 'BUNDLES_PORT']) if (job.env && name in job.env) jobEnv[name] = String(await freePort());
    const files = repositoryFiles(jobEnv.BUNDLES_PORT);
    github.createRepo(REPOSITORY, files);
    const runs = await runJob(job, {
      env: { ...eventEnv(event), GITHUB_REPOSITORY: REPOSITORY, GITHUB_API_URL: github.url },
      known: { 'github.token': TOKEN },
      prepared,
      jobEnv
    });
    const failed = runs.filter((run) => !run.skipped && run.code !== 0).map((run) => ({ step: run.step.name ?? run.step.uses ?? run.step.run, code: run.code, log: run.log }));
    expect(failed).toEqual([]);
    // Each of the repository's actions in the job ran, not just the shell around it.
    const ran = runs.filter((run) => run.action);
    expect(ran.length).toBe(job.steps.filter((step) => ownActionFile(step.uses)).length);
    for (const run of ran) expect(run.action!.log.split('\n').filter((line) => line.startsWith('::error::'))).toEqual([]);
    SAYS[`${file}:${name}`]?.(runs, { files, bundlesPort: jobEnv.BUNDLES_PORT });
  }, 120_000);
});

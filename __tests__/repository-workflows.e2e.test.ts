// This repository's own workflows, run as the runner would (emulator/workflow.ts): every job of
// .github/workflows/*.yml that uses one of the actions locally, once for each event the workflow is
// triggered by. `run:` steps go to bash, `uses: ./…` steps run dist/ as a separate process, outputs
// pass between steps, and the job is green only when every step is. The GitHub emulator stands for this
// repository: it holds the dry-run fixture (.github/dry-run/values.yaml) on its default branch, and the
// workflow's token there may do what the job's `permissions:` grant, so a step that writes would fail.
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
  github.createRepo(REPOSITORY, { [FIXTURE]: readFileSync(FIXTURE, 'utf8') });
});
afterAll(() => github.close());

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

/** What a job's own steps must say, beyond passing: by file and job. */
const SAYS: Record<string, (runs: StepRun[]) => void> = {
  'ci.yml:dry-run': (runs) => {
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
    // Nothing was written to this repository: no branch moved, no pull request, the fixture as committed.
    expect(github.pushes(REPOSITORY)).toEqual([]);
    expect(github.pulls(REPOSITORY)).toEqual([]);
    expect(github.fileAt(REPOSITORY, 'main', FIXTURE)).toBe(readFileSync(FIXTURE, 'utf8'));
  }
};

describe("the repository's own workflows", () => {
  it('include at least one job that uses an action of this repository', () => {
    expect(cases.map(({ file, name }) => `${file}:${name}`)).toContain('ci.yml:dry-run');
  });

  it('include the dry-run job that renews this repository\'s fixture with renew/, reading only', () => {
    const dryRun = cases.find(({ file, name }) => `${file}:${name}` === 'ci.yml:dry-run')!;
    expect(dryRun.job.steps.map((step) => step.uses).filter((uses) => ownActionFile(uses))).toEqual(['./', './renew']);
    expect(dryRun.job.steps.find((step) => step.uses === './renew')!.with).toMatchObject({ 'config-repository': '${{ github.repository }}', 'config-path': FIXTURE, 'dry-run': true });
    expect(dryRun.policy).toEqual({ contentsWrite: false, pullRequestsWrite: false });
  });

  it.each(cases.map((c) => [c.file, c.name, c.event, c] as const))('%s job %s on %s: every step passes, and says what it should', async (file, name, event, { job, policy }) => {
    github.setPolicy(policy);
    const runs = await runJob(job, {
      env: { ...eventEnv(event), GITHUB_REPOSITORY: REPOSITORY, GITHUB_API_URL: github.url },
      known: { 'github.token': TOKEN },
      prepared,
      jobEnv: job.env && 'EMULATOR_PORT' in job.env ? { EMULATOR_PORT: String(await freePort()) } : undefined
    });
    const failed = runs.filter((run) => !run.skipped && run.code !== 0).map((run) => ({ step: run.step.name ?? run.step.uses ?? run.step.run, code: run.code, log: run.log }));
    expect(failed).toEqual([]);
    // Each of the repository's actions in the job ran, not just the shell around it.
    const ran = runs.filter((run) => run.action);
    expect(ran.length).toBe(job.steps.filter((step) => ownActionFile(step.uses)).length);
    for (const run of ran) expect(run.action!.log.split('\n').filter((line) => line.startsWith('::error::'))).toEqual([]);
    SAYS[`${file}:${name}`]?.(runs);
  }, 120_000);
});

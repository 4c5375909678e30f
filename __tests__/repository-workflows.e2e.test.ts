// This repository's own workflows, run as the runner would (emulator/workflow.ts): every job of
// .github/workflows/*.yml that uses one of the actions locally, once for each event the workflow is
// triggered by. `run:` steps go to bash, `uses: ./…` steps run dist/ as a separate process, outputs
// pass between steps, and the job is green only when every step is.
// Needs `npm run build` first (dist/ is what the steps run).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fakeSha } from '../emulator/deployments.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { ownActionFile, parseWorkflow, runJob, type WorkflowStep } from '../emulator/workflow.ts';

const DIR = '.github/workflows';

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
    const workflow = parseWorkflow(readFileSync(`${DIR}/${file}`, 'utf8'));
    return Object.entries(workflow.jobs)
      .filter(([, job]) => job.steps.some((step) => ownActionFile(step.uses) !== undefined))
      .flatMap(([name, job]) => workflow.events.map((event) => ({ file, name, job, event })));
  });

let github: GitHubEmulator;
beforeAll(async () => {
  github = await startGitHubEmulator();
});
afterAll(() => github.close());

describe("the repository's own workflows", () => {
  it('include at least one job that uses an action of this repository', () => {
    expect(cases.map(({ file, name }) => `${file}:${name}`)).toContain('ci.yml:dry-run');
  });

  it.each(cases.map((c) => [c.file, c.name, c.event, c] as const))('%s job %s on %s: every step passes', async (_file, _name, event, { job }) => {
    const runs = await runJob(job, {
      env: { ...eventEnv(event), GITHUB_REPOSITORY: 'acme/static-export-action', GITHUB_API_URL: github.url },
      known: { 'github.token': 'ghs_emulator_token' },
      prepared,
      jobEnv: job.env && 'EMULATOR_PORT' in job.env ? { EMULATOR_PORT: String(await freePort()) } : undefined
    });
    const failed = runs.filter((run) => !run.skipped && run.code !== 0).map((run) => ({ step: run.step.name ?? run.step.uses ?? run.step.run, code: run.code, log: run.log }));
    expect(failed).toEqual([]);
    // Each of the repository's actions in the job ran, not just the shell around it.
    const ran = runs.filter((run) => run.action);
    expect(ran.length).toBe(job.steps.filter((step) => ownActionFile(step.uses)).length);
    for (const run of ran) expect(run.action!.log.split('\n').filter((line) => line.startsWith('::error::'))).toEqual([]);
  }, 120_000);
});

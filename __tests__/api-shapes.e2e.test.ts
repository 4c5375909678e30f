// The day the platform moves static export to its next API (issue 43): the README's three workflows,
// as written, through dist/index.js, against an emulator that speaks today's API, the next one
// (project-scoped routes, no bundle call, export.zip; openapi/platform/static-export-next.json), or both at once; and
// the next API's own answers (409, 429), a version it no longer takes, and a missing project-id, each
// read as a person in a hurry reads the error.
import { afterAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeSha } from '../emulator/deployments.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import type { ApiShape } from '../emulator/platform-state.ts';
import { type ActionRun, runAction, startAction } from '../emulator/runner.ts';
import { readSetting } from '../src/values/values-file.ts';
import { type WorkflowStep, actionInputs, fillExpressions, workflowInMarkdown } from '../emulator/workflow.ts';
import { errorLine, errors, useEmulators, useTempDir } from './emulators.ts';

const DEPLOY_REPO = 'acme/deploy';
const PATH = 'deploy/values.yaml';
const TOKEN = 'ghs_emulator_token';
const PROJECT = 'proj_docs';
const PR_BRANCH = 'static-export/deploy-values.yaml';

/** The steps of this repository's action in the README workflow named `name`, in order. */
const readmeSteps = (name: string): WorkflowStep[] =>
  Object.values(workflowInMarkdown(readFileSync('README.md', 'utf8'), name).jobs)
    .flatMap((job) => job.steps)
    .filter((step) => step.uses?.startsWith('<owner>/<repo>'));

/** What each setting of the emulator makes the action speak: today's routes wherever they answer. */
/**
 * Ends an export job now, as completed: a job another run started stays at work until the action
 * under test has met it (its log shows the 409), however long a Node start takes on a loaded machine.
 */
function endJob(platform: PlatformEmulator, jobId: string): void {
  platform.exportJobs.get(jobId)!.plan.finishMs = 0;
}

const EXPECTED: Record<ApiShape, { jobId: RegExp; archive: string; contentType: string }> = {
  today: { jobId: /^se_[0-9a-f]{16}$/, archive: 'bundle.tar.gz', contentType: 'application/gzip' },
  next: { jobId: /^[0-9a-f]{24}$/, archive: 'export.zip', contentType: 'application/zip' },
  both: { jobId: /^se_[0-9a-f]{16}$/, archive: 'bundle.tar.gz', contentType: 'application/gzip' }
};

describe.each(['today', 'next', 'both'] as const)("the README's workflows, as written, on the platform's %s static export API", (shape) => {
  const { platform, github, storage: files } = useEmulators({ platform: { apiShape: shape, profile: { queuedMs: 50, runMs: 300 }, deployments: { branch: 'docs', deployMs: 300 } }, storage: true });
  const workspace = useTempDir(`api-shapes-${shape}-`, { each: false });
  const expected = EXPECTED[shape];

  async function runStep(step: WorkflowStep, event: Record<string, string>, earlier: Record<string, ActionRun> = {}): Promise<ActionRun> {
    const known: Record<string, string> = { 'secrets.DOCS_ADMIN_KEY': DEFAULT_API_KEY, 'vars.DOCS_PROJECT_ID': PROJECT, 'secrets.DEPLOY_REPO_TOKEN': TOKEN, 'github.token': TOKEN };
    const fill = (value: string) =>
      fillExpressions(value, (expression) => {
        const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
        return output ? (earlier[output[1]!]?.outputs[output[2]!] ?? '') : known[expression];
      });
    const { bundle, inputs } = actionInputs(step, fill);
    if (inputs['bundle-url-template']) inputs['bundle-url-template'] = inputs['bundle-url-template'].replace(/^https:\/\/[^/]+/, files.url);
    return runAction(bundle, { ...inputs, 'api-url': platform.url }, { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: DEPLOY_REPO, GITHUB_WORKSPACE: workspace(), ...event });
  }

  function pushEvent(message: string): Record<string, string> {
    const sha = fakeSha(message);
    platform.deployments.push('docs', sha);
    return { GITHUB_EVENT_NAME: 'push', GITHUB_SHA: sha, GITHUB_REF: 'refs/heads/docs' };
  }

  const proposed = (name: string) => readSetting(PATH, github.fileAt(DEPLOY_REPO, PR_BRANCH, PATH)!, 'staticExport', name) as string;
  const starts = () => platform.requests.filter((request) => request.route === 'start' && request.status === 202);
  const requests = () => platform.requests.map((request) => `${request.method} ${request.path} ${request.status}`);

  it('publishes on a push, renews nightly with no new export, and proposes the hosted URL', async () => {
    // Production serves an export of the API the platform speaks (on the day both answer, already the next one's).
    const deployedJob = platform.seedExportJob({ domain: 'docs.example.com', shape: shape === 'today' ? 'jobs' : 'project' });
    platform.linkTtlSeconds = 100 * 3600;
    github.createRepo(DEPLOY_REPO, { [PATH]: `staticExport:\n  enabled: true\n  bundleUrl: "${platform.linkFor(deployedJob)}"\n` });
    platform.linkTtlSeconds = 3600; // this week's links live an hour, so the nightly renewal finds them due

    // On a push: export, and propose the new link.
    const [publish] = readmeSteps('Publish docs');
    const pushed = await runStep(publish!, pushEvent('docs: new page'));
    expect(errors(pushed)).toEqual([]);
    expect(pushed.code).toBe(0);
    const jobId = pushed.outputs['job-id']!;
    expect(jobId).toMatch(expected.jobId);
    expect(proposed('bundleUrl')).toContain(`/${jobId}/${expected.archive}?`);
    // The next API has no bundle call: the completed status carried the link.
    if (shape === 'next') {
      expect(platform.requests.map((request) => `${request.method} ${request.path} ${request.status}`)).toEqual(
        expect.arrayContaining(['POST /v1/static-export/jobs 404', `POST /v1/static-export/${PROJECT}/jobs 202`])
      );
      expect(pushed.log).toContain('the platform has moved static export to its project-scoped routes');
    }
    expect(platform.requests.filter((request) => request.path.endsWith('/bundle') && shape === 'next')).toEqual([]);
    const number = pushed.outputs['pull-request-number'];

    // The nightly renewal: the same job, a fresh link, no new export; on the next API by GETting the job again.
    platform.requests.length = 0;
    const [renew] = readmeSteps('Renew docs link');
    const renewed = await runStep(renew!, { GITHUB_EVENT_NAME: 'schedule' });
    expect(errors(renewed)).toEqual([]);
    expect(renewed.code).toBe(0);
    expect(renewed.outputs['job-id']).toBe(jobId);
    expect(renewed.outputs['pull-request-number']).toBe(number);
    expect(starts()).toEqual([]);
    expect(proposed('bundleUrl')).toContain(`/${jobId}/${expected.archive}?`);
    // The fresh link came from the job itself: a bundle call today, the job's status again on the next API.
    expect(requests()).toContain(shape === 'next' ? `GET /v1/static-export/${PROJECT}/jobs/${jobId} 200` : `POST /v1/static-export/jobs/${jobId}/bundle 200`);
    if (shape === 'next') {
      // Straight to the job's own route (its id says which API made it): no probe of the old routes.
      expect(platform.requests.filter((request) => request.path.startsWith('/v1/static-export/jobs'))).toEqual([]);
      expect(platform.requests.some((request) => request.path === `/v1/static-export/${PROJECT}/jobs/${jobId}`)).toBe(true);
    }

    // The hosted workflow: keep the archive as the platform names it, upload it, propose its URL.
    const [exporting, proposing] = readmeSteps('Docs bundle, hosted in our bucket');
    const exported = await runStep(exporting!, pushEvent('docs: fix a typo'));
    expect(errors(exported)).toEqual([]);
    expect(exported.code).toBe(0);
    expect(exported.outputs).toMatchObject({ 'archive-name': expected.archive, 'archive-content-type': expected.contentType });
    expect(exported.outputs['archive-path']).toBe(join(workspace(), 'out', expected.archive));
    const hostedJob = exported.outputs['job-id']!;
    files.files.set(`/${hostedJob}/${expected.archive}`, readFileSync(exported.outputs['archive-path']!));
    const hosted = await runStep(proposing!, pushEvent('docs: fix a typo'), { export: exported });
    expect(errors(hosted)).toEqual([]);
    expect(hosted.code).toBe(0);
    expect(proposed('bundleUrl')).toBe(`${files.url}/${hostedJob}/${expected.archive}`);

    // The next night: a hosted URL is never renewed, and nothing reaches the platform.
    platform.requests.length = 0;
    const night = await runStep(renew!, { GITHUB_EVENT_NAME: 'schedule' });
    expect(night.code).toBe(0);
    expect(night.outputs).toMatchObject({ skipped: 'true', 'expires-at': 'never' });
    expect(platform.requests).toEqual([]);
  }, 120_000);
});

describe("the next API's own answers, through dist/", () => {
  const { platform } = useEmulators({ platform: { apiShape: 'next', profile: { queuedMs: 50, runMs: 300 } }, github: false });
  const workspace = useTempDir('api-shapes-answers-', { each: false });

  /** An export of the whole site without a values file: the answers are the platform's alone. */
  const startExport = (inputs: Record<string, string> = {}) =>
    startAction('dist/index.js', { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'project-id': PROJECT, ...inputs }, { GITHUB_WORKSPACE: workspace() });
  const exportDocs = (inputs: Record<string, string> = {}) => startExport(inputs).done;
  const requests = () => platform.requests.map((request) => `${request.method} ${request.path} ${request.status}`);

  it('a missing project-id is refused before any export request, saying where to find it', async () => {
    platform.requests.length = 0;
    const run = await exportDocs({ 'project-id': '' });
    expect(run.code).toBe(1);
    expect(errorLine(run)).toBe(
      "::error::Input 'project-id': is required to export: the platform's static export API has moved to project-scoped routes (POST /v1/static-export/jobs is gone), which name the project. Nothing was exported. " +
        'Copy your project id from the API keys page of the dashboard (https://app.mintlify.com/settings/organization/api-keys) and add project-id to the step, for example project-id: ${{ vars.DOCS_PROJECT_ID }}.'
    );
    // Only today's start, which the platform no longer has: no project-scoped start, no job.
    expect(requests()).toEqual(['POST /v1/static-export/jobs 404']);
  }, 30_000);

  it('a version the next API no longer takes is refused, exporting nothing rather than something else', async () => {
    platform.requests.length = 0;
    const run = await exportDocs({ version: '2024-06-01' });
    expect(run.code).toBe(1);
    expect(errorLine(run)).toBe(
      "::error::The platform's static export API has moved to project-scoped routes, which no longer take version: an export there always holds the latest published version of the whole site. " +
        'This run gave version, so nothing was exported rather than exporting something else than asked. Remove version from the step to export the whole latest site.'
    );
    expect(requests()).toEqual(['POST /v1/static-export/jobs 404']);
  }, 30_000);

  it('a 409 (a job already queued or running for the deployment) says so, waits for it to end, and then starts this run\'s export', async () => {
    platform.profile = { queuedMs: 50, runMs: 60_000 };
    const busy = (await (await fetch(`${platform.url}/v1/static-export/${PROJECT}/jobs`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } })).json()) as { jobId: string };
    platform.profile = { queuedMs: 50, runMs: 300 };
    platform.requests.length = 0;
    const action = startExport({ timeout: '2m' });
    await action.waitFor('Another static export job is already queued or running for this deployment (409)');
    endJob(platform, busy.jobId);
    const run = await action.done;
    expect(errorLine(run)).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.log).toContain(
      'Another static export job is already queued or running for this deployment (409): the platform runs one at a time. Waiting for it to end, then starting this run\'s export, so that it holds what is published now.'
    );
    expect(run.outputs['job-id']).not.toBe(busy.jobId);
    const answers = requests().filter((line) => line.startsWith(`POST /v1/static-export/${PROJECT}/jobs`));
    expect(answers[0]).toMatch(/ 409$/);
    expect(answers.at(-1)).toMatch(/ 202$/);
    expect(answers.filter((line) => line.endsWith(' 202'))).toHaveLength(1);
  }, 60_000);

  it('a 409 that outlasts the step ends within its timeout, saying what to do', async () => {
    platform.profile = { queuedMs: 50, runMs: 60_000 };
    await fetch(`${platform.url}/v1/static-export/${PROJECT}/jobs`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
    platform.profile = { queuedMs: 50, runMs: 300 };
    const run = await exportDocs({ timeout: '4s' });
    expect(run.code).toBe(1);
    expect(errorLine(run)).toMatch(
      /^::error::Another static export job was still queued or running for this deployment \(409\) after \d+(\.\d+)? s of waiting, and the step's timeout \(4 s\) leaves no time to wait more: the platform runs one export at a time per deployment\. Nothing was exported by this run\. Re-run once that job has ended \(a few minutes\), or raise timeout\.$/
    );
    for (const job of platform.exportJobs.values()) endJob(platform, job.jobId); // end it for the next tests
  }, 60_000);
});

describe("the next API's limit of 10 starts an hour, through dist/", () => {
  let platform: PlatformEmulator;
  afterAll(async () => platform.close());
  const exportDocs = () => runAction('dist/index.js', { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'project-id': PROJECT });
  const start = () => fetch(`${platform.url}/v1/static-export/${PROJECT}/jobs`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });

  it('past the limit, with no Retry-After (the contract declares none), fails naming the limit and when to retry', async () => {
    platform = await startPlatformEmulator({ apiShape: 'next', profile: { queuedMs: 0, runMs: 0 }, exportStartsPerHour: 2 });
    await start();
    await start();
    const run = await exportDocs();
    expect(run.code).toBe(1);
    const line = run.log.split('\n').find((text) => text.startsWith('::error::'))!;
    expect(line).toMatch(
      /^::error::The platform refused to start the export \(429\): its static export API allows 10 job starts per organization per hour, and they are used up\. It did not say when \(no Retry-After\): a start is allowed again once the oldest of the last 10 starts is an hour old, so re-run at the latest after \d\d:\d\d UTC\. Nothing was exported; the deployment keeps its current bundle\. The platform said: "Rate limit exceeded\. The static export API allows up to 10 job starts per organization per hour\."$/
    );
    // Not retried blind: an hourly limit does not pass in a backoff's seconds.
    expect(platform.requests.filter((request) => request.status === 429)).toHaveLength(1);
    await platform.close();
  }, 30_000);

  it('a Retry-After that fits the step is waited for, and the export goes on', async () => {
    platform = await startPlatformEmulator({ apiShape: 'next', profile: { queuedMs: 0, runMs: 100 } });
    platform.addFault({ route: 'start', kind: '429', retryAfterSeconds: 1, times: 1 });
    const run = await exportDocs();
    expect(run.code).toBe(0);
    expect(run.log).toMatch(/answered 429: Rate limit exceeded; retrying in 1(\.0)? s/);
    expect(run.outputs['job-id']).toMatch(/^[0-9a-f]{24}$/);
  }, 30_000);
});

describe('a renewal once only the next API answers, through dist/', () => {
  const { platform, github } = useEmulators({ platform: { apiShape: 'next', profile: { queuedMs: 50, runMs: 300 }, linkTtlSeconds: 3600 } });
  const workspace = useTempDir('api-shapes-renewal-', { each: false });

  /** The README's nightly renewal, as written, on a values file whose link is `link`. */
  async function renewNightly(repo: string, link: string, extra: Record<string, string> = {}): Promise<ActionRun> {
    github.createRepo(repo, { [PATH]: `staticExport:\n  enabled: true\n  bundleUrl: "${link}"\n` });
    platform.requests.length = 0;
    const [renew] = readmeSteps('Renew docs link');
    const known: Record<string, string> = { 'secrets.DOCS_ADMIN_KEY': DEFAULT_API_KEY, 'vars.DOCS_PROJECT_ID': PROJECT, 'github.token': TOKEN };
    const { bundle, inputs } = actionInputs(renew!, (value) => fillExpressions(value, (expression) => known[expression]));
    return runAction(bundle, { ...inputs, 'api-url': platform.url, 'github-token': TOKEN, ...extra }, { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: repo, GITHUB_WORKSPACE: workspace(), GITHUB_EVENT_NAME: 'schedule' });
  }
  const requests = () => platform.requests.map((request) => `${request.method} ${request.path} ${request.status}`);

  it("a link from today's API is not renewed by exporting the whole site: a missing route is not a missing job", async () => {
    const oldJob = platform.seedExportJob({ domain: 'docs.example.com', shape: 'jobs' });
    const run = await renewNightly('acme/deploy-old', platform.linkFor(oldJob));
    expect(run.code).toBe(1);
    expect(run.log.split('\n').find((line) => line.startsWith('::error::'))).toContain(
      `::error::Export job ${oldJob} was made by the platform's earlier static export API (Mintlify Static Export API 1.0.0), and GET /v1/static-export/jobs/${oldJob} answered 404 ("Not found"): the platform has moved static export to its project-scoped routes, where that job does not exist, so its link cannot be renewed. ` +
        'Nothing was exported in its place. Run the publishing workflow once (a push, or a manual run) with project-id set: it exports under the new API, and the nightly renewal renews that link from then on.'
    );
    expect(requests()).toEqual([`GET /v1/static-export/jobs/${oldJob} 404`]);
    expect(github.pulls('acme/deploy-old')).toEqual([]);
  }, 30_000);

  // renew/ exports nothing (issue 41): it stops on the contract's 404 and names the action that exports.
  it("a next-API job that is gone is the contract's 404: the renewal says so, names the root action and exports nothing", async () => {
    const goneJob = platform.seedExportJob({ domain: 'docs.example.com', shape: 'project' });
    const link = platform.linkFor(goneJob);
    platform.exportJobs.delete(goneJob);
    const run = await renewNightly('acme/deploy-gone', link, { 'auto-merge': 'off' });
    expect(run.code).toBe(1);
    expect(run.log).toContain(`::error::Export job ${goneJob}, which the link in the values file comes from, is gone (404): no fresh link can be made for it, and renew/ exports nothing. Run the root action (an export) to propose a new bundle.`);
    expect(requests()).toEqual([`GET /v1/static-export/${PROJECT}/jobs/${goneJob} 404`]);
    expect(github.pulls('acme/deploy-gone')).toEqual([]);
  }, 30_000);
});

describe('a 409 that names the job in the way (a field beyond the contract), through dist/', () => {
  let platform: PlatformEmulator;
  afterAll(async () => platform.close());

  it('follows that job by its status, then starts this run\'s export once it has ended', async () => {
    platform = await startPlatformEmulator({ apiShape: 'next', profile: { queuedMs: 50, runMs: 60_000 }, conflictNamesJob: true });
    const busy = (await (await fetch(`${platform.url}/v1/static-export/${PROJECT}/jobs`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } })).json()) as { jobId: string };
    platform.profile = { queuedMs: 50, runMs: 300 };
    platform.requests.length = 0;
    const action = startAction('dist/index.js', { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'project-id': PROJECT });
    await action.waitFor(`Another static export job (${busy.jobId}) is already queued or running for this deployment (409)`);
    endJob(platform, busy.jobId);
    const run = await action.done;
    expect(run.code).toBe(0);
    expect(run.log).toContain(`Another static export job (${busy.jobId}) is already queued or running for this deployment (409)`);
    const seen = platform.requests.map((request) => `${request.method} ${request.path} ${request.status}`);
    expect(seen).toContain(`GET /v1/static-export/${PROJECT}/jobs/${busy.jobId} 200`);
    // One 409, then the start only once the other job had ended: no blind retries in between.
    expect(seen.filter((line) => line.startsWith(`POST /v1/static-export/${PROJECT}/jobs `))).toEqual([`POST /v1/static-export/${PROJECT}/jobs 409`, `POST /v1/static-export/${PROJECT}/jobs 202`]);
    expect(run.outputs['job-id']).not.toBe(busy.jobId);
  }, 30_000);
});

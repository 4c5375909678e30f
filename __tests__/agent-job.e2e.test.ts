// The agent-job action against the platform emulator on loopback. Each test reads what a user reads:
// exit code, log, outputs, job summary, and counts what the emulator saw. The built
// dist/agent-job/index.js runs as a separate process, the way the runner starts it, for a job that
// completes and for SIGTERM (a signal needs a process); the rest run the real run() in this process
// (in-process.ts), with no Node start each.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { startAction } from '../emulator/runner.ts';
import { type PublishRun, runInProcess, startInProcess } from './in-process.ts';

const BUNDLE = 'dist/agent-job/index.js';
const PROJECT = 'proj_docs';
let emulator: PlatformEmulator;
let agentJob: PublishRun;

beforeAll(async () => {
  emulator = await startPlatformEmulator({ agent: { runMs: 1500 } });
  agentJob = (await import('../src/agent-job/run.ts')).run;
});
afterAll(() => emulator.close());
beforeEach(() => {
  emulator.requests.length = 0;
});

const inputs = (extra: Record<string, string>) => ({ 'api-key': DEFAULT_API_KEY, 'project-id': PROJECT, 'api-url': emulator.url, ...extra });
/** The action in this process. */
const runHere = (given: Record<string, string>, env: Record<string, string> = {}) => runInProcess(agentJob, given, env);
const calls = (route: string) => emulator.requests.filter((r) => r.route === route).length;

describe('agent-job: waiting on a job', () => {
  it('a job that completes with a pull request: outputs, log and a summary that links it', async () => {
    // The agent works until the action has seen it at work, then finishes: however long the process
    // takes to start on a loaded machine, its first look finds the job active.
    const id = emulator.seedAgentJob({ projectId: PROJECT, outcome: 'pr', runMs: 600_000 });
    const prNumber = emulator.agentJobs.get(id)?.prNumber;
    const action = startAction(BUNDLE, inputs({ 'job-id': id }));
    await action.waitFor(/^active · the agent is working/m);
    emulator.agentJobs.get(id)!.runMs = 0;
    const run = await action.done;

    expect(run.code).toBe(0);
    expect(run.outputs).toEqual({
      'job-id': id,
      status: 'completed',
      'pr-link': `https://github.com/acme/docs/pull/${prNumber}`,
      branch: `mintlify/agent-${id.slice(0, 8)}`,
      model: 'sonnet',
      'created-at': new Date(emulator.agentJobs.get(id)?.createdAt ?? 0).toISOString(),
      'archived-at': ''
    });
    expect(run.log).toContain(`Waiting on agent job ${id} in project ${PROJECT}.`);
    expect(run.log).toMatch(/^active · the agent is working \(\d+ s\)$/m);
    expect(run.log).toContain(`completed · pull request https://github.com/acme/docs/pull/${prNumber}`);
    expect(run.summary).toContain('Agent job: completed');
    expect(run.summary).toContain(`<a href="https://github.com/acme/docs/pull/${prNumber}">acme/docs#${prNumber}</a>`);
    expect(run.summary).toContain(`<code>mintlify/agent-${id.slice(0, 8)}</code>`);
    // The first look at 2 s finds it done: the first read and one poll.
    expect(calls('agent-get')).toBe(2);
    expect(calls('agent-create')).toBe(0);
  });

  it('a job where the agent changed nothing: an empty pr-link and a summary that says so', async () => {
    const id = emulator.seedAgentJob({ projectId: PROJECT, outcome: 'no-change', runMs: 500 });
    const run = await runHere(inputs({ 'job-id': id }));

    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('completed');
    expect(run.outputs['pr-link']).toBe('');
    expect(run.log).toContain('completed · the agent changed no files, so it opened no pull request');
    expect(run.summary).toContain('<strong>No pull request:</strong> the agent changed no files.');
    expect(run.summary).not.toContain('<a href=');
  });

  it('a job already finished is read once, with no wait', async () => {
    const id = emulator.seedAgentJob({ projectId: PROJECT, outcome: 'pr', runMs: 0, createdAt: Date.now() - 60_000 });
    const run = await runHere(inputs({ 'job-id': id }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('completed');
    // One read and no poll: a wait would be followed by a second read. (No bound in seconds: it would measure the machine.)
    expect(calls('agent-get')).toBe(1);
  });
});

describe('agent-job: a failed job', () => {
  it('fails the step with a line that says what to do, and still sets the outputs', async () => {
    const id = emulator.seedAgentJob({ projectId: PROJECT, outcome: 'failed', runMs: 500 });
    const run = await runHere(inputs({ 'job-id': id }));

    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ 'job-id': id, status: 'failed', 'pr-link': '', branch: '' });
    expect(run.stdout).toMatch(new RegExp(`::error::The agent job ${id} failed, and opened no pull request. The API gives no reason: open the job in the dashboard.*adjust the prompt.*Set fail-on-failed: false`));
    expect(run.summary).toContain('Agent job: failed');
    expect(run.summary).toContain('<strong>What happened:</strong> The agent job');
  });

  it('with fail-on-failed: false, warns and succeeds, with status failed', async () => {
    const id = emulator.seedAgentJob({ projectId: PROJECT, outcome: 'failed', runMs: 500 });
    const run = await runHere(inputs({ 'job-id': id, 'fail-on-failed': 'false' }));

    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('failed');
    expect(run.stdout).toMatch(new RegExp(`::warning::The agent job ${id} failed, and opened no pull request..*The step goes on because fail-on-failed is false`));
    expect(run.stdout).not.toContain('::error::');
  });
});

describe('agent-job: starting a job from a prompt', () => {
  it('creates one job with the prompt, waits, and reports it', async () => {
    const before = emulator.agentJobs.size;
    const prompt = 'Document the new --dry-run flag in the CLI reference';
    const run = await runHere(inputs({ prompt }));

    expect(run.code).toBe(0);
    expect(emulator.agentJobs.size).toBe(before + 1);
    const job = emulator.agentJobs.get(run.outputs['job-id']);
    expect(job).toMatchObject({ projectId: PROJECT, prompt });
    expect(run.outputs.status).toBe('completed');
    expect(run.outputs['pr-link']).toBe(`https://github.com/acme/docs/pull/${job?.prNumber}`);
    expect(run.log).toContain(`Started agent job ${run.outputs['job-id']} in project ${PROJECT}.`);
    expect(run.summary).toContain(prompt);
    expect(calls('agent-create')).toBe(1);
  });

  it('429 on create: fails at once and says when to retry, without a second create', async () => {
    const limited = await startPlatformEmulator({ agent: { createLimitPerHour: 1 } });
    try {
      // Use up the hour's allowance, as other workflows would.
      const used = await fetch(`${limited.url}/v2/agent/${PROJECT}/job`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'first' })
      });
      expect(used.status).toBe(201);
      const run = await runHere(inputs({ prompt: 'second', 'api-url': limited.url }));

      expect(run.code).toBe(1);
      // "At once": the API asked for an hour, and a run that waited it out would not end within the test's timeout.
      expect(run.stdout).toMatch(
        /::error::Starting an agent job in project proj_docs failed: the project has started 100 agent jobs in the last hour, the most the API allows \(429\)\. Retry after \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in (59m \d{2}s|1h 00m)\); meanwhile you can wait on a job already running with job-id\./
      );
      expect(limited.requests.filter((r) => r.route === 'agent-create').map((r) => r.status)).toEqual([201, 429]);
    } finally {
      await limited.close();
    }
  });

  it('a short 429 (Retry-After 1 s) is waited out and creates exactly one job', async () => {
    const before = emulator.agentJobs.size;
    emulator.addFault({ route: 'agent-create', kind: '429', retryAfterSeconds: 1 });
    const run = await runHere(inputs({ prompt: 'Fix the typo on the quickstart page' }));
    expect(run.code).toBe(0);
    expect(emulator.agentJobs.size).toBe(before + 1);
    expect(emulator.requests.filter((r) => r.route === 'agent-create').map((r) => r.status)).toEqual([429, 201]);
  });
});

describe('agent-job: errors a person can act on', () => {
  it('404: no such job in this project names project-id and job-id', async () => {
    const id = emulator.seedAgentJob({ projectId: 'proj_other' });
    const run = await runHere(inputs({ 'job-id': id }));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `::error::Waiting on agent job ${id} in project ${PROJECT} failed: there is no agent job ${id} in project ${PROJECT} (404). Check project-id and job-id`
    );
    expect(run.stdout).toContain('The server said: "Job not found"');
    expect(run.summary).toContain('Agent job: not finished');
    expect(calls('agent-get')).toBe(1);
  });

  it('a timeout says the job goes on and how to pick it up', async () => {
    const id = emulator.seedAgentJob({ projectId: PROJECT, runMs: 60_000 });
    const run = await runHere(inputs({ 'job-id': id, timeout: '3s' }));
    expect(run.code).toBe(1);
    // Ended by the timeout, not by the job (a minute long): the one bound that holds however loaded the machine is.
    expect(run.ms).toBeLessThan(60_000);
    expect(run.outputs).toMatchObject({ 'job-id': id, status: 'active' });
    expect(run.stdout).toContain(
      `::error::The agent job ${id} did not end within the timeout (3s): it was still active after 3 s. The job goes on on the server: re-run with job-id: ${id} to wait on it again, or raise timeout.`
    );
  });

  it('a poll still out when the timeout comes reports the timeout, with the status last seen', async () => {
    // What a loaded machine did to the test above (2 of 5 runs): the look at 2 s had its answer
    // late, the step's time ran out under it, and the step reported the cut request with no status.
    const id = emulator.seedAgentJob({ projectId: PROJECT, runMs: 60_000 });
    const action = startInProcess(agentJob, inputs({ 'job-id': id, timeout: '3s' }));
    await action.waitFor('active · the agent is working');
    emulator.addFault({ route: 'agent-get', kind: 'hang' });
    const run = await action.done;
    expect(run.code).toBe(1);
    expect(calls('agent-get')).toBe(2);
    expect(run.outputs).toMatchObject({ 'job-id': id, status: 'active' });
    expect(run.stdout).toContain(`::error::The agent job ${id} did not end within the timeout (3s): it was still active after 3 s.`);
  });

  it('ends soon after SIGTERM and names the job that goes on', async () => {
    const id = emulator.seedAgentJob({ projectId: PROJECT, runMs: 60_000 });
    const action = startAction(BUNDLE, inputs({ 'job-id': id }));
    await action.waitFor('active · the agent is working');
    const sent = Date.now();
    action.child.kill('SIGTERM');
    const run = await action.done;
    // Ended by its own wind-down, long before the job (a minute long) would have: a bound of the job's
    // length, not of the machine's speed. The wind-down's work is what the log and outputs below show.
    expect(Date.now() - sent).toBeLessThan(60_000);
    expect(run.code).not.toBe(0);
    expect(run.log).toContain(`Received SIGTERM. The agent job ${id} goes on on the server; a later run can wait on it with job-id: ${id}.`);
    expect(run.outputs['job-id']).toBe(id);
    // The summary, where a person looks after the run, says the same.
    expect(run.summary).toContain(`<h3>Cancelled</h3>\n<p>The step received SIGTERM. The agent job ${id} goes on on the server; a later run can wait on it with job-id: ${id}.</p>`);
  });

  it.each([
    [{ prompt: 'x', 'job-id': 'abc' }, "::error::Input 'job-id': 'abc' is set, and so is prompt: a step either starts an agent job (prompt) or waits on one already started (job-id). Remove one of the two."],
    [{}, "::error::Input 'prompt': neither prompt nor job-id is set. Give prompt to start an agent job, or job-id to wait on one already started."],
    [{ 'project-id': '', prompt: 'x' }, "::error::Input 'project-id': is required."],
    [{ prompt: 'x', 'fail-on-failed': 'yes' }, "::error::Input 'fail-on-failed': 'yes' is not a boolean."],
    [{ prompt: 'x', 'api-key': 'mint_dsc_assistant' }, "::error::Input 'api-key': is an assistant key"]
  ])('bad input %j fails before any request', async (extra, message) => {
    const run = await runHere(inputs(extra));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(message);
    expect(emulator.requests).toHaveLength(0);
  });
});

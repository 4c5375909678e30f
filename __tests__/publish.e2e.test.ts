// The publish action against the platform emulator on loopback. Each test reads what a user reads:
// exit code, log, outputs, job summary, and counts what the emulator saw.
//
// Most run the real action in this process (in-process.ts), polling on a short beat (QUICK_KNOBS)
// unless the test is about the beat. Through the built dist/index.js as a separate process, the way
// the runner starts it: the happy path, the timeout, and the cancels (a signal needs a process).
import { beforeEach, describe, expect, it } from '@jest/globals';
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import { TEST_POLL_MS_VARIABLE } from '../src/action/constants.ts';
import type { RunOptions } from '../src/publish/main.ts';
import { runAction, startAction } from '../emulator/runner.ts';
import { useEmulators } from './emulators.ts';
import { runInProcess } from './in-process.ts';
import { offContract } from './contract.ts';

const BUNDLE = 'dist/index.js';
// No test here proposes a change; the action loads its GitHub client all the same.
const { platform: emulator, publish } = useEmulators({ reset: true });
beforeEach(() => {
  // An export of a third of a second: no test that keeps this one is about how long it runs (those that
  // need a longer one, to see it running, stalled or past a timeout, set their own).
  emulator.profile = { queuedMs: 50, runMs: 300, pageCount: 64 };
});

const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': DEFAULT_API_KEY,
  domain: 'docs.example.com',
  'api-url': emulator.url,
  ...extra
});
const calls = (route: string) => emulator.requests.filter((r) => r.route === route).length;
/** The action in this process, on a short beat unless `extra` sets one. */
const runHere = (given: Record<string, string>, env: Record<string, string> = {}, knobs: RunOptions['knobs'] = {}) => runInProcess(publish, given, env, { knobs });

describe('publish: the happy path', () => {
  it('starts an export, waits, generates the bundle, and sets outputs and a summary', async () => {
    emulator.profile = { queuedMs: 200, runMs: 3000, pageCount: 64 };
    // A beat of half a second, so that the 3 s job shows its progress lines (the constant beat is the loop's 10 s).
    const run = await runAction(BUNDLE, inputs({ version: '2024-06-01', paths: 'index\nguides/getting-started' }), { [TEST_POLL_MS_VARIABLE]: '250,500' });

    expect(run.code).toBe(0);
    const job = emulator.exportJobs.get(run.outputs['job-id']);
    expect(job).toMatchObject({ domain: 'docs.example.com', version: '2024-06-01', paths: ['index', 'guides/getting-started'] });
    // The root action's outputs are what a later step uses (issue 41): status and page count are in the log and the summary.
    expect(run.outputs.status).toBeUndefined();
    expect(run.summary).toContain('64');
    expect(run.outputs['bundle-url']).toMatch(new RegExp(`^${emulator.url}/bundles/${run.outputs['job-id']}/bundle\\.tar\\.gz\\?X-Amz-`));
    expect(Date.parse(run.outputs['expires-at'])).toBeGreaterThan(Date.now() + 50 * 60_000);
    // The link really serves the archive it describes.
    const download = await fetch(run.outputs['bundle-url']);
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(100);

    expect(run.log).toContain(`Started export job ${run.outputs['job-id']} for docs.example.com.`);
    // The first progress sample gives no reliable end; the second does.
    expect(run.log).toMatch(/running · \d+% · \d+ pages · estimating the time left\n/);
    expect(run.log).toMatch(/running · \d+% · \d+ pages · about \d+ s left\n/);
    expect(run.log).toContain('completed · 100% · 64 pages');
    expect(run.summary).toContain('Static export of docs.example.com: completed');
    expect(run.summary).toContain(run.outputs['job-id']);
    expect(run.summary).toContain('Link expires');
    // The summary shows the link without its signature.
    expect(run.summary).not.toContain('X-Amz-Signature');
    expect(calls('start')).toBe(1);
    expect(calls('bundle')).toBe(1);
  });

  it('logs a line when the status or progress changes, not on every poll', async () => {
    emulator.profile = { queuedMs: 100, runMs: 1000, stall: { at: 40, forMs: 1500 } };
    // A beat far shorter than the 1.5 s stall (QUICK_KNOBS: 250 ms at most): a line per poll would repeat itself half a dozen times.
    const run = await runHere(inputs());
    expect(run.code).toBe(0);
    const progressLines = run.log.split('\n').filter((line) => /^(queued|running|completed)/.test(line));
    const keys = progressLines.map((line) => line.replace(/ · about .*$/, ''));
    expect(new Set(keys).size).toBe(keys.length);
    expect(calls('status')).toBeGreaterThanOrEqual(progressLines.length - 1);
  });

  it('reduces a URL given as domain to its hostname, with a notice', async () => {
    const run = await runHere(inputs({ domain: 'https://docs.example.com/' }));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("::notice::Input 'domain' was a URL (https://docs.example.com/); exporting its hostname docs.example.com.");
    expect(emulator.exportJobs.get(run.outputs['job-id'])?.domain).toBe('docs.example.com');
  });

  it('reuses a finished job by job-id: no new export, one status call, one fresh link', async () => {
    const jobId = emulator.seedExportJob({ domain: 'docs.example.com' });
    const run = await runHere({ 'api-key': DEFAULT_API_KEY, 'api-url': emulator.url, 'job-id': jobId });
    expect(run.code).toBe(0);
    expect(run.outputs['job-id']).toBe(jobId);
    expect(run.outputs['bundle-url']).toContain(`/bundles/${jobId}/`);
    expect(run.log).toContain(`Reusing export job ${jobId}.`);
    expect(calls('start')).toBe(0);
    expect(calls('status')).toBe(1);
    expect(calls('bundle')).toBe(1);
  });
});

describe('publish: bad input fails before any request', () => {
  it.each([
    [{ domain: 'https://docs.example.com/docs' }, "Input 'domain': 'https://docs.example.com/docs' has a path"],
    [{ domain: '' }, "Input 'domain': is required unless job-id is given"],
    [{ timeout: 'ten minutes' }, "Input 'timeout': 'ten minutes' is not a duration"],
    [{ 'job-id': 'job-42' }, "Input 'job-id': 'job-42' is not an export job id."],
    [{ 'job-id': 'auto' }, "Input 'job-id': 'auto' is not an export job id. Job ids look like se_3f9a2c1b8e7d4a06, or 6520f3a1c9b1a20012ab34cd on the platform's project-scoped API. To renew the link in the values file, use <owner>/<repo>/renew@v1."],
    [{ 'api-key': 'mint_dsc_assistant' }, "Input 'api-key': is an assistant key (mint_dsc_…), not an admin key"],
    [{ 'api-url': 'api.mintlify.com' }, "Input 'api-url'"]
  ])('%j', async (extra, message) => {
    const run = await runHere(inputs(extra));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`::error::${message}`);
    expect(emulator.requests).toHaveLength(0);
  });
});

describe('publish: transient faults are retried', () => {
  it('retries 5xx and dropped connections while polling', async () => {
    emulator.profile = { queuedMs: 100, runMs: 1000 };
    emulator.addFault({ route: 'status', kind: '503' });
    emulator.addFault({ route: 'status', kind: 'drop' });
    const run = await runHere(inputs());
    expect(run.code).toBe(0);
    expect(run.log).toMatch(/answered 503.*retrying in/);
    expect(run.log).toMatch(/lost its connection.*retrying in/);
    expect(emulator.requests.filter((r) => r.route === 'status' && r.status === 503)).toHaveLength(1);
  });

  it('honours Retry-After on a 429 and starts exactly one export', async () => {
    emulator.addFault({ route: 'start', kind: '429', retryAfterSeconds: 2 });
    const run = await runHere(inputs());
    expect(run.code).toBe(0);
    const starts = emulator.requests.filter((r) => r.route === 'start');
    expect(starts.map((r) => r.status)).toEqual([429, 202]);
    expect(starts[1].at - starts[0].at).toBeGreaterThanOrEqual(1900);
  });

  it('retries a start the server answered 500, creating one job', async () => {
    const before = emulator.exportJobs.size;
    emulator.addFault({ route: 'start', kind: '500' });
    const run = await runHere(inputs());
    expect(run.code).toBe(0);
    expect(emulator.exportJobs.size).toBe(before + 1);
  });

  it('sends a start whose connection dropped after the body was sent again, warning that a second export may run', async () => {
    emulator.addFault({ route: 'start', kind: 'drop' });
    const run = await runHere(inputs());
    expect(run.code).toBe(0);
    expect(calls('start')).toBe(2);
    expect(run.stdout).toMatch(/::warning::POST \/v1\/static-export\/jobs lost its connection .*a second export may run on the platform/);
  });

  it('gives up on a request that hangs after its time limit, and retries it', async () => {
    emulator.addFault({ route: 'status', kind: 'hang' });
    const run = await runHere(inputs(), {}, { requestTimeoutMs: 1000 });
    expect(run.code).toBe(0);
    expect(run.log).toMatch(/got no whole answer within 1 s; retrying/);
  });

  it('keeps waiting through a status word the enum does not list', async () => {
    // A status word the description's enum does not list, as real servers send (shared/CONTEXT.md).
    offContract(/getStaticExportJob\) 200 .*\/status must be equal to one of the allowed values/);
    emulator.profile = { queuedMs: 100, runMs: 3000, runningWord: 'rendering' };
    const run = await runHere(inputs(), {}, { limits: { floorMs: 50, ceilingMs: 1000 } });
    expect(run.code).toBe(0);
    expect(run.log).toMatch(/rendering · \d+%/);
    expect(run.log).toContain('completed · 100%');
  });
});

describe('publish: errors a person can act on', () => {
  it('401: names the key kind to use', async () => {
    const run = await runHere(inputs({ 'api-key': 'mint_expired_key' }));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::Exporting docs.example.com failed: the API key was refused (401): it is wrong or expired. Use an admin key (admin keys start with mint_');
    expect(calls('start')).toBe(1);
  });

  it('403: static export not enabled for the organization', async () => {
    const closed = await startPlatformEmulator({ staticExportEnabled: false });
    try {
      const run = await runHere(inputs({ 'api-url': closed.url }));
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/::error::.*Static export needs an Enterprise plan.*IP allowlist/);
      expect(run.stdout).toContain('The server said: "Static export is not enabled for this organization.');
    } finally {
      await closed.close();
    }
  });

  it('400: quotes the server\'s message', async () => {
    const run = await runHere(inputs({ paths: 'guides/start\n../private/notes' }));
    expect(run.code).toBe(1);
    expect(run.log).toContain(
      '::error::Exporting docs.example.com failed: the API refused the request (400). The server said: "Invalid path "../private/notes": paths are page paths such as guides/getting-started". Correct the inputs it names and re-run.'
    );
    expect(calls('start')).toBe(1);
  });

  it('409 on the bundle: says the job has not finished', async () => {
    emulator.addFault({ route: 'bundle', kind: '409' });
    const run = await runHere({ 'api-key': DEFAULT_API_KEY, 'api-url': emulator.url, 'job-id': emulator.seedExportJob({ domain: 'docs.example.com' }) });
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/::error::Reusing export job se_\w+ failed: the job has not finished, so no bundle can be generated yet \(409\)/);
    expect(calls('bundle')).toBe(1);
  });

  it('404: no such job', async () => {
    const run = await runHere({ 'api-key': DEFAULT_API_KEY, 'api-url': emulator.url, 'job-id': 'se_0000000000000000' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::Reusing export job se_0000000000000000 failed: there is no export job se_0000000000000000 (404)');
  });

  it('a failed job: quotes its error, names the job, and speaks of no configuration it was not given', async () => {
    emulator.profile = { queuedMs: 50, runMs: 600, failAt: 50, error: 'Rendering failed on page /guides/broken' };
    const run = await runHere(inputs());
    expect(run.code).toBe(1);
    expect(run.outputs['job-id']).toMatch(/^se_/);
    expect(run.outputs['bundle-url']).toBeUndefined();
    expect(run.log).toMatch(/::error::The export of docs\.example\.com failed at 50% \(\d+ pages done\): Rendering failed on page \/guides\/broken\./);
    expect(run.summary).toContain('Static export of docs.example.com: failed');
    // No config-path: the summary says nothing of a configuration it was not given.
    expect(run.summary).toContain('Nothing was exported; run the step again once the cause is fixed.');
    expect(run.summary).not.toMatch(/configuration/i);
    expect(calls('bundle')).toBe(0);
  });

  it('a timeout: says how far the job got and how to pick it up', async () => {
    emulator.profile = { queuedMs: 100, runMs: 60_000 };
    const run = await runAction(BUNDLE, inputs({ timeout: '3s' }), { [TEST_POLL_MS_VARIABLE]: '1000,1000' });
    expect(run.code).toBe(1);
    // No poll past the deadline (the first request comes after the step's clock started).
    const polls = emulator.requests.filter((r) => r.route === 'start' || r.route === 'status');
    expect(polls.at(-1)!.at - polls[0]!.at).toBeLessThanOrEqual(3000);
    expect(run.log).toMatch(/::error::The export job (se_\w+) did not finish within the step's timeout of 3 s \(timeout: 3s\): it was running at \d+% with \d+ pages after 3 s of export\. The job goes on on the server: re-run with job-id: \1/);
    // The summary agrees with the error: the job may still finish, so no "run the step again".
    expect(run.summary).toContain('The export may still finish on the server; this step stopped waiting for it.');
    expect(run.summary).not.toContain('run the step again');
  });
});

describe('publish: cancellation and secrets', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('ends by its own wind-down on %s, long before the job would, and names the job that goes on', async (signal) => {
    emulator.profile = { queuedMs: 100, runMs: 60_000 };
    const action = startAction(BUNDLE, inputs());
    await action.waitFor(/running · /);
    const sent = Date.now();
    action.child.kill(signal);
    const run = await action.done;
    // The job runs a minute: ending before it is ending by the signal's wind-down, however loaded the
    // machine (a bound of seconds measured the machine, not the action).
    expect(Date.now() - sent).toBeLessThan(60_000);
    expect(run.code).not.toBe(0);
    const named = run.log.match(new RegExp(`Received ${signal}\\. The export job (se_\\w+) goes on on the server; a later run can pick it up with job-id: se_\\w+\\.`));
    expect(named).not.toBeNull();
    // The job the log names is in the outputs too, for an `if: cancelled()` step to pick up.
    expect(run.outputs['job-id']).toBe(named![1]);
  });

  it('never prints the key, not even with step debug logging on', async () => {
    const key = 'mint_secret_0123456789abcdef';
    const keyed = await startPlatformEmulator({ apiKey: key, profile: { queuedMs: 50, runMs: 300 } });
    try {
      keyed.addFault({ route: 'status', kind: '500' });
      const run = await runHere(inputs({ 'api-key': key, 'api-url': keyed.url }), { ACTIONS_STEP_DEBUG: 'true', RUNNER_DEBUG: '1' });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('::debug::GET /v1/static-export/jobs/');
      // The only place the key appears is the command that tells the runner to mask it.
      const lines = run.stdout.split('\n').filter((line) => line.includes(key));
      expect(lines).toEqual([`::add-mask::${key}`]);
    } finally {
      await keyed.close();
    }
  });
});

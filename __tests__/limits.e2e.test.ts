// The step's limits hold whatever a server does, and bad input gets this project's own message
// before any request, never a raw exception. The real publish action runs in this process
// (in-process.ts) against the platform emulator; publish.e2e runs dist/index.js.
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import type { RunOptions } from '../src/publish/main.ts';
import { errorLine, useEmulators } from './emulators.ts';
import { runInProcess } from './in-process.ts';

// No test here proposes a change; the action loads its GitHub client all the same.
const { platform, publish, inputs: platformInputs } = useEmulators({ platform: { profile: { queuedMs: 50, runMs: 150 } }, reset: true });

// Jobs of a fifth of a second, polled on the harness's short beat (QUICK_KNOBS): no test here is about
// how long a job runs or when to poll (a beat of up to a second made each test wait that second).
const run = (inputs: Record<string, string> = {}, env: Record<string, string> = {}, knobs: RunOptions['knobs'] = {}) => runInProcess(publish, platformInputs(inputs), env, { knobs });

describe('one deadline for the step', () => {
  it('a Retry-After of an hour ends the step by its timeout, saying what was asked and what to raise', async () => {
    platform.addFault({ route: 'status', kind: '429', retryAfterSeconds: 3600 });
    const result = await run({ timeout: '15s' });
    expect(result.code).toBe(1);
    // At once: the 429 was the last status request, never followed by a wait and another.
    expect(platform.requests.filter((r) => r.route === 'status').at(-1)?.status).toBe(429);
    expect(errorLine(result.log)).toMatch(
      /GET \/v1\/static-export\/jobs\/se_\w+ answered 429: Rate limit exceeded; the platform asked to wait before retrying \(1h 00m\), but only \d+ s of the step's timeout \(15 s\) is left\. Raise the timeout input if waits this long are expected\. The export job (se_\w+) goes on on the server: re-run with job-id: \1 to pick it up\./
    );
  });

  it('a trickling answer is abandoned after request-timeout, then retried', async () => {
    platform.addFault({ route: 'status', kind: 'trickle' });
    const result = await run({}, {}, { requestTimeoutMs: 1000 });
    expect(result.code).toBe(0);
    expect(result.log).toMatch(/GET \/v1\/static-export\/jobs\/se_\w+ got no whole answer within 1 s; retrying in/);
    expect(result.outputs['bundle-url']).toMatch(/^http/);
  });

  it('an answer far larger than the endpoint sends is cut off, not read into memory', async () => {
    platform.addFault({ route: 'status', kind: 'oversize' });
    const result = await run();
    expect(result.code).toBe(1);
    expect(errorLine(result.log)).toMatch(/The API's answer to GET \/v1\/static-export\/jobs\/se_\w+ is larger than 64 KB, far more than this endpoint sends, so it was cut off/);
  });
});

describe('a start whose answer was lost', () => {
  it.each(['502-taken', 'drop-taken'] as const)('%s: sent again with a warning that a second export may run; the step ends with one', async (kind) => {
    platform.addFault({ route: 'start', kind });
    const before = platform.exportJobs.size;
    const result = await run();
    expect(result.code).toBe(0);
    expect(result.log).toMatch(/::warning::POST \/v1\/static-export\/jobs .*so the platform may have started the export although no answer arrived\. Sending the start again: a second export may run/);
    expect(platform.exportJobs.size - before).toBe(2);
    expect(platform.requests.filter((r) => r.route === 'start')).toHaveLength(2);
    // Both jobs are accounted for: the one followed by its id, the other as one whose id never arrived.
    const followed = result.outputs['job-id'];
    const said = `This step follows export job ${followed}. Its start was sent 2 times because answers were lost, so the platform may also run one other export job whose id never arrived`;
    expect(result.log).toContain(`::warning::${said}`);
    expect(result.summary).toContain(said);
  });
});

describe('every field the action relies on is checked where it arrives', () => {
  it('a bundle answer with expiresAt "in 7 days" fails, naming the field and the job, before any output', async () => {
    platform.addFault({ route: 'bundle', kind: 'bad-expiry' });
    const result = await run();
    expect(result.code).toBe(1);
    expect(errorLine(result.log)).toMatch(/has `expiresAt` "in 7 days", not a date, for job se_\w+/);
    expect(result.log).not.toContain('Invalid time value');
    expect(result.outputs['bundle-url']).toBeUndefined();
  });
});

describe('inputs a careful user expects to work, or to be told about', () => {
  it("takes api-url pasted from the OpenAPI files' servers entry (/v1), with a notice", async () => {
    const result = await run({ 'api-url': `${platform.url}/v1` });
    expect(result.code).toBe(0);
    expect(result.log).toContain(`::notice::Input 'api-url' ends in /v1, as in the platform's OpenAPI files; using ${platform.url}`);
  });

  it('an empty api-key gets this project\'s message, before any request', async () => {
    const result = await runInProcess(publish, { 'api-key': '', 'api-url': platform.url, domain: 'docs.example.com' });
    expect(result.code).toBe(1);
    expect(errorLine(result.log)).toContain("Input 'api-key': is empty. Pass your admin API key from a secret, for example api-key: ${{ secrets.DOCS_ADMIN_KEY }}");
    expect(platform.requests).toHaveLength(0);
  });

  it.each([
    [{ timeout: '0' }, "Input 'timeout': '0' is zero"],
    [{ timeout: '0s' }, "Input 'timeout': '0s' is zero"],
    [{ timeout: 'soon' }, "Input 'timeout': 'soon' is not a duration"]
  ])('refuses %j before any request', async (inputs, message) => {
    const result = await run(inputs);
    expect(result.code).toBe(1);
    expect(errorLine(result.log)).toContain(message);
    expect(platform.requests).toHaveLength(0);
  });

  it('reads a bare number as seconds and says so', async () => {
    const result = await run({ timeout: '120' });
    expect(result.code).toBe(0);
    expect(result.log).toContain("::notice::Input 'timeout': 120 has no unit, so it is read as 120 seconds.");
  });

  it('sends a page path given twice once', async () => {
    const result = await run({ paths: 'guides/a, guides/b\nguides/a' });
    expect(result.code).toBe(0);
    expect(platform.exportJobs.get(result.outputs['job-id']!)?.paths).toEqual(['guides/a', 'guides/b']);
  });

  it.each(['http://api.mintlify.com', 'http://10.1.2.3:8080'])('refuses plain http to %s before any request: the key would cross the network in clear text', async (url) => {
    const result = await run({ 'api-url': url });
    expect(result.code).toBe(1);
    expect(errorLine(result.log)).toContain('is plain http to another host: the API key would cross the network unencrypted');
  });
});

describe('the bundle link is a credential', () => {
  it('is masked before it is handed to later steps: its signature never shows in a log', async () => {
    const result = await run({}, { RUNNER_DEBUG: '1' });
    expect(result.code).toBe(0);
    const link = result.outputs['bundle-url']!;
    const signature = /X-Amz-Signature=([0-9a-f]+)/.exec(link)![1]!;
    const lines = result.stdout.split('\n');
    const masked = lines.findIndex((line) => line === `::add-mask::${signature}`);
    expect(masked).toBeGreaterThanOrEqual(0);
    // Workflow commands escape % as %25; the runner reads it back.
    expect(lines.map((line) => line.replaceAll('%25', '%'))).toContain(`::add-mask::${link}`);
    // Nothing but the mask commands carries it: a later step that echoes the output sees ***.
    expect(lines.filter((line) => line.includes(signature) && !line.startsWith('::add-mask::'))).toEqual([]);
    expect(result.log).not.toContain(signature);
  });
});

describe('inputs that cannot act in this run are refused or named', () => {
  it.each(['true', 'maybe'])('dry-run: %s without config-path is refused before any request: it would export for real', async (value) => {
    const result = await run({ 'dry-run': value });
    expect(result.code).toBe(1);
    expect(errorLine(result.log)).toMatch(value === 'true' ? /^::error::Input 'dry-run': is true, but without config-path there is no change to preview, and the step would start a real export/ : /^::error::Input 'dry-run': 'maybe' is not a boolean/);
    expect(platform.requests).toEqual([]);
  });

  it('pull request inputs without config-path are named in a notice', async () => {
    const result = await run({ 'pr-labels': 'docs', 'base-branch': 'production' });
    expect(result.code).toBe(0);
    expect(result.log).toContain('::notice::pr-labels, base-branch are set, but without config-path this step opens no pull request, so they do nothing.');
  });

  // Issue 41: an input another action declares is not read here (host/'s check, renew/'s threshold).
  it("another action's inputs change nothing in an export: no template proposed, no renewal skipped", async () => {
    const inputs = { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'bundle-url-template': 'https://bundles.example.com/<job-id>/bundle.tar.gz', 'renew-within': '999h' };
    const result = await runInProcess(publish, inputs, {}, { githubSecondMs: 1, kind: 'export' });
    expect(result.code).toBe(0);
    expect(result.outputs['bundle-url']).toMatch(new RegExp(`^${platform.url}`));
  });
});

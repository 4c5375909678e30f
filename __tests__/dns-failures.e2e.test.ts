// A DNS failure is named as one, on the platform, the storage and GitHub alike: "could not resolve
// <host> (DNS, …)" with what to check, not "the connection was lost". A name that does not exist
// (ENOTFOUND) answers the same at every try, so it fails at once; a resolver that did not answer
// (EAI_AGAIN) is transient and retried. The answers come from dns-override.ts, the same on every
// machine; the real publish action runs in this process (in-process.ts) against the emulators.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { ApiError } from '../src/platform/transport.ts';
import { answered, type DnsAnswer, overrideDns } from './dns-override.ts';
import { REPO, TOKEN as GITHUB_TOKEN, useEmulators, useTempDir } from './emulators.ts';
import { runInProcess } from './in-process.ts';

/** GitHub's emulator under a name, so a test can make that name fail to resolve. */
const GITHUB_HOST = 'github.cluster.localhost';
const NO_SUCH_HOST = 'api.nowhere.localhost';
const NO_SUCH_BUCKET = 'bucket.nowhere.localhost';

const { platform, github, publish } = useEmulators({ platform: { profile: { queuedMs: 20, runMs: 100 } }, githubHost: GITHUB_HOST });
let unresolvableStorage: PlatformEmulator;
const workspace = useTempDir('workspace-');
let restoreDns: () => void;

const answers = (github: DnsAnswer = '127.0.0.1') => ({ [GITHUB_HOST]: github, [NO_SUCH_HOST]: 'ENOTFOUND', [NO_SUCH_BUCKET]: 'ENOTFOUND' }) as const;

beforeAll(async () => {
  // Its bundle links name a bucket whose name does not resolve.
  unresolvableStorage = await startPlatformEmulator({ profile: { queuedMs: 20, runMs: 100 }, storageUrl: `https://${NO_SUCH_BUCKET}:9443` });
});
afterAll(() => unresolvableStorage.close());
beforeEach(() => {
  github.createRepo(REPO, { 'deploy/values.yaml': 'staticExport:\n  enabled: true\n  bundleUrl: ""\n' });
});
afterEach(() => restoreDns?.());

const env = { GITHUB_REPOSITORY: REPO };
/** Lookups of `host` during the last run: one per try. */
const tries = (host: string) => answered.filter((name) => name === host).length;
const runWith = (dns: Record<string, DnsAnswer>, inputs: Record<string, string>) => {
  answered.length = 0;
  restoreDns = overrideDns(dns);
  return runInProcess(publish, inputs, { GITHUB_WORKSPACE: workspace(), ...env });
};

describe('a name that does not resolve (ENOTFOUND) fails at once, named as DNS', () => {
  // First in the file: later runs may keep a connection to GitHub's emulator open, which no lookup precedes.
  it('on GitHub: names GITHUB_API_URL, and is not retried', async () => {
    const run = await runWith(answers('ENOTFOUND'), { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'config-path': 'deploy/values.yaml', 'github-token': GITHUB_TOKEN });
    expect(run.code).toBe(1);
    expect(run.log).toMatch(new RegExp(`::error::.*GET /repos/acme/deploy could not resolve ${GITHUB_HOST} \\(DNS, ENOTFOUND: no such name\\): check GITHUB_API_URL`));
    expect(run.log).not.toMatch(/connection was lost|retrying/i);
    expect(tries(GITHUB_HOST)).toBe(1);
    expect(github.requests).toEqual([]);
  });

  it('on GitHub, a resolver that did not answer (EAI_AGAIN) is retried, then named as DNS', async () => {
    const run = await runWith(answers('EAI_AGAIN'), { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'config-path': 'deploy/values.yaml', 'github-token': GITHUB_TOKEN });
    expect(run.code).toBe(1);
    expect(run.log).toMatch(new RegExp(`::error::.*GET /repos/acme/deploy could not resolve ${GITHUB_HOST} \\(DNS, EAI_AGAIN: the runner's resolver did not answer, at every try\\): check GITHUB_API_URL`));
    expect(run.log).toContain(`GET /repos/acme/deploy could not resolve ${GITHUB_HOST} (DNS, EAI_AGAIN); retrying in`);
    expect(run.log).not.toMatch(/connection was lost/i);
    // The first try and GitHub's client's three retries.
    expect(tries(GITHUB_HOST)).toBe(4);
    expect(github.requests).toEqual([]);
  });

  it('on the platform: names api-url, and is not retried', async () => {
    const run = await runWith(answers(), { 'api-key': DEFAULT_API_KEY, 'api-url': `https://${NO_SUCH_HOST}:8443`, domain: 'docs.example.com' });
    expect(run.code).toBe(1);
    expect(run.log).toContain(
      `::error::Exporting docs.example.com failed: could not resolve ${NO_SUCH_HOST} (DNS, ENOTFOUND: no such name): check the host name in api-url, and that this runner's DNS resolves it`
    );
    expect(run.log).not.toMatch(/retrying|lost/i);
    expect(tries(NO_SUCH_HOST)).toBe(1);
  });

  it("on the storage the bundle link names: names the link's host", async () => {
    const run = await runWith(answers(), { 'api-key': DEFAULT_API_KEY, 'api-url': unresolvableStorage.url, domain: 'docs.example.com', 'download-path': 'site' });
    expect(run.code).toBe(1);
    expect(run.log).toMatch(
      new RegExp(`::error::The download of the bundle from https://${NO_SUCH_BUCKET}:9443/\\S+ failed: could not resolve ${NO_SUCH_BUCKET} \\(DNS, ENOTFOUND: no such name\\): check the link's host`)
    );
    expect(run.log).not.toMatch(/Retrying|retrying/);
  });

  it('on the storage a hosted URL names, checked as a pod (over plain HTTP, allowed)', async () => {
    // The check fails at the lookup, before any byte: the archive's content does not matter.
    writeFileSync(join(workspace(), 'bundle.tar.gz'), Buffer.from([0x1f, 0x8b, 8, 0]));
    const run = await runWith(answers(), {
      'job-id': 'se_0123456789abcdef',
      'bundle-url-template': `http://${NO_SUCH_BUCKET}/docs/<job-id>/bundle.tar.gz`,
      'allow-plain-http': 'true',
      'archive-path': 'bundle.tar.gz',
      'config-path': 'deploy/values.yaml',
      'github-token': GITHUB_TOKEN
    });
    expect(run.code).toBe(1);
    expect(run.log).toContain(
      `::error::The check of http://${NO_SUCH_BUCKET}/docs/se_0123456789abcdef/bundle.tar.gz failed: could not resolve ${NO_SUCH_BUCKET} (DNS, ENOTFOUND: no such name): check the host in bundle-url-template`
    );
    expect(run.log).not.toMatch(/Retrying/);
  });
});

describe('a resolver that did not answer (EAI_AGAIN) is transient', () => {
  it('is retried on the platform; a name that does not exist is not', () => {
    const error = (code: string) => new ApiError({ method: 'GET', path: '/v1/static-export/jobs/se_1', code, message: 'm' });
    expect([error('EAI_AGAIN').transient, error('ENOTFOUND').transient, error('ECONNRESET').transient]).toEqual([true, false, true]);
  });
});

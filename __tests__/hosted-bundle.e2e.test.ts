// Links that outlive the review. One step exports and keeps the archive as served (keep-archive);
// the team uploads it to its own storage; a second step checks the URL as a pod would (anonymously)
// and proposes it (bundle-url-template), with no platform key. The storage is a plain static file
// server, and OpenStack Swift with s3api (a real S3-compatible server, started by
// scripts/swift-s3.ts) for a private bucket and a public-read one.
//
// The real publish action runs in this process (in-process.ts), over HTTP to the emulators and the
// storage, polling the export on a short beat (QUICK_KNOBS). readme-workflows.e2e runs the README's
// hosted workflow through dist/index.js.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildZip, defaultSiteFiles } from '../emulator/archive.ts';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import { REPO, TOKEN as GITHUB_TOKEN, useEmulators, useTempDir } from './emulators.ts';
import { runInProcess } from './in-process.ts';
import { type SwiftS3, startSwiftS3, swiftMissing } from '../scripts/swift-s3.ts';

const { platform, github, storage: files, publish, inputs: platformInputs } = useEmulators({ platform: { profile: { queuedMs: 50, runMs: 300 }, linkTtlSeconds: 3600 }, storage: true, reset: true });
const workspace = useTempDir('workspace-');
beforeEach(() => {
  github.createRepo(REPO, { 'deploy/values.yaml': 'staticExport:\n  enabled: false\n  bundleUrl: ""\n' });
});

const env = (extra: Record<string, string> = {}) => ({ GITHUB_WORKSPACE: workspace(), GITHUB_REPOSITORY: REPO, ...extra });
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const writes = () => github.requests.filter((r) => r.method !== 'GET');

/** The exporting step: export, keep the archive. */
const exportAndKeep = (inputs: Record<string, string> = {}, extraEnv: Record<string, string> = {}) =>
  runInProcess(publish, platformInputs({ 'keep-archive': 'out/bundle.tar.gz', ...inputs }), env(extraEnv));

/** The nightly (renew/) on the same file. */
const renewNightly = () =>
  runInProcess(publish, { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, 'renew-within': '72h', 'config-path': 'deploy/values.yaml', 'github-token': GITHUB_TOKEN }, env({ GITHUB_EVENT_NAME: 'schedule' }));

/** The proposing step: no api-key, the kept archive, the hosted URL. */
const proposeHosted = (template: string, jobId: string, inputs: Record<string, string> = {}, extraEnv: Record<string, string> = {}) =>
  runInProcess(
    publish,
    {
      'api-url': platform.url,
      'job-id': jobId,
      'bundle-url-template': template,
      'archive-path': 'out/bundle.tar.gz',
      'config-path': 'deploy/values.yaml',
      'github-token': GITHUB_TOKEN,
      ...inputs
    },
    env(extraEnv)
  );

describe('keep-archive', () => {
  it('keeps the archive byte for byte as served, with a sha256sum file, and no download-path', async () => {
    const run = await exportAndKeep();
    expect(run.code).toBe(0);
    const kept = join(workspace(), 'out', 'bundle.tar.gz');
    const served = Buffer.from(await (await fetch(run.outputs['bundle-url'])).arrayBuffer());
    expect(readFileSync(kept).equals(served)).toBe(true);
    expect(run.outputs['archive-path']).toBe(kept);
    // The checksum is for the upload step to read from the file beside the archive (the root action's outputs stop at archive-path).
    expect(readFileSync(`${kept}.sha256`, 'utf8')).toBe(`${sha256(served)}  bundle.tar.gz\n`);
    expect(run.log).toContain('Kept the archive as served');
    // Only the archive and its checksum: no unpacked tree, no staging file.
    expect(readdirSync(workspace())).toEqual(['out']);
    expect(readdirSync(join(workspace(), 'out')).sort()).toEqual(['bundle.tar.gz', 'bundle.tar.gz.sha256']);
    expect(run.outputs['bundle-path']).toBeUndefined();
    // The summary has a section for the archive, and none for a download that did not happen.
    expect(run.summary).toContain('<h3>Kept archive</h3>');
    expect(run.summary).toContain(`<code>out/bundle.tar.gz</code> (the <code>archive-path</code> output)`);
    expect(run.summary).toContain(`<code>${sha256(served)}</code>, also in <code>out/bundle.tar.gz.sha256</code>`);
    expect(run.summary).not.toContain('Downloaded site');
  });

  it('keeps the same bytes after a download cut halfway and retried, beside download-path', async () => {
    platform.addFault({ route: 'download', kind: 'truncate' });
    const run = await exportAndKeep({ 'download-path': 'site' });
    expect(run.code).toBe(0);
    expect(run.log).toMatch(/stopped after [\d,]+ of [\d,]+ bytes/);
    const served = Buffer.from(await (await fetch(run.outputs['bundle-url'])).arrayBuffer());
    expect(readFileSync(join(workspace(), 'out', 'bundle.tar.gz')).equals(served)).toBe(true);
    expect(readFileSync(join(workspace(), 'out', 'bundle.tar.gz.sha256'), 'utf8')).toBe(`${sha256(served)}  bundle.tar.gz\n`);
    expect(existsSync(join(workspace(), 'site', 'index.html'))).toBe(true);
    expect(readdirSync(join(workspace(), 'out')).sort()).toEqual(['bundle.tar.gz', 'bundle.tar.gz.sha256']);
  });

  it('keeps nothing when the bundle fails its checks', async () => {
    const jobId = platform.seedExportJob({ domain: 'docs.example.com', archive: buildZip([{ path: 'readme.txt', content: 'no site here', type: 'file' }]) });
    const run = await exportAndKeep({ 'job-id': jobId });
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/::error::.*index\.html/);
    expect(run.outputs['archive-path']).toBeUndefined();
    expect(readdirSync(workspace())).toEqual([]);
  });

  it('adds no storage SDK to dist/', () => {
    for (const bundle of ['dist/index.js', 'dist/agent-job/index.js', 'dist/feedback/index.js']) {
      expect([bundle, /@aws-sdk\/|aws-sdk\/clients|minio-js|@google-cloud\/storage|@azure\/storage-blob/.test(readFileSync(bundle, 'utf8'))]).toEqual([bundle, false]);
    }
  });

  it.each([
    ['out/bundle.txt', "Input 'keep-archive': 'out/bundle.txt' does not end in .tar.gz, .tgz or .zip, the archive's own extensions: name it as the archive is, for example out/bundle.tar.gz"]
  ])('refuses %s before any request, saying what to give', async (given, message) => {
    const run = await exportAndKeep({ 'keep-archive': given });
    expect(run.code).toBe(1);
    expect(run.log).toContain(`::error::${message}`);
    expect(platform.requests).toEqual([]);
    expect(readdirSync(workspace())).toEqual([]);
  });

  it('refuses to keep a zip under a .tar.gz name, keeping nothing', async () => {
    const jobId = platform.seedExportJob({ domain: 'docs.example.com', archive: buildZip(defaultSiteFiles('docs.example.com', 3)) });
    const run = await exportAndKeep({ 'job-id': jobId });
    expect(run.code).toBe(1);
    expect(run.log).toContain('::error::keep-archive: the platform served a zip, but bundle.tar.gz names a tar.gz, so the archive was not kept. Name it with .zip (bundle.zip) and run again.');
    expect(run.outputs['archive-path']).toBeUndefined();
    expect(readdirSync(workspace()).flatMap((name) => readdirSync(join(workspace(), name)))).toEqual([]);
  });

  it('refuses a path that exists, before any request', async () => {
    mkdirSync(join(workspace(), 'out'));
    writeFileSync(join(workspace(), 'out', 'bundle.tar.gz'), 'mine');
    const run = await exportAndKeep();
    expect(run.code).toBe(1);
    expect(run.log).toContain("::error::keep-archive 'out/bundle.tar.gz': a file already exists there.");
    expect(platform.requests).toEqual([]);
    expect(readFileSync(join(workspace(), 'out', 'bundle.tar.gz'), 'utf8')).toBe('mine');
  });
});

// The root action warns when its link expires within 72 h, the time a review and a rollout may take (no input: issue 41).
describe('a link that may not outlive the review', () => {
  it("warns in the log, the pull request and the summary when the platform's link (1 h here) expires within the margin", async () => {
    const run = await exportAndKeep({ 'keep-archive': '', 'config-path': 'deploy/values.yaml', 'github-token': GITHUB_TOKEN });
    expect(run.code).toBe(0);
    // One warning annotation, as docs/behaviour.md promises (issue 40), and no second line that says it again.
    expect(run.log.split('\n').filter((line) => line.includes('the time a review and a rollout may take'))).toEqual([
      expect.stringMatching(/^::warning::The platform's link expires at .*, in [\dhms ]+, sooner than 3d 0h from now, the time a review and a rollout may take\..*keep-archive, then host\/.*helm upgrade --set staticExport\.bundleUrl/)
    ]);
    const [pull] = github.pulls(REPO);
    expect(pull.body).toContain('### ⚠️ This link may not outlive the review');
    expect(pull.body).toMatch(/The platform's link expires at \d{4}-\d\d-\d\d \d\d:\d\d UTC, sooner than 3d 0h from now, the time a review and a rollout may take\. .*keep-archive, then host\//);
    expect(run.summary.match(/may not outlive the review/g)).toHaveLength(1);
  });

  it('says nothing when the link outlasts the 72 h', async () => {
    platform.linkTtlSeconds = 7 * 24 * 3600;
    try {
      const run = await exportAndKeep({ 'keep-archive': '', 'config-path': 'deploy/values.yaml', 'github-token': GITHUB_TOKEN });
      expect(run.code).toBe(0);
      expect(run.log).not.toContain('the time a review and a rollout may take');
      expect(run.summary).not.toContain('may not outlive');
      expect(github.pulls(REPO).at(-1)!.body).not.toContain('may not outlive');
    } finally {
      platform.linkTtlSeconds = 3600;
    }
  });
});

describe('bundle-url-template with a plain static file server', () => {
  /** Exports and keeps, then hosts the kept archive at /bundles/<job-id>/bundle.tar.gz. */
  async function exportAndHost(): Promise<{ jobId: string; archive: Buffer; template: string }> {
    const exported = await exportAndKeep();
    expect(exported.code).toBe(0);
    const jobId = exported.outputs['job-id'];
    const archive = readFileSync(join(workspace(), 'out', 'bundle.tar.gz'));
    files.files.set(`/bundles/${jobId}/bundle.tar.gz`, archive);
    platform.requests.length = 0;
    return { jobId, archive, template: `${files.url}/bundles/<job-id>/bundle.tar.gz` };
  }

  it('proposes the hosted URL without a platform key, after an anonymous GET; a renewal then skips with zero calls', async () => {
    const { jobId, archive, template } = await exportAndHost();
    const url = `${files.url}/bundles/${jobId}/bundle.tar.gz`;
    const run = await proposeHosted(template, jobId, {}, { RUNNER_DEBUG: '1' });
    expect(run.code).toBe(0);
    expect(platform.requests).toEqual([]);
    // The check was one plain GET: nothing of the runner's token, no Authorization, no cookie.
    expect(files.requests.map((r) => [r.method, r.path])).toEqual([['GET', `/bundles/${jobId}/bundle.tar.gz`]]);
    expect(files.requests[0].headers.authorization).toBeUndefined();
    expect(files.requests[0].headers.cookie).toBeUndefined();
    expect(JSON.stringify(files.requests[0].headers)).not.toContain(GITHUB_TOKEN);
    expect(run.log).toContain(`${url} answers 200 to anyone`);
    expect(run.outputs['bundle-url']).toBe(url);
    expect(run.outputs['expires-at']).toBe('never');
    expect(run.outputs['archive-sha256']).toBe(sha256(archive));
    const [pull] = github.pulls(REPO);
    expect(github.fileAt(REPO, pull.head, 'deploy/values.yaml')).toContain(`bundleUrl: "${url}"`);
    expect(pull.body).toContain('| URL expires | never: nothing to renew |');
    expect(pull.body).toContain('and the same SHA-256');
    expect(run.summary).toContain('bundle hosted by your team');
    expect(run.log).not.toContain(GITHUB_TOKEN);

    // Merged: the scheduled renewal finds a URL that does not expire, and sends nothing anywhere.
    github.commitOnBranch(REPO, 'main', { 'deploy/values.yaml': github.fileAt(REPO, pull.head, 'deploy/values.yaml')! }, 'merge');
    github.requests.length = 0;
    files.requests.length = 0;
    const renewal = await renewNightly();
    expect(renewal.code).toBe(0);
    expect(renewal.outputs.skipped).toBe('true');
    expect(renewal.outputs['expires-at']).toBe('never');
    expect(renewal.log).toContain('a URL without an expiry of its own: it is never renewed, so this run changes nothing.');
    expect(platform.requests).toEqual([]);
    expect(files.requests).toEqual([]);
    expect(writes()).toEqual([]);
  });

  it('renew/ on a file that holds a hosted URL changes nothing: a URL without an expiry is never renewed', async () => {
    const { jobId, archive } = await exportAndHost();
    files.files.set(`/flat/${jobId}.tar.gz`, archive);
    const template = `${files.url}/flat/<job-id>.tar.gz`;
    github.createRepo(REPO, { 'deploy/values.yaml': `staticExport:\n  enabled: true\n  bundleUrl: "${files.url}/flat/${jobId}.tar.gz"\n` });
    github.requests.length = 0;
    expect(template).toContain('<job-id>'); // host/'s template plays no part in renew/: it always renews the link in the file
    const run = await renewNightly();
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ skipped: 'true', 'expires-at': 'never', 'config-changed': 'false' });
    expect(files.requests).toEqual([]);
    expect(writes()).toEqual([]);
  });

  it.each([
    ['404', (jobId: string) => files.files.delete(`/bundles/${jobId}/bundle.tar.gz`), /answered 404: nothing is there yet, so the pods would get the same 404\./],
    ['403', (jobId: string) => files.answer(`/bundles/${jobId}/bundle.tar.gz`, 403), /answered 403 to a request without credentials: the pods will get the same answer and cannot fetch the site\. Nothing was proposed\. What usually fixes it: a bucket policy/],
    ['a wrong size', (jobId: string) => files.files.set(`/bundles/${jobId}/bundle.tar.gz`, Buffer.from([0x1f, 0x8b, 0, 0])), /serves 4 bytes, but the kept archive has [\d,]+: it is another file, or an upload that did not finish\./],
    ['a page that is not gzip', (jobId: string) => files.files.set(`/bundles/${jobId}/bundle.tar.gz`, Buffer.alloc(readFileSync(join(workspace(), 'out', 'bundle.tar.gz')).length, 60)), /answered 200, but not with a gzip archive/]
  ])('refuses %s before any GitHub write, and proposes nothing', async (_name, spoil, message) => {
    const { jobId, template } = await exportAndHost();
    spoil(jobId);
    github.requests.length = 0;
    const run = await proposeHosted(template, jobId);
    expect(run.code).toBe(1);
    expect(run.log).toMatch(message);
    expect(writes()).toEqual([]);
    expect(github.pulls(REPO)).toEqual([]);
    expect(platform.requests).toEqual([]);
  });

  // host/ always compares the whole object (issue 41: check-sha256 is no input): size and magic alone cannot tell.
  it('refuses an object of the right size and other bytes, by its SHA-256', async () => {
    const { jobId, archive, template } = await exportAndHost();
    const other = Buffer.from(archive);
    other[other.length - 1] ^= 0xff;
    files.files.set(`/bundles/${jobId}/bundle.tar.gz`, other);
    github.requests.length = 0;
    const run = await proposeHosted(template, jobId);
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/whose SHA-256 differs from the kept archive's/);
    expect(writes()).toEqual([]);
  });

  it('retries a 503 from the storage and then proposes', async () => {
    const { jobId, template } = await exportAndHost();
    files.answer(`/bundles/${jobId}/bundle.tar.gz`, 503, 1);
    const run = await proposeHosted(template, jobId);
    expect(run.code).toBe(0);
    expect(run.log).toMatch(/answered 503\. Retrying in 1(\.0)? s \(2 tries left\)\./);
  });

  it.each([
    [{ 'bundle-url-template': 'https://bundles.example.com/bundle.tar.gz' }, "::error::Input 'bundle-url-template': 'https://bundles.example.com/bundle.tar.gz' must contain <job-id> exactly once (it has it 0 times)"],
    [{ 'bundle-url-template': 'http://bundles.example.com/<job-id>.tar.gz' }, 'is plain http://, which anyone on the path can read and replace: use https://, or, for storage inside the cluster\'s network (a MinIO or Ceph gateway), set allow-plain-http: true.'],
    [{ 'archive-path': '' }, "::error::Input 'archive-path': is required: give the archive-path output of the step that kept the archive (keep-archive)"],
    [{ 'job-id': '' }, "::error::Input 'job-id': is required: give the job-id output of the step that exported and kept the archive (keep-archive)."],
    [{ 'job-id': 'auto' }, "::error::Input 'job-id': 'auto' is not an export job id."]
  ])('refuses bad input before any request: %j', async (inputs, message) => {
    const run = await proposeHosted(`${files.url}/<job-id>.tar.gz`, 'se_0123456789abcdef', inputs);
    expect(run.code).toBe(1);
    expect(run.log).toContain(message);
    expect(github.requests).toEqual([]);
    expect(files.requests).toEqual([]);
  });

  it('still needs api-key for a run that exports', async () => {
    const run = await runInProcess(publish, { 'api-url': platform.url, domain: 'docs.example.com' }, env());
    expect(run.code).toBe(1);
    expect(run.log).toContain("::error::Input 'api-key': is empty. Pass your admin API key from a secret");
    expect(platform.requests).toEqual([]);
  });

  it('shows no key and no signature in the log, even with RUNNER_DEBUG=1', async () => {
    const run = await exportAndKeep({ 'config-path': 'deploy/values.yaml', 'github-token': GITHUB_TOKEN }, { RUNNER_DEBUG: '1' });
    expect(run.code).toBe(0);
    const signature = new URL(run.outputs['bundle-url']).searchParams.get('X-Amz-Signature')!;
    expect(signature.length).toBeGreaterThan(8);
    for (const secret of [DEFAULT_API_KEY, GITHUB_TOKEN, signature]) expect(run.log).not.toContain(secret);
    expect(run.log).toContain('::debug::');
  });
});

// A real S3-compatible server. CI installs Swift (.ci/run), so there a missing Swift fails; on a
// machine without it these tests say how to install it and are skipped.
const missing = swiftMissing();
if (missing && process.env.CI !== 'true') console.warn(`Skipping the Swift tests: ${missing}`);
(missing && process.env.CI !== 'true' ? describe.skip : describe)('bundle-url-template against OpenStack Swift (s3api, SigV4)', () => {
  let swift: SwiftS3;
  beforeAll(async () => {
    if (missing) throw new Error(`CI=true and Swift is not usable: ${missing}`);
    swift = await startSwiftS3();
    await swift.createBucket('private-bundles');
    await swift.createBucket('public-bundles', 'public-read');
    // Four start-up steps, each bounded by its own 30 s (scripts/swift-s3.ts): on a loaded machine
    // Swift's Python servers start slowly, and together they may need more than a minute.
  }, 150_000);
  afterAll(() => swift?.stop());

  it('checks the signature of uploads (SigV4)', async () => {
    expect((await swift.s3('PUT', '/public-bundles/unsigned', Buffer.from('x'), {}, 'wrong-secret')).status).toBe(403);
  });

  it('refuses an object in a private bucket: clear message, nothing proposed', async () => {
    const exported = await exportAndKeep();
    const jobId = exported.outputs['job-id'];
    await swift.putObject('private-bundles', `${jobId}/bundle.tar.gz`, readFileSync(join(workspace(), 'out', 'bundle.tar.gz')));
    github.requests.length = 0;
    const run = await proposeHosted(swift.anonymousUrl('private-bundles', '<job-id>/bundle.tar.gz'), jobId);
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/answered 401 to a request without credentials: the pods will get the same answer and cannot fetch the site\. Nothing was proposed\./);
    expect(writes()).toEqual([]);
    expect(github.pulls(REPO)).toEqual([]);
  });

  it('accepts an object in a public-read bucket, whole and with the same SHA-256, and proposes it', async () => {
    const exported = await exportAndKeep();
    const jobId = exported.outputs['job-id'];
    await swift.putObject('public-bundles', `${jobId}/bundle.tar.gz`, readFileSync(join(workspace(), 'out', 'bundle.tar.gz')));
    const run = await proposeHosted(swift.anonymousUrl('public-bundles', '<job-id>/bundle.tar.gz'), jobId);
    expect(run.code).toBe(0);
    const url = swift.anonymousUrl('public-bundles', `${jobId}/bundle.tar.gz`);
    const [pull] = github.pulls(REPO);
    expect(github.fileAt(REPO, pull.head, 'deploy/values.yaml')).toContain(`bundleUrl: "${url}"`);
    expect(run.log).toContain('the same SHA-256 as the kept archive');
  });
});

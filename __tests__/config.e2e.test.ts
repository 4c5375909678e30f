// The publish action keeps the deployment's values file current through one pull request, against
// the platform emulator and the GitHub REST emulator (reached through GITHUB_API_URL, as on GitHub
// Enterprise Server). Files are compared whole: only the changed values may differ.
//
// The real action runs in this process (in-process.ts) on a short beat; the README's workflows run
// it through dist/index.js (readme-workflows.e2e).
import { beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import { REPO, TOKEN, useEmulators } from './emulators.ts';
import { valuesFixture } from './fixture-values.ts';
import { runInProcess } from './in-process.ts';

/** A fixture, production's link in it served by the platform emulator. */
const fixture = (name: string) => valuesFixture(name, `${platform.url}/bundles`);
const realValues = (name: string) => readFileSync(`__tests__/fixtures/values-real/${name}`, 'utf8');
const OLD_LINK = /"[^"]*\/se_3f9a2c1b8e7d4a06\/bundle\.tar\.gz\?[^"]+"/;

// The platform's clock: links are signed with it, so a fixed clock gives the same link again.
let now = Date.now();
const { platform, github, publish } = useEmulators({ platform: { clock: () => now }, reset: true });
beforeEach(() => {
  now = Date.now();
  github.setPolicy({ allowActionsToCreatePullRequests: true, contentsWrite: true, pullRequestsWrite: true, protectedBranches: [] });
  github.createRepo(REPO, { 'deploy/values.yaml': fixture('values.yaml'), 'deploy/values.json': fixture('values-4-spaces.json'), 'README.md': '# deploy\n' });
});

const env = { GITHUB_REPOSITORY: REPO };
const run = (inputs: Record<string, string>) =>
  runInProcess(publish, { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, 'github-token': TOKEN, 'config-path': 'deploy/values.yaml', ...inputs }, env);
const writes = () => github.requests.filter((r) => r.method !== 'GET');

describe('the configuration pull request', () => {
  it('first run opens it; a new link updates the same one; the same link does nothing', async () => {
    const first = platform.seedExportJob({ domain: 'docs.example.com' });
    const one = await run({ 'job-id': first, domain: 'docs.example.com', 'pr-labels': 'docs, deploy' });
    expect(one.code).toBe(0);
    expect(one.outputs).toMatchObject({ 'config-changed': 'true', 'pull-request-operation': 'created', 'pull-request-number': expect.stringMatching(/^\d+$/) });
    const [pull] = github.pulls(REPO);
    expect(pull).toMatchObject({ head: 'static-export/deploy-values.yaml', base: 'main', state: 'open', labels: ['docs', 'deploy'] });
    expect(one.outputs['pull-request-url']).toBe(pull.html_url);
    // Only the link differs, byte for byte; every comment, anchor and blank line is kept.
    const expected = fixture('values.yaml').replace(OLD_LINK, `"${one.outputs['bundle-url']}"`);
    expect(github.fileAt(REPO, pull.head, 'deploy/values.yaml')).toBe(expected);
    const head = github.commit(REPO, github.branchHead(REPO, pull.head)!)!;
    expect(head.parents).toEqual([github.branchHead(REPO, 'main')]);
    // The body a reviewer reads.
    expect(pull.body).toContain('**docs.example.com**');
    expect(pull.body).toContain(`\`${first}\``);
    expect(pull.body).toMatch(/\| Pages exported \| \d+ \|/);
    expect(pull.body).toMatch(/\| Bundle size \| [\d.]+ (B|KB) \|/);
    expect(pull.body).toMatch(/\| New link expires \| \d{4}-\d\d-\d\d \d\d:\d\d UTC \|/);
    expect(pull.body).toContain(`| \`staticExport.bundleUrl\` | before: \`${platform.url}\` \`/bundles/se_3f9a2c1b8e7d4a06/bundle.tar.gz?…\``);
    expect(pull.body).toContain(`/bundles/${first}/bundle.tar.gz?…\``);
    expect(pull.body).toContain('fetches the new bundle at its next rollout');
    expect(pull.body).not.toMatch(/X-Amz-Signature|aeeed9bb/);
    expect(one.summary).toContain(`pull request #${pull.number}</a>`);

    now += 5 * 60_000;
    const second = platform.seedExportJob({ domain: 'docs.example.com' });
    const firstHead = github.branchHead(REPO, pull.head);
    const two = await run({ 'job-id': second, domain: 'docs.example.com' });
    expect(two.code).toBe(0);
    expect(two.outputs).toMatchObject({ 'pull-request-operation': 'updated', 'pull-request-number': one.outputs['pull-request-number'] });
    expect(github.pulls(REPO)).toHaveLength(1);
    expect(github.fileAt(REPO, pull.head, 'deploy/values.yaml')).toBe(fixture('values.yaml').replace(OLD_LINK, `"${two.outputs['bundle-url']}"`));
    // The branch moved forward by one single-parent commit, so any merge method gives the same file.
    expect(github.commit(REPO, github.branchHead(REPO, pull.head)!)!.parents).toEqual([firstHead]);

    github.requests.length = 0;
    const three = await run({ 'job-id': second, domain: 'docs.example.com' });
    expect(three.code).toBe(0);
    expect(three.outputs['bundle-url']).toBe(two.outputs['bundle-url']);
    expect(three.outputs).toMatchObject({ 'pull-request-operation': 'none', 'pull-request-number': one.outputs['pull-request-number'] });
    expect(writes()).toEqual([]);
    expect(three.log).toContain(`Pull request #${pull.number} is already current`);
  });

  it('does nothing when the base already holds the link', async () => {
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const first = await run({ 'job-id': job, domain: 'docs.example.com', 'dry-run': 'true' });
    const merged = fixture('values.yaml').replace(OLD_LINK, `"${first.outputs['bundle-url']}"`);
    github.commitOnBranch(REPO, 'main', { 'deploy/values.yaml': merged }, 'Merge the static export pull request');
    github.requests.length = 0;
    const again = await run({ 'job-id': job, domain: 'docs.example.com' });
    expect(again.code).toBe(0);
    expect(again.outputs).toMatchObject({ 'config-changed': 'false', 'pull-request-operation': 'none' });
    expect(again.outputs['pull-request-number']).toBeUndefined();
    expect(writes()).toEqual([]);
    expect(github.pulls(REPO)).toHaveLength(0);
  });

  it("keeps a JSON file's indentation; only the value differs", async () => {
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const result = await run({ 'job-id': job, domain: 'docs.example.com', 'config-path': 'deploy/values.json' });
    expect(result.code).toBe(0);
    const before = fixture('values-4-spaces.json');
    const after = github.fileAt(REPO, 'static-export/deploy-values.json', 'deploy/values.json')!;
    const oldLink = (JSON.parse(before) as { staticExport: { bundleUrl: string } }).staticExport.bundleUrl;
    expect(after).toBe(before.replace(JSON.stringify(oldLink), JSON.stringify(result.outputs['bundle-url'])));
  });

  it('creates the block and its parents under a nested config-key, and sets version', async () => {
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const result = await run({ 'job-id': job, domain: 'docs.example.com', 'config-path': 'README-values.yml', 'config-key': 'mintlify.staticExport', version: '2024-06-01' });
    // The file does not exist: a clear error, nothing written, no export spent on it.
    expect(result.code).toBe(1);
    expect(result.log).toContain('::error::README-values.yml does not exist on main in acme/deploy. Check config-path');
    expect(writes()).toEqual([]);
    expect(platform.requests.filter((r) => r.route === 'bundle')).toHaveLength(0);

    github.commitOnBranch(REPO, 'main', { 'deploy/umbrella.yaml': 'global:\n  domain: docs.example.com # shared\n' }, 'Add umbrella values');
    const nested = await run({ 'job-id': job, domain: 'docs.example.com', 'config-path': 'deploy/umbrella.yaml', 'config-key': 'mintlify.staticExport', version: '2024-06-01' });
    expect(nested.code).toBe(0);
    expect(github.fileAt(REPO, 'static-export/deploy-umbrella.yaml-mintlify.staticExport', 'deploy/umbrella.yaml')).toBe(
      `global:\n  domain: docs.example.com # shared\n\nmintlify:\n  staticExport:\n    enabled: true\n    bundleUrl: "${nested.outputs['bundle-url']}"\n    version: "2024-06-01"\n`
    );
  });

  it("a real chart's file that ends with the document end marker ... (openstack-helm's ceilometer): the block goes before it, and is proposed", async () => {
    const ceilometer = realValues('openstack__openstack-helm__ceilometer__values.yaml');
    expect(ceilometer.endsWith('\n...\n')).toBe(true);
    github.commitOnBranch(REPO, 'main', { 'ceilometer/values.yaml': ceilometer }, 'Add the ceilometer values');
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const result = await run({ 'job-id': job, domain: 'docs.example.com', 'config-path': 'ceilometer/values.yaml' });
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ 'config-changed': 'true', 'pull-request-operation': 'created' });
    const [pull] = github.pulls(REPO);
    expect(pull).toMatchObject({ head: 'static-export/ceilometer-values.yaml', state: 'open' });
    // Every byte of the chart's file is kept; the block sits where the document's content ends.
    expect(github.fileAt(REPO, pull.head, 'ceilometer/values.yaml')).toBe(
      `${ceilometer.slice(0, -'...\n'.length)}\nstaticExport:\n  enabled: true\n  bundleUrl: "${result.outputs['bundle-url']}"\n...\n`
    );
    expect(pull.body).toContain('| `staticExport.bundleUrl` | before: (not set)<br>after: ');
  });

  it('dry run: shows the change and writes nothing', async () => {
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const result = await run({ 'job-id': job, domain: 'docs.example.com', 'dry-run': 'true' });
    expect(result.code).toBe(0);
    expect(result.outputs).toMatchObject({ 'config-changed': 'true', 'pull-request-operation': 'none' });
    expect(writes()).toEqual([]);
    expect(result.summary).toContain('<strong>Dry run:</strong> nothing was written');
    expect(result.summary).toContain('What changes in `deploy/values.yaml`');
  });
});

describe('nothing is written when it should not be', () => {
  it('a malformed file fails naming the file and line, before any export', async () => {
    github.commitOnBranch(REPO, 'main', { 'deploy/values.yaml': 'staticExport:\n  enabled: true\n bundleUrl: "x"\n' }, 'Break the file');
    github.requests.length = 0;
    const result = await run({ domain: 'docs.example.com' });
    expect(result.code).toBe(1);
    expect(result.log).toMatch(/::error::deploy\/values\.yaml:3: /);
    expect(writes()).toEqual([]);
    expect(platform.requests.filter((r) => r.route === 'start')).toHaveLength(0);
  });

  it('a staticExport block reached through a YAML alias is refused, naming the anchor and how to edit, before any export', async () => {
    github.commitOnBranch(REPO, 'main', { 'deploy/values.yaml': 'exportDefaults: &exportDefaults\n  enabled: true\n  bundleUrl: ""\nstaticExport: *exportDefaults\n' }, 'Share the block');
    github.requests.length = 0;
    const result = await run({ domain: 'docs.example.com' });
    expect(result.code).toBe(1);
    expect(result.log).toContain('::error::deploy/values.yaml:4: "staticExport" is an alias (*exportDefaults) of the anchor &exportDefaults on line 1');
    expect(writes()).toEqual([]);
    expect(platform.requests.filter((r) => r.route === 'start')).toHaveLength(0);
  });

  it("a real chart's file with a duplicate key is refused before any export, naming the key and both lines", async () => {
    github.commitOnBranch(REPO, 'main', { 'helm/values.yaml': realValues('06-no-signal__solo__helm__values.yaml') }, 'Add the values');
    github.requests.length = 0;
    const result = await run({ domain: 'docs.example.com', 'config-path': 'helm/values.yaml' });
    expect(result.code).toBe(1);
    expect(result.log).toContain(
      '::error::helm/values.yaml:43: not valid YAML: duplicate key "databases" on line 43, first on line 34. Helm would keep only the last one and drop the first without a word. Keep the one you mean'
    );
    expect(writes()).toEqual([]);
    expect(platform.requests).toEqual([]);
  });

  it('an edit the action would get wrong fails before any export, as the action’s fault and not the file’s', async () => {
    // Under YAML 1.1 a plain `on` reads as true: the edit, kept plain, would not read back as written.
    const text = '%YAML 1.1\n---\nstaticExport:\n  enabled: true\n  bundleUrl: https://old.example/b.tar.gz\n  version: v1\n';
    github.commitOnBranch(REPO, 'main', { 'deploy/values.yaml': text }, 'YAML 1.1');
    github.requests.length = 0;
    const result = await run({ domain: 'docs.example.com', version: 'on' });
    expect(result.code).toBe(1);
    expect(result.log).toContain("::error::deploy/values.yaml: the action's edit of staticExport gave a file it cannot read back (staticExport.version reads back as true, not as written). This is a fault of the action, not of your file");
    expect(writes()).toEqual([]);
    expect(platform.requests).toEqual([]);
  });

  it('a one-line JSON file stays on one line when version is added', async () => {
    github.commitOnBranch(REPO, 'main', { 'deploy/values.json': '{"staticExport": {"enabled": true, "bundleUrl": ""}}\n' }, 'One line');
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const result = await run({ 'job-id': job, domain: 'docs.example.com', 'config-path': 'deploy/values.json', version: '2024-06-01' });
    expect(result.code).toBe(0);
    expect(github.fileAt(REPO, 'static-export/deploy-values.json', 'deploy/values.json')).toBe(
      `{"staticExport": {"enabled": true, "bundleUrl": "${result.outputs['bundle-url']}", "version": "2024-06-01"}}\n`
    );
  });

  it('a failed export changes no file and opens no pull request', async () => {
    const live = await startPlatformEmulator({ profile: { queuedMs: 100, runMs: 1500, failAt: 30 } });
    try {
      const result = await runInProcess(
        publish,
        { 'api-key': DEFAULT_API_KEY, 'api-url': live.url, 'github-token': TOKEN, 'config-path': 'deploy/values.yaml', domain: 'docs.example.com' },
        env
      );
      expect(result.code).toBe(1);
      // The root action's outputs name the job for a re-run; its status is in the error line (no status output: issue 41).
      expect(result.outputs['job-id']).toMatch(/^se_/);
      expect(result.log).toMatch(/^::error::.*failed/m);
      expect(writes()).toEqual([]);
      expect(github.pulls(REPO)).toHaveLength(0);
      expect(result.summary).toContain('No configuration was changed: the deployment keeps serving its current bundle.');
    } finally {
      await live.close();
    }
  });
});

describe('GitHub errors a person can act on', () => {
  it('the repository does not let Actions create pull requests', async () => {
    github.setPolicy({ allowActionsToCreatePullRequests: false });
    const result = await run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }), domain: 'docs.example.com' });
    expect(result.code).toBe(1);
    expect(result.log).toContain('Allow GitHub Actions to create and approve pull requests');
    expect(result.summary).toContain('exported, but a later step failed');
  });

  it('a token without write permission is shown the permissions block', async () => {
    github.setPolicy({ contentsWrite: false });
    const result = await run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }), domain: 'docs.example.com' });
    expect(result.code).toBe(1);
    expect(result.log).toContain('permissions: { contents: write, pull-requests: write }');
  });

  it('a protected pull request branch', async () => {
    github.setPolicy({ protectedBranches: ['static-export/deploy-values.yaml'] });
    const result = await run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }), domain: 'docs.example.com' });
    expect(result.code).toBe(1);
    expect(result.log).toMatch(/::error::.*protected.*lift the rule from static-export\/ branches/);
  });

  it('a base branch that does not exist', async () => {
    const result = await run({ 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }), domain: 'docs.example.com', 'base-branch': 'release' });
    expect(result.code).toBe(1);
    expect(result.log).toContain('release');
    expect(result.log).toMatch(/::error::.*Could not read base branch release in acme\/deploy: no such branch\. Check base-branch: /);
    expect(platform.requests.filter((r) => r.route === 'bundle')).toHaveLength(0);
  });

  it('bad configuration inputs fail before any request', async () => {
    for (const [inputs, message] of [
      [{ 'config-path': 'deploy/values.toml' }, "Input 'config-path': 'deploy/values.toml' is not a file this action can edit"],
      [{ 'config-key': 'static export' }, "Input 'config-key': 'static export' is not a dotted key path"],
      [{ 'config-repository': 'acme' }, "Input 'config-repository': 'acme' is not a repository"],
      [{ 'dry-run': 'maybe' }, "Input 'dry-run': 'maybe' is not a boolean"]
    ] as const) {
      const result = await run({ domain: 'docs.example.com', ...inputs });
      expect(result.code).toBe(1);
      expect(result.log).toContain(`::error::${message}`);
    }
    expect(github.requests).toEqual([]);
    expect(platform.requests).toEqual([]);
  });
});

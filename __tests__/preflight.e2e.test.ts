// The real publish action in this process (in-process.ts): what a run can know before it exports is refused before the
// platform hears of it (the platform emulator counts zero requests), and a failure after the export
// says how to go on without exporting again. The platform and GitHub emulators on loopback.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { BRANCH, PATH, REPO, useEmulators } from './emulators.ts';
import { presignedLink } from './finished-export.ts';
import { runInProcess } from './in-process.ts';

const { platform, github, publish, proposing, env } = useEmulators({ reset: true });

/** A link as the platform signs them, valid for a week from now, on the platform emulator (a run downloads production's export to compare). */
const link = (jobId: string) => presignedLink(platform, jobId, Date.now(), 7 * 24 * 3600);

const topLevel = () => `# The docs deployment.\nstaticExport:\n  enabled: true\n  bundleUrl: "${link('se_3f9a2c1b8e7d4a06')}"\n`;
const umbrella = () =>
  ['# Umbrella chart: each subchart under its own key.', 'global:', '  domain: docs.example.com', 'mintlify:', '  image:', '    tag: 1.42.0', '  staticExport:', '    enabled: true', `    bundleUrl: "${link('se_3f9a2c1b8e7d4a06')}"`, ''].join('\n');

beforeEach(() => {
  github.setPolicy({ allowActionsToCreatePullRequests: true, contentsWrite: true, pullRequestsWrite: true, tokens: {} });
  github.createRepo(REPO, { [PATH]: topLevel(), 'README.md': '# deploy\n' });
});

const run = (inputs: Record<string, string>) => runInProcess(publish, proposing(inputs), env(REPO));
const writes = () => github.requests.filter((r) => r.method !== 'GET');

describe('refused before any platform request', () => {
  it('an umbrella chart with the default config-key: the key path found and config-key are named', async () => {
    github.createRepo(REPO, { [PATH]: umbrella() });
    const result = await run({});
    expect(result.code).toBe(1);
    expect(result.log).toContain(
      "::error::Input 'config-key': is staticExport (the default), but deploy/values.yaml has no staticExport block: it holds \"mintlify.staticExport\" instead. " +
        'A run would add a staticExport block that the chart never reads. To edit the block the chart reads, set config-key: mintlify.staticExport. ' +
        '(If the chart does read staticExport, add it to the file once as an empty block, and runs fill it.) Nothing was exported.'
    );
    expect(result.log).not.toContain('Nothing is deployed yet');
    expect(platform.requests).toEqual([]);
    expect(writes()).toEqual([]);
    expect(github.pulls(REPO)).toEqual([]);
  });

  // No action takes pr-branch since issue 41: a step that still passes the default branch cannot write to it.
  it('a pr-branch naming the default branch is not read: the pull request comes from the action\'s own branch', async () => {
    const before = github.fileAt(REPO, 'main', PATH);
    const result = await run({ 'pr-branch': 'main' });
    expect(result.code).toBe(0);
    expect(github.pulls(REPO).map((pull) => [pull.head, pull.base])).toEqual([['static-export/deploy-values.yaml', 'main']]);
    expect(github.fileAt(REPO, 'main', PATH)).toBe(before);
  });

  it("a person's token that can read the repository but not push to it, and a token GitHub does not know", async () => {
    github.setPolicy({ tokens: { ghp_readonly_reviewer: { kind: 'user', write: false } } });
    const readOnly = await run({ 'github-token': 'ghp_readonly_reviewer' });
    expect(readOnly.code).toBe(1);
    expect(readOnly.log).toMatch(/::error::Input 'github-token': can read acme\/deploy but not write to it: GitHub says its role there has no push access\. .*Nothing was exported\./);
    expect(readOnly.log).not.toContain('ghp_readonly_reviewer');
    expect(platform.requests).toEqual([]);
    expect(writes()).toEqual([]);

    const unknown = await run({ 'github-token': 'ghp_revoked_last_week' });
    expect(unknown.code).toBe(1);
    expect(unknown.log).toMatch(/::error::Could not read the repository in acme\/deploy: the token is invalid or expired \(401 Bad credentials\)/);
    expect(platform.requests).toEqual([]);
  });
});

describe('a failure after the export', () => {
  it('names the job id to re-run with and the branch left behind, and the re-run opens the pull request from it', async () => {
    github.setPolicy({ allowActionsToCreatePullRequests: false });
    const job = platform.seedExportJob({ domain: 'docs.example.com' });
    const failed = await run({ 'job-id': job });
    expect(failed.code).toBe(1);
    const left =
      `The export job ${job} is done: once the cause is fixed, re-run with job-id: ${job} to propose it without exporting again. ` +
      `Branch ${BRANCH} in acme/deploy holds this run's change, but no pull request shows it: the re-run opens the pull request from it, or delete the branch to drop the change.`;
    expect(failed.log).toMatch(/::error::Could not open a pull request from static-export\/deploy-values\.yaml into main in acme\/deploy: GitHub Actions may not create pull requests here; .*\(x-github-request-id: [^)]+\)\. The export job/);
    expect(failed.log).toContain(left);
    expect(failed.summary).toContain(`Branch ${BRANCH} in acme/deploy holds this run`);
    expect(github.pulls(REPO)).toEqual([]);
    const pushed = github.branchHead(REPO, BRANCH);
    expect(github.fileAt(REPO, pushed!, PATH)).toContain(`/bundles/${job}/`);

    // As the message says: with the setting on, the same job-id opens the pull request, and nothing is exported again.
    github.setPolicy({ allowActionsToCreatePullRequests: true });
    platform.requests.length = 0;
    const again = await run({ 'job-id': job });
    expect(again.code).toBe(0);
    expect(again.outputs).toMatchObject({ 'job-id': job, 'pull-request-operation': 'created' });
    expect(github.pulls(REPO)).toMatchObject([{ head: BRANCH, base: 'main', state: 'open' }]);
    expect(platform.requests.filter((r) => r.method === 'POST' && r.route !== 'bundle')).toEqual([]);
  });
});

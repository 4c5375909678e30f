// The real publish action in this process (in-process.ts): the action owns exactly its settings, on
// one base, and every person's decision stands (issue 32). A person's edit on the base next to the action's lines, two
// base branches, an accepted page loss renewed, a pull request closed without merging, and a branch
// the action did not make, each against the platform and GitHub emulators on loopback.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { type SiteSpec, pageFiles } from '../emulator/archive.ts';
import { BRANCH, DOMAIN, PATH, REPO, useEmulators, useTempDir } from './emulators.ts';
import { finishedExport } from './finished-export.ts';
import { runInProcess, startInProcess } from './in-process.ts';
import { readSetting } from '../src/values/values-file.ts';

const { platform, github, publish, proposing, env } = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 } } });
const temp = useTempDir('decisions-', { each: false });
beforeEach(() => {
  platform.linkTtlSeconds = 7 * 24 * 3600;
  platform.profile = { queuedMs: 0, runMs: 0 };
  github.setPolicy({ mergeMethods: ['merge', 'squash', 'rebase'] });
});

const values = (link: string) => `# Docs deployment\nreplicaCount: 2\n\nstaticExport:\n  # Presigned link.\n  enabled: true\n  bundleUrl: "${link}"\n\nresources: {}\n`;

/** An export the platform has finished, of `site`; its fresh link. */
const exported = (site?: SiteSpec) => finishedExport(platform, DOMAIN, site);

const run = (inputs: Record<string, string>) => runInProcess(publish, proposing(inputs), { ...env(REPO), RUNNER_TEMP: temp() });
const push = (jobId: string, extra: Record<string, string> = {}) => run({ 'job-id': jobId, ...extra });
const setting = (ref: string, name: string) => readSetting(PATH, github.fileAt(REPO, ref, PATH)!, 'staticExport', name);
const openPulls = () => github.pulls(REPO).filter((pull) => pull.state === 'open');

/** What merging by each method would leave on the base: the same files, whatever the method. */
function mergesAlike(number: number): Record<string, string> {
  const results = (['merge', 'squash', 'rebase'] as const).map((method) => github.previewMerge(REPO, number, method));
  expect(results.map((result) => typeof result)).toEqual(['object', 'object', 'object']);
  expect(results.map((result) => JSON.stringify(result))).toEqual(Array(3).fill(JSON.stringify(results[0])));
  return results[0] as Record<string, string>;
}

describe('a change on the base next to the action\'s lines is never a conflict', () => {
  it('enabled: false committed on the base beside the link: the next push re-applies its settings on it, and the pull request merges by every method', async () => {
    github.createRepo(REPO, { [PATH]: values((await exported()).link) });
    const first = await push((await exported()).jobId);
    const number = Number(first.outputs['pull-request-number']);
    const onBase = github.fileAt(REPO, 'main', PATH)!.replace('enabled: true', 'enabled: false');
    github.commitOnBranch(REPO, 'main', { [PATH]: onBase }, 'Turn the static export off for now');
    // The line above the link changed on both sides: a line merge would stop here.
    expect(typeof github.previewMerge(REPO, number, 'merge')).toBe('string');

    const next = await exported();
    const second = await push(next.jobId);
    expect(second.code).toBe(0);
    expect([second.outputs['pull-request-number'], second.outputs['pull-request-operation']]).toEqual([String(number), 'updated']);
    expect(second.log).not.toMatch(/cannot be joined|Update branch/);
    const merged = mergesAlike(number);
    // The base's file with the action's settings: the person's other lines stay, the change is shown.
    expect(merged[PATH]).toBe(onBase.replace('enabled: false', 'enabled: true').replace(/bundleUrl: ".*"/, `bundleUrl: "${second.outputs['bundle-url']}"`));
    expect(openPulls()[0]!.body).toContain('| `staticExport.enabled` | before: `false`<br>after: `true` |');
  });

  it('a link pasted on the base by hand: a renewal with nothing due still rebuilds the pull request on it, which merges by every method', async () => {
    github.createRepo(REPO, { [PATH]: values((await exported()).link) });
    const first = await push((await exported()).jobId);
    const number = Number(first.outputs['pull-request-number']);
    const proposed = setting(BRANCH, 'bundleUrl');
    const pasted = (await exported()).link;
    github.commitOnBranch(REPO, 'main', { [PATH]: values(pasted) }, 'Paste a fresh link by hand');

    // The proposed link is a week from expiry: nothing to renew, but the pull request must stay mergeable.
    const requests = platform.requests.length;
    const renewal = await run({ 'renew-within': '72h' });
    expect(renewal.code).toBe(0);
    expect(renewal.outputs.skipped).toBe('true');
    expect(renewal.log).toContain(`The base moved under pull request #${number}: rebuilt it on main's current file`);
    expect(platform.requests.length).toBe(requests);
    expect(mergesAlike(number)[PATH]).toBe(values(proposed as string));
  });
});

describe('the facts are read before the export, and read again when the base moved during it', () => {
  it('a change merged into the base while the export ran: the pull request is built on the base as it is after the export', async () => {
    github.createRepo(REPO, { [PATH]: values((await exported()).link) });
    platform.profile = { queuedMs: 0, runMs: 300 };
    const started = startInProcess(publish, proposing(), { ...env(REPO), RUNNER_TEMP: temp() });
    await started.waitFor('Started export job');
    const onBase = github.fileAt(REPO, 'main', PATH)!.replace('enabled: true', 'enabled: false');
    const moved = github.commitOnBranch(REPO, 'main', { [PATH]: onBase }, 'Turned off while the export ran');
    const done = await started.done;
    expect(done.code).toBe(0);
    expect(done.outputs['pull-request-operation']).toBe('created');
    expect(github.commit(REPO, github.branchHead(REPO, BRANCH)!)!.parents).toEqual([moved]);
    expect(mergesAlike(Number(done.outputs['pull-request-number']))[PATH]).toBe(values(done.outputs['bundle-url']!));
  });
});

describe('a proposal belongs to one base', () => {
  it('the same values file proposed into main and into production: two pull requests, each built on its own base', async () => {
    const deployed = (await exported()).link;
    github.createRepo(REPO, { [PATH]: values(deployed), 'README.md': '# deploy\n' });
    github.commitOnBranch(REPO, 'production', { 'README.md': '# deploy (production)\n' }, 'Production only');

    const job = (await exported()).jobId;
    const toMain = await push(job, { 'base-branch': 'main' });
    const toProduction = await push(job, { 'base-branch': 'production' });
    expect([toMain.code, toProduction.code]).toEqual([0, 0]);
    expect([toMain.outputs['pull-request-operation'], toProduction.outputs['pull-request-operation']]).toEqual(['created', 'created']);
    const pulls = openPulls().map((pull) => ({ base: pull.base, head: pull.head }));
    expect(pulls).toEqual(expect.arrayContaining([{ base: 'main', head: BRANCH }, { base: 'production', head: 'static-export/production/deploy-values.yaml' }]));
    expect(pulls).toHaveLength(2);
    // Merging into main brings none of production's files, and the other way round.
    expect(mergesAlike(Number(toMain.outputs['pull-request-number']))['README.md']).toBe('# deploy\n');
    expect(mergesAlike(Number(toProduction.outputs['pull-request-number']))['README.md']).toBe('# deploy (production)\n');
  });

  // No input names the branch any more (issue 41): the action's own branch name can still be the head
  // of a pull request a person opened into another base.
  it('a pull request from the action\'s branch into another base is left alone, and the run says so before exporting', async () => {
    github.createRepo(REPO, { [PATH]: values((await exported()).link) });
    github.commitOnBranch(REPO, 'production', { 'README.md': '# deploy (production)\n' }, 'Production only');
    github.commitOnBranch(REPO, BRANCH, { 'README.md': '# deploy, for production\n' }, 'A change for production');
    // Opened by a person through the API, as the web UI's "New pull request" does.
    const opened = await fetch(`${github.url}/repos/${REPO}/pulls`, {
      method: 'POST',
      headers: { authorization: 'token ghs_emulator_token', 'content-type': 'application/json', accept: 'application/vnd.github+json' },
      body: JSON.stringify({ title: 'For production', head: BRANCH, base: 'production' })
    });
    expect(opened.status).toBe(201);
    const { number } = (await opened.json()) as { number: number };
    const before = github.branchHead(REPO, BRANCH);
    const job = (await exported()).jobId;
    const requests = platform.requests.length;
    const again = await push(job);
    expect(again.code).toBe(1);
    expect(again.log).toContain(`::error::Branch ${BRANCH} in acme/deploy is the head of pull request #${number}`);
    expect(again.log).toContain('Close that pull request, or retarget it to main.');
    expect(platform.requests.length).toBe(requests);
    expect(github.branchHead(REPO, BRANCH)).toBe(before);
  });
});

describe("people's decisions stand", () => {
  it('an export whose page loss a person accepted is renewed without downloading either bundle, and without the gate', async () => {
    github.createRepo(REPO, { [PATH]: values((await exported({ pages: pageFiles(10) })).link) });
    platform.linkTtlSeconds = 3600; // the proposed link is due at once for a 72h renew-within
    const halved = await exported({ pages: pageFiles(5) });
    const accepted = await push(halved.jobId, { 'max-page-loss': '100%' });
    expect(accepted.code).toBe(0);
    expect(JSON.parse(accepted.outputs['content-diff']!)).toMatchObject({ removed: 5 });
    const body = openPulls()[0]!.body;

    const downloads = platform.requests.filter((request) => request.route === 'download').length;
    // The renewal's fresh link lives a week: another link than the hour-long one, even within the same second.
    platform.linkTtlSeconds = 7 * 24 * 3600;
    const renewal = await run({ 'renew-within': '72h' });
    expect(renewal.code).toBe(0);
    expect(renewal.log).toContain(`Export ${halved.jobId} is the one pull request #${accepted.outputs['pull-request-number']} proposes: it passed the content gate then`);
    expect(platform.requests.filter((request) => request.route === 'download').length).toBe(downloads);
    expect(renewal.outputs['pull-request-operation']).toBe('updated');
    // The reviewer still sees the pages it loses.
    const renewed = openPulls()[0]!.body;
    expect(renewed.slice(renewed.indexOf('### What readers see'), renewed.indexOf('| Export job |'))).toBe(body.slice(body.indexOf('### What readers see'), body.indexOf('| Export job |')));
  });

  it('a pull request closed without merging: its export is never proposed again; a newer one opens a pull request that names it', async () => {
    github.createRepo(REPO, { [PATH]: values((await exported()).link) });
    const turnedDown = (await exported()).jobId;
    const first = await push(turnedDown);
    const closed = Number(first.outputs['pull-request-number']);
    github.closePull(REPO, closed);

    const again = await push(turnedDown);
    expect(again.code).toBe(0);
    expect(again.log).toContain(`::notice::Export ${turnedDown} was proposed in pull request #${closed}`);
    expect(again.outputs['pull-request-operation']).toBe('none');
    expect(openPulls()).toEqual([]);

    const newer = await push((await exported()).jobId);
    expect(newer.outputs['pull-request-operation']).toBe('created');
    expect(openPulls()[0]!.body).toContain(`Pull request #${closed}, which proposed export \`${turnedDown}\`, was closed without merging`);
  });

  it('the action\'s branch holding a person\'s commit is refused before any platform request, naming it, and is never moved', async () => {
    github.createRepo(REPO, { [PATH]: values((await exported()).link) });
    const theirs = github.commitOnBranch(REPO, BRANCH, { 'tls.yaml': 'enabled: true\n' }, 'TLS for the docs ingress');
    const job = (await exported()).jobId;
    const requests = platform.requests.length;
    const refused = await push(job);
    expect(refused.code).toBe(1);
    expect(refused.log).toContain(`::error::Branch ${BRANCH} in acme/deploy was not created by this action: its first commit (${theirs.slice(0, 7)} "TLS for the docs ingress") is not this action's.`);
    expect(refused.log).toContain('Rename or delete that branch (its work stays in the pull request or a branch of your own), then run again.');
    expect(platform.requests.length).toBe(requests);
    expect(github.branchHead(REPO, BRANCH)).toBe(theirs);
    expect(openPulls()).toEqual([]);
  });
});

// What a run reports is what it did (issue 40), through the built bundle (dist/index.js) as the runner
// runs it: a nightly that merged production's renewal apart from a content pull request names the
// merge; an outage after the pull request was written still names the pull request and does not ask
// for a new export; config-changed says whether this run changed the configuration; a link that
// cannot outlive a review raises the warning docs/behaviour.md promises; and with production switched
// off, the summary speaks of no pod that cannot fetch the site.
import { describe, expect, it } from '@jest/globals';
import { operationOf } from '../emulator/github-faults.ts';
import { runAction } from '../emulator/runner.ts';
import { DOMAIN, TOKEN, annotations, productionRepo, useEmulators } from './emulators.ts';
import { finishedExport } from './finished-export.ts';
import { bundleOfStep, runInProcess } from './in-process.ts';

const RENEWAL_BRANCH = 'static-export/deploy-values.yaml-renewal';
const emulators = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 } } });
const { platform, github, publish, proposing: step, env } = emulators;

const values = (enabled: boolean) => (link: string) => `# Helm values for the docs deployment.\nstaticExport:\n  enabled: ${enabled}\n  bundleUrl: "${link}"\n`;

/** A repository of its own whose base serves an export by a week-long link with `leftHours` to live. */
async function production(leftHours: number, enabled = true): Promise<{ repo: string; jobId: string }> {
  platform.linkTtlSeconds = 7 * 24 * 3600;
  return productionRepo(emulators, 'outcome', { leftHours, values: values(enabled) });
}

/** The README's nightly step (a renewal when due), with `extra` inputs. */
const nightly = (extra: Record<string, string> = {}) => step({ 'renew-within': '72h', ...extra });
const throughDist = (repo: string, inputs: Record<string, string>, event = 'schedule') => runAction(bundleOfStep(inputs), inputs, env(repo, event));

/** A push run proposes a new export: the content pull request a person reviews. */
async function proposeContent(repo: string): Promise<number> {
  const { jobId } = await finishedExport(platform, DOMAIN);
  const run = await runInProcess(publish, step({ 'job-id': jobId }), env(repo, 'push'));
  expect(run.code).toBe(0);
  return Number(run.outputs['pull-request-number']);
}

describe('the outcome reported, through dist/', () => {
  it('names the renewal it merged apart from a content pull request, and the content pull request it rebuilt', async () => {
    const { repo } = await production(60);
    const content = await proposeContent(repo);
    const run = await throughDist(repo, nightly({ 'auto-merge': 'renewals' }));
    expect(annotations(run, 'error')).toEqual([]);
    expect(run.code).toBe(0);
    const renewal = github.pulls(repo).find((pull) => pull.head === RENEWAL_BRANCH)!;
    expect(renewal).toMatchObject({ merged: true, mergedBy: TOKEN });
    // The merge is named for a later step to roll out; the content pull request still waits, rebuilt.
    expect(run.outputs).toMatchObject({
      merged: 'true',
      'merged-pull-request-number': String(renewal.number),
      'merged-pull-request-url': renewal.html_url,
      'pull-request-number': String(content),
      'pull-request-operation': 'updated',
      'config-changed': 'true'
    });
    expect(run.outputs.skipped).toBeUndefined();
    expect(run.summary).toContain(`production's link renewed, pull request #${renewal.number} merged`);
    expect(run.summary).toContain(`Merged <a href="${renewal.html_url}">pull request #${renewal.number}</a>`);
    expect(run.summary).not.toMatch(/nothing to do|no pull request was touched/);
  }, 60_000);

  it('still names the pull request it wrote when GitHub fails after it, and does not ask for a new export', async () => {
    // Where the auto-merge part begins: the first kind of call a twin run makes only after it created the pull request.
    const twin = await production(40);
    github.requests.length = 0;
    expect((await runInProcess(publish, nightly({ 'auto-merge': 'renewals' }), { GITHUB_REPOSITORY: twin.repo, GITHUB_EVENT_NAME: 'schedule' })).code).toBe(0);
    const calls = github.requests.map(({ method, path }) => operationOf(method, path.replace(/^\/repos\/[^/]+\/[^/]+/, '').replace(/\?.*$/, '')));
    const created = calls.indexOf('pulls.create');
    const afterwards = calls.slice(created + 1).find((call) => call && !calls.slice(0, created).includes(call))!;
    expect(created).toBeGreaterThan(0);
    expect(afterwards).toBeDefined();
    const { repo } = await production(40);
    // GitHub's gateway answers 502 to that call and the client's three retries: an outage.
    github.addFault({ kind: '502', operation: afterwards, times: 4 });
    const run = await throughDist(repo, nightly({ 'auto-merge': 'renewals' }));
    github.clearFaults();
    expect(run.code).toBe(1);
    const [pull] = github.pulls(repo);
    expect(pull).toMatchObject({ state: 'open', merged: false });
    expect(run.outputs).toMatchObject({ 'pull-request-number': String(pull!.number), 'pull-request-url': pull!.html_url, 'pull-request-operation': 'created' });
    const [error] = annotations(run, 'error');
    expect(error).toContain(`Pull request #${pull!.number} (${pull!.html_url}) already holds this run's export`);
    expect(error).not.toMatch(/job-id:|export(ing)? again to|without exporting again/);
    expect(run.summary).toContain('Nothing needs exporting again.');
  }, 90_000);

  it('still names the renewal it merged when GitHub fails while it rebuilds the content pull request after', async () => {
    // The first call a twin run makes after its merge: where the rebuild of the content pull request begins.
    const twin = await production(60);
    await proposeContent(twin.repo);
    github.requests.length = 0;
    expect((await runInProcess(publish, nightly({ 'auto-merge': 'renewals' }), { GITHUB_REPOSITORY: twin.repo, GITHUB_EVENT_NAME: 'schedule' })).code).toBe(0);
    const calls = github.requests.map(({ method, path }) => operationOf(method, path.replace(/^\/repos\/[^/]+\/[^/]+/, '').replace(/\?.*$/, '')));
    const merge = calls.indexOf('pulls.merge');
    expect(merge).toBeGreaterThan(0);
    const afterwards = calls[merge + 1]!;
    const { repo } = await production(60);
    const content = await proposeContent(repo);
    // GitHub's gateway answers 502 to that call (after the merge) and to the client's retries.
    github.addFault({ kind: '502', operation: afterwards, skip: calls.slice(0, merge + 1).filter((call) => call === afterwards).length, times: 4 });
    const run = await runInProcess(publish, nightly({ 'auto-merge': 'renewals' }), { GITHUB_REPOSITORY: repo, GITHUB_EVENT_NAME: 'schedule' });
    github.clearFaults();
    expect(run.code).toBe(1);
    const renewal = github.pulls(repo).find((pull) => pull.head === RENEWAL_BRANCH)!;
    expect(renewal).toMatchObject({ merged: true });
    // The merge happened: a later step must still be able to roll it out.
    expect(run.outputs).toMatchObject({ merged: 'true', 'merged-pull-request-number': String(renewal.number), 'merged-pull-request-url': renewal.html_url });
    expect(github.pulls(repo).find((pull) => pull.number === content)).toMatchObject({ state: 'open' });
  }, 60_000);

  it('says config-changed false on a nightly that changed nothing while a content pull request waits', async () => {
    const { repo } = await production(120);
    const content = await proposeContent(repo);
    github.requests.length = 0;
    const run = await throughDist(repo, nightly());
    expect(run.code).toBe(0);
    expect(github.requests.filter((request) => request.method !== 'GET')).toEqual([]);
    expect(run.outputs).toMatchObject({ skipped: 'true', 'config-changed': 'false', 'pull-request-operation': 'none', 'pull-request-number': String(content), merged: 'false' });
  }, 60_000);

  it('warns with an annotation when the new link cannot outlive the review (one-hour links, the 72 h a review and a rollout may take)', async () => {
    const { repo } = await production(150);
    platform.linkTtlSeconds = 3600;
    const { jobId } = await finishedExport(platform, DOMAIN);
    const run = await throughDist(repo, step({ 'job-id': jobId }), 'push');
    expect(run.code).toBe(0);
    expect(annotations(run, 'warning')).toEqual([expect.stringMatching(/^::warning::The platform's link expires at .+, sooner than 3d 0h from now, the time a review and a rollout may take\. If the pull request is merged or rolled out after that, pods that start then cannot fetch the site\. /)]);
    expect(run.outputs['pull-request-operation']).toBe('created');
  }, 60_000);

  it("speaks of no pod that cannot fetch the site while production is switched off (enabled: false)", async () => {
    const { repo } = await production(20, false);
    // A renewal keeps enabled: false; its new link lives an hour, far less than renew-within.
    platform.linkTtlSeconds = 3600;
    const run = await throughDist(repo, nightly());
    expect(run.code).toBe(0);
    expect(run.outputs['pull-request-operation']).toBe('created');
    // Neither the summary nor the pull request's body it repeats, nor the pull request itself.
    expect(run.summary).not.toMatch(/pods?\b[^.]*cannot fetch/);
    expect(github.pulls(repo)[0]!.body).not.toMatch(/pods?\b[^.]*cannot fetch/);
    expect(annotations(run, 'warning')).toEqual([]);
  }, 60_000);
});

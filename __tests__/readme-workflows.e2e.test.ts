// The README's own workflows, run as written through each action's own bundle (dist/index.js,
// dist/renew/index.js, dist/host/index.js) against the emulators: the push workflow, the nightly
// renewal and the S3-hosted workflow, against one values file, while a reviewer
// commits and clicks "Update branch", in a repository that allows only rebase merging. Each step's
// inputs are read from the README itself; only the secrets, variables and earlier steps' outputs are
// filled in, and the upload to S3 is done by hand onto a static file server. The nightly is also run
// whole as the runner runs a job (emulator/workflow.ts), its optional roll-out step included, once
// when a renewal merges and once when nothing is due.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { fakeSha } from '../emulator/deployments.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { type ActionRun, runAction } from '../emulator/runner.ts';
import { type StaticFileServer, startStaticFileServer } from '../emulator/static-files.ts';
import { readSetting } from '../src/values/values-file.ts';
import { type StepRun, type WorkflowStep, actionInputs, fillExpressions, runJob, workflowInMarkdown } from '../emulator/workflow.ts';
import { jobIdFromLink, linkExpiry } from '../src/values/link.ts';
import { finishedExport, presignedLink } from './finished-export.ts';

const DEPLOY_REPO = 'acme/deploy';
const PATH = 'deploy/values.yaml';
const TOKEN = 'ghs_emulator_token';
const HOUR = 3_600_000;

type Step = WorkflowStep;

/** The bundle each step ran, as its action.yml's runs.main names it. */
const ran: string[] = [];

/** The steps of this repository's action in the README workflow named `name`, in order. */
function readmeSteps(name: string): Step[] {
  const readme = readFileSync('README.md', 'utf8');
  const block = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.startsWith(`name: ${name}\n`));
  if (!block) throw new Error(`the README has no workflow named "${name}"`);
  const workflow = parse(block) as { jobs: Record<string, { steps: Step[] }> };
  return Object.values(workflow.jobs).flatMap((job) => job.steps).filter((step) => step.uses?.startsWith('<owner>/<repo>'));
}

let platform: PlatformEmulator;
let github: GitHubEmulator;
let files: StaticFileServer;
let workspace: string;

beforeAll(async () => {
  platform = await startPlatformEmulator({ profile: { queuedMs: 50, runMs: 300 }, deployments: { branch: 'docs', deployMs: 300 } });
  github = await startGitHubEmulator({ mergeMethods: ['rebase'] });
  files = await startStaticFileServer();
  workspace = mkdtempSync(join(tmpdir(), 'readme-workflows-'));
});
afterAll(async () => {
  await platform.close();
  await github.close();
  await files.close();
  rmSync(workspace, { recursive: true, force: true });
});

/** Runs one step as written, its `${{ … }}` filled in and its defaults given as the runner would (emulator/workflow.ts). */
async function runStep(step: Step, event: Record<string, string>, earlier: Record<string, ActionRun> = {}): Promise<ActionRun> {
  const known: Record<string, string> = { 'secrets.DOCS_ADMIN_KEY': DEFAULT_API_KEY, 'vars.DOCS_PROJECT_ID': 'proj_docs', 'secrets.DEPLOY_REPO_TOKEN': TOKEN, 'github.token': TOKEN };
  const fill = (value: string) =>
    fillExpressions(value, (expression) => {
      const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
      return output ? (earlier[output[1]!]?.outputs[output[2]!] ?? '') : known[expression];
    });
  const { bundle, inputs } = actionInputs(step, fill);
  ran.push(relative(process.cwd(), bundle));
  // The bucket is the static file server here; the rest of the URL is the README's.
  if (inputs['bundle-url-template']) inputs['bundle-url-template'] = inputs['bundle-url-template'].replace(/^https:\/\/[^/]+/, files.url);
  // The emulator's exports take 0.35 s: the bundles poll them on the suite's short beat
  // (STATIC_EXPORT_TEST_ONLY_POLL_MS, set by the global set-up), not the constant 10 s.
  return runAction(bundle, { ...inputs, 'api-url': platform.url }, { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/docs', GITHUB_WORKSPACE: workspace, ...event });
}

/** A push to the docs branch: the platform's GitHub app deploys it, and the workflow runs. */
function pushEvent(message: string): Record<string, string> {
  const sha = fakeSha(message);
  platform.deployments.push('docs', sha);
  return { GITHUB_EVENT_NAME: 'push', GITHUB_SHA: sha, GITHUB_REF: 'refs/heads/docs' };
}

const setting = (ref: string, name: string, repo = DEPLOY_REPO) => readSetting(PATH, github.fileAt(repo, ref, PATH)!, 'staticExport', name);

describe("the README's workflows, as written, over a team's week", () => {
  it('keep one pull request that any merge method merges, keep people\'s lines and settings, never renew a hosted URL, and guard production', async () => {
    const deployedJob = platform.seedExportJob({ domain: 'docs.example.com' });
    platform.linkTtlSeconds = 100 * 3600;
    const deployedLink = (await (await fetch(`${platform.url}/v1/static-export/jobs/${deployedJob}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } })).json()) as { bundleUrl: string };
    github.createRepo(DEPLOY_REPO, { [PATH]: `replicaCount: 2\n\nstaticExport:\n  enabled: false\n  bundleUrl: "${deployedLink.bundleUrl}"\n` });
    platform.linkTtlSeconds = 3600; // the platform's links of this week live an hour

    // The push workflow, as written (its config-repository is the workflow's own: acme/deploy here).
    const [publish] = readmeSteps('Publish docs');
    const pushed = await runStep(publish!, { ...pushEvent('docs: new page'), GITHUB_REPOSITORY: DEPLOY_REPO });
    expect(pushed.log.split("\n").filter((line) => line.startsWith("::error::"))).toEqual([]);
    expect(pushed.code).toBe(0);
    const number = pushed.outputs['pull-request-number'];
    expect(setting('static-export/deploy-values.yaml', 'enabled')).toBe(true);

    // The nightly renewal, as written: the pull request's hour-long link is due; enabled stays.
    const [renew] = readmeSteps('Renew docs link');
    const renewed = await runStep(renew!, { GITHUB_EVENT_NAME: 'schedule', GITHUB_REPOSITORY: DEPLOY_REPO });
    expect(renewed.code).toBe(0);
    expect(renewed.outputs['pull-request-number']).toBe(number);
    expect(setting('static-export/deploy-values.yaml', 'enabled')).toBe(true);
    // renew/ takes no domain: the title says what merging changes.
    expect(github.pulls(DEPLOY_REPO).find((pull) => pull.state === 'open')!.title).toBe('Static export: new bundle');

    // A reviewer's note, and "Update branch" after another change reached the base.
    const pull = Number(number);
    github.commitOnBranch(DEPLOY_REPO, 'static-export/deploy-values.yaml', { [PATH]: `${github.fileAt(DEPLOY_REPO, 'static-export/deploy-values.yaml', PATH)}# reviewed by ops\n` }, 'Review note');
    github.commitOnBranch(DEPLOY_REPO, 'main', { 'README.md': 'Deploy repo\n' }, 'Another change');
    github.updateBranch(DEPLOY_REPO, pull);

    // The S3-hosted workflow, as written: export and keep, upload (by hand here), propose the hosted URL.
    const [exporting, proposing] = readmeSteps('Docs bundle, hosted in our bucket');
    const exported = await runStep(exporting!, pushEvent('docs: fix a typo'));
    expect(exported.code).toBe(0);
    files.files.set(`/${exported.outputs['job-id']}/bundle.tar.gz`, readFileSync(exported.outputs['archive-path']!));
    const hosted = await runStep(proposing!, pushEvent('docs: fix a typo'), { export: exported });
    expect(hosted.code).toBe(0);
    expect(hosted.outputs['pull-request-number']).toBe(number);
    const text = github.fileAt(DEPLOY_REPO, 'static-export/deploy-values.yaml', PATH)!;
    expect(text).toContain('# reviewed by ops\n');
    expect(setting('static-export/deploy-values.yaml', 'bundleUrl')).toBe(`${files.url}/${exported.outputs['job-id']}/bundle.tar.gz`);
    expect(setting('static-export/deploy-values.yaml', 'enabled')).toBe(true);
    expect(github.pulls(DEPLOY_REPO).filter((p) => p.state === 'open')).toHaveLength(1);

    // The next night: the hosted URL is never renewed, and nothing reaches the platform.
    platform.requests.length = 0;
    const night = await runStep(renew!, { GITHUB_EVENT_NAME: 'schedule', GITHUB_REPOSITORY: DEPLOY_REPO });
    expect(night.code).toBe(0);
    expect(night.outputs).toMatchObject({ skipped: 'true', 'expires-at': 'never', 'pull-request-number': number });
    expect(platform.requests).toEqual([]);

    // Production's link has 100 hours: no warning yet. A rebase-only repository merges the result.
    expect(night.log).not.toContain("::warning::Production's link");
    github.mergePull(DEPLOY_REPO, pull, 'rebase');
    expect(github.fileAt(DEPLOY_REPO, 'main', PATH)).toBe(text);
    expect(Date.parse(night.outputs['deployed-expires-at']!) - Date.now()).toBeGreaterThan(90 * HOUR);
    // Each workflow ran through its own action's bundle (issue 41): push, nightly, export + host, nightly.
    expect(ran).toEqual(['dist/index.js', 'dist/renew/index.js', 'dist/index.js', 'dist/host/index.js', 'dist/renew/index.js']);
  }, 180_000);
});

describe("the README's nightly, run whole: the roll-out step", () => {
  // The roll-out step calls the GitHub CLI, which would reach github.com: a `gh` first on PATH stands in
  // for it and says what it was asked (and whether it was given a token, never the token itself). No
  // emulator here serves workflow dispatches; what the test checks is when the step runs, and with what.
  let bin: string;
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'readme-rollout-bin-'));
    writeFileSync(join(bin, 'gh'), '#!/bin/sh\necho "gh $*"\nif [ -n "$GH_TOKEN" ]; then echo "GH_TOKEN is set"; fi\n', { mode: 0o755 });
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  let repoCount = 0;
  /** A configuration repository of its own whose base serves a week-long link with `leftHours` to live. */
  async function production(leftHours: number): Promise<{ repo: string; jobId: string; link: string }> {
    const repo = `acme/deploy-rollout-${++repoCount}`;
    platform.linkTtlSeconds = 7 * 24 * 3600;
    const { jobId } = await finishedExport(platform, 'docs.example.com');
    const link = presignedLink(platform, jobId, Date.now() - (168 - leftHours) * HOUR, 168 * 3600);
    github.createRepo(repo, { [PATH]: `replicaCount: 2\n\nstaticExport:\n  enabled: true\n  bundleUrl: "${link}"\n` });
    return { repo, jobId, link };
  }

  /** The README's nightly job, every step as written, on a schedule: the action against the emulators, `run:` steps in bash. */
  async function nightly(repo: string): Promise<StepRun[]> {
    const workflow = workflowInMarkdown(readFileSync('README.md', 'utf8'), 'Renew docs link');
    expect(workflow.events).toContain('schedule');
    const [job] = Object.values(workflow.jobs);
    return runJob(job!, {
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: repo, GITHUB_EVENT_NAME: 'schedule', GITHUB_REF: 'refs/heads/main', PATH: `${bin}:${process.env.PATH ?? ''}` },
      known: { 'secrets.DOCS_ADMIN_KEY': DEFAULT_API_KEY, 'vars.DOCS_PROJECT_ID': 'proj_docs', 'github.token': TOKEN },
      // The platform's API is the emulator; everything else is as the README writes it.
      inputs: (_step, inputs) => ({ ...inputs, 'api-url': platform.url })
    });
  }

  const rollOut = (runs: StepRun[]) => runs.find((run) => run.step.run?.includes('gh workflow run'))!;

  it('rolls out a renewal the step merged, after the merge, with the workflow token', async () => {
    // 40 hours left: within renew-within (72h), so the renewal is due, and nothing else waits.
    const { repo, jobId, link } = await production(40);
    const runs = await nightly(repo);
    const [renew] = runs;
    expect(renew!.log.split('\n').filter((line) => line.startsWith('::error::'))).toEqual([]);
    expect(renew!.code).toBe(0);
    expect(renew!.outputs).toMatchObject({ merged: 'true', 'merged-pull-request-number': renew!.outputs['pull-request-number'] });
    // Production now serves a fresh link of the same export: what the roll-out picks up from the base.
    const served = setting('main', 'bundleUrl', repo) as string;
    expect(jobIdFromLink(served)).toBe(jobId);
    expect(linkExpiry(served)!.getTime()).toBeGreaterThan(linkExpiry(link)!.getTime());
    // The roll-out step ran, as written, with a token it was not shown in its log.
    const step = rollOut(runs);
    expect(step.skipped).toBeUndefined();
    expect(step.code).toBe(0);
    expect(step.log).toBe(`gh workflow run deploy.yml --repo ${repo}\nGH_TOKEN is set\n`);
    expect(runs.map((run) => run.log).join('\n')).not.toContain(TOKEN);
  }, 60_000);

  it('skips the roll-out when the renewal waits for a review: proposed is not merged', async () => {
    // 60 hours left: due, and beyond the guard's two days, so the scheduled run does not fail for it.
    const { repo, link } = await production(60);
    github.protectBranch(repo, 'main', { requiredApprovingReviews: 1 });
    const runs = await nightly(repo);
    const [renew] = runs;
    expect(renew!.code).toBe(0);
    expect(renew!.outputs).toMatchObject({ merged: 'false', 'config-changed': 'true' });
    expect(github.pull(repo, Number(renew!.outputs['pull-request-number']))).toMatchObject({ state: 'open', merged: false });
    expect(setting('main', 'bundleUrl', repo)).toBe(link);
    expect(rollOut(runs)).toMatchObject({ skipped: "if: steps.renew.outputs.merged == 'true'", code: null, log: '' });
  }, 60_000);

  it('skips the roll-out when nothing was due, and says why', async () => {
    // 160 hours left: beyond renew-within, so the nightly renews nothing and merges nothing.
    const { repo, link } = await production(160);
    const runs = await nightly(repo);
    const [renew] = runs;
    expect(renew!.code).toBe(0);
    expect(renew!.outputs).toMatchObject({ skipped: 'true', merged: 'false' });
    expect(setting('main', 'bundleUrl', repo)).toBe(link);
    expect(github.pulls(repo)).toEqual([]);
    const step = rollOut(runs);
    expect(step).toMatchObject({ skipped: "if: steps.renew.outputs.merged == 'true'", code: null, log: '' });
  }, 60_000);
});

// A team's months with one values file, on a fake clock: the real publish action (src/publish/run.ts,
// in this process) against the platform emulator and the GitHub emulator over HTTP, driven by random
// timelines of pushes, nightly renewals, a hosted-URL step, reviews of random length, people's commits,
// edits merged into the base, "Update branch", merges by a random allowed method and closed pull
// requests, with link lifetimes from an hour to a week. After every step the deployment is checked
// as a whole, not one run at a time.
//
// A push here reuses an export the platform has just finished (job-id), so no real time is spent
// waiting on it: what follows the export is the same code as after a started one.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFormats, defaultSiteFiles } from '../emulator/archive.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { type StaticFileServer, startStaticFileServer } from '../emulator/static-files.ts';
import type { MergeMethod } from '../emulator/github-state.ts';
import { jobIdFromLink, linkExpiry } from '../src/values/link.ts';
import { readSetting } from '../src/values/values-file.ts';

const TIMELINES = Number(process.env.TIMELINES ?? 3);
const DAYS = Number(process.env.TIMELINE_DAYS ?? 10);
const SEED = Number(process.env.TIMELINE_SEED ?? 2211);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-12-01T00:00:00Z');
const REPO = 'acme/deploy';
const PATH = 'deploy/values.yaml';
const TOKEN = 'ghs_emulator_token';

/** mulberry32: a small seeded generator, so a failing timeline can be replayed from its seed. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

/** How much faster than real time the fake clock runs during a step: a run of 0.1 s takes 20 s of the timeline. */
const CLOCK_SPEED = 200;
let now = T0; // the timeline's moment; Date.now() runs on from it
let since = performance.now();
let ticking: ReturnType<typeof setInterval>;
/** Moves the timeline to `t`. */
function moveTo(t: number): void {
  now = t;
  since = performance.now();
  jest.setSystemTime(now);
}
let platform: PlatformEmulator;
let github: GitHubEmulator;
let files: StaticFileServer;
let workspace: string;
let publish: typeof import('../src/publish/run.ts').run;
// A real site: the hosted step compares the kept archive's pages with production's before proposing it.
const archive = bundleFormats['tar.gz'].build(defaultSiteFiles('docs.example.com', 3));

beforeAll(async () => {
  // Only Date is faked; it runs on from the timeline's moment, CLOCK_SPEED times faster than real time
  // (GitHub's client spaces its writes a second apart by Date.now()); timers stay real.
  jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'], now: T0 });
  ticking = setInterval(() => jest.setSystemTime(now + (performance.now() - since) * CLOCK_SPEED), 2);
  platform = await startPlatformEmulator({ clock: () => Date.now() });
  github = await startGitHubEmulator();
  files = await startStaticFileServer();
  workspace = mkdtempSync(join(tmpdir(), 'timeline-'));
  // @actions/github reads GITHUB_API_URL once, when it is loaded, as on a runner.
  process.env.GITHUB_API_URL = github.url;
  ({ run: publish } = await import('../src/publish/run.ts'));
  writeFileSync(join(workspace, 'bundle.tar.gz'), archive);
});

afterAll(async () => {
  clearInterval(ticking);
  jest.useRealTimers();
  await platform.close();
  await github.close();
  await files.close();
  rmSync(workspace, { recursive: true, force: true });
});

interface Run {
  kind: string;
  at: number;
  code: number;
  log: string;
  outputs: Record<string, string>;
}

/** One step of the publish action, as the runner would run it: INPUT_* in, GITHUB_OUTPUT and stdout out. */
async function runPublish(kind: string, inputs: Record<string, string>): Promise<Run> {
  const started = Date.now();
  const outputFile = join(workspace, 'output');
  writeFileSync(outputFile, '');
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) if (key.startsWith('INPUT_') || key === 'GITHUB_STEP_SUMMARY') delete process.env[key];
  Object.assign(process.env, { GITHUB_OUTPUT: outputFile, GITHUB_WORKSPACE: workspace, GITHUB_REPOSITORY: REPO, GITHUB_API_URL: github.url, GITHUB_EVENT_NAME: 'schedule' });
  // The clock runs CLOCK_SPEED times faster than real time, so the default 30 minutes would be 9 real
  // seconds on a busy machine: 12 hours of it are a few real minutes.
  const all = { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, 'github-token': TOKEN, 'config-path': PATH, timeout: '12h', ...inputs };
  for (const [name, value] of Object.entries(all)) process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  process.exitCode = 0;
  try {
    await publish();
  } finally {
    process.stdout.write = write;
    process.env = saved;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  const outputs: Record<string, string> = {};
  const text = readFileSync(outputFile, 'utf8');
  for (const match of text.matchAll(/^(.+?)<<(ghadelimiter_[^\n]+)\n([\s\S]*?)\n\2$/gm)) outputs[match[1]!] = match[3]!;
  return { kind, at: started, code, log: chunks.join(''), outputs };
}

function linkOn(ref: string): string | undefined {
  const text = github.fileAt(REPO, ref, PATH);
  const link = text === undefined ? undefined : readSetting(PATH, text, 'staticExport', 'bundleUrl');
  return typeof link === 'string' ? link : undefined;
}

function openPull() {
  return github.pulls(REPO).find((pull) => pull.state === 'open');
}

/** The platform's createdAt of the export a link names (hosted URLs name their job too). */
function createdAtOf(link: string | undefined): number | undefined {
  const jobId = link ? jobIdFromLink(link) : undefined;
  return jobId ? platform.exportJobs.get(jobId)?.createdAt : undefined;
}

const INITIAL = (link: string) =>
  `# Values for the docs deployment.\nreplicaCount: 2\n\nstaticExport:\n  # Presigned link.\n  enabled: false\n  bundleUrl: "${link}"\n\nresources: {}\n`;

interface Stats {
  timelines: number;
  runs: number;
  merges: number;
  refusedMerges: number;
  guardFailures: number;
}

async function timeline(seed: number, index: number, stats: Stats): Promise<void> {
  const rng = random(seed);
  // Each timeline starts after the last one ended: GitHub's client remembers when it may write next,
  // so the clock never goes back.
  const start = T0 + index * (DAYS + 10) * DAY;
  moveTo(start);
  const ttlHours = rng.pick([1, 6, 24, 72, 120, 168]);
  platform.exportJobs.clear();
  const methods = rng.pick<MergeMethod[]>([['merge', 'squash', 'rebase'], ['rebase'], ['squash'], ['merge'], ['squash', 'rebase']]);
  github.setPolicy({ mergeMethods: methods });
  const firstJob = platform.seedExportJob({ domain: 'docs.example.com', createdAt: Date.now() });
  platform.linkTtlSeconds = 7 * 24 * 3600;
  const firstLink = await freshLink(firstJob);
  github.createRepo(REPO, { [PATH]: INITIAL(firstLink), 'README.md': '# deploy\n' });
  const hostedTemplate = `${files.url}/bundles/<job-id>/bundle.tar.gz`;
  let lastPushedJob = firstJob;
  let hosting = false;
  let note = 0;
  const personLines = new Set<string>(); // lines people wrote on the pull request branch
  const baseLines = new Set<string>(); // lines people merged into the base
  const failures: { at: number; pull: string }[] = []; // guard failures: when, naming which pull request
  let mergedAt = Date.now();
  let mergedLeftMs = 7 * DAY;
  const context = () => `seed ${seed}, day ${((Date.now() - start) / DAY).toFixed(2)}, ttl ${ttlHours}h, methods ${methods.join('/')}`;

  async function freshLink(jobId: string): Promise<string> {
    const response = await fetch(`${platform.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
    const { bundleUrl } = (await response.json()) as { bundleUrl: string };
    platform.linkTtlSeconds = ttlHours * 3600;
    return bundleUrl;
  }

  /**
   * Production holds an expired link: when that link reached production with three days or more
   * left (so nightly runs had their chance), a run failed naming a pull request at least a day
   * before it expired. (A link that comes with hours to live cannot be warned of a day ahead: the
   * README says to host the bundle then.)
   */
  function checkProduction(): void {
    const link = linkOn('main');
    const expiry = link ? linkExpiry(link) : undefined;
    if (!expiry || expiry.getTime() > Date.now()) return;
    if (mergedLeftMs >= 3 * DAY && mergedAt < expiry.getTime()) {
      const early = failures.filter((f) => f.at <= expiry.getTime() - DAY && f.at >= mergedAt);
      expect({ context: context(), toldADayBefore: early.length > 0 }).toEqual({ context: context(), toldADayBefore: true });
    }
  }

  async function step(kind: string, inputs: Record<string, string>): Promise<void> {
    const beforePull = openPull();
    const beforeText = beforePull ? github.fileAt(REPO, beforePull.head, PATH) : undefined;
    const beforeLink = beforePull ? linkOn(beforePull.head) : undefined;
    const started = performance.now();
    const result = await runPublish(kind, inputs);
    if (process.env.TIMELINE_DEBUG) console.log(`${kind} ${(performance.now() - started).toFixed(0)} ms code ${result.code}\n${result.log}`);
    stats.runs += 1;
    const error = result.log.split('\n').find((line) => line.startsWith('::error::'));
    const pull = openPull();
    // A failure is only ever the guard's, and names the pull request production waits for.
    if (result.code !== 0) {
      expect({ context: context(), kind, error }).toEqual({ context: context(), kind, error: expect.stringMatching(/^::error::Production's link in deploy\/values\.yaml on main .* Merge pull request #\d+/) });
      failures.push({ at: Date.now(), pull: /#(\d+)/.exec(error!)![1]! });
      stats.guardFailures += 1;
    }
    // At most one open pull request for the file.
    expect({ context: context(), open: github.pulls(REPO).filter((p) => p.state === 'open').length <= 1 }).toEqual({ context: context(), open: true });
    if (!pull) return;
    const text = github.fileAt(REPO, pull.head, PATH)!;
    // No run is silent while production's link runs out and a merge would fix it: it fails, naming the pull request.
    const deployed = linkOn('main');
    const deployedExpiry = deployed ? linkExpiry(deployed) : undefined;
    const mergeNeeded = github.fileAt(REPO, 'main', PATH) !== text && (['enabled', 'bundleUrl', 'version'] as const).some((name) => readSetting(PATH, text, 'staticExport', name) !== readSetting(PATH, github.fileAt(REPO, 'main', PATH)!, 'staticExport', name));
    if (deployedExpiry && deployedExpiry.getTime() - result.at < 2 * DAY && mergeNeeded) {
      expect({ context: context(), kind, code: result.code, names: error?.includes(`Merge pull request #${pull.number} `) }).toEqual({ context: context(), kind, code: 1, names: true });
    }
    // Every merge method gives the same file.
    const results = (['merge', 'squash', 'rebase'] as const).map((method) => github.previewMerge(REPO, pull.number, method));
    expect({ context: context(), kind, merges: results.map((r) => typeof r) }).toEqual({ context: context(), kind, merges: ['object', 'object', 'object'] });
    expect({ context: context(), same: JSON.stringify(results[0]) === JSON.stringify(results[1]) && JSON.stringify(results[1]) === JSON.stringify(results[2]) }).toEqual({ context: context(), same: true });
    // No line a person wrote is lost: on the branch, and in what merging it would leave on the base.
    const merged = typeof results[0] === 'object' ? results[0][PATH]! : '';
    for (const line of personLines) expect({ context: context(), kind, line, onBranch: text.includes(line) }).toEqual({ context: context(), kind, line, onBranch: true });
    for (const line of [...personLines, ...baseLines]) expect({ context: context(), kind, line, merged: merged.includes(line) }).toEqual({ context: context(), kind, line, merged: true });
    // No setting a proposal made is lost unless this run set it.
    if (beforeText && beforePull?.number === pull.number) {
      const was = (name: string) => readSetting(PATH, beforeText, 'staticExport', name);
      const is = (name: string) => readSetting(PATH, text, 'staticExport', name);
      if (was('enabled') === true) expect({ context: context(), kind, enabled: is('enabled') }).toEqual({ context: context(), kind, enabled: true });
      if (was('version') !== undefined && inputs.version === undefined) expect({ context: context(), kind, version: is('version') }).toEqual({ context: context(), kind, version: was('version') });
    }
    // Never older content than production or the proposal before this run.
    const proposedAt = createdAtOf(linkOn(pull.head));
    for (const [what, at] of [['production', createdAtOf(linkOn('main'))], ['the earlier proposal', beforePull?.number === pull.number ? createdAtOf(beforeLink) : undefined]] as const) {
      if (at !== undefined && proposedAt !== undefined) expect({ context: context(), kind, what, older: proposedAt < at }).toEqual({ context: context(), kind, what, older: false });
    }
  }

  const end = start + DAYS * DAY;
  let nextNightly = start + 2 * HOUR;
  while (now < end) {
    // The next event: the nightly renewal, or something people do in between.
    moveTo(Math.max(Date.now(), now + Math.min(nextNightly - now, 1 + rng.int(10 * HOUR))));
    checkProduction();
    if (now >= nextNightly) {
      nextNightly += DAY;
      await step('renewal', { 'job-id': 'auto', 'min-validity': '72h', domain: 'docs.example.com' });
      continue;
    }
    const pull = openPull();
    const roll = rng.next();
    if (roll < 0.22) {
      // A push: the platform exports it; the push workflow proposes it, perhaps with a version.
      lastPushedJob = platform.seedExportJob({ domain: 'docs.example.com', createdAt: Date.now() });
      await step('push', { 'job-id': lastPushedJob, domain: 'docs.example.com', ...(rng.next() < 0.3 ? { version: `v${rng.int(5)}` } : {}) });
      if (hosting) {
        files.files.set(`/bundles/${lastPushedJob}/bundle.tar.gz`, archive);
        await step('hosted', { 'bundle-url-template': hostedTemplate, 'job-id': lastPushedJob, 'archive-path': 'bundle.tar.gz' });
      }
    } else if (roll < 0.27 && !hosting) {
      // The team starts hosting the bundle: the push workflow gains the hosted-URL step.
      hosting = true;
      files.files.set(`/bundles/${lastPushedJob}/bundle.tar.gz`, archive);
      await step('hosted', { 'bundle-url-template': hostedTemplate, 'job-id': lastPushedJob, 'archive-path': 'bundle.tar.gz' });
    } else if (roll < 0.4 && pull) {
      const line = `# reviewed ${++note} (seed ${seed})`;
      const text = github.fileAt(REPO, pull.head, PATH)!;
      github.commitOnBranch(REPO, pull.head, { [PATH]: `${text}${line}\n` }, `Review note ${note}`);
      personLines.add(line);
    } else if (roll < 0.48) {
      // Another change to the file merged into the base (at its top, away from the block).
      const line = `# base change ${++note} (seed ${seed})`;
      github.commitOnBranch(REPO, 'main', { [PATH]: `${line}\n${github.fileAt(REPO, 'main', PATH)!}` }, `Base change ${note}`);
      baseLines.add(line);
    } else if (roll < 0.58 && pull) {
      try {
        github.updateBranch(REPO, pull.number);
      } catch {
        // nothing new on the base, or a conflict: the button is not there
      }
    } else if (roll < 0.8 && pull) {
      const method = rng.pick(methods);
      const link = linkOn(pull.head);
      try {
        github.mergePull(REPO, pull.number, method);
        stats.merges += 1;
        mergedAt = Date.now();
        const expiry = link ? linkExpiry(link) : undefined;
        mergedLeftMs = expiry ? expiry.getTime() - Date.now() : Number.POSITIVE_INFINITY;
        for (const line of personLines) baseLines.add(line);
        personLines.clear();
      } catch {
        stats.refusedMerges += 1; // e.g. a rebase over an "Update branch" merge: the next run makes it mergeable
      }
    } else if (roll < 0.82 && pull) {
      github.closePull(REPO, pull.number);
      personLines.clear();
    }
  }
  stats.timelines += 1;
}

describe('a team\'s months with one values file', () => {
  it(`${TIMELINES} random timelines of ${DAYS} days keep every promise`, async () => {
    const stats: Stats = { timelines: 0, runs: 0, merges: 0, refusedMerges: 0, guardFailures: 0 };
    for (let i = 0; i < TIMELINES; i++) await timeline(SEED + i, i, stats);
    console.log(`timelines: ${stats.timelines}, runs: ${stats.runs}, merges: ${stats.merges} (${stats.refusedMerges} refused by GitHub before a run made the branch linear), guard failures: ${stats.guardFailures}, seeds ${SEED}..${SEED + TIMELINES - 1}`);
    expect(stats.runs).toBeGreaterThan(TIMELINES * DAYS);
  }, 1_800_000);
});

// A team's months with one values file, on a fake clock: the real publish action (src/publish/main.ts,
// in this process) against the platform emulator and the GitHub emulator over HTTP, driven by random
// timelines of pushes, nightly renewals, a hosted-URL step, reviews of random length, people's commits,
// edits merged into the base (away from the block, next to the action's lines and on them: enabled
// turned off, a link pasted by hand), "Update branch", merges by a random allowed method, pull
// requests closed without merging, pushes into a second base branch, exports that lose pages
// accepted with max-page-loss: 100% and renewed afterwards, and exports whose pages change layout
// (x.html in one, x/index.html in the next), with link lifetimes from an hour to a week. After every
// step the deployment is checked as a whole, not one run at a time.
//
// A push here reuses an export the platform has just finished (job-id), so no real time is spent
// waiting on it: what follows the export is the same code as after a started one.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleFormats, siteFiles } from '../emulator/archive.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { type StaticFileServer, startStaticFileServer } from '../emulator/static-files.ts';
import type { MergeMethod } from '../emulator/github-state.ts';
import { jobIdFromLink, linkExpiry } from '../src/values/link.ts';
import { readSetting } from '../src/values/values-file.ts';
import { guardWindows } from '../src/publish/production-guard.ts';
import { regionOf } from '../src/publish/body.ts';

const TIMELINES = Number(process.env.TIMELINES ?? 3);
const DAYS = Number(process.env.TIMELINE_DAYS ?? 10);
const SEED = Number(process.env.TIMELINE_SEED ?? 2211);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-12-01T00:00:00Z');
const REPO = 'acme/deploy';
const PATH = 'deploy/values.yaml';
/** The second base, and the branch its proposal lives on (the default name includes a base that is not the default branch). */
const SECOND_BASE = 'production';
const HEADS: Record<string, string> = { main: 'static-export/deploy-values.yaml', [SECOND_BASE]: 'static-export/production/deploy-values.yaml' };
const TOKEN = 'ghs_emulator_token';
const DOMAIN = 'docs.example.com';
/** The pages every export holds (but the one that loses pages), by the path a reader opens. */
const PAGES = ['guides/auth', 'guides/webhooks', 'api/list', 'api/get'];
/** The two ways a static export lays a page out as files: `x.html`, or `x/index.html`. */
const LAYOUTS = { flat: (page: string) => `${page}.html`, nested: (page: string) => `${page}/index.html` };
type Layout = keyof typeof LAYOUTS;

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
let publish: typeof import('../src/publish/main.ts').run;

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
  ({ run: publish } = await import('../src/publish/main.ts'));
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

let outputCount = 0;

/** One step of the publish action, as the runner would run it: INPUT_* in, GITHUB_OUTPUT and stdout out. */
async function runPublish(kind: string, inputs: Record<string, string>, event = 'schedule'): Promise<Run> {
  const started = Date.now();
  // A file of its own: a second run may go while this one waits on GitHub (an interleaved step).
  const outputFile = join(workspace, `output-${++outputCount}`);
  writeFileSync(outputFile, '');
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) if (key.startsWith('INPUT_') || key === 'GITHUB_STEP_SUMMARY') delete process.env[key];
  // RUNNER_TEMP: the content diff's report is read back from there, out of the way of other tests' runs.
  Object.assign(process.env, { GITHUB_OUTPUT: outputFile, GITHUB_WORKSPACE: workspace, RUNNER_TEMP: workspace, GITHUB_REPOSITORY: REPO, GITHUB_API_URL: github.url, GITHUB_EVENT_NAME: event });
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

function openPull(base = 'main') {
  return github.pulls(REPO).find((pull) => pull.state === 'open' && pull.base === base);
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
  baseEdits: number;
  closed: number;
  vetoesHeld: number;
  secondBase: number;
  acceptedLosses: number;
  /** Runs whose content diff compared two exports with pages in different layouts, and the pages that moved. */
  layoutChanges: number;
  pagesMoved: number;
  /** Runs during which GitHub did one write and lost its answer, by route. */
  lostWrites: Record<string, number>;
  /** Steps in which a push ran whole while the first run's write waited at GitHub, by that write's route. */
  interleaved: Record<string, number>;
}

/** The writes at which a second run may go between a run's read and its write (INTERLEAVED of the push and renewal steps). */
const HELD_WRITES = ['git.createRef', 'git.updateRef', 'graphql', 'pulls.create', 'pulls.update', 'pulls.merge'];
const INTERLEAVED = Number(process.env.TIMELINE_INTERLEAVED ?? 0.2);

/** In LOST_WRITES of the runs, GitHub loses the answer of one of its writes, the first to the fourth (whichever route that is). */
const LOST_WRITES = Number(process.env.TIMELINE_LOST_WRITES ?? 0.3);
/** The export a body of the action names in its table. */
const exportOfBody = (body: string) => /^\| Export job \| `([^`]+)` \|$/m.exec(body)?.[1];

/** The content diff's report file (content-diff-path), as much of it as the timeline reads. */
interface DiffReport {
  status: string;
  deployed?: { jobId: string };
  proposed: { jobId: string };
  added?: string[];
  removed?: string[];
  changed?: string[];
  gate: { passed: boolean; reason?: string };
}

async function timeline(seed: number, index: number, stats: Stats): Promise<void> {
  const rng = random(seed);
  // Layouts come from their own generator, so a seed plays the same events as before they were added.
  const layouts = random(seed ^ 0x5eed);
  // Lost answers too: the events stay those of the seed.
  const losses = random(seed ^ 0x1057);
  /** Each export's page files, by the page a reader opens (`/` is always index.html). */
  const sites = new Map<string, Record<string, string>>();
  /** An export on the platform with the given pages, each laid out at random as x.html or x/index.html. */
  function seedExport(pages: string[] = PAGES): string {
    const layout = layouts.pick<Layout>(['flat', 'nested']);
    const files: Record<string, string> = { '/': 'index.html' };
    for (const page of pages) files[`/${page}`] = LAYOUTS[layout](page);
    platform.profile = { ...platform.profile, site: { pages: Object.values(files) } };
    const jobId = platform.seedExportJob({ domain: DOMAIN, createdAt: Date.now() });
    platform.profile = { ...platform.profile, site: undefined };
    sites.set(jobId, files);
    return jobId;
  }
  // Each timeline starts after the last one ended: GitHub's client remembers when it may write next,
  // so the clock never goes back.
  const start = T0 + index * (DAYS + 10) * DAY;
  moveTo(start);
  const ttlHours = rng.pick([1, 6, 24, 72, 120, 168]);
  platform.exportJobs.clear();
  const methods = rng.pick<MergeMethod[]>([['merge', 'squash', 'rebase'], ['rebase'], ['squash'], ['merge'], ['squash', 'rebase']]);
  github.setPolicy({ mergeMethods: methods });
  const firstJob = seedExport();
  platform.linkTtlSeconds = 7 * 24 * 3600;
  const firstLink = await freshLink(firstJob);
  github.createRepo(REPO, { [PATH]: INITIAL(firstLink), 'README.md': '# deploy\n' });
  github.commitOnBranch(REPO, SECOND_BASE, { 'README.md': '# deploy (production cluster)\n' }, 'The production cluster');
  const hostedTemplate = `${files.url}/bundles/<job-id>/bundle.tar.gz`;
  let lastPushedJob = firstJob;
  let hosting = false;
  let note = 0;
  const personLines = new Set<string>(); // lines people wrote on the pull request branch
  const baseLines = new Set<string>(); // lines people merged into the base
  const failures: { at: number; pull: string }[] = []; // guard failures: when, naming which pull request
  const vetoed = new Set<string>(); // exports of pull requests into main closed without merging
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

  /**
   * A page that moved from x.html to x/index.html (or back) between production's export and the one
   * compared with it is the same page: not added, not removed, not changed, and no reason for the
   * gate to refuse the export.
   */
  function checkMovedPages(kind: string, result: Run): void {
    const reportPath = result.outputs['content-diff-path'];
    if (!reportPath) return; // nothing compared: a renewal, or the proposed export again
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as DiffReport;
    if (report.status !== 'compared') return;
    const before = sites.get(report.deployed!.jobId);
    const after = sites.get(report.proposed.jobId);
    expect({ context: context(), kind, known: [before !== undefined, after !== undefined] }).toEqual({ context: context(), kind, known: [true, true] });
    const moved = Object.keys(after!).filter((page) => before![page] !== undefined && before![page] !== after![page]);
    if (moved.length === 0) return;
    stats.layoutChanges += 1;
    stats.pagesMoved += moved.length;
    const listed = [...(report.added ?? []), ...(report.removed ?? []), ...(report.changed ?? [])];
    expect({ context: context(), kind, moved, listed: moved.filter((page) => listed.includes(page)), gate: report.gate }).toEqual({
      context: context(),
      kind,
      moved,
      listed: [],
      gate: { passed: true }
    });
  }

  async function step(kind: string, inputs: Record<string, string>, interleave = false): Promise<void> {
    const beforePull = openPull();
    const beforeText = beforePull ? github.fileAt(REPO, beforePull.head, PATH) : undefined;
    const beforeLink = beforePull ? linkOn(beforePull.head) : undefined;
    const started = performance.now();
    const lose = losses.next() < LOST_WRITES;
    if (lose) github.addFault({ kind: 'lost', operation: 'write', skip: losses.int(4) });
    const from = github.requests.length;
    let result: Run;
    let second: Run | undefined;
    try {
      // A second run at once (a push of a fresh export, its own workflow): it goes whole while this run's write waits at GitHub.
      const held = interleave && losses.next() < INTERLEAVED ? losses.pick(HELD_WRITES) : undefined;
      const hold = held ? github.holdNext(held) : undefined;
      const first = runPublish(kind, inputs);
      if (hold && (await Promise.race([hold.reached.then(() => true), first.then(() => false)]))) {
        github.clearFaults();
        second = await runPublish('push while another run writes', { 'job-id': (lastPushedJob = seedExport()), domain: 'docs.example.com' });
        if (process.env.TIMELINE_DEBUG) console.log(`held ${held} of ${kind}; the push that went meanwhile:\n${second.log}`);
        stats.interleaved[held!] = (stats.interleaved[held!] ?? 0) + 1;
        stats.runs += 1;
      }
      // Released whether or not it was reached: a hold never reached lets the next such call through.
      hold?.release();
      result = await first;
    } finally {
      github.clearFaults();
    }
    for (const run of second ? [second] : []) {
      const error = run.log.split('\n').find((line) => line.startsWith('::error::'));
      if (run.code !== 0) expect({ context: context(), kind: run.kind, error }).toEqual({ context: context(), kind: run.kind, error: expect.stringMatching(/^::error::Production's link in deploy\/values\.yaml on main .* Merge pull request #\d+/) });
      if (['created', 'updated'].includes(run.outputs['pull-request-operation'] ?? '')) {
        const named = github.pull(REPO, Number(run.outputs['pull-request-number']));
        expect({ context: context(), kind: run.kind, named: named?.state === 'open' || named?.mergedBy === TOKEN }).toEqual({ context: context(), kind: run.kind, named: true });
      }
    }
    // Counted by route when the run made that write and GitHub did it without an answer (the emulator logs status 0).
    const lost = lose ? github.requests.slice(from).find((request) => request.status === 0) : undefined;
    if (lost) {
      const path = decodeURIComponent(lost.path).replace(/^\/repos\/[^/]+\/[^/]+/, '').replace(/\?.*$/, '');
      const route = `${lost.method} ${path.replace(/\/\d+(\/|$)/g, '/N$1').replace(/\/heads\/.*/, '/heads/…')}`;
      stats.lostWrites[route] = (stats.lostWrites[route] ?? 0) + 1;
    }
    if (process.env.TIMELINE_DEBUG) console.log(`${kind} ${(performance.now() - started).toFixed(0)} ms code ${result.code}\n${result.log}`);
    stats.runs += 1;
    checkMovedPages(kind, result);
    const error = result.log.split('\n').find((line) => line.startsWith('::error::'));
    const pull = openPull();
    // A failure is only ever the guard's, and names the pull request production waits for.
    if (result.code !== 0) {
      expect({ context: context(), kind, error }).toEqual({ context: context(), kind, error: expect.stringMatching(/^::error::Production's link in deploy\/values\.yaml on (main|production) .* Merge pull request #\d+/) });
      if (error!.includes(' on main ')) failures.push({ at: Date.now(), pull: /#(\d+)/.exec(error!)![1]! });
      stats.guardFailures += 1;
    }
    // No body claims what its branch does not hold, and the outputs name the pull request the run wrote.
    for (const open of github.pulls(REPO).filter((p) => p.state === 'open')) {
      expect({ context: context(), kind, number: open.number, body: exportOfBody(regionOf(open.body)) }).toEqual({ context: context(), kind, number: open.number, body: jobIdFromLink(linkOn(open.head) ?? '') });
    }
    if (['created', 'updated'].includes(result.outputs['pull-request-operation'] ?? '')) {
      const named = github.pull(REPO, Number(result.outputs['pull-request-number']));
      expect({ context: context(), kind, named: named?.state === 'open' || named?.mergedBy === TOKEN }).toEqual({ context: context(), kind, named: true });
    }
    // At most one open pull request per base, each from its base's own branch, each mergeable alike by every method.
    for (const base of ['main', SECOND_BASE]) {
      const open = github.pulls(REPO).filter((p) => p.state === 'open' && p.base === base);
      expect({ context: context(), kind, base, heads: open.map((p) => p.head) }).toEqual({ context: context(), kind, base, heads: open.length === 0 ? [] : [HEADS[base]] });
      // Mergeable is promised for the run's own base: a run never touches another base's pull request.
      if (open.length === 0 || base !== (inputs['base-branch'] ?? 'main') || base === 'main') continue;
      const results = (['merge', 'squash', 'rebase'] as const).map((method) => JSON.stringify(github.previewMerge(REPO, open[0]!.number, method)));
      expect({ context: context(), kind, base, alike: results.every((r) => r === results[0] && r.startsWith('{')) }).toEqual({ context: context(), kind, base, alike: true });
    }
    if (!pull || inputs['base-branch'] !== undefined) return;
    // A closed pull request's export is never proposed again (production's own export may be renewed).
    const proposedJob = jobIdFromLink(linkOn(pull.head) ?? '');
    if (proposedJob && vetoed.has(proposedJob)) {
      expect({ context: context(), kind, proposedJob, deployed: jobIdFromLink(linkOn('main') ?? '') }).toEqual({ context: context(), kind, proposedJob, deployed: proposedJob });
    }
    const text = github.fileAt(REPO, pull.head, PATH)!;
    // No run is silent while production's link runs out and a merge would fix it: it fails, naming the pull request.
    const deployed = linkOn('main');
    const deployedExpiry = deployed ? linkExpiry(deployed) : undefined;
    const mergeNeeded = github.fileAt(REPO, 'main', PATH) !== text && (['enabled', 'bundleUrl', 'version'] as const).some((name) => readSetting(PATH, text, 'staticExport', name) !== readSetting(PATH, github.fileAt(REPO, 'main', PATH)!, 'staticExport', name));
    // (A run for the second base guards that base's link, and names that base's pull request.)
    // The window follows the link's lifetime (its last two days, never its first day); with enabled: false on the base there is nothing to guard.
    const guarded = readSetting(PATH, github.fileAt(REPO, 'main', PATH)!, 'staticExport', 'enabled') !== false;
    if (deployed && deployedExpiry && deployedExpiry.getTime() - result.at < guardWindows(deployed, undefined).failWithinMs && guarded && mergeNeeded && inputs['base-branch'] === undefined) {
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

  /** The hosted-URL step: the kept archive of `jobId`, uploaded to the team's storage, then proposed by its URL. */
  async function hostedStep(jobId: string): Promise<void> {
    const archive = bundleFormats['tar.gz'].build(siteFiles(DOMAIN, { pages: Object.values(sites.get(jobId)!) }));
    files.files.set(`/bundles/${jobId}/bundle.tar.gz`, archive);
    writeFileSync(join(workspace, 'bundle.tar.gz'), archive);
    await step('hosted', { 'bundle-url-template': hostedTemplate, 'job-id': jobId, 'archive-path': 'bundle.tar.gz' });
  }

  const end = start + DAYS * DAY;
  let nextNightly = start + 2 * HOUR;
  while (now < end) {
    // The next event: the nightly renewal, or something people do in between.
    moveTo(Math.max(Date.now(), now + Math.min(nextNightly - now, 1 + rng.int(10 * HOUR))));
    checkProduction();
    if (now >= nextNightly) {
      nextNightly += DAY;
      await step('renewal', { 'job-id': 'auto', 'min-validity': '72h', domain: 'docs.example.com' }, true);
      continue;
    }
    const pull = openPull();
    const roll = rng.next();
    if (roll < 0.22) {
      // A push: the platform exports it; the push workflow proposes it, perhaps with a version.
      lastPushedJob = seedExport();
      await step('push', { 'job-id': lastPushedJob, domain: 'docs.example.com', ...(rng.next() < 0.3 ? { version: `v${rng.int(5)}` } : {}) }, true);
      if (hosting) await hostedStep(lastPushedJob);
    } else if (roll < 0.27 && !hosting) {
      // The team starts hosting the bundle: the push workflow gains the hosted-URL step.
      hosting = true;
      await hostedStep(lastPushedJob);
    } else if (roll < 0.4 && pull) {
      const line = `# reviewed ${++note} (seed ${seed})`;
      const text = github.fileAt(REPO, pull.head, PATH)!;
      github.commitOnBranch(REPO, pull.head, { [PATH]: `${text}${line}\n` }, `Review note ${note}`);
      personLines.add(line);
    } else if (roll < 0.48) {
      // Another change to the file merged into the base: at its top, or next to the action's lines, or on them.
      const text = github.fileAt(REPO, 'main', PATH)!;
      const where = rng.int(4);
      stats.baseEdits += 1;
      if (where === 0) {
        const line = `# base change ${++note} (seed ${seed})`;
        github.commitOnBranch(REPO, 'main', { [PATH]: `${line}\n${text}` }, `Base change ${note}`);
        baseLines.add(line);
      } else if (where === 1) {
        // A comment right above the link, inside the block.
        const line = `  # base note ${++note} (seed ${seed})`;
        github.commitOnBranch(REPO, 'main', { [PATH]: text.replace(/^( *bundleUrl:)/m, `${line}\n$1`) }, `Base note ${note}`);
        baseLines.add(line);
      } else if (where === 2) {
        // Someone turns the static export off (or on) on the base, beside the link.
        const turned = /enabled: true/.test(text) ? text.replace('enabled: true', 'enabled: false') : text.replace('enabled: false', 'enabled: true');
        github.commitOnBranch(REPO, 'main', { [PATH]: turned }, 'Turn the static export off (or on) by hand');
      } else {
        // Someone pastes a fresh link of production's own export by hand.
        const deployedJob = jobIdFromLink(linkOn('main') ?? '');
        if (deployedJob && platform.exportJobs.has(deployedJob)) {
          const pasted = await freshLink(deployedJob);
          github.commitOnBranch(REPO, 'main', { [PATH]: text.replace(/bundleUrl: ".*"/, `bundleUrl: "${pasted}"`) }, 'Paste a fresh link by hand');
          // Production now serves the pasted link, as after a merge.
          mergedAt = Date.now();
          mergedLeftMs = (linkExpiry(pasted)?.getTime() ?? Number.POSITIVE_INFINITY) - Date.now();
        }
      }
    } else if (roll < 0.5) {
      // A push into the second base (another cluster's values on another branch): its own pull request.
      stats.secondBase += 1;
      const job = seedExport();
      await step('push to production', { 'job-id': job, domain: 'docs.example.com', 'base-branch': SECOND_BASE });
    } else if (roll < 0.52) {
      // An export that loses pages, accepted by a person with max-page-loss: 100%; later renewals of it are not judged again.
      stats.acceptedLosses += 1;
      lastPushedJob = seedExport([]);
      await step('push losing pages', { 'job-id': lastPushedJob, domain: 'docs.example.com', 'max-page-loss': '100%' });
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
    } else if (roll < 0.84 && pull) {
      // Closed without merging: a person's no to that export.
      const closedJob = jobIdFromLink(linkOn(pull.head) ?? '');
      if (closedJob && closedJob !== jobIdFromLink(linkOn('main') ?? '')) vetoed.add(closedJob);
      github.closePull(REPO, pull.number);
      stats.closed += 1;
      personLines.clear();
      // The same export proposed again: nothing opens, and the run says why.
      if (closedJob && vetoed.has(closedJob) && rng.next() < 0.5) {
        const again = await runPublish('push again', { 'job-id': closedJob, domain: 'docs.example.com' });
        stats.runs += 1;
        expect({ context: context(), code: again.code, opened: openPull() === undefined, said: again.log.includes(`::notice::Export ${closedJob} was proposed in pull request #${pull.number}`) }).toEqual({ context: context(), code: 0, opened: true, said: true });
        stats.vetoesHeld += 1;
      }
    }
  }
  stats.timelines += 1;
}

describe('a team\'s months with one values file', () => {
  it(`${TIMELINES} random timelines of ${DAYS} days keep every promise`, async () => {
    const stats: Stats = { timelines: 0, runs: 0, merges: 0, refusedMerges: 0, guardFailures: 0, baseEdits: 0, closed: 0, vetoesHeld: 0, secondBase: 0, acceptedLosses: 0, layoutChanges: 0, pagesMoved: 0, lostWrites: {}, interleaved: {} };
    for (let i = 0; i < TIMELINES; i++) await timeline(SEED + i, i, stats);
    console.log(
      `timelines: ${stats.timelines}, runs: ${stats.runs}, merges: ${stats.merges} (${stats.refusedMerges} refused by GitHub before a run made the branch linear), guard failures: ${stats.guardFailures}, ` +
        `base edits: ${stats.baseEdits}, closed without merging: ${stats.closed} (${stats.vetoesHeld} re-runs of the closed export opened nothing), pushes into ${SECOND_BASE}: ${stats.secondBase}, losses accepted: ${stats.acceptedLosses}, ` +
        `layout changes compared: ${stats.layoutChanges} (${stats.pagesMoved} pages moved, none added, removed or changed), ` +
        `runs with a write's answer lost: ${Object.values(stats.lostWrites).reduce((a, b) => a + b, 0)} (${JSON.stringify(stats.lostWrites)}), ` +
        `pushes run whole while another run's write waited: ${Object.values(stats.interleaved).reduce((a, b) => a + b, 0)} (${JSON.stringify(stats.interleaved)}), seeds ${SEED}..${SEED + TIMELINES - 1}`
    );
    expect(stats.runs).toBeGreaterThan(TIMELINES * DAYS);
    // The layout check ran: exports of both layouts were compared.
    expect(stats.layoutChanges).toBeGreaterThan(0);
  }, 1_800_000);
});

// Ninety days of one team, with and without renewals that merge themselves (auto-merge: renewals):
// pushes at random, the nightly renewal at 03:17, reviewers who take 0 to 14 days to merge a content
// pull request, and a two-week holiday with nobody merging. Each run carries its event (push or
// schedule). Checked at every event, and every hour in between:
// - with auto-merge, where the repository allows it: production's link never expired at any moment, no
//   renewal was merged by a person, and every content change reached production through a person's merge;
// - without it: every expiry was preceded by a failed scheduled run at least a day ahead.
// The default keeps npm test quick (about a real second per run of the action, a run or two a day); the
// issue's 90 days, on demand: HOLIDAY_TIMELINES=3 HOLIDAY_DAYS=90.
const HOLIDAY_TIMELINES = Number(process.env.HOLIDAY_TIMELINES ?? 1);
const HOLIDAY_DAYS = Number(process.env.HOLIDAY_DAYS ?? 21);

interface HolidayStats {
  timelines: number;
  runs: number;
  pushes: number;
  personMerges: number;
  personMergesOfRenewals: number;
  actionMerges: number;
  expiredMinutes: number;
  expiries: number;
  toldADayAhead: number;
  failedScheduledRuns: number;
  /** Runs in which GitHub did a write and lost its answer (merges of renewals among them). */
  lostWrites: number;
  lostMerges: number;
}

async function holidayTimeline(seed: number, start: number, autoMerge: boolean, stats: HolidayStats): Promise<void> {
  const rng = random(seed);
  // Lost answers of writes, from a generator of their own: the events stay those of the seed.
  const losses = random(seed ^ 0x1057);
  moveTo(start);
  const repo = `acme/holiday-${seed}-${autoMerge ? 'auto' : 'person'}`;
  // Links of three to seven days: a platform that signs its links for S3's longest, or less.
  const ttlHours = rng.pick([72, 120, 168]);
  platform.exportJobs.clear();
  const methods = rng.pick<MergeMethod[]>([['merge', 'squash', 'rebase'], ['rebase'], ['squash'], ['merge'], ['squash', 'rebase']]);
  github.setPolicy({ mergeMethods: methods });
  const seedJob = () => platform.seedExportJob({ domain: DOMAIN, createdAt: Date.now() });
  platform.linkTtlSeconds = ttlHours * 3600;
  const first = seedJob();
  const firstLink = (await (await fetch(`${platform.url}/v1/static-export/jobs/${first}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } })).json()) as { bundleUrl: string };
  // Production serves the site from the start (enabled: true): with enabled: false there is nothing to keep alive, and nothing to guard.
  github.createRepo(repo, { [PATH]: INITIAL(firstLink.bundleUrl).replace('enabled: false', 'enabled: true'), 'README.md': '# deploy\n' });
  // The holiday starts after the first week, and ends five days before the timeline does (when it is long enough).
  const earliest = Math.min(7, Math.max(0, HOLIDAY_DAYS - 21));
  const latest = Math.max(earliest + 1, HOLIDAY_DAYS - 19);
  const holidayStart = start + (earliest + rng.int(latest - earliest)) * DAY;
  const holidayEnd = holidayStart + 14 * DAY;
  const onHoliday = (t: number) => t >= holidayStart && t < holidayEnd;
  const context = () => `seed ${seed}, ${autoMerge ? 'auto-merge' : 'people merge'}, day ${((Date.now() - start) / DAY).toFixed(2)}, ttl ${ttlHours}h, methods ${methods.join('/')}, holiday days ${(holidayStart - start) / DAY}..${(holidayEnd - start) / DAY}`;
  const mainLink = () => readSetting(PATH, github.fileAt(repo, 'main', PATH)!, 'staticExport', 'bundleUrl') as string;
  const failedNights: number[] = [];
  /** The moment production's link was found expired, once per link. */
  const expired = new Map<string, number>();
  /** When the reviewer of the open content pull request is done with it. */
  let reviewDone: number | undefined;

  const inputs = (extra: Record<string, string>) => ({ 'config-repository': repo, domain: DOMAIN, ...(autoMerge ? { 'auto-merge': 'renewals' } : {}), ...extra });
  async function runStep(kind: 'push' | 'nightly', extra: Record<string, string>): Promise<void> {
    const deployedJob = jobIdFromLink(mainLink());
    const started = performance.now();
    if (losses.next() < LOST_WRITES) github.addFault({ kind: 'lost', operation: 'write', skip: losses.int(4) });
    // The merge of a renewal too, which comes after more writes than the first four.
    if (autoMerge && losses.next() < LOST_WRITES) github.addFault({ kind: 'lost', operation: 'pulls.merge' });
    const from = github.requests.length;
    let result: Run;
    try {
      result = await runPublish(kind, inputs(extra), kind === 'push' ? 'push' : 'schedule');
    } finally {
      github.clearFaults();
    }
    const lost = github.requests.slice(from).filter((request) => request.status === 0);
    if (lost.length > 0) stats.lostWrites += 1;
    if (lost.some((request) => request.method === 'PUT' && request.path.endsWith('/merge'))) stats.lostMerges += 1;
    if (process.env.TIMELINE_DEBUG) console.log(`${kind} ${(performance.now() - started).toFixed(0)} ms code ${result.code}\n${result.log}`);
    stats.runs += 1;
    const error = result.log.split('\n').find((line) => line.startsWith('::error::'));
    if (result.code !== 0) {
      expect({ context: context(), kind, error }).toEqual({ context: context(), kind, error: expect.stringMatching(/^::error::Production's link in deploy\/values\.yaml on main .* Merge pull request #\d+/) });
      if (kind === 'nightly') {
        failedNights.push(Date.now());
        stats.failedScheduledRuns += 1;
      }
    }
    // A run merges renewals only: the export production serves is never changed by the action.
    expect({ context: context(), kind, deployed: jobIdFromLink(mainLink()) }).toEqual({ context: context(), kind, deployed: deployedJob });
  }

  /** Production's link, looked at now: an expired one is counted, by the minute, from its expiry. */
  function checkProduction(): void {
    const link = mainLink();
    const expiry = linkExpiry(link)!.getTime();
    if (expiry > Date.now() || expired.has(link)) return;
    expired.set(link, expiry);
    stats.expiries += 1;
    if (autoMerge) {
      expect({ context: context(), expiredAt: new Date(expiry).toISOString() }).toEqual({ context: context(), expiredAt: undefined });
    }
    // Without auto-merge, a scheduled run failed a day or more before the link ran out, naming the pull request.
    const told = failedNights.some((at) => at <= expiry - DAY && at >= expiry - ttlHours * HOUR);
    expect({ context: context(), expiredAt: new Date(expiry).toISOString(), toldADayAhead: told }).toEqual({ context: context(), expiredAt: new Date(expiry).toISOString(), toldADayAhead: true });
    stats.toldADayAhead += 1;
  }

  /** The reviewer is done: a person merges the open pull request, by a method the repository allows. */
  function personMerges(): void {
    const open = github.pulls(repo).find((pull) => pull.state === 'open' && pull.base === 'main');
    reviewDone = undefined;
    if (!open) return;
    const proposed = readSetting(PATH, github.fileAt(repo, open.head, PATH)!, 'staticExport', 'bundleUrl') as string;
    const renewal = jobIdFromLink(proposed) === jobIdFromLink(mainLink());
    try {
      github.mergePull(repo, open.number, rng.pick(methods));
    } catch {
      return; // refused by GitHub (a rebase over a merge): the next run makes it mergeable again
    }
    stats.personMerges += 1;
    if (renewal) stats.personMergesOfRenewals += 1;
  }

  const end = start + HOLIDAY_DAYS * DAY;
  let nextNightly = start + 3 * HOUR + 17 * 60_000;
  let nextPush = start + rng.int(3 * DAY);
  while (Date.now() < end) {
    // The next event, an hour at most away so that production is looked at every hour.
    const next = Math.min(nextNightly, nextPush, reviewDone ?? Number.POSITIVE_INFINITY, Date.now() + HOUR);
    // Production's link between two looks: an expiry in between counts from its own moment.
    moveTo(Math.max(Date.now(), next));
    checkProduction();
    if (Date.now() >= nextNightly) {
      nextNightly += DAY;
      await runStep('nightly', { 'job-id': 'auto', 'min-validity': '72h' });
    } else if (Date.now() >= nextPush) {
      nextPush = Date.now() + HOUR + rng.int(4 * DAY);
      stats.pushes += 1;
      await runStep('push', { 'job-id': seedJob() });
      // A person reviews the new content: 0 to 14 days, and nobody merges on holiday.
      if (reviewDone === undefined) reviewDone = Date.now() + rng.int(14 * DAY + 1);
    } else if (reviewDone !== undefined && Date.now() >= reviewDone) {
      if (onHoliday(Date.now())) reviewDone = holidayEnd + rng.int(DAY);
      else personMerges();
    }
    // Without auto-merge, people merge the renewals too, when their review of the last one is done.
    if (!autoMerge && reviewDone === undefined && github.pulls(repo).some((pull) => pull.state === 'open')) reviewDone = Date.now() + rng.int(14 * DAY + 1);
  }
  for (const pull of github.pulls(repo)) if (pull.merged && pull.mergedBy !== 'person') stats.actionMerges += 1;
  // Expired minutes: from each expiry to the merge that replaced the link, or to the end.
  let minutes = 0;
  for (const [, at] of expired) minutes += Math.round((Math.min(end, nextReplacement(repo, at) ?? end) - at) / 60_000);
  stats.expiredMinutes += minutes;
  stats.timelines += 1;
}

/** When main's link was next replaced after `at`: the first merge into main after it. */
function nextReplacement(repo: string, at: number): number | undefined {
  const times = github
    .pulls(repo)
    .filter((pull) => pull.merged && pull.closedAt && Date.parse(pull.closedAt) > at)
    .map((pull) => Date.parse(pull.closedAt!));
  return times.length ? Math.min(...times) : undefined;
}

describe(`${HOLIDAY_DAYS} days with reviewers of 0 to 14 days and a two-week holiday`, () => {
  const blank = (): HolidayStats => ({ timelines: 0, runs: 0, pushes: 0, personMerges: 0, personMergesOfRenewals: 0, actionMerges: 0, expiredMinutes: 0, expiries: 0, toldADayAhead: 0, failedScheduledRuns: 0, lostWrites: 0, lostMerges: 0 });
  // After the timelines above: GitHub's client remembers when it may write next, so the clock never goes back.
  // The second test's timelines come after all of the first's.
  const startOf = (i: number, mode: number) => T0 + (TIMELINES * (DAYS + 10) + (mode * HOLIDAY_TIMELINES + i) * (HOLIDAY_DAYS + 10)) * DAY;
  const report = (what: string, stats: HolidayStats) =>
    console.log(
      `${what}: timelines ${stats.timelines} × ${HOLIDAY_DAYS} days, runs ${stats.runs}, pushes ${stats.pushes}, merges by a person ${stats.personMerges} (of renewals: ${stats.personMergesOfRenewals}), ` +
        `merges by the action ${stats.actionMerges}, expiries ${stats.expiries} (${stats.expiredMinutes} expired minutes; told a day ahead: ${stats.toldADayAhead}), failed scheduled runs ${stats.failedScheduledRuns}, runs with a write's answer lost ${stats.lostWrites} (merges: ${stats.lostMerges}), seeds ${SEED}..${SEED + HOLIDAY_TIMELINES - 1}`
    );

  it(`with auto-merge: renewals, ${HOLIDAY_TIMELINES} timelines: production's link never expires, no person merges a renewal, every content change is merged by a person`, async () => {
    const stats = blank();
    for (let i = 0; i < HOLIDAY_TIMELINES; i++) await holidayTimeline(SEED + i, startOf(i, 0), true, stats);
    report('auto-merge: renewals', stats);
    expect({ expiredMinutes: stats.expiredMinutes, personMergesOfRenewals: stats.personMergesOfRenewals }).toEqual({ expiredMinutes: 0, personMergesOfRenewals: 0 });
    // The timelines did what they are for: people merged content, and the action merged renewals.
    expect(stats.personMerges).toBeGreaterThan(0);
    expect(stats.actionMerges).toBeGreaterThan(0);
  }, 1_800_000);

  it(`without it, ${HOLIDAY_TIMELINES} timelines: every expiry is preceded by a failed scheduled run a day ahead`, async () => {
    const stats = blank();
    for (let i = 0; i < HOLIDAY_TIMELINES; i++) await holidayTimeline(SEED + i, startOf(i, 1), false, stats);
    report('people merge', stats);
    expect(stats.toldADayAhead).toBe(stats.expiries);
    expect(stats.actionMerges).toBe(0);
  }, 1_800_000);
});

// One way to set up a test file (issue 44): `useEmulators()` starts the emulators a file needs once,
// in beforeAll, closes them in afterAll, and (with `reset`) empties what they recorded before each
// test. It returns handles that stand for the emulators from beforeAll on, so a file names them
// once at its top (`const { platform, github, publish } = useEmulators(…)`) as it named its `let`s;
// each handle forwards to the emulator it stands for, and touching one before beforeAll throws.
import { afterAll, afterEach, beforeAll, beforeEach, jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActionRun } from '../emulator/runner.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import type { Policy } from '../emulator/github-state.ts';
import { DEFAULT_API_KEY, type EmulatorOptions, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { type StaticFileServer, startStaticFileServer } from '../emulator/static-files.ts';
import { finishedExport, presignedLink } from './finished-export.ts';
import { loadPublish, type PublishRun } from './in-process.ts';

export interface EmulatorsWanted {
  /** The platform emulator's options (its job profile, link lifetime, deployments); `false`: none (a file that starts one per test). */
  platform?: EmulatorOptions | false;
  /** The GitHub emulator's policy; `false`: no GitHub emulator (a file of the platform only). */
  github?: Partial<Policy> | false;
  /** A static file server: the team's own bundle host. */
  storage?: boolean;
  /** Before each test, forget the requests every emulator recorded, so a test counts its own. */
  reset?: boolean;
  /** The host name the publish action reaches the GitHub emulator by, instead of 127.0.0.1 (a name a test can make fail to resolve). */
  githubHost?: string;
}

export interface Emulators {
  platform: PlatformEmulator;
  github: GitHubEmulator;
  storage: StaticFileServer;
  /** The publish action in this process, loaded against `github` (loadPublish). */
  publish: PublishRun;
  /** A step's platform inputs: the admin key, the platform emulator's URL and DOMAIN; then `extra`. */
  inputs(extra?: Record<string, string>): Record<string, string>;
  /** The README's publishing step that proposes the new link in PATH (config-path, github-token), then `extra`. */
  proposing(extra?: Record<string, string>): Record<string, string>;
  /** The runner's variables of a step on `repo` (started by `event`, when given) against the GitHub emulator. */
  env(repo: string, event?: string): Record<string, string>;
}

/** The GitHub emulator (its URL) the publish action of this file was first loaded against: in-process runs that name none reach it. */
let publishLoadedFor: string | undefined;

/** The emulators of one test file: started once, closed at its end. */
export function useEmulators(wanted: EmulatorsWanted = {}): Emulators {
  const started: Partial<Emulators> = {};
  beforeAll(async () => {
    if (wanted.platform !== false) started.platform = await startPlatformEmulator(wanted.platform);
    if (wanted.github !== false) {
      started.github = await startGitHubEmulator(wanted.github ?? {});
      // A run that names no GITHUB_API_URL reaches the one loadPublish was given: one GitHub per file.
      const url = wanted.githubHost ? started.github.url.replace('127.0.0.1', wanted.githubHost) : started.github.url;
      publishLoadedFor ??= started.github.url;
      started.publish = await loadPublish(url);
    }
    if (wanted.storage) started.storage = await startStaticFileServer();
  });
  afterAll(async () => {
    await Promise.all([started.platform?.close(), started.github?.close(), started.storage?.close()]);
  });
  if (wanted.reset) {
    beforeEach(() => {
      for (const emulator of [started.platform, started.github, started.storage]) if (emulator) emulator.requests.length = 0;
    });
  }
  return {
    platform: handle(started, 'platform'),
    github: handle(started, 'github'),
    storage: handle(started, 'storage'),
    publish: (cancellation, options) => {
      if (started.github && started.github.url !== publishLoadedFor) {
        throw new Error('useEmulators(): the publish action talks to the GitHub emulator it was first loaded against, another of this file; run it in-process from one useEmulators() per file.');
      }
      return startedOne(started, 'publish')(cancellation, options);
    },
    inputs: (extra = {}) => ({ 'api-key': DEFAULT_API_KEY, 'api-url': startedOne(started, 'platform').url, domain: DOMAIN, ...extra }),
    proposing: (extra = {}) => ({ 'api-key': DEFAULT_API_KEY, 'api-url': startedOne(started, 'platform').url, domain: DOMAIN, 'config-path': PATH, 'github-token': TOKEN, ...extra }),
    env: (repo, event) => ({ GITHUB_API_URL: startedOne(started, 'github').url, GITHUB_REPOSITORY: repo, ...(event === undefined ? {} : { GITHUB_EVENT_NAME: event }) })
  };
}

function startedOne<K extends keyof Emulators>(started: Partial<Emulators>, name: K): Emulators[K] {
  const emulator = started[name];
  if (!emulator) throw new Error(`useEmulators(): the ${name} emulator is not started (it starts in beforeAll, when the file asks for it).`);
  return emulator as Emulators[K];
}

/** Stands for `started[name]`: reads, writes and calls go to the emulator once it is started. */
function handle<K extends 'platform' | 'github' | 'storage'>(started: Partial<Emulators>, name: K): Emulators[K] {
  return new Proxy({} as Emulators[K], {
    get: (_, key) => Reflect.get(startedOne(started, name), key),
    set: (_, key, value) => Reflect.set(startedOne(started, name), key, value),
    has: (_, key) => Reflect.has(startedOne(started, name), key),
    ownKeys: () => Reflect.ownKeys(startedOne(started, name)),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(startedOne(started, name), key);
      return descriptor && { ...descriptor, configurable: true };
    }
  });
}

/**
 * A platform emulator of each test's own, on a clock the test moves (`clock.now`, at `t0` when it
 * starts): `start()` starts it, `started()` is the one started, and it is closed after the test.
 */
export function usePlatformPerTest(t0: number) {
  const clock = { now: t0 };
  let platform: PlatformEmulator | undefined;
  afterEach(async () => {
    await platform?.close();
    platform = undefined;
  });
  return {
    clock,
    async start(options: EmulatorOptions = {}): Promise<PlatformEmulator> {
      clock.now = t0;
      platform = await startPlatformEmulator({ clock: () => clock.now, ...options });
      return platform;
    },
    started(): PlatformEmulator {
      if (!platform) throw new Error('usePlatformPerTest(): no platform emulator started in this test (call start()).');
      return platform;
    }
  };
}

/** A folder of its own for each test (`each`, the default) or for the file, removed after it: `dir()` names it. */
export function useTempDir(prefix: string, { each = true }: { each?: boolean } = {}): () => string {
  let dir: string | undefined;
  (each ? beforeEach : beforeAll)(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  (each ? afterEach : afterAll)(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!dir) throw new Error('useTempDir(): the folder is made in beforeEach/beforeAll.');
    return dir;
  };
}

/**
 * Only Date is faked, from `t0`: the clock the emulators' checks and links run on, which the test
 * moves (jest.setSystemTime); timers stay real, so HTTP and the action's waits work as they do.
 * Call it before useEmulators(), so the emulators start on that clock.
 */
export function useFakeDate(t0: number): void {
  beforeAll(() => {
    jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'], now: t0 });
  });
  afterAll(() => {
    jest.useRealTimers();
  });
}

// Shared values: the README's deployment, as the tests' repositories hold it.
/** The workflow's own GITHUB_TOKEN, as the GitHub emulator's policy names it by default. */
export const TOKEN = 'ghs_emulator_token';
export const REPO = 'acme/deploy';
export const PATH = 'deploy/values.yaml';
/** The branch the action proposes PATH's change on (named from the file, src/github/target.ts). */
export const BRANCH = 'static-export/deploy-values.yaml';
export const DOMAIN = 'docs.example.com';
/** A GitHub App's installation token (actions/create-github-app-token), and the GitHub emulator's policy that knows it. */
export const APP = 'ghs_app_installation';
export const WITH_APP = { tokens: { [APP]: { kind: 'installation' as const, write: true } } };
export const HOUR = 3_600_000;
export const WEEK_S = 7 * 24 * 3600;

/** A Helm values file whose staticExport block serves `link`, with comments and neighbours as people keep it. */
export const helmValues = (link: string) => `# Helm values for the docs deployment.\nreplicaCount: 2\n\nstaticExport:\n  enabled: true\n  bundleUrl: "${link}"\n\nresources: {}\n`;

const repoCounts = new Map<string, number>();

/**
 * A repository of its own (`acme/<name>-<n>`) whose base serves a finished export of DOMAIN in PATH,
 * by a week-long link with `leftHours` to live (144 unless given: signed a day ago).
 */
export async function productionRepo(
  { platform, github }: Pick<Emulators, 'platform' | 'github'>,
  name: string,
  { leftHours = 144, values = helmValues, files = {} }: { leftHours?: number; values?: (link: string) => string; files?: Record<string, string> } = {}
): Promise<{ repo: string; jobId: string; link: string }> {
  const count = (repoCounts.get(name) ?? 0) + 1;
  repoCounts.set(name, count);
  const repo = `acme/${name}-${count}`;
  const { jobId } = await finishedExport(platform, DOMAIN);
  const link = presignedLink(platform, jobId, Date.now() - (168 - leftHours) * HOUR, WEEK_S);
  github.createRepo(repo, { [PATH]: values(link), ...files });
  return { repo, jobId, link };
}

// Annotations as the runner shows them: `::error::…`, `::warning::…`.
type Logged = ActionRun | { log: string } | string;
const logOf = (run: Logged) => (typeof run === 'string' ? run : run.log);

/** Every annotation of `kind` in a run's log, in order. */
export const annotations = (run: Logged, kind: 'error' | 'warning' | 'notice') => logOf(run).split('\n').filter((line) => line.startsWith(`::${kind}::`));
/** Every ::error:: line of a run. */
export const errors = (run: Logged) => annotations(run, 'error');
/** The first ::error:: line of a run, if any. */
export const errorLine = (run: Logged) => errors(run)[0];

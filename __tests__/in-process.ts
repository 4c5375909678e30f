// The real publish action in the test's own process, as the runner would run it: INPUT_* and the
// runner's files in, outputs, summary, exit code and the log (as the runner shows it) out, in the
// same shape as emulator/runner.ts gives for a bundle under dist/. No Node start per run, and
// GitHub's waits (retries, rate limits, the spacing of writes) on a shrunk second, so a test of a
// retry runs at the speed of the CPU while the log still says what a user would read.
//
// Runs can go at once: each has an environment of its own (src/action/environment.ts), its
// variables, log, outputs, summary and exit code, so a test can start a push and the nightly together
// and read each run's own. inTurn() is for tests that want them one after the other.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ActionRun, inputVariables, parseOutputs, runnerLog } from '../emulator/runner.ts';
import { runEnvironment, runIn } from '../src/action/environment.ts';
import { Cancellation } from '../src/action/runtime.ts';
import type { RunOptions } from '../src/publish/main.ts';
import type { RunKind } from '../src/publish/run-kind.ts';

/**
 * The short beat of every in-process run (RunOptions.knobs), for tests whose export runs a fraction of
 * a second on the emulator and that are not about when to poll (the schedule has its own tests): the
 * constant 10 s beat (POLL_LIMITS) would wait out each. A test passes its own knobs over these.
 */
export const QUICK_KNOBS: NonNullable<RunOptions['knobs']> = { limits: { floorMs: 50, ceilingMs: 250 } };

export type PublishRun = (cancellation?: Cancellation, options?: RunOptions) => Promise<void>;

/**
 * Loads the publish action, its runs against a GitHub API URL: a run whose `env` names no
 * GITHUB_API_URL of its own is given this one, so a test file keeps one GitHub emulator for all its
 * runs (and isolates them by repository, or by recreating the repository).
 */
export async function loadPublish(githubUrl: string): Promise<PublishRun> {
  process.env.GITHUB_API_URL = githubUrl;
  return (await import('../src/publish/main.ts')).run;
}

/**
 * Which of the three publish actions runs a test's step, when the test does not say (options.kind):
 * the input only that action declares names it, renew/'s renew-within or host/'s
 * bundle-url-template; any other step is the root action's export.
 */
export function kindOfStep(inputs: Record<string, string>): RunKind {
  if (inputs['renew-within'] !== undefined) return 'renew';
  if (inputs['bundle-url-template'] !== undefined) return 'host';
  return 'export';
}

/** The bundle under dist/ of the action that runs a test's step (kindOfStep), as its action.yml's runs.main names it. */
export function bundleOfStep(inputs: Record<string, string>): string {
  return { export: 'dist/index.js', renew: 'dist/renew/index.js', host: 'dist/host/index.js' }[kindOfStep(inputs)];
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `task` after every task queued before it: runs in one process take turns. */
export function inTurn<T>(task: () => Promise<T>): Promise<T> {
  const result = queue.then(task);
  queue = result.catch(() => undefined);
  return result;
}

/**
 * One step of the action: `inputs` as INPUT_*, `env` on top of the runner's variables. `options` go
 * over the harness's own: GitHub's second of a millisecond and the short beat (QUICK_KNOBS).
 */
export async function runInProcess(
  run: PublishRun,
  inputs: Record<string, string>,
  env: Record<string, string> = {},
  options: RunOptions = {},
  onOutput?: (text: string) => void
): Promise<ActionRun> {
  const dir = mkdtempSync(join(tmpdir(), 'action-in-process-'));
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  // The machine's variables but the runner's: no INPUT_*, GITHUB_* or RUNNER_DEBUG of the test's process.
  const variables: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('INPUT_') && !name.startsWith('GITHUB_') && name !== 'RUNNER_DEBUG'));
  Object.assign(variables, { GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, RUNNER_TEMP: dir, GITHUB_API_URL: process.env.GITHUB_API_URL ?? '' }, env, inputVariables(inputs));
  let stdout = '';
  const environment = runEnvironment(variables, (text) => {
    stdout += text;
    onOutput?.(text);
  });
  const started = Date.now();
  await runIn(environment, () => run(new Cancellation(), { kind: kindOfStep(inputs), githubSecondMs: 1, ...options, knobs: { ...QUICK_KNOBS, ...options.knobs } }));
  const result: ActionRun = {
    code: environment.exitCode ?? 0,
    signal: null,
    stdout,
    log: runnerLog(stdout),
    outputs: parseOutputs(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8'),
    ms: Date.now() - started
  };
  rmSync(dir, { recursive: true, force: true });
  return result;
}

/** A run the test acts beside while it goes: `waitFor` resolves once the log shows `text`. */
export function startInProcess(run: PublishRun, inputs: Record<string, string>, env: Record<string, string> = {}, options: RunOptions = {}) {
  let log = '';
  const listeners: (() => void)[] = [];
  const done = runInProcess(run, inputs, env, options, (text) => {
    log += text;
    for (const listener of listeners) listener();
  });
  const waitFor = (text: string | RegExp) =>
    new Promise<void>((resolve, reject) => {
      const shows = () => (typeof text === 'string' ? log.includes(text) : text.test(log));
      if (shows()) return resolve();
      listeners.push(() => shows() && resolve());
      done.then(() => reject(new Error(`the run ended and its log never showed ${String(text)}:\n${log}`)), reject);
    });
  return { done, waitFor };
}

// What a run reads from the runner and gives back to it, through one object: its variables (INPUT_*,
// GITHUB_*, RUNNER_*), its log (workflow commands included), its outputs, its summary and its exit
// code. On a runner that is the process itself, and @actions/core is used as it is. A test (or any
// host that runs several steps in one process) gives each run an environment of its own with runIn(),
// so two runs can go at once: a push and the nightly interleaving on one repository, each with its
// own inputs, log, outputs and summary.
//
// The environment reaches the code through the run's asynchronous context (AsyncLocalStorage), not
// through every signature: each await of a run keeps the environment it was started in.
import * as core from '@actions/core';
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFile, writeFile } from 'node:fs/promises';

export type Summary = typeof core.summary;

export interface RunEnvironment {
  /** The runner's variables for this step: INPUT_*, GITHUB_*, RUNNER_*. */
  readonly variables: NodeJS.ProcessEnv;
  /** The step's log, as the runner reads it: lines and workflow commands. */
  readonly write: (text: string) => void;
  /** The step's exit code, once something failed it. */
  exitCode: number | undefined;
  /** The job summary this step appends to (GITHUB_STEP_SUMMARY). */
  readonly summary: Summary;
}

// One store for the process, even where a module is loaded twice (a test that loads the action
// afresh): a run started through one copy must be seen by the code of the other.
const STORE = Symbol.for('static-export-action.run-environment');
const runs: AsyncLocalStorage<RunEnvironment> = ((globalThis as Record<symbol, unknown>)[STORE] ??= new AsyncLocalStorage<RunEnvironment>()) as AsyncLocalStorage<RunEnvironment>;

/** Runs `work` in `environment`: everything it awaits reads and writes there, not the process's. */
export function runIn<T>(environment: RunEnvironment, work: () => T): T {
  return runs.run(environment, work);
}

/**
 * An environment of its own: `variables` as the runner would set them, the log to `write`, and a
 * summary appended to the file its GITHUB_STEP_SUMMARY names.
 */
export function runEnvironment(variables: NodeJS.ProcessEnv, write: (text: string) => void): RunEnvironment {
  return { variables, write, exitCode: undefined, summary: new StepSummary(variables.GITHUB_STEP_SUMMARY) };
}

/** The runner's variables of the current run (the process's own outside runIn). */
export function variables(): NodeJS.ProcessEnv {
  return runs.getStore()?.variables ?? process.env;
}

/** One runner variable of the current run. */
export function variable(name: string): string | undefined {
  return variables()[name];
}

/** The current run's job summary. */
export function summary(): Summary {
  return runs.getStore()?.summary ?? core.summary;
}

/**
 * Calls @actions/core as the current run. Each of its calls that a run makes (getInput, info,
 * warning, setOutput, setSecret, setFailed…) reads process.env and writes process.stdout (or the
 * GITHUB_OUTPUT file) synchronously, so the process's are the run's for that call alone, and
 * nothing else can run in between. On a runner (no runIn) the call is made as it is.
 */
export function asRun<T>(call: () => T): T {
  const run = runs.getStore();
  if (!run) return call();
  const saved = { env: process.env, write: process.stdout.write, exitCode: process.exitCode };
  process.env = run.variables;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    run.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  process.exitCode = run.exitCode;
  try {
    return call();
  } finally {
    run.exitCode = process.exitCode === undefined ? undefined : Number(process.exitCode);
    process.env = saved.env;
    process.stdout.write = saved.write;
    process.exitCode = saved.exitCode;
  }
}

/**
 * @actions/core's summary (the same HTML for every add…), written to a file of the run's own.
 * core.summary is one buffer for the process, and its write() reads GITHUB_STEP_SUMMARY from
 * process.env after an await, when another run may be going.
 */
const CoreSummary = core.summary.constructor as new () => Summary;

class StepSummary extends CoreSummary {
  private readonly file: string | undefined;

  constructor(file: string | undefined) {
    super();
    this.file = file;
  }

  override async write(options?: { overwrite?: boolean }): Promise<Summary> {
    if (!this.file) throw new Error('Unable to find environment variable for $GITHUB_STEP_SUMMARY. Check if your runtime environment supports job summaries.');
    const text = this.stringify();
    this.emptyBuffer();
    await (options?.overwrite ? writeFile : appendFile)(this.file, text, 'utf8');
    return this;
  }
}

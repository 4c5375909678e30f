// What every entry point needs around its work: cancellation on SIGINT/SIGTERM (a cancelled
// workflow), a line that says what is left running on the server, and an exit once the work is
// done, so idle keep-alive sockets never hold the step open.
import * as core from './core.ts';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { escapeHtml } from './format.ts';

/** A path in the runner's temporary folder (emptied after every job); the system's outside a runner. */
export function runnerTempPath(name: string): string {
  return join(core.variable('RUNNER_TEMP') ?? tmpdir(), name);
}

/** A new path there for a folder the step makes and removes itself: a name no other run uses. */
export function uniqueTempPath(prefix: string): string {
  return runnerTempPath(`${prefix}-${randomBytes(6).toString('hex')}`);
}

export class Cancellation {
  readonly controller = new AbortController();
  /** What to tell the user if the step is cancelled now (e.g. which job goes on on the server). */
  note = 'Cancelled.';
  /** Outputs a cancelled step still sets, so a later step can use what the note names (the job id). */
  outputs: Record<string, string> = {};

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A job now runs on the server: a cancel from here on says so and still sets the outputs that name it. */
  jobGoesOn(note: string, outputs: Record<string, string>): void {
    this.note = note;
    Object.assign(this.outputs, outputs);
  }
}

/** What every wait in a step shares: its schedule's limits, the step's cancel signal, and the step's log. */
export function stepWait<Limits>(cancellation: Cancellation, limits: Limits): { limits: Limits; signal: AbortSignal; log: (line: string) => void } {
  return { limits, signal: cancellation.signal, log: (line) => core.info(line) };
}

/**
 * How long a cancelled step may take to wind down (end a request, remove a half-unpacked folder)
 * before it ends itself. The runner sends SIGINT on cancel, SIGTERM 7.5 s later and kills the
 * process 2.5 s after that; each grace ends just before the runner's next step.
 */
const cancelGraceMs = (signal: NodeJS.Signals) => (signal === 'SIGINT' ? 7000 : 2000);

export async function runAction(run: (cancellation: Cancellation) => Promise<void>): Promise<never> {
  const cancellation = new Cancellation();
  const onSignal = (signal: NodeJS.Signals) => {
    if (cancellation.signal.aborted) return;
    core.info(`Received ${signal}. ${cancellation.note}`);
    for (const [name, value] of Object.entries(cancellation.outputs)) core.setOutput(name, value);
    // The summary is where a person looks after a run: a cancelled one says what it left behind.
    // Written at once: the step may be ended before an asynchronous write lands.
    const summaryFile = core.variable('GITHUB_STEP_SUMMARY');
    if (summaryFile) appendFileSync(summaryFile, `<h3>Cancelled</h3>\n<p>${escapeHtml(`The step received ${signal}. ${cancellation.note}`)}</p>\n`);
    process.exitCode = 1;
    cancellation.controller.abort(new CancelledError(signal));
    setTimeout(() => process.exit(1), cancelGraceMs(signal)).unref();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await run(cancellation);
  } catch (error) {
    // run() reports its own failures; this is the last net for a bug, so the step still fails.
    if (!cancellation.signal.aborted) core.setFailed(error instanceof Error ? error.message : String(error));
  }
  process.exit(process.exitCode ?? 0);
}

/** Reads an action's inputs; bad input fails the step with the parser's message, before any request. */
export function readInputs<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error));
    return undefined;
  }
}

export class CancelledError extends Error {
  constructor(signal: string) {
    super(`Cancelled by ${signal}`);
    this.name = 'CancelledError';
  }
}

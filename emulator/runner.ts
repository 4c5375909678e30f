// An emulator of the Actions runner: runs a built bundle as the runner does, as a separate Node
// process with INPUT_* variables and GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and returns what a
// user would read. Tests, the demo and the benchmarks use it.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TEST_POLL_MS_VARIABLE } from '../src/action/constants.ts';

export interface ActionRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr as the runner shows them, with ::add-mask:: lines consumed as the runner does. */
  log: string;
  /** stdout exactly as written, workflow commands included. */
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
  ms: number;
}

export interface StartedAction {
  child: ChildProcess;
  done: Promise<ActionRun>;
  /** Resolves when the log contains `text`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
}

export interface StartOptions {
  /** Called with each chunk the action writes, as it comes (the demo streams the log). */
  onOutput?: (text: string) => void;
}

/** The variable the runner passes an input in, as @actions/core reads it: `pr labels` → INPUT_PR_LABELS. */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

/** A step's inputs as the runner's variables. */
export function inputVariables(inputs: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(inputs).map(([name, value]) => [inputVariable(name), value]));
}

export function startAction(bundle: string, inputs: Record<string, string>, env: Record<string, string> = {}, options: StartOptions = {}): StartedAction {
  const dir = mkdtempSync(join(tmpdir(), 'action-run-'));
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: dir,
    ...env,
    ...inputVariables(inputs)
  };
  // The publish actions' short beat on emulated jobs, when the test suite or `npm run try` sets it (src/action/platform-inputs.ts).
  if (process.env[TEST_POLL_MS_VARIABLE] && childEnv[TEST_POLL_MS_VARIABLE] === undefined) childEnv[TEST_POLL_MS_VARIABLE] = process.env[TEST_POLL_MS_VARIABLE];
  // Under the test suite, the action loads its network guard too (NETWORK_GUARD names the module).
  const guard = process.env.NETWORK_GUARD ? ['--import', pathToFileURL(process.env.NETWORK_GUARD).href] : [];
  const started = Date.now();
  const child = spawn(process.execPath, [...guard, resolve(bundle)], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const listeners: Array<() => void> = [];
  const onData = () => listeners.forEach((l) => l());
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    options.onOutput?.(chunk.toString());
    onData();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    options.onOutput?.(chunk.toString());
    onData();
  });
  const done = new Promise<ActionRun>((resolveRun) => {
    child.on('close', (code, signal) => {
      const run = {
        code,
        signal,
        stdout,
        log: runnerLog(stdout + stderr),
        outputs: parseOutputs(readFileSync(outputFile, 'utf8')),
        summary: readFileSync(summaryFile, 'utf8'),
        ms: Date.now() - started
      };
      rmSync(dir, { recursive: true, force: true });
      resolveRun(run);
    });
  });
  const waitFor = (text: string | RegExp, timeoutMs = 20_000) =>
    new Promise<void>((resolveWait, reject) => {
      const matches = () => (typeof text === 'string' ? stdout.includes(text) : text.test(stdout));
      if (matches()) return resolveWait();
      const timer = setTimeout(() => reject(new Error(`log never showed ${String(text)}:\n${stdout}${stderr}`)), timeoutMs);
      listeners.push(() => {
        if (matches()) {
          clearTimeout(timer);
          resolveWait();
        }
      });
    });
  return { child, done, waitFor };
}

export function runAction(bundle: string, inputs: Record<string, string>, env: Record<string, string> = {}): Promise<ActionRun> {
  return startAction(bundle, inputs, env).done;
}

/**
 * The runner hides `::add-mask::` commands and masks their values in everything after them, and
 * shows annotations (`::error::`, `::notice::`) with their data unescaped.
 */
export function runnerLog(text: string): string {
  const secrets: string[] = [];
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const mask = /^::add-mask::(.*)$/.exec(line);
    if (mask) {
      secrets.push(mask[1]);
      continue;
    }
    const shown = /^::(error|warning|notice)[^:]*::/.test(line) ? unescapeCommandData(line) : line;
    lines.push(secrets.reduce((masked, secret) => (secret ? masked.split(secret).join('***') : masked), shown));
  }
  return lines.join('\n');
}

function unescapeCommandData(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}

/** GITHUB_OUTPUT holds `name<<DELIMITER\nvalue\nDELIMITER` blocks. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const block = /^(.+?)<<(.+)\n([\s\S]*?)\n\2$/gm;
  for (let match = block.exec(text); match; match = block.exec(text)) outputs[match[1]] = match[3];
  return outputs;
}

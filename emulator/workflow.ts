// An emulator of the runner for a whole job: runs a workflow's steps the way the runner would, on
// this machine. `run:` steps go to bash with the runner's variables (RUNNER_TEMP one folder for the
// whole job) and a GITHUB_OUTPUT file of their own; steps that use one of this repository's actions
// (`uses: ./`, `./agent-job`, `./feedback`, or `<owner>/<repo>…` in the README's recipes) run its
// built bundle as a separate process through runner.ts, with the action.yml defaults the runner would
// give; `${{ … }}` is filled from the earlier steps' outputs and what the caller knows (secrets, vars,
// github.*, runner.temp).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { type ActionRun, runAction } from './runner.ts';

export interface WorkflowStep {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}

export interface WorkflowJob {
  env?: Record<string, unknown>;
  steps: WorkflowStep[];
}

export interface Workflow {
  name?: string;
  /** The events that trigger it, by name. */
  events: string[];
  jobs: Record<string, WorkflowJob>;
}

export function parseWorkflow(text: string): Workflow {
  const parsed = parse(text) as { name?: string; on: unknown; jobs: Record<string, WorkflowJob> };
  const on = parsed.on;
  const events = typeof on === 'string' ? [on] : Array.isArray(on) ? (on as string[]) : Object.keys(on as object);
  return { name: parsed.name, events, jobs: parsed.jobs };
}

/** The workflow named `name` among a Markdown page's ```yaml blocks (the README's three, say). */
export function workflowInMarkdown(markdown: string, name: string): Workflow {
  const block = [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.startsWith(`name: ${name}\n`));
  if (!block) throw new Error(`no workflow named "${name}" in the page`);
  return parseWorkflow(block);
}

/** The repository's own actions, by the folder a `uses:` names. */
const OWN_ACTION = /^(?:\.\/?|<owner>\/<repo>)(\/?[a-z-]*?)\/?(?:@v\d+)?$/;

/** The action.yml of this repository's action that `uses` names, or undefined for another action. */
export function ownActionFile(uses: string | undefined): string | undefined {
  const match = uses === undefined ? null : OWN_ACTION.exec(uses);
  if (!match) return undefined;
  return join(match[1]!.replace(/^\//, ''), 'action.yml');
}

interface ActionFile {
  runs: { main: string };
  inputs?: Record<string, { default?: unknown }>;
}

/** Fills `${{ expression }}` with what `resolveExpression` says; throws on one it does not know. */
export function fillExpressions(text: string, resolveExpression: (expression: string) => string | undefined): string {
  return String(text).replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    const value = resolveExpression(expression);
    if (value === undefined) throw new Error(`the workflow emulator does not know \${{ ${expression} }}`);
    return value;
  });
}

/**
 * The inputs the runner hands an action: its action.yml defaults, then the step's `with:`, each
 * filled. Returns the bundle to run too.
 */
export function actionInputs(step: WorkflowStep, fill: (value: string) => string): { bundle: string; inputs: Record<string, string> } {
  const file = ownActionFile(step.uses);
  if (!file) throw new Error(`${step.uses} is not one of this repository's actions`);
  const action = parse(readFileSync(file, 'utf8')) as ActionFile;
  const defaults = Object.entries(action.inputs ?? {}).filter(([, input]) => input.default !== undefined).map(([name, input]) => [name, String(input.default)]);
  const inputs = Object.fromEntries([...defaults, ...Object.entries(step.with ?? {}).map(([name, value]) => [name, String(value)])].map(([name, value]) => [name!, fill(value!)]));
  return { bundle: resolve(dirname(file), action.runs.main), inputs };
}

export interface StepRun {
  step: WorkflowStep;
  /** Why the step did not run (another action, a step the test machine has done already, an `if:`). */
  skipped?: string;
  code: number | null;
  outputs: Record<string, string>;
  log: string;
  action?: ActionRun;
}

export interface JobContext {
  /** The runner's variables: GITHUB_EVENT_NAME, GITHUB_SHA, GITHUB_REF, GITHUB_REPOSITORY… */
  env: Record<string, string>;
  /** Values of secrets.*, vars.* and any other expression the workflow uses beyond steps.* and env.*. */
  known: Record<string, string>;
  /** Steps this machine has done already, by their `uses:` prefix or `run:` text (checkout, setup-node, npm ci). */
  prepared?: (step: WorkflowStep) => string | undefined;
  /** Replaces the job's own `env:` values, e.g. a free port for one the workflow fixes. */
  jobEnv?: Record<string, string>;
  /** What this machine changes in an action's inputs, as filled, before it runs: the platform emulator's URL for the real API's, say. */
  inputs?: (step: WorkflowStep, inputs: Record<string, string>) => Record<string, string>;
}

/** The runner's `github.*` context, from its variables. */
function githubContext(env: Record<string, string>): Record<string, string> {
  return {
    'github.event_name': env.GITHUB_EVENT_NAME ?? '',
    'github.sha': env.GITHUB_SHA ?? '',
    'github.ref': env.GITHUB_REF ?? '',
    'github.ref_name': env.GITHUB_REF_NAME ?? '',
    'github.repository': env.GITHUB_REPOSITORY ?? ''
  };
}

/** A term of a condition: a status function, or one comparison. */
type ConditionTerm = { status: 'success' | 'failure' | 'always' } | { left: string; operator: '==' | '!='; right: string };

/** A single-quoted literal (`''` is a quote inside it), or an expression that resolveExpression knows. */
const OPERAND = String.raw`'(?:[^']|'')*'|[\w.-]+`;
const COMPARISON = new RegExp(`^(${OPERAND})\\s*(==|!=)\\s*(${OPERAND})$`);

/**
 * Parses a step's `if:` as the runner reads the part of GitHub's expression language this emulator
 * knows: `success()`, `failure()`, `always()`, and comparisons of step outputs, env, github.* and
 * literals with `==` and `!=`, joined by `&&`. Anything else (`||`, `!`, parentheses, functions) is
 * refused, naming the condition, rather than read wrongly.
 */
export function parseCondition(condition: string): ConditionTerm[] {
  const text = condition.replace(/^\$\{\{\s*|\s*\}\}$/g, '').trim();
  const refuse = () => new Error(`the workflow emulator does not know if: ${condition} (it knows success(), failure(), always(), and ==, != joined by &&)`);
  // && inside a quoted literal is text, not an operator: split where an even number of quotes follows.
  const terms = text.split(/&&(?=(?:[^']*'[^']*')*[^']*$)/).map((term) => term.trim());
  return terms.map((term): ConditionTerm => {
    const status = /^(success|failure|always)\(\)$/.exec(term);
    if (status) return { status: status[1] as 'success' | 'failure' | 'always' };
    const comparison = COMPARISON.exec(term);
    if (!comparison) throw refuse();
    return { left: comparison[1]!, operator: comparison[2] as '==' | '!=', right: comparison[3]! };
  });
}

/**
 * Whether a step with this `if:` runs, after an earlier step failed or not. As on GitHub, a
 * condition without a status function means `success() && …`, and strings compare ignoring case
 * (https://docs.github.com/en/actions/reference/workflows-and-actions/expressions, "Operators":
 * "GitHub ignores case when comparing strings"; a condition with no status function does not run
 * after a failure: https://github.com/github/docs/pull/18270). A missing step output reads as ''.
 */
export function conditionHolds(condition: string | undefined, failed: boolean, resolveExpression: (expression: string) => string | undefined): boolean {
  if (condition === undefined) return !failed;
  const terms = parseCondition(condition);
  const value = (operand: string): string => {
    if (operand.startsWith("'")) return operand.slice(1, -1).replace(/''/g, "'");
    const known = resolveExpression(operand);
    if (known === undefined) throw new Error(`the workflow emulator does not know \${{ ${operand} }} in if: ${condition}`);
    return known;
  };
  const statuses = terms.flatMap((term) => ('status' in term ? [term.status] : []));
  const status = statuses.length === 0 ? !failed : statuses.every((name) => (name === 'always' ? true : name === 'failure' ? failed : !failed));
  return (
    status &&
    terms.every((term) => {
      if ('status' in term) return true;
      const equal = value(term.left).toLowerCase() === value(term.right).toLowerCase();
      return term.operator === '==' ? equal : !equal;
    })
  );
}

/**
 * Runs a job's steps in order; a failed step skips the rest unless they say `if: failure()` or
 * `always()`, and a step whose `if:` compares earlier steps' outputs runs only when it holds, as the
 * runner does. Background processes a `run:` step leaves are ended afterwards.
 */
export async function runJob(job: WorkflowJob, context: JobContext): Promise<StepRun[]> {
  const workspace = mkdtempSync(join(tmpdir(), 'workflow-job-'));
  // One RUNNER_TEMP for the whole job, as on the runner: "The path to a temporary directory on the
  // runner. This directory is emptied at the beginning and end of each job"
  // (https://docs.github.com/en/actions/reference/variables-reference, RUNNER_TEMP; the sentence as
  // quoted at https://docs.rs/github-actions/latest/github_actions/constant.RUNNER_TEMP.html). A file
  // one step leaves there is there for the next, `run:` step or action alike; the folder goes with the job.
  const runnerTemp = mkdtempSync(join(tmpdir(), 'workflow-temp-'));
  const runs: StepRun[] = [];
  const groups: number[] = [];
  const jobEnv = Object.fromEntries(Object.entries(job.env ?? {}).map(([name, value]) => [name, String(value)]));
  Object.assign(jobEnv, context.jobEnv);
  const byId: Record<string, Record<string, string>> = {};
  const github = githubContext(context.env);
  // The `runner.*` context this emulator knows.
  const runner: Record<string, string> = { 'runner.temp': runnerTemp };
  const resolveExpression = (expression: string): string | undefined => {
    const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
    if (output) return byId[output[1]!]?.[output[2]!] ?? '';
    const env = /^env\.(\w+)$/.exec(expression);
    if (env) return jobEnv[env[1]!];
    return context.known[expression] ?? github[expression] ?? runner[expression];
  };
  const fill = (value: string) => fillExpressions(value, resolveExpression);
  try {
    let failed = false;
    for (const step of job.steps) {
      const condition = step.if === undefined ? undefined : String(step.if).replace(/^\$\{\{\s*|\s*\}\}$/g, '').trim();
      const runs_ = conditionHolds(condition, failed, resolveExpression);
      const prepared = context.prepared?.(step);
      if (!runs_ || prepared || (step.uses && !ownActionFile(step.uses))) {
        runs.push({ step, skipped: !runs_ ? `if: ${condition ?? 'success()'}` : (prepared ?? `${step.uses} is not this repository's`), code: null, outputs: {}, log: '' });
        continue;
      }
      const stepEnv = { ...jobEnv, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, fill(String(value))])) };
      let run: StepRun;
      if (step.uses) {
        const { bundle, inputs } = actionInputs(step, fill);
        const action = await runAction(bundle, context.inputs ? context.inputs(step, inputs) : inputs, { ...context.env, ...stepEnv, GITHUB_WORKSPACE: workspace, RUNNER_TEMP: runnerTemp });
        run = { step, code: action.code, outputs: action.outputs, log: action.log, action };
      } else {
        run = await runShell(fill(step.run ?? ''), { ...context.env, ...stepEnv, GITHUB_WORKSPACE: workspace, RUNNER_TEMP: runnerTemp }, groups);
        run.step = step;
      }
      runs.push(run);
      if (step.id) byId[step.id] = run.outputs;
      if (run.code !== 0) failed = true;
    }
    return runs;
  } finally {
    for (const group of groups) {
      try {
        process.kill(-group, 'SIGTERM');
      } catch {
        // The group has ended already.
      }
    }
    rmSync(workspace, { recursive: true, force: true });
    rmSync(runnerTemp, { recursive: true, force: true });
  }
}

/**
 * A `run:` step: bash -e, in its own process group so that what it leaves running can be ended. `env`
 * holds the job's RUNNER_TEMP; GITHUB_OUTPUT is the step's own file.
 */
async function runShell(script: string, env: Record<string, string>, groups: number[]): Promise<StepRun> {
  const dir = mkdtempSync(join(tmpdir(), 'workflow-step-'));
  const outputFile = join(dir, 'output');
  writeFileSync(outputFile, '');
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...env, GITHUB_OUTPUT: outputFile },
    // The repository's root, as actions/checkout leaves it.
    cwd: process.cwd(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  });
  groups.push(child.pid!);
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  // 'exit', not 'close': a background process keeps the pipes open after the script ends. What the
  // script wrote before it ended may still be in the pipes at 'exit': read them to their end, or, where
  // a background process holds them open, for a moment.
  const ended = (stream: NodeJS.ReadableStream) => new Promise<void>((done) => stream.once('end', done));
  const drained = Promise.all([ended(child.stdout), ended(child.stderr)]);
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([drained, new Promise<void>((done) => (grace = setTimeout(done, 250)))]);
  clearTimeout(grace);
  const outputs = Object.fromEntries(
    readFileSync(outputFile, 'utf8')
      .split('\n')
      .filter((line) => /^[\w-]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
  );
  rmSync(dir, { recursive: true, force: true });
  return { step: {}, code, outputs, log };
}

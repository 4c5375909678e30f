// `npm run try -- --values <your values file or chart folder>`: the README's three workflows (push,
// nightly, hosted), as written, against your own values file, on this machine. It starts the platform
// and GitHub emulators on free loopback ports, loads your file (or folder) into an emulated
// configuration repository, runs each workflow's steps through the built dist/ as the runner does,
// and writes what the reviewer and the maintainer would see: the job summary and the pull request
// body, as Markdown and as HTML rendered the way GitHub renders them. Nothing leaves this machine.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fakeSha } from '../emulator/deployments.ts';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_SITE_CHANGES, type SiteChanges } from '../emulator/living-site.ts';
import { DEFAULT_API_KEY, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import type { ApiShape } from '../emulator/platform-state.ts';
import { DEFAULT_LINK_TTL_SECONDS } from '../emulator/platform-state.ts';
import { type ActionRun, runAction } from '../emulator/runner.ts';
import { type StaticFileServer, startStaticFileServer } from '../emulator/static-files.ts';
import { type WorkflowStep, actionInputs, fillExpressions, ownActionFile, workflowInMarkdown } from '../emulator/workflow.ts';
import { TEST_POLL_MS_VARIABLE } from '../src/action/constants.ts';
import { formatDuration } from '../src/action/format.ts';
import { InputError, parseDuration } from '../src/action/inputs.ts';
import { regionOf } from '../src/publish/body.ts';
import { EXPIRING_LABEL, firstLineOf } from '../src/publish/production-guard.ts';
import { redactLink } from '../src/values/link.ts';
import { allBlockPaths, blockPaths, patchValuesFile, readSetting } from '../src/values/values-file.ts';
import { githubPage } from './github-markdown.ts';
import { unifiedDiff } from './line-diff.ts';

/** The README's workflows, by the name `--workflow` takes, in the order a team's week runs them. */
export const WORKFLOWS = {
  push: { title: 'Publish docs', folder: '1-push', what: 'a push to the docs branch' },
  nightly: { title: 'Renew docs link', folder: '2-nightly', what: 'the nightly schedule' },
  hosted: { title: 'Docs bundle, hosted in our bucket', folder: '3-hosted', what: 'a push to the docs branch, the bundle hosted in your bucket' }
} as const;
export type WorkflowName = keyof typeof WORKFLOWS;
const WORKFLOW_NAMES = Object.keys(WORKFLOWS) as WorkflowName[];

/** The README's workflows name this path: a single file given goes there (.json or .yml kept). */
const README_CONFIG_PATH = 'deploy/values.yaml';
const CONFIG_REPOSITORY = 'acme/deploy';
const DOCS_REPOSITORY = 'acme/docs';
const DOCS_BRANCH = 'docs';
const TOKEN = 'ghs_emulator_token';
/** What the workflows' `${{ … }}` read besides earlier steps' outputs. */
const KNOWN: Record<string, string> = {
  'secrets.DOCS_ADMIN_KEY': DEFAULT_API_KEY,
  'vars.DOCS_PROJECT_ID': 'proj_docs',
  'secrets.DEPLOY_REPO_TOKEN': TOKEN,
  'github.token': TOKEN
};
/**
 * The emulator's exports take seconds, not minutes: poll them on a short beat. Your workflows keep
 * the constant 10 s beat, which would only make this wait. The publish actions take it from a
 * variable for emulated runs only (TEST_POLL_MS_VARIABLE, which the runner emulator passes on); an
 * action that declares the two inputs (agent-job/) takes them.
 */
const TRY_POLLS = { 'min-poll-interval': '100ms', 'max-poll-interval': '500ms' };
process.env[TEST_POLL_MS_VARIABLE] ??= '100,500';
/** An emulated export: a moment queued, two seconds of rendering; a deployment takes a second. */
const TRY_TIMES: EmulatedTimes = { queuedMs: 300, runMs: 2000, deployMs: 1000 };
/** A chart folder is loaded whole, but not a whole disk: these many files and bytes at most. */
const MAX_FOLDER_FILES = 2000;
const MAX_FOLDER_BYTES = 20 * 1024 * 1024;
const DAY_SECONDS = 86_400;
/** `--production-left expired`: production's link ran out this long ago. */
const EXPIRED_AGO_SECONDS = 3600;

export interface TryOptions {
  /** A values file, or a folder loaded as the whole configuration repository. */
  values: string;
  /** Where the values file sits in the repository; the README's deploy/values.yaml for a file. */
  configPath?: string;
  /** config-key for every run; found in the file when it keeps one block elsewhere. */
  configKey?: string;
  workflows?: WorkflowName[];
  linkTtlSeconds?: number;
  /** Pages of production's site. */
  pages?: number;
  /** What each export changes from the one before. */
  changes?: SiteChanges;
  /**
   * How long production's link has left (negative: it expired that long ago); null: production serves
   * no link. The link lives as long as the platform's links do (linkTtlSeconds), so a short time left
   * is a link in its last days, as the guard sees it.
   */
  productionLeftSeconds?: number | null;
  /**
   * The base requires an approving review, and nothing may bypass it: the nightly's renewal cannot
   * merge itself, so it waits with the guard's first line and label, as on a protected branch.
   */
  requireReview?: boolean;
  /** The folder the pages are written to. */
  out?: string;
  /** Which static export API the platform speaks: today's (default), its next one, or both. */
  apiShape?: ApiShape;
  /** The page whose workflows run (README.md). */
  readme?: string;
  /** Where progress goes, a line at a time. */
  print?: (line: string) => void;
  /** How long the emulated exports and deployments take (a test shortens them). */
  times?: EmulatedTimes;
}

export interface EmulatedTimes {
  queuedMs: number;
  runMs: number;
  deployMs: number;
}

export interface StepResult {
  step: WorkflowStep;
  /** Why the step was not run here. */
  skipped?: string;
  run?: ActionRun;
}

export interface WorkflowResult {
  name: WorkflowName;
  steps: StepResult[];
  /** A step of this repository's action failed. */
  failed: boolean;
  summaryMarkdown: string;
  summaryHtml: string;
  pullRequest?: {
    number: number;
    title: string;
    body: string;
    html: string;
    url: string;
    labels: string[];
    /** The guard's first line, while production's link runs out and waits on this pull request. */
    firstLine?: string;
    proposedFile?: string;
    /** The file's diff, base to branch, as GitHub's "Files changed" shows it (the name it was written under). */
    diffFile?: string;
  };
  /** The folder this workflow's files went to. */
  folder: string;
}

export interface TryResult {
  configPath: string;
  configKey: string;
  workflows: WorkflowResult[];
  /** From the start until the first pull request was there to read. */
  msToPullRequest?: number;
  ms: number;
}

class TryError extends Error {}

/** Runs the README's workflows against the user's values; writes and prints what they show. */
export async function tryChart(options: TryOptions): Promise<TryResult> {
  const started = Date.now();
  const print = options.print ?? console.log;
  const out = resolve(options.out ?? 'try-output');
  const readme = readFileSync(options.readme ?? 'README.md', 'utf8');
  const chart = loadChart(options.values, options.configPath);
  const configKey = options.configKey ?? foundConfigKey(chart.configPath, chart.files[chart.configPath]!);
  refuseMissingBlock(chart, configKey, options.configKey !== undefined);
  const changes = options.changes ?? DEFAULT_SITE_CHANGES;
  const linkTtlSeconds = options.linkTtlSeconds ?? DEFAULT_LINK_TTL_SECONDS;
  const productionLeft = options.productionLeftSeconds === undefined ? 5 * DAY_SECONDS : options.productionLeftSeconds;
  for (const name of WORKFLOW_NAMES) rmSync(join(out, WORKFLOWS[name].folder), { recursive: true, force: true });

  const { queuedMs, runMs, deployMs } = options.times ?? TRY_TIMES;
  // Production's link is signed in the past (seedProduction), so that its time left is what the guard reads.
  const clock = { pastMs: 0 };
  const platform = await startPlatformEmulator({
    profile: { queuedMs, runMs, pageCount: options.pages ?? 120, changes },
    clock: () => Date.now() - clock.pastMs,
    linkTtlSeconds,
    deployments: { branch: DOCS_BRANCH, deployMs },
    apiShape: options.apiShape
  });
  const github = await startGitHubEmulator();
  const bucket = await startStaticFileServer();
  try {
    const production = seedProduction(platform, clock, chart, configKey, productionLeft);
    github.createRepo(CONFIG_REPOSITORY, chart.files);
    // createRepo's default branch is main, the base the README's workflows propose into.
    if (options.requireReview) github.protectBranch(CONFIG_REPOSITORY, 'main', { requiredApprovingReviews: 1 });
    print(
      `Emulated configuration repository ${CONFIG_REPOSITORY} holds ${describeChart(chart)}; config-path: ${chart.configPath}` +
        (configKey === 'staticExport' ? '' : `, config-key: ${configKey}`) +
        `.\n${production}\nLinks live ${formatDuration(linkTtlSeconds * 1000)}; each export adds ${changes.added} pages, removes ${changes.removed} and edits ${changes.edited}.\n`
    );
    const workflows: WorkflowResult[] = [];
    let msToPullRequest: number | undefined;
    for (const name of options.workflows ?? WORKFLOW_NAMES) {
      const result = await runWorkflow(name, { readme, chart, configKey, platform, github, bucket, out });
      workflows.push(result);
      if (result.pullRequest && msToPullRequest === undefined) msToPullRequest = Date.now() - started;
      printWorkflow(result, print);
    }
    const ms = Date.now() - started;
    const first = msToPullRequest === undefined ? '' : ` (the first pull request after ${(msToPullRequest / 1000).toFixed(1)} s)`;
    print(`Done in ${(ms / 1000).toFixed(1)} s${first}. Open the .html files in a browser to see them as GitHub shows them: ${shownPath(out)}/`);
    return { configPath: chart.configPath, configKey, workflows, msToPullRequest, ms };
  } finally {
    await Promise.all([platform.close(), github.close(), bucket.close()]);
  }
}

interface Chart {
  files: Record<string, string>;
  configPath: string;
  /** The folder given, when a folder was. */
  folder?: string;
}

/** The files of the emulated configuration repository, and where its values file is. */
function loadChart(values: string, configPath: string | undefined): Chart {
  if (!existsSync(values)) throw new TryError(`--values ${values}: no such file or folder. Give your chart's values file (values.yaml) or its folder.`);
  if (!statSync(values).isDirectory()) {
    const ext = extname(values).toLowerCase();
    const path = configPath ?? (ext === '.json' || ext === '.yml' ? `deploy/values${ext}` : README_CONFIG_PATH);
    return { files: { [path]: readFileSync(values, 'utf8') }, configPath: path };
  }
  const files = readFolder(values);
  if (configPath !== undefined) {
    if (files[configPath] === undefined) throw new TryError(`--config-path ${configPath}: ${values} has no such file. Give the values file's path inside the folder.`);
    return { files, configPath, folder: values };
  }
  const candidates = Object.keys(files).filter((path) => /^values\.(ya?ml|json)$/.test(basename(path)));
  const top = candidates.filter((path) => !path.includes('/'));
  const found = top.length === 1 ? top : candidates;
  if (found.length !== 1) {
    const which = found.length === 0 ? 'holds no values.yaml, values.yml or values.json' : `holds several values files (${found.slice(0, 5).join(', ')}${found.length > 5 ? ', …' : ''})`;
    throw new TryError(`--values ${values} ${which}: name the one your workflow edits with --config-path <path inside the folder>.`);
  }
  return { files, configPath: found[0]!, folder: values };
}

function readFolder(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  let bytes = 0;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // A clone's .git and installed packages are no part of a chart.
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      if (!entry.isFile()) continue;
      const content = readFileSync(path);
      // GitHub's contents hold text here; a binary file (an icon, a packaged chart) stays out.
      if (content.includes(0)) continue;
      bytes += content.length;
      if (Object.keys(files).length >= MAX_FOLDER_FILES || bytes > MAX_FOLDER_BYTES) {
        throw new TryError(`--values ${folder} holds more than ${MAX_FOLDER_FILES} files or ${MAX_FOLDER_BYTES / 1024 / 1024} MB: give the chart's own folder, or its values file.`);
      }
      files[relative(folder, path).split('\\').join('/')] = content.toString('utf8');
    }
  };
  walk(folder);
  return files;
}

function describeChart(chart: Chart): string {
  return chart.folder === undefined ? `your file` : `the ${Object.keys(chart.files).length} files of ${chart.folder}`;
}

/**
 * A key that names no block of the file, while the file keeps its settings elsewhere: every run would
 * add a block the chart never reads, and the file's own link (a real host) would stay in place. Refused
 * here, before anything runs, naming where the file keeps them. A file with no settings at all is a
 * first run, and gets the block where the key says.
 */
function refuseMissingBlock(chart: Chart, configKey: string, given: boolean): void {
  const path = chart.configPath;
  const text = chart.files[path]!;
  let blocks: string[];
  try {
    blocks = allBlockPaths(path, text);
  } catch {
    return; // the runs say why the action cannot read it
  }
  if (blocks.includes(configKey)) return;
  const name = configKey.split('.').at(-1)!.toLowerCase();
  // A block that holds a bundleUrl counts too (read only when the file names one: each read parses the file).
  const holdsLink = (block: string) => text.includes('bundleUrl') && readSetting(path, text, block, 'bundleUrl') !== undefined;
  const kept = blocks.filter((block) => [name, 'staticexport'].includes(block.split('.').at(-1)!.toLowerCase()) || holdsLink(block));
  if (kept.length === 0) return;
  const flag = given ? `--config-key ${configKey}` : `The default config-key, ${configKey},`;
  const fix = kept.length === 1 ? `Give --config-key ${kept[0]}` : `Give --config-key with the one your chart reads`;
  throw new TryError(
    `${flag} names no block in ${path}: it keeps its static export settings at ${kept.map((block) => `"${block}"`).join(', ')}. ${fix}. Nothing was run.`
  );
}

/** Where the file keeps its block: staticExport, or the one block of that name it has elsewhere (an umbrella chart's). */
function foundConfigKey(configPath: string, text: string): string {
  try {
    const paths = blockPaths(configPath, text, 'staticExport');
    return paths.length === 1 ? paths[0]! : 'staticExport';
  } catch {
    // A file the action cannot read: the runs will say why, in the action's own words.
    return 'staticExport';
  }
}

/**
 * Production as the runs meet it: the link in the file replaced, in the emulated repository only, by
 * a link to an export on the platform emulator with the time left asked for (a link to a real host
 * is never fetched). Returns the line that says so.
 */
function seedProduction(platform: PlatformEmulator, clock: { pastMs: number }, chart: Chart, configKey: string, leftSeconds: number | null): string {
  const path = chart.configPath;
  const text = chart.files[path]!;
  let link: unknown;
  try {
    link = readSetting(path, text, configKey, 'bundleUrl');
  } catch {
    return 'The action cannot read your file as it is: the runs show what it says about it.';
  }
  if (typeof link !== 'string' || link === '') return `Your file holds no link at ${configKey}.bundleUrl yet: production serves none, and the first run proposes one.`;
  if (leftSeconds === null) {
    chart.files[path] = patchValuesFile(path, text, configKey, { bundleUrl: '', enable: false }).text;
    return `Production serves no link (--production-left none): ${configKey}.bundleUrl is emptied in the emulated repository.`;
  }
  // A link as the platform makes them, signed as long ago as leaves it the time asked for.
  const ttl = platform.linkTtlSeconds;
  platform.linkTtlSeconds = Math.max(ttl, leftSeconds);
  clock.pastMs = (platform.linkTtlSeconds - leftSeconds) * 1000;
  let bundleUrl: string;
  try {
    bundleUrl = platform.linkFor(platform.seedExportJob({ domain: 'docs.example.com' }));
  } finally {
    clock.pastMs = 0;
    platform.linkTtlSeconds = ttl;
  }
  chart.files[path] = patchValuesFile(path, text, configKey, { bundleUrl, enable: false }).text;
  const lifetime = formatDuration(Math.max(ttl, leftSeconds) * 1000);
  const left = leftSeconds > 0 ? `expires in ${formatDuration(leftSeconds * 1000)}` : `expired ${formatDuration(-leftSeconds * 1000)} ago`;
  return `Production's link (${redactLink(link)}) is played, in the emulated repository, by an emulated export's ${lifetime} link that ${left} (--production-left).`;
}

interface Emulators {
  readme: string;
  chart: Chart;
  configKey: string;
  platform: PlatformEmulator;
  github: GitHubEmulator;
  bucket: StaticFileServer;
  out: string;
}

/** One README workflow, as the runner would run it on its event, then its pages written. */
async function runWorkflow(name: WorkflowName, emulators: Emulators): Promise<WorkflowResult> {
  const { readme, chart, configKey, platform, github, out } = emulators;
  const workflow = workflowInMarkdown(readme, WORKFLOWS[name].title);
  const onPush = workflow.events.includes('push');
  const runnerEnv: Record<string, string> = { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: CONFIG_REPOSITORY, GITHUB_EVENT_NAME: workflow.events[0] ?? 'workflow_dispatch' };
  if (onPush) {
    // A push to the docs branch: the platform's GitHub app deploys it, and the workflow starts.
    const sha = fakeSha(`${name} ${Date.now()}`);
    platform.deployments.push(DOCS_BRANCH, sha, 'Document the new CLI flags');
    Object.assign(runnerEnv, { GITHUB_EVENT_NAME: 'push', GITHUB_SHA: sha, GITHUB_REF: `refs/heads/${DOCS_BRANCH}` });
  }
  // A workflow that names config-repository runs in the docs repository; the others in the configuration one.
  const steps: StepResult[] = [];
  let failed = false;
  for (const job of Object.values(workflow.jobs)) {
    const workspace = mkdtempSync(join(tmpdir(), 'try-workspace-'));
    const outputs: Record<string, Record<string, string>> = {};
    try {
      for (const step of job.steps) {
        if (failed) {
          steps.push({ step, skipped: 'an earlier step failed' });
          continue;
        }
        if (!ownActionFile(step.uses)) {
          steps.push({ step, skipped: step.uses ? `${step.uses} is another action: not run here` : shellStepSkipped(step) });
          continue;
        }
        const fill = (value: string) =>
          fillExpressions(value, (expression) => {
            const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
            return output ? (outputs[output[1]!]?.[output[2]!] ?? '') : KNOWN[expression];
          });
        const { bundle, inputs } = actionInputs(step, fill);
        const env = { ...runnerEnv, GITHUB_WORKSPACE: workspace, ...(inputs['config-repository'] ? { GITHUB_REPOSITORY: DOCS_REPOSITORY } : {}) };
        const run = await runAction(bundle, emulated(step, inputs, emulators), env);
        steps.push({ step, run });
        if (step.id) outputs[step.id] = run.outputs;
        if (run.code !== 0) failed = true;
      }
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }
  return writePages(name, steps, failed, { chart, configKey, github, out });

  /** The step's inputs, pointed at the emulators: the rest stays as the workflow wrote it. */
  function emulated(step: WorkflowStep, inputs: Record<string, string>, { bucket: files }: Emulators): Record<string, string> {
    // The short beat replaces action.yml's defaults, not what the workflow itself sets, in an action that declares the inputs.
    const beat = Object.fromEntries(Object.entries(TRY_POLLS).filter(([name]) => inputs[name] !== undefined && step.with?.[name] === undefined));
    const changed: Record<string, string> = { ...inputs, ...beat, 'api-url': platform.url };
    if (changed['config-path'] !== undefined) {
      changed['config-path'] = chart.configPath;
      // The step's own config-key stands; action.yml's default (which actionInputs fills in) gives way to the one found or given.
      if (step.with?.['config-key'] === undefined) changed['config-key'] = configKey;
    }
    const template = inputs['bundle-url-template'];
    if (template) {
      // Your bucket is a static file server here; the kept archive goes where your upload step puts it.
      changed['bundle-url-template'] = template.replace(/^https?:\/\/[^/]+/, files.url);
      const archive = inputs['archive-path'];
      const jobId = inputs['job-id'];
      if (archive && jobId && existsSync(archive)) files.files.set(new URL(changed['bundle-url-template'].replace('<job-id>', jobId)).pathname, readFileSync(archive));
    }
    return changed;
  }
}

/** Writes the workflow's job summary and pull request body, as Markdown and as GitHub shows them. */
function writePages(name: WorkflowName, steps: StepResult[], failed: boolean, context: { chart: Chart; configKey: string; github: GitHubEmulator; out: string }): WorkflowResult {
  const { chart, github, out } = context;
  const folder = join(out, WORKFLOWS[name].folder);
  mkdirSync(folder, { recursive: true });
  const runs = steps.flatMap((step) => (step.run ? [step.run] : []));
  // The job's summary page shows each step's summary, one after the other.
  const summaryMarkdown = runs.map((run) => run.summary).join('\n');
  const summaryHtml = githubPage(`${WORKFLOWS[name].title}: job summary`, summaryMarkdown, { breaks: false });
  writeFileSync(join(folder, 'summary.md'), summaryMarkdown);
  writeFileSync(join(folder, 'summary.html'), summaryHtml);
  writeFileSync(join(folder, 'log.txt'), runs.map((run) => run.log).join('\n'));
  const last = [...runs].reverse().find((run) => run.outputs['pull-request-number'])?.outputs;
  const pull = github.pulls(CONFIG_REPOSITORY).find((candidate) => candidate.number === Number(last?.['pull-request-number']));
  let pullRequest: WorkflowResult['pullRequest'];
  if (pull) {
    const html = githubPage(`#${pull.number} ${pull.title}`, `# ${pull.title}\n\n${pull.body}`, { breaks: true });
    writeFileSync(join(folder, 'pull-request.md'), pull.body);
    writeFileSync(join(folder, 'pull-request.html'), html);
    const proposed = github.fileAt(CONFIG_REPOSITORY, pull.head, chart.configPath);
    const proposedFile = proposed === undefined ? undefined : basename(chart.configPath);
    let diffFile: string | undefined;
    if (proposedFile) {
      writeFileSync(join(folder, proposedFile), proposed!);
      // Against the emulated base, whose link is the one the pull request's "before" shows.
      const base = github.fileAt(CONFIG_REPOSITORY, pull.base, chart.configPath) ?? '';
      diffFile = `${proposedFile}.diff`;
      writeFileSync(join(folder, diffFile), unifiedDiff(chart.configPath, base, proposed!));
    }
    const firstLine = firstLineOf(regionOf(pull.body));
    pullRequest = { number: pull.number, title: pull.title, body: pull.body, html, url: last?.['pull-request-url'] ?? '', labels: [...pull.labels], firstLine, proposedFile, diffFile };
  }
  return { name, steps, failed, summaryMarkdown, summaryHtml, pullRequest, folder };
}

function printWorkflow(result: WorkflowResult, print: (line: string) => void): void {
  const { title, what } = WORKFLOWS[result.name];
  print(`${result.failed ? '✗' : '✓'} ${title} (${what})`);
  for (const { step, skipped, run } of result.steps) {
    const label = step.name ?? step.uses ?? 'run';
    if (skipped) {
      print(`  - ${label}: skipped, ${skipped}`);
      continue;
    }
    print(`  - ${label}: exit code ${run!.code} after ${(run!.ms / 1000).toFixed(1)} s`);
    for (const line of run!.log.split('\n').filter((line) => /^::(error|warning)/.test(line))) print(`      ${line.replace(/^::(\w+)[^:]*::/, '$1: ')}`);
    // The network guard ends a step that reaches past loopback, and says where in its own line.
    for (const line of run!.log.split('\n').filter((line) => line.startsWith('Network guard:'))) print(`      ${line}`);
    for (const [output, value] of Object.entries(run!.outputs)) print(`      ${output} = ${output === 'bundle-url' ? redactLink(value) : value}`);
  }
  const pull = result.pullRequest;
  if (pull) {
    print(`  Pull request #${pull.number}: ${pull.title}`);
    if (pull.labels.length > 0) print(`    labels: ${pull.labels.join(', ')}${pull.labels.includes(EXPIRING_LABEL) ? ' (production waits on this pull request: its link runs out)' : ''}`);
    // As a reviewer reads it on GitHub: the bold marks rendered away.
    if (pull.firstLine) print(`    first line: ${pull.firstLine.replace(/\*\*/g, '')}`);
  }
  const shown = shownPath(result.folder);
  const files = [
    'summary.md',
    'summary.html',
    ...(pull ? ['pull-request.md', 'pull-request.html'] : []),
    ...(pull?.proposedFile ? [`${pull.proposedFile} (as the pull request proposes it)`] : []),
    ...(pull?.diffFile ? [`${pull.diffFile} (its diff, as the pull request shows it)`] : []),
    'log.txt'
  ];
  print(`  Wrote ${shown}/: ${files.join(', ')}\n`);
}

/** A path as the user can type it: relative to where they are, or absolute when it is elsewhere. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown === '' ? '.' : shown.startsWith('..') ? path : shown;
}

const USAGE = `Usage: npm run try -- --values <values file or chart folder> [options]

Runs the README's three workflows (push, nightly, hosted), as written, against your values file on
emulators of the platform and GitHub, and writes each job summary and the pull request body as
Markdown and as HTML the way GitHub shows them, with the file as the pull request proposes it and its
diff. Nothing leaves this machine.

  --values PATH            your values.yaml (or .json), or a folder loaded as the whole repository
  --config-path PATH       where the file sits in the repository (default: the README's ${README_CONFIG_PATH},
                           or the folder's values file)
  --config-key KEY         where the static export block lives (default: staticExport, or the one
                           block of that name your file keeps, such as mintlify.staticExport);
                           a key that names no block, in a file that keeps its settings elsewhere,
                           is refused before anything runs
  --workflow NAME          push, nightly or hosted; repeat to run several (default: all three, in order)
  --link-ttl DURATION      how long the platform's links live (default 7d)
  --production-left DURATION|expired|none
                           how long production's link has left, of a link as long as --link-ttl
                           (default 5d). The guard speaks in a link's last two days, never in its
                           first half: with 36h the push run warns that no renewal is open yet, and
                           the nightly opens production's renewal on a branch of its own and merges
                           it (auto-merge: renewals). expired: it ran out an hour ago; none: no link yet
  --require-review         the base requires an approving review that nothing bypasses: the nightly's
                           renewal cannot merge itself, fails the scheduled run, and waits with the
                           guard's first line and the ${EXPIRING_LABEL} label
  --pages N                pages of the docs site (default 120)
  --pages-added N, --pages-removed N, --pages-edited N
                           what each export changes from the one before (default 2, 2 and 3)
  --api-shape today|next|both
                           which static export API the platform speaks: today's (default), its next
                           one (project-scoped routes, export.zip), or both, as on the day it moves
  --out FOLDER             where the pages are written (default try-output)`;

/** The options the command line gives; throws TryError on a bad flag. */
export function parseTryArgs(args: string[]): TryOptions & { help: boolean } {
  const { values } = parseArgs({
    args,
    options: {
      help: { type: 'boolean', short: 'h' },
      values: { type: 'string' },
      'config-path': { type: 'string' },
      'config-key': { type: 'string' },
      workflow: { type: 'string', multiple: true },
      'link-ttl': { type: 'string' },
      'production-left': { type: 'string' },
      'require-review': { type: 'boolean' },
      pages: { type: 'string' },
      'pages-added': { type: 'string' },
      'pages-removed': { type: 'string' },
      'pages-edited': { type: 'string' },
      out: { type: 'string' },
      'api-shape': { type: 'string' }
    },
    strict: true
  });
  if (values.help) return { help: true, values: '' };
  if (!values.values) throw new TryError('--values is missing: give your chart\'s values file (values.yaml) or its folder.');
  const workflows = values.workflow?.map((name) => {
    if (!WORKFLOW_NAMES.includes(name as WorkflowName)) throw new TryError(`--workflow ${name}: expected ${WORKFLOW_NAMES.join(', ')}.`);
    return name as WorkflowName;
  });
  const left = values['production-left'];
  return {
    help: false,
    values: values.values,
    configPath: values['config-path'],
    configKey: values['config-key'],
    workflows,
    linkTtlSeconds: seconds('--link-ttl', values['link-ttl']),
    productionLeftSeconds: productionLeft(left),
    requireReview: values['require-review'] === true,
    pages: count('--pages', values.pages, 1),
    changes: {
      added: count('--pages-added', values['pages-added']) ?? DEFAULT_SITE_CHANGES.added,
      removed: count('--pages-removed', values['pages-removed']) ?? DEFAULT_SITE_CHANGES.removed,
      edited: count('--pages-edited', values['pages-edited']) ?? DEFAULT_SITE_CHANGES.edited
    },
    out: values.out,
    apiShape: apiShapeFlag(values['api-shape'])
  };
}

function productionLeft(raw: string | undefined): number | null | undefined {
  const word = raw?.trim().toLowerCase();
  if (word === 'none') return null;
  if (word === 'expired') return -EXPIRED_AGO_SECONDS;
  return seconds('--production-left', raw);
}

function apiShapeFlag(raw: string | undefined): ApiShape | undefined {
  if (raw === undefined) return undefined;
  if (!['today', 'next', 'both'].includes(raw)) throw new TryError(`--api-shape ${raw}: expected today, next or both.`);
  return raw as ApiShape;
}

function seconds(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  try {
    return Math.max(1, Math.round(parseDuration(flag, raw) / 1000));
  } catch (error) {
    if (error instanceof InputError) throw new TryError(`${flag}: ${error.message.replace(/^Input '[^']*': /, '')}`);
    throw error;
  }
}

function count(flag: string, raw: string | undefined, min = 0): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min) throw new TryError(`${flag} expects a whole number of at least ${min}, got "${raw}".`);
  return value;
}

// Run only when started as a script, not when a test imports it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const options = parseTryArgs(process.argv.slice(2));
    if (options.help) {
      console.log(USAGE);
    } else {
      if (!existsSync('dist/index.js')) throw new TryError('dist/index.js is missing: run npm run build first.');
      // The actions run under the project's network guard (runner.ts passes it on): nothing they do reaches past loopback.
      process.env.NETWORK_GUARD ??= fileURLToPath(new URL('../__tests__/setup/network-guard-child.mjs', import.meta.url));
      const result = await tryChart(options);
      process.exitCode = result.workflows.some((workflow) => workflow.failed) ? 1 : 0;
    }
  } catch (error) {
    if (!(error instanceof TryError || (error instanceof Error && error.name === 'TypeError' && 'code' in error))) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  }
}

/** Why a workflow's shell step is not run here: the upload of the kept archive is done by the step that checks it; anything else (a roll-out) acts beyond this machine. */
function shellStepSkipped(step: { run?: string }): string {
  return /keep|archive|upload|aws s3|gsutil|az storage/i.test(step.run ?? '')
    ? 'a shell step: not run here (the kept archive is put on the emulated bucket by the step that checks it)'
    : 'a shell step: not run here (it acts beyond this machine, such as a roll-out; your workflow runs it)';
}

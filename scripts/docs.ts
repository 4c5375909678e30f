// Writes what the README and docs/ must never state by hand: each action's inputs and outputs
// tables (from its action.yml) and the figures (bundle sizes from dist/, the fake-clock waiting tables
// of bench-wait.ts, which are seeded and take a second, and what the benchmarks measure and commit
// under docs/measurements/: `npm run bench` (waiting, startup), `bench:values`, `bench:limits`,
// `bench:unpack` and `bench:diff`, each with the machine it ran on). Each sits between markers:
//   <!-- inputs: action.yml --> … <!-- /inputs -->
//   <!-- figures: bundle-sizes --> … <!-- /figures -->
// `npm run docs` rewrites them; `npm run docs -- --check` only says which are stale (exit 1).
// __tests__/docs.test.ts runs the same check.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { sideBySideTable, tradeOffTable } from './bench-wait.ts';
import { busyMay, MAY_1 } from '../emulator/feedback-month.ts';
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import { Deadline } from '../src/action/deadline.ts';
import { collectFeedback } from '../src/feedback/collect.ts';
import { getFeedbackByPage } from '../src/platform/analytics.ts';
import { ApiClient } from '../src/platform/transport.ts';

interface ActionFile {
  inputs: Record<string, { description: string; required?: boolean; default?: unknown }>;
  outputs: Record<string, { description: string }>;
}

/** The committed measurement of `npm run bench`: start of each bundle to its first request. */
export const STARTUP_MEASUREMENT = 'docs/measurements/startup.json';

export interface StartupMeasurement {
  node: string;
  runs: number;
  /** Median ms from spawning `node <bundle>` to the emulator's first request, by bundle. */
  medianMs: Record<string, number>;
}

/** The committed measurement of `npm run bench`: the built action against the emulator, beside two loops. */
export const WAITING_MEASUREMENT = 'docs/measurements/waiting.json';

interface WaitingCell {
  requests: number;
  lateMs: number;
}

export interface WaitingMeasurement {
  node: string;
  runs: number;
  rows: { profile: string; action: WaitingCell; loop10: WaitingCell; loop2: WaitingCell }[];
}

export function waitingRows(measured: WaitingMeasurement): string {
  const cell = ({ requests, lateMs }: WaitingCell) => `${requests} · ${(lateMs / 1000).toFixed(1)} s`;
  return [
    '| job profile | this action | 10 s loop | 2 s loop |',
    '|---|---|---|---|',
    ...measured.rows.map((row) => `| ${row.profile} | ${cell(row.action)} | ${cell(row.loop10)} | ${cell(row.loop2)} |`)
  ].join('\n');
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ').trim();

function readAction(file: string): ActionFile {
  return parse(readFileSync(file, 'utf8')) as ActionFile;
}

export function inputsTable(file: string): string {
  const rows = Object.entries(readAction(file).inputs).map(([name, input]) => {
    const fallback = input.default === undefined || input.default === '' ? (input.required ? '(required)' : '') : `\`${String(input.default)}\``;
    return `| \`${name}\` | ${cell(fallback)} | ${cell(input.description)} |`;
  });
  return ['| input | default | what it is |', '|---|---|---|', ...rows].join('\n');
}

export function outputsTable(file: string): string {
  const rows = Object.entries(readAction(file).outputs).map(([name, output]) => `| \`${name}\` | ${cell(output.description)} |`);
  return ['| output | what it is |', '|---|---|', ...rows].join('\n');
}

const MiB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MiB).toFixed(2)} MB`;

/** Bytes of each file under `dir` but source maps, by path. */
function distFiles(dir = 'dist'): Map<string, number> {
  const files = new Map<string, number>();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) for (const [inner, bytes] of distFiles(path)) files.set(inner, bytes);
    else if (!name.endsWith('.map')) files.set(path, statSync(path).size);
  }
  return files;
}

export function bundleSizes(): string {
  const files = distFiles();
  const total = [...files.values()].reduce((sum, bytes) => sum + bytes, 0);
  const of = (path: string) => mb(files.get(path) ?? 0);
  return (
    `\`dist/\` is ${mb(total)} without source maps (1 MB = 1,048,576 bytes): ${of('dist/index.js')} for the root action's ` +
    `bundle, which \`renew\` and \`host\` run too (the same reconcile; their entries are two lines), ` +
    `${of('dist/agent-job/index.js')} for \`agent-job\` and ${of('dist/feedback/index.js')} for \`feedback\`.`
  );
}

export function startupTimes(): string {
  const measured = JSON.parse(readFileSync(STARTUP_MEASUREMENT, 'utf8')) as StartupMeasurement;
  const ms = (bundle: string) => `${measured.medianMs[bundle]} ms`;
  return (
    `From the start of \`node dist/index.js\` to its first request: ${ms('dist/index.js')} on Node ${measured.node} ` +
    `(median of ${measured.runs}; ${ms('dist/agent-job/index.js')} for \`agent-job\` and ${ms('dist/feedback/index.js')} for \`feedback\`).`
  );
}

/** The committed measurement of `npm run bench:values`: one values-file edit per real file. */
export const VALUES_MEASUREMENT = 'docs/measurements/values.json';

export interface ValuesMeasurement {
  cores: number;
  load: number;
  rounds: number;
  /** Largest first. */
  files: { file: string; kb: number; coldMs: number; medianMs: number }[];
}

export function valuesLargest(measured: ValuesMeasurement): string {
  const [largest, ...rest] = measured.files;
  const slowestOther = Math.max(...rest.map((file) => Math.max(file.coldMs, file.medianMs)));
  return (
    `On the largest, ${largest!.file.replace(/__values\.yaml$/, '').replaceAll('__', '/')} (${largest!.kb} KB), the first edit in a process took ` +
    `${largest!.coldMs} ms and later ones ${largest!.medianMs} ms (median of ${measured.rounds}; ${measured.cores} cores, load ${measured.load}); ` +
    `every other file of the ${measured.files.length} took at most ${slowestOther} ms.`
  );
}

/** What every measurement records of the machine it ran on, and how many rounds each figure is the median of. */
export interface MachineFacts {
  node: string;
  cores: number;
  /** One-minute load average when the run began: other work on the machine skews the times. */
  load: number;
  runs: number;
}

export function machineFacts(runs: number): MachineFacts {
  return { node: process.versions.node, cores: availableParallelism(), load: Number(loadavg()[0].toFixed(2)), runs };
}

const onMachine = (measured: MachineFacts) => `${measured.cores} cores, load ${measured.load}, Node ${measured.node}`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const wholeMb = (bytes: number) => `${Math.round(bytes / MiB)} MB`;
const times = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

/** The committed measurement of `npm run bench:limits`: values files up to the cap, and SIGTERM while one is parsed. */
export const LIMITS_MEASUREMENT = 'docs/measurements/limits.json';

export interface LimitsMeasurement extends MachineFacts {
  capBytes: number;
  /** Smallest first, the last at the cap: median time and peak RSS to read and patch, in a fresh process. */
  files: { keys: number; bytes: number; ms: number; rssMb: number }[];
  /** SIGTERM to exit while dist/index.js reads or patches the file at the cap. */
  sigterm: Record<string, { medianMs: number; worstMs: number }>;
}

export function limitsParagraph(measured: LimitsMeasurement): string {
  const atCap = measured.files.at(-1)!;
  const per100Kb = measured.files.map((file) => Math.round(file.ms / (file.bytes / 102_400)));
  const { reading, patching } = measured.sigterm;
  return (
    `Read and patched in a fresh process each (median of ${measured.runs}; ${onMachine(measured)}): ${seconds(atCap.ms)} and ` +
    `${atCap.rssMb} MB peak at the 1 MB cap, growing in line with the size (${Math.min(...per100Kb)}–${Math.max(...per100Kb)} ms per 100 KB ` +
    `from ${measured.files[0]!.keys.toLocaleString('en-US')} to ${atCap.keys.toLocaleString('en-US')} keys); SIGTERM to exit ` +
    `${seconds(reading!.medianMs)} while reading, ${seconds(patching!.medianMs)} while patching (worst of ${measured.runs}: ` +
    `${seconds(reading!.worstMs)}, ${seconds(patching!.worstMs)}).`
  );
}

/** The committed measurement of `npm run bench:unpack`: download-path against `tar -xzf`, and its peak memory. */
export const UNPACK_MEASUREMENT = 'docs/measurements/unpack.json';

interface ArchiveShape {
  bytes: number;
  files: number;
  unpacked: number;
}

export interface UnpackMeasurement extends MachineFacts {
  archive: ArchiveShape;
  medianMs: { downloadBundle: number; downloadThenTar: number; unpackTarGz: number; tar: number };
  /** Peak RSS of Node with the modules loaded and nothing done. */
  baselineMb: number;
  /** Smallest archive first. */
  memory: { archive: ArchiveShape; unpackMb: number; keepArchiveMb: number }[];
}

export function unpackParagraph(measured: UnpackMeasurement): string {
  const { medianMs: ms, archive } = measured;
  const memory = measured.memory.map((row) => `${row.unpackMb} MB for ${wholeMb(row.archive.bytes)}`);
  return (
    `On a ${wholeMb(archive.bytes)}, ${archive.files.toLocaleString('en-US')}-file bundle, in one run with \`tar -xzf\` on the same archive ` +
    `(medians of ${measured.runs}; ${onMachine(measured)}): unpacking alone ${seconds(ms.unpackTarGz)} against \`tar -xzf\`'s ` +
    `${seconds(ms.tar)} (${times(ms.unpackTarGz, ms.tar)}); download and unpack together ${seconds(ms.downloadBundle)} against ` +
    `downloading then \`tar -xzf\` ${seconds(ms.downloadThenTar)} (${times(ms.downloadBundle, ms.downloadThenTar)}). Peak memory stays ` +
    `flat as the archive grows: ${memory.slice(0, -1).join(', ')} and ${memory.at(-1)} (${measured.baselineMb} MB of that is Node ` +
    `loading the TypeScript); keeping the archive (\`keep-archive\`) adds at most ` +
    `${Math.max(0, ...measured.memory.map((row) => row.keepArchiveMb - row.unpackMb))} MB.`
  );
}

/** The committed measurement of `npm run bench:diff`: the content diff against the new bundle alone. */
export const DIFF_MEASUREMENT = 'docs/measurements/diff.json';

interface DiffCell {
  ms: number;
  rssMb: number;
}

export interface DiffMeasurement extends MachineFacts {
  /** Peak RSS of Node with the modules loaded and nothing done. */
  baselineMb: number;
  /** One-minute load average when the last run ended. */
  loadAfter: number;
  rows: { pages: number; archiveBytes: number; alone: DiffCell; withDiff: DiffCell }[];
}

export function diffTable(measured: DiffMeasurement): string {
  const cell = ({ ms, rssMb }: DiffCell) => `${seconds(ms)}, ${rssMb} MB`;
  const size = (bytes: number) => (bytes < 10 * MiB ? `${(bytes / MiB).toFixed(1)} MB` : wholeMb(bytes));
  const ratio = (row: DiffMeasurement['rows'][number]) => `${times(row.withDiff.ms, row.alone.ms)}, ${times(row.withDiff.rssMb, row.alone.rssMb)}`;
  return [
    '| two exports | new bundle alone (`download-path`) | with the diff (`config-path`) | time, memory |',
    '|---|---|---|---|',
    ...measured.rows.map((row) => `| ${row.pages.toLocaleString('en-US')} pages, ${size(row.archiveBytes)} archive | ${cell(row.alone)} | ${cell(row.withDiff)} | ${ratio(row)} |`),
    '',
    `Time and peak memory, median of ${measured.runs} runs, each a child process, the two kinds alternating in one run (peak memory includes Node's own ` +
      `${measured.baselineMb} MB; ${onMachine(measured)}, shared with other work: load ${measured.loadAfter} when the last run ended).`
  ].join('\n');
}

/** Only the table of a bench-wait.ts table (its lead sentence stays in the prose). */
const tableOf = (lines: string[]) => lines.filter((line) => line.startsWith('|')).join('\n');

/** Every figure by name: computed now (sizes, the fake-clock tables, which are seeded) or read from a measurement. */
export async function computeFigures(): Promise<Record<string, string>> {
  return {
    'bundle-sizes': bundleSizes(),
    startup: startupTimes(),
    'waiting-emulator': waitingRows(JSON.parse(readFileSync(WAITING_MEASUREMENT, 'utf8')) as WaitingMeasurement),
    'waiting-side-by-side': tableOf(await sideBySideTable()),
    'waiting-trade-off': tableOf(await tradeOffTable()),
    'values-edit': valuesLargest(JSON.parse(readFileSync(VALUES_MEASUREMENT, 'utf8')) as ValuesMeasurement),
    limits: limitsParagraph(JSON.parse(readFileSync(LIMITS_MEASUREMENT, 'utf8')) as LimitsMeasurement),
    unpack: unpackParagraph(JSON.parse(readFileSync(UNPACK_MEASUREMENT, 'utf8')) as UnpackMeasurement),
    'diff-cost': diffTable(JSON.parse(readFileSync(DIFF_MEASUREMENT, 'utf8')) as DiffMeasurement),
    'feedback-split': await feedbackSplit()
  };
}

/** The requests the feedback action's range splitting sends for a month of 200 pages, counted against the emulator. */
export async function feedbackSplit(): Promise<string> {
  const platform = await startPlatformEmulator({ feedback: busyMay() });
  const client = new ApiClient({ baseUrl: platform.url, apiKey: DEFAULT_API_KEY });
  try {
    const collected = await collectFeedback({
      range: { from: MAY_1, to: MAY_1 + 30 * 86_400_000 },
      filter: {},
      fetchPage: (query) => getFeedbackByPage(client, 'proj_docs', query),
      maxRequests: 20,
      deadline: new Deadline(60_000)
    });
    return `For example, a month with ${collected.rows.length} pages takes ${collected.requests} requests.`;
  } finally {
    client.dispose();
    await platform.close();
  }
}

/** The text with every marked block rewritten; `stale` names the blocks that changed. */
export function renderBlocks(text: string, figures: Record<string, string>): { text: string; stale: string[] } {
  const stale: string[] = [];
  const rendered = text.replace(/<!-- (inputs|outputs|figures): ([\w./-]+) -->\n([\s\S]*?)<!-- \/\1 -->/g, (_whole: string, kind: string, name: string, body: string) => {
    const content = kind === 'inputs' ? inputsTable(name) : kind === 'outputs' ? outputsTable(name) : figures[name];
    if (content === undefined) throw new Error(`no figure is named ${name}`);
    const block = `<!-- ${kind}: ${name} -->\n${content}\n<!-- /${kind} -->`;
    if (body !== `${content}\n`) stale.push(`${kind}: ${name}`);
    return block;
  });
  return { text: rendered, stale };
}

export const DOCUMENTS = ['README.md', 'renew/README.md', 'host/README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const check = process.argv.includes('--check');
  let staleCount = 0;
  const figures = await computeFigures();
  for (const file of DOCUMENTS) {
    const { text, stale } = renderBlocks(readFileSync(file, 'utf8'), figures);
    for (const block of stale) console.log(`${file}: ${block} ${check ? 'is stale' : 'rewritten'}`);
    staleCount += stale.length;
    if (!check && stale.length > 0) writeFileSync(file, text);
  }
  if (check && staleCount > 0) {
    console.log('Run `npm run docs` (after `npm run build`, for the sizes) and commit the result.');
    process.exitCode = 1;
  }
}

// Writes what the README and docs/ must never state by hand: each action's inputs and outputs
// tables (from its action.yml) and the figures (bundle sizes from dist/, the fake-clock waiting tables
// of bench-wait.ts, which are seeded and take a second, and the timings `npm run bench` measures and
// commits under docs/measurements/). Each sits between markers:
//   <!-- inputs: action.yml --> … <!-- /inputs -->
//   <!-- figures: bundle-sizes --> … <!-- /figures -->
// `npm run docs` rewrites them; `npm run docs -- --check` only says which are stale (exit 1).
// __tests__/docs.test.ts runs the same check.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { sideBySideTable, tradeOffTable } from './bench-wait.ts';

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
    `bundle, ${of('dist/agent-job/index.js')} for \`agent-job\` and ${of('dist/feedback/index.js')} for \`feedback\`.`
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
    'values-edit': valuesLargest(JSON.parse(readFileSync(VALUES_MEASUREMENT, 'utf8')) as ValuesMeasurement)
  };
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

export const DOCUMENTS = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

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

// What the content diff costs (`npm run bench:diff`, and part of `npm run bench`): for two exports of
// 100, 1,000 and 10,000 pages and one of about 200 MB, the time and peak memory of what a run with
// config-path does (the new bundle and production's downloaded at once, every page hashed as it
// streams out, through run.ts's own compareWithProduction) against fetching the same new bundle
// with download-path alone (downloaded and unpacked to disk). Every page of the two exports carries
// its own build id; 5% of the pages are edited, 2% added, 2% removed.
//
// Each measured run is a child process, so its peak memory is its own: VmHWM from /proc/self/status
// (maxRSS would count this parent's, inherited through fork). The two kinds of run alternate within
// each round, side by side in one run of the benchmark, so a neighbour's load falls on both; the
// load average is recorded before and after. The platform emulator serves the archives over
// loopback from this process. BENCH_RUNS=n sets the rounds. It writes docs/measurements/diff.json,
// which docs/content-diff.md quotes (npm run docs).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleFormats, pageFiles, siteFiles } from '../emulator/archive.ts';
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import type { Bundle } from '../src/platform/static-export.ts';
import { downloadBundle } from '../src/bundle/download.ts';
import { Deadline } from '../src/action/deadline.ts';
import { compareWithProduction } from '../src/publish/content-diff.ts';
import type { DiffMeasurement } from './docs.ts';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);
/** Pages, and bytes of unseen data each page embeds (static builds inline a JSON blob per page). */
const SHAPES = [
  { pages: 100, padBytes: 20_000 },
  { pages: 1_000, padBytes: 20_000 },
  { pages: 10_000, padBytes: 2_000 },
  { pages: 2_000, padBytes: 134_000 }
];

interface Measure {
  ms: number;
  rssMb: number;
}

const DOMAIN = 'docs.example.com';

/** The new bundle alone (download-path), or as a config-path run reads it: beside production's, compared. */
async function childDownload(compare: boolean): Promise<void> {
  const [bundleJson, deployedLink, work] = process.argv.slice(3);
  const bundle = JSON.parse(bundleJson) as Bundle;
  const started = performance.now();
  if (compare) {
    process.env.RUNNER_TEMP = work;
    const { diff } = await compareWithProduction(
      { deployedLink, deadline: new Deadline(3_600_000), signal: new AbortController().signal },
      (reader) => downloadBundle({ bundle, directory: join(work, 'new'), log: () => undefined, requireHomePage: false, writeFiles: false, reader })
    );
    if (diff.kind !== 'compared' || diff.comparison.changed.length === 0) throw new Error(`the benchmark exports should differ: ${JSON.stringify(diff).slice(0, 300)}`);
  } else {
    await downloadBundle({ bundle, directory: join(work, 'new'), log: () => undefined });
  }
  report(performance.now() - started);
}

function report(ms: number): void {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  console.log(JSON.stringify({ ms, rssMb: hwm ? Number(hwm[1]) / 1024 : NaN }));
}

const run = promisify(execFile);

async function node(args: string[]): Promise<Measure> {
  const { stdout } = await run(process.execPath, [import.meta.filename, ...args], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as Measure;
}

/** Two exports of a shape: production's, and a new one with its own build id and a few real changes. */
function exportsOf(shape: { pages: number; padBytes: number }): [Buffer, Buffer] {
  const pages = pageFiles(shape.pages);
  const changes = Math.max(1, Math.round(shape.pages * 0.02));
  const edits = Object.fromEntries(pages.filter((_, i) => i % 20 === 1).map((path) => [path, 'This paragraph is new in this export.']));
  const next = [...pages.slice(0, pages.length - changes), ...Array.from({ length: changes }, (_, i) => `added/page-${i}.html`)];
  const build = bundleFormats['tar.gz'].build;
  return [build(siteFiles(DOMAIN, { pages, buildId: 'deployed', padBytes: shape.padBytes })), build(siteFiles(DOMAIN, { pages: next, buildId: 'proposed', edits, padBytes: shape.padBytes }))];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function diffCostTable(): Promise<string[]> {
  // Imported here, not in the children, whose peak memory is measured.
  const { DIFF_MEASUREMENT, machineFacts } = await import('./docs.ts');
  const baselineMb = (await node(['--baseline'])).rssMb;
  const measured: DiffMeasurement = { ...machineFacts(ROUNDS), baselineMb: Math.round(baselineMb), loadAfter: 0, rows: [] };
  const emulator = await startPlatformEmulator({ linkTtlSeconds: 7 * 24 * 3600 });
  const work = await mkdtemp(join(tmpdir(), 'bench-diff-'));
  const lines = [
    `The content diff's cost (median of ${ROUNDS} runs, each a child process; peak RSS includes Node's own ${baselineMb.toFixed(0)} MB):`,
    `  ${'two exports'.padEnd(42)}${'new bundle alone'.padStart(22)}${'with the diff'.padStart(22)}${'time, memory'.padStart(18)}`
  ];
  try {
    for (const shape of SHAPES) {
      const [deployed, proposed] = exportsOf(shape);
      const link = async (archive: Buffer) => {
        const jobId = emulator.seedExportJob({ domain: DOMAIN, archive });
        const generate = () => fetch(`${emulator.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
        // The connection kept alive from the last shape may have been closed by the server while the children ran.
        const answer = await generate().catch(generate);
        return (await answer.json()) as Bundle;
      };
      const [before, after] = [await link(deployed), await link(proposed)];
      const alone: Measure[] = [];
      const diffed: Measure[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const [list, flag] of [[alone, '--download'], [diffed, '--diff']] as const) {
          const folder = join(work, `run-${round}-${flag.slice(2)}`);
          list.push(await node([flag, JSON.stringify(after), before.bundleUrl, folder]));
          await rm(folder, { recursive: true, force: true });
        }
      }
      const cell = (measures: Measure[]) => `${(median(measures.map((m) => m.ms)) / 1000).toFixed(2)} s, ${median(measures.map((m) => m.rssMb)).toFixed(0)} MB`;
      const summary = (measures: Measure[]) => ({ ms: Math.round(median(measures.map((m) => m.ms))), rssMb: Math.round(median(measures.map((m) => m.rssMb))) });
      const row = { pages: shape.pages, archiveBytes: proposed.length, alone: summary(alone), withDiff: summary(diffed) };
      measured.rows.push(row);
      const name = `${shape.pages.toLocaleString('en-US')} pages, ${mb(proposed.length)} archive`;
      const ratio = `${(row.withDiff.ms / row.alone.ms).toFixed(2)}×, ${(row.withDiff.rssMb / row.alone.rssMb).toFixed(2)}×`;
      lines.push(`  ${name.padEnd(42)}${cell(alone).padStart(22)}${cell(diffed).padStart(22)}${ratio.padStart(18)}`);
      console.error(lines.at(-1));
      emulator.exportJobs.clear();
    }
  } finally {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  }
  measured.loadAfter = Number(loadavg()[0].toFixed(2));
  // The docs quote this file, never the console (scripts/docs.ts; npm run docs rewrites them).
  writeFileSync(DIFF_MEASUREMENT, `${JSON.stringify(measured, null, 2)}\n`);
  lines.push(`Written to ${DIFF_MEASUREMENT}; run npm run docs to update the docs.`);
  return lines;
}

// Run on its own, or as one of the children above (bench.ts imports diffCostTable only).
if (process.argv[1] === import.meta.filename) {
  const child = process.argv[2];
  if (child === '--download') await childDownload(false);
  else if (child === '--diff') await childDownload(true);
  else if (child === '--baseline') report(0);
  else console.log((await diffCostTable()).join('\n'));
}

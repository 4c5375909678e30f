// Benchmark of download-path: downloadBundle (download, hash, check, unpack) on a generated bundle
// of more than 100 MB and 10,000 files, against `tar -xzf` on the same archive in the same run, and
// its peak memory at three archive sizes, with and without keep-archive (the archive kept as served
// beside the unpacked tree). Run: node scripts/bench-unpack.ts (Node 24 runs .ts as is; BENCH_RUNS=n
// for fewer rounds), which writes docs/measurements/unpack.json for the docs (npm run docs); with
// --memory (npm run bench:memory), only the memory table, written nowhere.
//
// Each measured run is a child process, so its peak RSS is its own: VmHWM from /proc/self/status for
// Node (maxRSS would count this parent's memory, inherited through fork and exec), /usr/bin/time for
// tar when it is installed. A child that only loads the modules gives Node's own share. The emulator
// serves the archive over loopback from this process. Dirty pages are flushed (`sync`) before every
// run, and the variants take turns, so one does not pay for another's writes.
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { type ArchiveEntry, TAR_END, tarEntryBlocks } from '../emulator/archive.ts';
import { startPlatformEmulator } from '../emulator/platform.ts';
import type { Bundle } from '../src/platform/static-export.ts';
import { downloadBundle } from '../src/bundle/download.ts';
import { DEFAULT_LIMITS } from '../src/bundle/guard.ts';
import { unpackTarGz } from '../src/bundle/unpack.ts';
import type { UnpackMeasurement } from './docs.ts';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);
const LARGE = { files: 10_000, bigFiles: 5 };
const SMALL = { files: 1_000, bigFiles: 1 };
const HUGE = { files: 20_000, bigFiles: 10 };
const TIME = '/usr/bin/time';

interface Measure {
  ms: number;
  /** Peak resident memory, MB; undefined when it could not be read. */
  rssMb?: number;
}

const child = process.argv[2];
if (child === '--unpack') await childUnpack();
else if (child === '--unpack-file') await childUnpackFile();
else if (child === '--download') await childDownload();
else if (child === '--node-tar') await childNodeTar();
else if (child === '--baseline') report({ ms: 0 });
else await main(child === '--memory');

// The action's path: downloadBundle from the link into a new directory.
async function childUnpack(): Promise<void> {
  const [bundleJson, directory, keep] = process.argv.slice(3);
  const bundle = JSON.parse(bundleJson) as Bundle;
  const started = performance.now();
  const keepArchive = keep ? { input: 'keep-archive', path: keep } : undefined;
  const result = await downloadBundle({ bundle, directory, renew: () => Promise.reject(new Error('no renewal in a benchmark')), log: () => undefined, keepArchive });
  report({ ms: performance.now() - started, files: result.files });
}

// The unpacking alone, from the archive on disk: like for like with `tar -xzf`.
async function childUnpackFile(): Promise<void> {
  const [file, directory] = process.argv.slice(3);
  await mkdir(directory);
  const started = performance.now();
  const result = await unpackTarGz(createReadStream(file, { highWaterMark: 1024 * 1024 }), directory, DEFAULT_LIMITS);
  report({ ms: performance.now() - started, files: result.files });
}

// A plain download to a file, as `curl -o` would do it.
async function childDownload(): Promise<void> {
  const [link, file] = process.argv.slice(3);
  const started = performance.now();
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(link, { agent: false }, resolve).on('error', reject));
  await pipeline(response, createWriteStream(file));
  report({ ms: performance.now() - started });
}

// For reference: tar's own Unpack, which the tree writer stands in for (see src/bundle/tree-writer.ts).
async function childNodeTar(): Promise<void> {
  const [file, directory] = process.argv.slice(3);
  const { x } = await import('tar');
  await mkdir(directory);
  const started = performance.now();
  await x({ file, cwd: directory, strict: true, preserveOwner: false });
  report({ ms: performance.now() - started });
}

function report(fields: Record<string, number>): void {
  process.stdout.write(JSON.stringify({ ...fields, rssMb: peakRssKb() / 1024 }) + '\n');
  process.exit(0);
}

function peakRssKb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS;
}

async function main(memoryOnly: boolean): Promise<void> {
  // Imported here, not in the children, whose peak memory is measured.
  const { UNPACK_MEASUREMENT, machineFacts, unpackParagraph } = await import('./docs.ts');
  const measured: Partial<UnpackMeasurement> = machineFacts(ROUNDS);
  const load = loadavg()[0];
  if (load > 0.5) console.log(`Load average ${load.toFixed(2)} on ${availableParallelism()} cores: other work on this machine skews the times below.`);
  const work = await mkdtemp(join(tmpdir(), 'bench-unpack-'));
  const emulator = await startPlatformEmulator({ linkTtlSeconds: 3600 });
  const out = join(work, 'out');
  const fresh = async () => {
    await rm(out, { recursive: true, force: true });
    spawnSync('sync');
  };
  // The emulator holds one archive in memory at a time: this process's memory is not measured, but it shares the machine.
  const served = async (archive: { file: string }, use: (bundle: Bundle) => Promise<void>) => {
    const jobId = emulator.seedExportJob({ domain: 'docs.example.com', archive: await readFile(archive.file) });
    const response = await fetch(`${emulator.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers: { authorization: 'Bearer mint_test_admin_key' } });
    await use((await response.json()) as Bundle);
    emulator.exportJobs.get(jobId)!.archive = undefined;
  };
  const kept = join(work, 'kept', 'bundle.tar.gz');
  try {
    const large = await makeArchive(join(work, 'large.tar.gz'), LARGE);
    console.log(`Archive: ${describe(large)} (made in ${seconds(large.ms)}).`);
    if (!memoryOnly) await timings(large);
    // Peak memory at three sizes, without and with keep-archive: it levels off instead of following the archive.
    const memory: [string, Measure, Measure][] = [];
    const shapes: { bytes: number; files: number; unpacked: number }[] = [];
    const baseline = await node(['--baseline']);
    for (const shape of [SMALL, LARGE, HUGE]) {
      const archive = shape === LARGE ? large : await makeArchive(join(work, 'other.tar.gz'), shape);
      await served(archive, async (bundle) => {
        await fresh();
        const plain = await node(['--unpack', JSON.stringify(bundle), out]);
        await fresh();
        await rm(join(work, 'kept'), { recursive: true, force: true });
        const keeping = await node(['--unpack', JSON.stringify(bundle), out, kept]);
        if ((await stat(kept)).size !== archive.bytes) throw new Error('the kept archive is not the size served');
        memory.push([describe(archive), plain, keeping]);
        shapes.push({ bytes: archive.bytes, files: archive.files, unpacked: archive.unpacked });
      });
      if (archive !== large) await rm(archive.file);
    }
    await fresh();
    console.log(`\nPeak RSS of downloadBundle (Node with the modules loaded through its TypeScript loader: ${rss([baseline])})`);
    console.log(`  ${'archive'.padEnd(62)}${'unpack'.padStart(8)}${'+ keep-archive'.padStart(16)}`);
    measured.baselineMb = Math.round(baseline.rssMb ?? NaN);
    measured.memory = memory.map(([, plain, keeping], i) => ({ archive: shapes[i]!, unpackMb: Math.round(plain.rssMb ?? NaN), keepArchiveMb: Math.round(keeping.rssMb ?? NaN) }));
    for (const [name, plain, keeping] of memory) console.log(`  ${name.padEnd(62)}${rss([plain]).padStart(8)}${rss([keeping]).padStart(16)}  (${seconds(plain.ms)}, ${seconds(keeping.ms)})`);
  } finally {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  }
  if (!memoryOnly) {
    // The docs quote this file, never the console (scripts/docs.ts; npm run docs rewrites them).
    writeFileSync(UNPACK_MEASUREMENT, `${JSON.stringify(measured, null, 2)}\n`);
    console.log(`\nWritten to ${UNPACK_MEASUREMENT}; run npm run docs to update the docs:\n${unpackParagraph(measured as UnpackMeasurement)}`);
  }

  async function timings(large: { file: string; bytes: number; files: number; unpacked: number }): Promise<void> {
    const runs: Record<'ours' | 'oursFromDisk' | 'downloadThenTar' | 'tar' | 'nodeTar', Measure[]> = { ours: [], oursFromDisk: [], downloadThenTar: [], tar: [], nodeTar: [] };
    await served(large, async (bundle) => {
      for (let round = 0; round < ROUNDS; round++) {
        await fresh();
        runs.ours.push(await node(['--unpack', JSON.stringify(bundle), out]));
        await fresh();
        const downloaded = join(work, 'downloaded.tar.gz');
        await rm(downloaded, { force: true });
        const fetched = await node(['--download', bundle.bundleUrl, downloaded]);
        await mkdir(out);
        runs.downloadThenTar.push({ ms: fetched.ms + tar(downloaded, out).ms });
        await fresh();
        runs.oursFromDisk.push(await node(['--unpack-file', large.file, out]));
        await fresh();
        await mkdir(out);
        runs.tar.push(tar(large.file, out));
      }
    });
    await fresh();
    runs.nodeTar.push(await node(['--node-tar', large.file, out]));

    console.log(`\n${'Same archive, same run'.padEnd(50)}${'time (median)'.padStart(14)}${'peak RSS'.padStart(10)}`);
    const rows: [string, Measure[]][] = [
      ['downloadBundle: download + unpack, overlapped', runs.ours],
      ['download to disk, then tar -xzf', runs.downloadThenTar],
      ['unpackTarGz alone (archive already on disk)', runs.oursFromDisk],
      ['tar -xzf alone (archive already on disk)', runs.tar],
      ['node-tar Unpack alone, for reference (1 run)', runs.nodeTar]
    ];
    for (const [name, measures] of rows) console.log(`${name.padEnd(50)}${seconds(median(measures.map((m) => m.ms))).padStart(14)}${rss(measures).padStart(10)}`);
    const time = (measures: Measure[]) => median(measures.map((m) => m.ms));
    measured.archive = { bytes: large.bytes, files: large.files, unpacked: large.unpacked };
    measured.medianMs = { downloadBundle: Math.round(time(runs.ours)), downloadThenTar: Math.round(time(runs.downloadThenTar)), unpackTarGz: Math.round(time(runs.oursFromDisk)), tar: Math.round(time(runs.tar)) };
    console.log(`\nUnpacking, like for like (both from the archive on disk): ${(time(runs.oursFromDisk) / time(runs.tar)).toFixed(2)}x tar -xzf (aim: at most 1.5x).`);
    console.log(`Download and unpack against download, then tar -xzf: ${(time(runs.ours) / time(runs.downloadThenTar)).toFixed(2)}x.`);
    console.log(`Download and unpack against tar -xzf alone: ${(time(runs.ours) / time(runs.tar)).toFixed(2)}x.`);
    console.log(`  unpackTarGz:    ${runs.oursFromDisk.map((m) => seconds(m.ms)).join(', ')}`);
    console.log(`  tar -xzf:       ${runs.tar.map((m) => seconds(m.ms)).join(', ')}`);
    console.log(`  downloadBundle: ${runs.ours.map((m) => seconds(m.ms)).join(', ')}`);
  }
}

function describe(archive: { bytes: number; files: number; unpacked: number }): string {
  return `${mb(archive.bytes)} tar.gz, ${archive.files.toLocaleString('en-US')} files, ${mb(archive.unpacked)} unpacked`;
}

/** A site of `files` pages (text, then random bytes, so the archive stays near its unpacked size) and a few large media files. */
async function makeArchive(file: string, shape: { files: number; bigFiles: number }): Promise<{ file: string; bytes: number; files: number; unpacked: number; ms: number }> {
  const started = performance.now();
  let unpacked = 0;
  let files = 0;
  function* entries(): Generator<Buffer> {
    const add = (entry: ArchiveEntry) => {
      files += 1;
      unpacked += (entry.content as Buffer).length;
      return tarEntryBlocks(entry);
    };
    yield* add({ path: 'index.html', content: Buffer.from('<!DOCTYPE html><title>Home</title><a href="/section-0/page-0.html">Start</a>\n') });
    for (let i = 0; i < shape.files; i++) {
      const text = Buffer.from(`<!DOCTYPE html><html><head><title>Page ${i}</title></head><body><main>${'<p>Static export of the documentation. '.repeat(50)}</main>`);
      const content = Buffer.concat([text, randomBytes(8 * 1024 + ((i * 977) % 4096))]);
      yield* add({ path: `section-${i % 40}/group-${i % 7}/page-${i}.html`, content });
    }
    for (let i = 0; i < shape.bigFiles; i++) yield* add({ path: `_next/static/media/video-${i}.mp4`, content: randomBytes(3 * 1024 * 1024) });
    yield TAR_END;
  }
  await pipeline(Readable.from(entries()), createGzip({ level: 1 }), createWriteStream(file));
  return { file, bytes: (await stat(file)).size, files, unpacked, ms: performance.now() - started };
}

// Asynchronous: the emulator that serves the archive runs in this process.
async function node(args: string[]): Promise<Measure> {
  const { stdout } = await promisify(execFile)(process.execPath, [import.meta.filename, ...args], { encoding: 'utf8', maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Measure;
}

function tar(file: string, directory: string): Measure {
  const timed = existsSync(TIME);
  const started = performance.now();
  const result = timed
    ? spawnSync(TIME, ['-f', '%M', 'tar', '-xzf', file, '-C', directory], { encoding: 'utf8' })
    : spawnSync('tar', ['-xzf', file, '-C', directory], { encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`tar -xzf failed: ${result.stderr}`);
  const kb = timed ? Number(result.stderr.trim().split('\n').at(-1)) : NaN;
  return { ms, rssMb: Number.isFinite(kb) ? kb / 1024 : undefined };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

function rss(measures: Measure[]): string {
  const values = measures.flatMap((m) => (m.rssMb === undefined ? [] : [m.rssMb]));
  return values.length ? `${Math.max(...values).toFixed(0)} MB` : 'n/a';
}

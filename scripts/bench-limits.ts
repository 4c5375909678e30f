// Benchmark of the step's limits on a large values file: the time and peak memory to read and patch
// values files of growing size up to the 1 MB cap (the time must grow in line with the size, not
// with its square), and, through dist/index.js, the time from SIGTERM to the process's exit while
// such a file is being parsed (it must stay under 2 s: cancel holds even while the CPU is busy).
// Run: npm run bench:limits (builds dist/ first; BENCH_RUNS=n for fewer rounds). Node 24 runs .ts
// as is. It writes docs/measurements/limits.json, which the docs quote (npm run docs).
//
// Each measured parse runs in a child process, so its time includes a cold start of the parser, as
// in the action, and its peak RSS (VmHWM) is its own.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import { startAction } from '../emulator/runner.ts';
import { MAX_VALUES_FILE_BYTES, patchValuesFile, readSetting } from '../src/values/values-file.ts';
import type { LimitsMeasurement } from './docs.ts';

const ROUNDS = Number(process.env.BENCH_RUNS ?? 5);
const REPO = 'acme/deploy';
const SIGTERM_LIMIT_MS = 2000;

/** A Helm values file: `keys` settings of another chart, then the static export block. */
function valuesFile(keys: number): string {
  const lines = ['# Values of the deployment', 'other:'];
  for (let i = 0; i < keys; i++) lines.push(`  setting${i}: "value of setting number ${i}"`);
  lines.push('staticExport:', '  enabled: true', '  bundleUrl: "https://storage.example.com/bundles/se_old/bundle.tar.gz"', '');
  return lines.join('\n');
}

/** The most keys whose file stays within the cap. */
function keysAtCap(): number {
  const perKey = Buffer.byteLength(valuesFile(1000)) / 1000;
  let keys = Math.floor(MAX_VALUES_FILE_BYTES / perKey);
  while (Buffer.byteLength(valuesFile(keys)) > MAX_VALUES_FILE_BYTES) keys -= 100;
  return keys;
}

if (process.argv[2] === '--parse') parseChild(Number(process.argv[3]));
else await main();

// What the action does with the file: read the link, then patch it (which reads the result back).
function parseChild(keys: number): void {
  const text = valuesFile(keys);
  const started = performance.now();
  readSetting('values.yaml', text, 'staticExport', 'bundleUrl');
  patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'https://storage.example.com/bundles/se_new/bundle.tar.gz' });
  const ms = performance.now() - started;
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  process.stdout.write(JSON.stringify({ ms, rssMb: hwm ? Number(hwm[1]) / 1024 : process.resourceUsage().maxRSS / 1024 }) + '\n');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  // Imported here, not in the children, whose peak memory is measured.
  const { LIMITS_MEASUREMENT, limitsParagraph, machineFacts } = await import('./docs.ts');
  const atCap = keysAtCap();
  const measured: LimitsMeasurement = { ...machineFacts(ROUNDS), capBytes: MAX_VALUES_FILE_BYTES, files: [], sigterm: {} };
  console.log(`Values files: read and patch, in a fresh process each (median of ${ROUNDS}; peak RSS includes Node itself).`);
  console.log('keys     bytes       ms      ms per 100 KB   peak RSS');
  for (const keys of [5_000, 10_000, 20_000, atCap]) {
    const runs = Array.from({ length: ROUNDS }, () => {
      const child = spawnSync(process.execPath, [import.meta.filename, '--parse', String(keys)], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(child.stderr);
      return JSON.parse(child.stdout) as { ms: number; rssMb: number };
    });
    const bytes = Buffer.byteLength(valuesFile(keys));
    const ms = median(runs.map((r) => r.ms));
    measured.files.push({ keys, bytes, ms: Math.round(ms), rssMb: Math.round(median(runs.map((r) => r.rssMb))) });
    console.log(
      `${String(keys).padEnd(8)} ${String(bytes).padEnd(11)} ${String(Math.round(ms)).padEnd(7)} ${(ms / (bytes / 102_400)).toFixed(0).padEnd(15)} ${median(runs.map((r) => r.rssMb)).toFixed(0)} MB${keys === atCap ? '  (the 1 MB cap)' : ''}`
    );
  }

  console.log(`\nSIGTERM while dist/index.js parses the ${atCap}-key values file (1 MB), through the emulators:`);
  const platform = await startPlatformEmulator();
  const github = await startGitHubEmulator();
  github.createRepo(REPO, { 'deploy/values.yaml': valuesFile(atCap) });
  const waits: Record<string, number[]> = { reading: [], patching: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const phase of ['reading', 'patching'] as const) {
        github.requests.length = 0;
        const started = startAction(
          'dist/index.js',
          { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, domain: 'docs.example.com', 'job-id': platform.seedExportJob({ domain: 'docs.example.com' }), 'github-token': 'ghs_emulator_token', 'config-path': 'deploy/values.yaml' },
          { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: REPO }
        );
        // Reading: the values file's answer was just sent. Patching: the base branch was read again
        // after the export, and the file is patched next.
        const paths = () => github.requests.map((r) => decodeURIComponent(r.path));
        const due = () => {
          const contents = paths().findIndex((path) => path.includes('/contents/'));
          if (phase === 'reading') return contents >= 0;
          return contents >= 0 && paths().slice(contents + 1).some((path) => path.includes('/git/ref/heads/main'));
        };
        let ended = false;
        void started.done.then(() => (ended = true));
        while (!due() && !ended) await new Promise((resolve) => setTimeout(resolve, 2));
        const killed = performance.now();
        started.child.kill('SIGTERM');
        const run = await started.done;
        waits[phase].push(performance.now() - killed);
        if (!run.log.includes('Received SIGTERM')) console.log(`  (round ${round + 1}, ${phase}: the run had ended before the signal; exit ${run.code})`);
      }
    }
  } finally {
    await github.close();
    await platform.close();
  }
  for (const [phase, ms] of Object.entries(waits)) {
    const worst = Math.max(...ms);
    measured.sigterm[phase] = { medianMs: Math.round(median(ms)), worstMs: Math.round(worst) };
    console.log(`  while ${phase.padEnd(9)} SIGTERM to exit: median ${Math.round(median(ms))} ms, worst ${Math.round(worst)} ms of ${ms.length} (limit ${SIGTERM_LIMIT_MS} ms)${worst < SIGTERM_LIMIT_MS ? '' : '  OVER THE LIMIT'}`);
  }
  // The docs quote this file, never the console (scripts/docs.ts; npm run docs rewrites them).
  writeFileSync(LIMITS_MEASUREMENT, `${JSON.stringify(measured, null, 2)}\n`);
  console.log(`\nWritten to ${LIMITS_MEASUREMENT}; run npm run docs to update the docs:\n${limitsParagraph(measured)}`);
}

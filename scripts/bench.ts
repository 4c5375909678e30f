// `npm run bench`: how the action's waiting compares with the platform's 10 s loop, measured.
// First on a fake clock (bench-wait.ts): the real schedule and wait loop side by side with the loop
// on the job shapes and more, then the trade-off at a few max-poll-interval ceilings.
// Then the real code path: for each job profile the built action (dist/index.js, run as the runner
// runs it) and two pollers written like the platform's own template (a status request 10 s after the
// start and every 10 s, and every 2 s) each export the same kind of job on the emulator, at the same
// time. For each it reports the status requests spent and how late completion was noticed: the
// moment the waiter was done (the action's exit, the poller's bundle answer) minus the job's end as
// the emulator records it.
// Then: the time from starting each bundle (`node dist/index.js` first) to its first request, the
// size of dist/, and what the content diff costs (bench-diff.ts).
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_API_KEY, type JobProfile, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { startAction } from '../emulator/runner.ts';
import { sideBySideTable, tradeOffTable } from './bench-wait.ts';
import { diffCostTable } from './bench-diff.ts';
import { STARTUP_MEASUREMENT, type StartupMeasurement, WAITING_MEASUREMENT, type WaitingMeasurement, waitingRows } from './docs.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PROFILES: { name: string; profile: JobProfile }[] = [
  { name: 'short job (20 s)', profile: { queuedMs: 300, runMs: 20_000 } },
  { name: 'sits queued 20 s, then runs 30 s', profile: { queuedMs: 20_000, runMs: 30_000 } },
  { name: 'stalls at 40% for 15 s, then jumps (50 s)', profile: { queuedMs: 300, runMs: 35_000, stall: { at: 40, forMs: 15_000 } } },
  { name: 'fails half-way (60 s job)', profile: { queuedMs: 300, runMs: 60_000, failAt: 50 } },
  { name: 'resets to 0 at 50% (40 s)', profile: { queuedMs: 300, runMs: 20_000, resetAt: 50 } },
  { name: '45 s job', profile: { queuedMs: 1000, runMs: 44_000 } },
  { name: '90 s job', profile: { queuedMs: 1000, runMs: 89_000 } },
  { name: '2 min job', profile: { queuedMs: 1000, runMs: 119_000 } }
];

interface Sample {
  requests: number;
  lateMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The platform template's loop, in JavaScript: start, wait `everyMs`, poll, and so on; then generate. */
async function fixedPoller(emulator: PlatformEmulator, everyMs: number): Promise<Sample> {
  const headers = { authorization: `Bearer ${DEFAULT_API_KEY}`, 'content-type': 'application/json' };
  const started = await fetch(`${emulator.url}/v1/static-export/jobs`, { method: 'POST', headers, body: JSON.stringify({ domain: 'docs.example.com' }) });
  const { jobId } = (await started.json()) as { jobId: string };
  for (;;) {
    await sleep(everyMs);
    const job = (await (await fetch(`${emulator.url}/v1/static-export/jobs/${jobId}`, { headers })).json()) as { status: string };
    if (job.status === 'completed') {
      await (await fetch(`${emulator.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers })).json();
      break;
    }
    if (job.status === 'failed') break;
  }
  return measure(emulator, jobId, Date.now());
}

async function action(emulator: PlatformEmulator): Promise<Sample> {
  const run = await startAction('dist/index.js', { 'api-key': DEFAULT_API_KEY, domain: 'docs.example.com', 'api-url': emulator.url, timeout: '10m' }).done;
  const done = Date.now();
  const jobId = run.outputs['job-id'];
  if (!jobId) throw new Error(`the action set no job-id:\n${run.log}`);
  return measure(emulator, jobId, done);
}

function measure(emulator: PlatformEmulator, jobId: string, doneAt: number): Sample {
  const finishedAt = emulator.exportJobs.get(jobId)?.finishedAt;
  if (finishedAt === undefined) throw new Error(`job ${jobId} never finished`);
  const requests = emulator.requests.filter((r) => r.route === 'status' && r.path.endsWith(jobId)).length;
  return { requests, lateMs: doneAt - finishedAt };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function waitingTable(): Promise<string[]> {
  const rows = await Promise.all(
    PROFILES.map(async ({ name, profile }) => {
      const emulator = await startPlatformEmulator({ profile });
      const runs = Array.from({ length: RUNS });
      const [ours, every10, every2] = await Promise.all([
        Promise.all(runs.map(() => action(emulator))),
        Promise.all(runs.map(() => fixedPoller(emulator, 10_000))),
        Promise.all(runs.map(() => fixedPoller(emulator, 2_000)))
      ]);
      await emulator.close();
      const cell = (samples: Sample[]) => ({ requests: median(samples.map((s) => s.requests)), lateMs: median(samples.map((s) => s.lateMs)) });
      return { profile: name, action: cell(ours), loop10: cell(every10), loop2: cell(every2) };
    })
  );
  // The docs quote this file, never the console (scripts/docs.ts; npm run docs rewrites them).
  const measured: WaitingMeasurement = { node: process.versions.node, runs: RUNS, rows };
  mkdirSync(dirname(WAITING_MEASUREMENT), { recursive: true });
  writeFileSync(WAITING_MEASUREMENT, `${JSON.stringify(measured, null, 2)}\n`);
  return [
    `The built action on the emulator: status requests · end noticed late (median of ${RUNS} runs each, all run at the same time; the loops start their first poll 10 s after the start):`,
    '',
    waitingRows(measured),
    `Written to ${WAITING_MEASUREMENT}; run npm run docs to update the docs.`
  ];
}

/**
 * From spawning each action's bundle to the emulator receiving its first request, median of 10.
 * The aim is for `node dist/index.js`; the other two bundles are measured the same way.
 */
async function startupTimes(): Promise<string[]> {
  const emulator = await startPlatformEmulator({
    feedback: [{ path: '/quickstart', createdAt: '2024-06-02T10:00:00.000Z', source: 'contextual', status: 'pending', helpful: false }]
  });
  const platform = { 'api-key': DEFAULT_API_KEY, 'api-url': emulator.url };
  const bundles: { bundle: string; inputs: () => Record<string, string> }[] = [
    { bundle: 'dist/index.js', inputs: () => ({ ...platform, 'job-id': emulator.seedExportJob({ domain: 'docs.example.com' }) }) },
    {
      bundle: 'dist/agent-job/index.js',
      inputs: () => ({ ...platform, 'project-id': 'proj_docs', 'job-id': emulator.seedAgentJob({ projectId: 'proj_docs', runMs: 0 }) })
    },
    { bundle: 'dist/feedback/index.js', inputs: () => ({ ...platform, 'project-id': 'proj_docs', 'date-from': '2024-06-01', 'date-to': '2024-07-01', 'report-path': join(tmpdir(), 'bench-feedback.json') }) }
  ];
  const lines: string[] = [];
  const medianMs: Record<string, number> = {};
  for (const { bundle, inputs } of bundles) {
    const times: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const given = inputs();
      emulator.requests.length = 0;
      const spawned = Date.now();
      const run = await startAction(bundle, given).done;
      if (run.code !== 0 || emulator.requests.length === 0) throw new Error(`${bundle} failed:\n${run.log}`);
      times.push(emulator.requests[0].at - spawned);
    }
    medianMs[bundle] = median(times);
    lines.push(`Start of \`node ${bundle}\` to its first request (Node ${process.versions.node}, median of 10): ${median(times)} ms (min ${Math.min(...times)}, max ${Math.max(...times)}).`);
  }
  await emulator.close();
  // The docs quote this file, never the console (scripts/docs.ts; npm run docs rewrites them).
  const measured: StartupMeasurement = { node: process.versions.node, runs: 10, medianMs };
  mkdirSync(dirname(STARTUP_MEASUREMENT), { recursive: true });
  writeFileSync(STARTUP_MEASUREMENT, `${JSON.stringify(measured, null, 2)}\n`);
  lines.push(`Written to ${STARTUP_MEASUREMENT}; run npm run docs to update the docs.`);
  return lines;
}

function distSize(): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!name.endsWith('.map')) files.push(path);
    }
  };
  walk('dist');
  const total = files.reduce((sum, file) => sum + statSync(file).size, 0);
  const parts = files
    .filter((file) => file.endsWith('.js'))
    .map((file) => `${file} ${(statSync(file).size / 1_000_000).toFixed(2)} MB`)
    .join(', ');
  return `Size of dist/ without source maps: ${(total / 1_000_000).toFixed(2)} MB (${parts}).`;
}

if (process.argv.includes('--waiting')) {
  // Only the emulator table (about 2.5 minutes).
  console.log((await waitingTable()).join('\n'));
  process.exit(0);
}
if (process.argv.includes('--startup')) {
  // Only the start-up times (about 15 s): what the docs quote from a measurement.
  console.log((await startupTimes()).join('\n'));
  process.exit(0);
}
console.log(`Benchmarking on Node ${process.versions.node}; the emulator's waiting table takes about 2.5 minutes.\n`);
console.log((await sideBySideTable()).join('\n'));
console.log('');
console.log((await tradeOffTable()).join('\n'));
console.log('');
console.log(distSize());
console.log((await startupTimes()).join('\n'));
console.log('');
console.log((await diffCostTable()).join('\n'));
console.log('');
console.log((await waitingTable()).join('\n'));
process.exit(0);

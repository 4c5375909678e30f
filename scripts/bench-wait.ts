// The waiting, measured on a fake clock: the action's real schedule and wait loop against the
// platform's loop (a status request 10 s after the start, then every 10 s), on the same jobs.
// Each job is run at PHASES phases (it starts 0..10 s later), and each cell is the mean over them:
// status requests, and how late the end was seen. `npm run bench` prints both tables.
import { EXTRA_LOOKS } from '../src/wait/schedule.ts';
import * as sim from '../__tests__/wait-sim.ts';
import type { Knot, SimJob } from '../__tests__/wait-sim.ts';

const { DEFAULT_LIMITS, LOOP_MS, SHAPES, actionWait, foretoldAt, loopCountAt, loopWait, randomExport, seededRandom } = sim;

const PHASES = 20;
const SEED = Number(process.env.BENCH_SEED ?? 24);
const JOBS = Number(process.env.BENCH_JOBS ?? 2000);

const exportJob = (shape: string, knots: Knot[], options: Partial<SimJob> = {}): SimJob => {
  const job: SimJob = { shape, kind: 'export', queuedMs: 300, knots, endsAfterMs: knots.at(-1)![0], outcome: 'completed', runningWord: 'running', foretold: false, ...options };
  return { ...job, foretold: foretoldAt(job, 0) };
};
const statusJob = (shape: string, kind: 'agent' | 'deployment', endsAfterMs: number, queuedMs = 0): SimJob => ({
  shape,
  kind,
  queuedMs,
  knots: [[0, 0], [endsAfterMs, 100]],
  endsAfterMs,
  outcome: 'completed',
  runningWord: 'running',
  foretold: false
});

/** The issue's table, and more: jobs whose every moment is known, so each run is the same. */
const JOBS_SIDE_BY_SIDE: SimJob[] = [
  exportJob('stays at 10%, then jumps (34 s)', [[0, 0], [1500, 10], [33_700, 10], [33_700, 100]]),
  exportJob('reaches 99% early and sits there (39 s)', [[0, 0], [14_000, 99], [38_700, 99]]),
  exportJob('quick at first, slow at the end (60 s)', [[0, 0], [8000, 70], [59_700, 100]]),
  exportJob('progress in a few big steps (30 s)', [[0, 0], [7000, 0], [7000, 25], [14_500, 25], [14_500, 50], [22_000, 50], [22_000, 75], [29_700, 75], [29_700, 100]]),
  exportJob('progress resets to 0 half-way (37 s)', [[0, 0], [12_000, 50], [12_000, 0], [36_700, 100]]),
  exportJob('steady (20 s)', [[0, 0], [19_700, 100]]),
  exportJob('steady (2 min)', [[0, 0], [119_700, 100]]),
  exportJob('late start: queued 45 s, then 30 s', [[0, 0], [30_000, 100]], { queuedMs: 45_000 }),
  exportJob('stalls at 40% for 15 s (50 s)', [[0, 0], [14_000, 40], [29_000, 40], [49_700, 100]]),
  exportJob('accelerating (60 s)', Array.from({ length: 13 }, (_, i): Knot => [(i / 12) * 59_700, 100 * (i / 12) ** 2])),
  exportJob('decelerating (60 s)', Array.from({ length: 13 }, (_, i): Knot => [(i / 12) * 59_700, 100 * (i / 12) ** 0.5])),
  exportJob('fails at a random moment (60 s job)', [[0, 0], [59_700, 100]], { outcome: 'failed' }),
  statusJob('agent job (4 s)', 'agent', 4000),
  statusJob('agent job (3 min)', 'agent', 180_000),
  statusJob('deployment (90 s)', 'deployment', 90_000, 2000)
];

interface Side {
  polls: number;
  lateMs: number;
}

interface Row {
  job: SimJob;
  loop: Side;
  ours: Side;
  /** The most requests the action was ahead of the loop at any moment. */
  mostAhead: number;
  /** The most late a foretold end was seen, over the phases where it was foretold. */
  foretoldLateMs: number | undefined;
}

async function sideBySide(job: SimJob, random: () => number, api: sim.SimApi = 'today'): Promise<Row> {
  const loop = { polls: 0, lateMs: 0 };
  const ours = { polls: 0, lateMs: 0 };
  let mostAhead = -Infinity;
  let foretoldLateMs: number | undefined;
  for (let i = 0; i < PHASES; i++) {
    const phaseMs = ((i + random()) / PHASES) * LOOP_MS;
    // A failure at a random moment of the run: a new moment at each phase.
    const run = job.outcome === 'failed' ? { ...job, endsAfterMs: random() * job.endsAfterMs } : job;
    const theirs = loopWait(run, phaseMs);
    const mine = await actionWait(run, phaseMs, DEFAULT_LIMITS, api);
    loop.polls += theirs.polls.length / PHASES;
    loop.lateMs += theirs.lateMs / PHASES;
    ours.polls += mine.polls.length / PHASES;
    ours.lateMs += mine.lateMs / PHASES;
    for (const [k, at] of mine.polls.entries()) mostAhead = Math.max(mostAhead, k + 1 - loopCountAt(theirs, at));
    if (foretoldAt(run, phaseMs)) foretoldLateMs = Math.max(foretoldLateMs ?? 0, mine.lateMs);
  }
  return { job, loop, ours, mostAhead, foretoldLateMs };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const polls = (n: number) => (Number.isInteger(n) ? `${n}` : n.toFixed(1));

export async function sideBySideTable(): Promise<string[]> {
  const random = seededRandom(SEED);
  const rows: string[] = [];
  for (const job of JOBS_SIDE_BY_SIDE) {
    const row = await sideBySide(job, random);
    const holds = row.mostAhead <= EXTRA_LOOKS && row.ours.lateMs <= row.loop.lateMs + 1e-6 && (row.foretoldLateMs ?? 0) <= 1000;
    const foretold = row.foretoldLateMs === undefined ? 'no' : `yes, ≤ ${seconds(row.foretoldLateMs)}`;
    rows.push(
      `| ${job.shape} | ${polls(row.loop.polls)} · ${seconds(row.loop.lateMs)} | ${polls(row.ours.polls)} · ${seconds(row.ours.lateMs)} | ${row.mostAhead > 0 ? `+${row.mostAhead}` : row.mostAhead} | ${foretold} | ${holds ? 'yes' : 'NO'} |`
    );
  }
  return [
    `Side by side on a fake clock (the real schedule and wait loop), default inputs; each cell is *status requests · how late the end was seen*, mean of ${PHASES} phases (the job starts 0–10 s later):`,
    '',
    '| job | 10 s loop | this action | most requests ahead of the loop, at any moment | foretold: seen within | promises hold |',
    '|---|---|---|---|---|---|',
    ...rows
  ];
}

/**
 * The same export jobs on the platform's next API, which sends no percent (nor page count): nothing
 * foretells an end, so the wait keeps the loop's beat alone. The promise: never more requests than
 * the loop at any moment, and every end seen no later than the loop sees it.
 */
export async function nextApiTable(): Promise<string[]> {
  const random = seededRandom(SEED);
  const rows: string[] = [];
  for (const job of JOBS_SIDE_BY_SIDE.filter((candidate) => candidate.kind === 'export')) {
    const row = await sideBySide(job, random, 'next');
    const holds = row.mostAhead <= 0 && row.ours.polls <= row.loop.polls + 1e-6 && row.ours.lateMs <= row.loop.lateMs + 1e-6;
    rows.push(`| ${job.shape} | ${polls(row.loop.polls)} · ${seconds(row.loop.lateMs)} | ${polls(row.ours.polls)} · ${seconds(row.ours.lateMs)} | ${row.mostAhead > 0 ? `+${row.mostAhead}` : row.mostAhead} | ${holds ? 'yes' : 'NO'} |`);
  }
  return [
    `On the platform's next static export API (no \`progress\`), the same export jobs on a fake clock, default inputs; each cell is *status requests · how late the end was seen*, mean of ${PHASES} phases:`,
    '',
    '| job | 10 s loop | this action | most requests ahead of the loop, at any moment | no more requests, end seen no later |',
    '|---|---|---|---|---|',
    ...rows
  ];
}

interface Tally {
  requests: number;
  loopRequests: number;
  foretold: number[];
  unforetold: number[];
  failures: number[];
}

const mean = (values: number[]) => (values.length === 0 ? NaN : values.reduce((sum, v) => sum + v, 0) / values.length);

/** Random export jobs of every shape, one phase each, waited on with max-poll-interval at each ceiling. */
export async function tradeOffTable(ceilingsMs = [10_000, 15_000, 20_000, 30_000, 60_000]): Promise<string[]> {
  const random = seededRandom(SEED);
  const jobs = Array.from({ length: JOBS }, (_, n) => ({ job: randomExport(random, SHAPES[n % SHAPES.length]), phaseMs: random() * LOOP_MS }));
  const loop: Tally = { requests: 0, loopRequests: 0, foretold: [], unforetold: [], failures: [] };
  const tallies = new Map<number, Tally>(ceilingsMs.map((ms) => [ms, { requests: 0, loopRequests: 0, foretold: [], unforetold: [], failures: [] }]));
  const add = (tally: Tally, job: SimJob, phaseMs: number, requests: number, lateMs: number, loopRequests: number) => {
    tally.requests += requests;
    tally.loopRequests += loopRequests;
    if (job.outcome === 'failed') tally.failures.push(lateMs);
    else if (foretoldAt(job, phaseMs)) tally.foretold.push(lateMs);
    else tally.unforetold.push(lateMs);
  };
  for (const { job, phaseMs } of jobs) {
    const theirs = loopWait(job, phaseMs);
    add(loop, job, phaseMs, theirs.polls.length, theirs.lateMs, theirs.polls.length);
    for (const ceilingMs of ceilingsMs) {
      const ours = await actionWait(job, phaseMs, { ...DEFAULT_LIMITS, ceilingMs });
      add(tallies.get(ceilingMs)!, job, phaseMs, ours.polls.length, ours.lateMs, theirs.polls.length);
    }
  }
  const line = (name: string, tally: Tally) =>
    `| ${name} | ${((100 * tally.requests) / tally.loopRequests).toFixed(0)}% | ${seconds(mean(tally.foretold))} | ${seconds(mean(tally.unforetold))} | ${seconds(mean(tally.failures))} |`;
  return [
    `The trade-off at a few max-poll-interval ceilings, measured on ${JOBS} random export jobs (every shape above, a quarter failing at a random moment; seed ${SEED}, one random phase each). ` +
      `Requests are a share of the 10 s loop's on the same jobs; the rest is the mean time from the end to seeing it (${loop.foretold.length} foretold completions, ${loop.unforetold.length} not foretold, ${loop.failures.length} failures):`,
    '',
    '| max-poll-interval | requests | foretold completions | completions not foretold | failures |',
    '|---|---|---|---|---|',
    line('the 10 s loop', loop),
    ...ceilingsMs.map((ms) => line(`${ms / 1000} s${ms === DEFAULT_LIMITS.ceilingMs ? ' (default)' : ''}`, tallies.get(ms)!))
  ];
}

// `node scripts/bench-wait.ts --next`: the table on the platform's next API, printed.
if (process.argv[1]?.endsWith('bench-wait.ts') && process.argv.includes('--next')) console.log((await nextApiTable()).join('\n'));

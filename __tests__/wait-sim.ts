// Simulated jobs on a fake clock, for the property test of the waiting and for `npm run bench`: a
// job's progress is a curve over time, its answers are what the platform would send at each moment
// (the shown percent, and `updatedAt` when that percent last changed, as the emulator dates them),
// and a wait runs the real schedule and the real wait loop with a clock that jumps. The platform's
// own loop is simulated alongside: a status request 10 s after the start and every 10 s after that.
import type { AgentJob } from '../src/platform/agent.ts';
import type { ExportJob } from '../src/platform/static-export.ts';
import { AgentSchedule } from '../src/wait/agent-schedule.ts';
import { ExportSchedule } from '../src/wait/export-schedule.ts';
import { StatusSchedule } from '../src/wait/status-schedule.ts';
import { type PollSchedule, type ScheduleLimits, waitUntilFinal } from '../src/wait/wait.ts';
import { fakeClock } from './fake-clock.ts';

/** The platform template's beat. */
export const LOOP_MS = 10_000;
/** The action's defaults (min-poll-interval, max-poll-interval). */
export const DEFAULT_LIMITS: ScheduleLimits = { floorMs: 1000, ceilingMs: 10_000 };

/** A knot of a progress curve: `t` ms after the job began running, `percent` then. Two knots at one `t` make a jump. */
export type Knot = [t: number, percent: number];

export interface SimJob {
  /** What it is, for a table or a failure message. */
  shape: string;
  kind: 'export' | 'agent' | 'deployment';
  /** How long it sits queued after the start. */
  queuedMs: number;
  /** Progress while running, from [0, percent]; the last knot is where it stops (100 for a completion). */
  knots: Knot[];
  /** When it ends, ms after it began running, and how. */
  endsAfterMs: number;
  outcome: 'completed' | 'failed';
  /** The status word while running: `running`, or one the API does not list. */
  runningWord: string;
  /** Whether its progress foretold the end (a steady last stretch the loop samples enough), so the action must see it within 1 s. */
  foretold: boolean;
  /** (server clock − ours), ms. */
  skewMs?: number;
}

export interface WaitRecord {
  /** When each status request was answered, ms after the start. */
  polls: number[];
  /** How late the end was seen. */
  lateMs: number;
}

const FINAL = { export: ['completed', 'failed'], agent: ['completed', 'archived', 'failed'], deployment: ['success', 'failure'] };

/** Progress at `t` ms into the run (right-continuous at a jump). */
export function progressAt(knots: Knot[], t: number): number {
  const [lastT, lastPercent] = knots.at(-1)!;
  if (t >= lastT) return lastPercent;
  for (let i = 0; i + 1 < knots.length; i++) {
    const [t0, p0] = knots[i];
    const [t1, p1] = knots[i + 1];
    if (t0 <= t && t < t1) return p0 + ((p1 - p0) * (t - t0)) / (t1 - t0);
  }
  return knots[0][1];
}

/** When the whole percent shown at `t` was first shown (the answer's `updatedAt`): walk back until it changes. */
export function shownSince(knots: Knot[], t: number): number {
  const shown = Math.floor(progressAt(knots, t));
  let cursor = t;
  for (let i = knots.length - 2; i >= 0; i--) {
    const [t0, p0] = knots[i];
    const [t1, p1] = knots[i + 1];
    if (t0 > cursor) continue;
    // Each segment is straight, so if its start shows the same percent, all of it up to the cursor does.
    if (Math.floor(p0) === shown) {
      cursor = t0;
      continue;
    }
    if (t1 === t0) return t0; // a jump
    const bound = p1 > p0 ? shown : shown + 1; // rising: it reached `shown`; falling: it left `shown + 1`
    return t0 + ((bound - p0) * (t1 - t0)) / (p1 - p0);
  }
  return Math.min(cursor, knots[0][0]);
}

/** The job's status word and shown progress at `at` ms after the start; `phaseMs` delays it all. */
export function stateAt(job: SimJob, at: number, phaseMs = 0) {
  const runAt = at - job.queuedMs - phaseMs;
  const skew = job.skewMs ?? 0;
  const server = (ms: number) => new Date(ms + skew).toISOString();
  const created = server(0);
  if (runAt < 0) return { status: job.kind === 'deployment' ? 'queued' : job.kind === 'agent' ? 'active' : 'queued', progress: 0, updatedAt: created };
  if (runAt >= job.endsAfterMs) {
    const ended = server(job.queuedMs + phaseMs + job.endsAfterMs);
    const word = { export: job.outcome, agent: job.outcome, deployment: job.outcome === 'completed' ? 'success' : 'failure' }[job.kind];
    return { status: word, progress: job.outcome === 'completed' ? 100 : Math.floor(progressAt(job.knots, job.endsAfterMs)), updatedAt: ended };
  }
  const running = job.kind === 'agent' ? 'active' : job.kind === 'deployment' ? 'in_progress' : job.runningWord;
  const progress = Math.floor(progressAt(job.knots, runAt));
  return { status: running, progress, updatedAt: server(job.queuedMs + phaseMs + shownSince(job.knots, runAt)) };
}

function scheduleFor(job: SimJob, limits: ScheduleLimits): PollSchedule<never> {
  if (job.kind === 'export') return new ExportSchedule(limits) as PollSchedule<never>;
  if (job.kind === 'agent') return new AgentSchedule(limits) as PollSchedule<never>;
  return new StatusSchedule(limits) as PollSchedule<never>;
}

/**
 * Which static export API answers: today's (a percent, and `updatedAt` when it last moved) or the
 * next one (openapi/platform/static-export-next.json: no percent, no page count, `updatedAt` when the status last changed).
 */
export type SimApi = 'today' | 'next';

function answer(job: SimJob, at: number, phaseMs: number, api: SimApi = 'today'): ExportJob & AgentJob & { statusId: string; logs: string[] } {
  const state = stateAt(job, at, phaseMs);
  const common = { id: 'job_sim', statusId: 'dep_sim', logs: [], createdAt: new Date(0).toISOString() };
  if (api === 'next' && job.kind === 'export') {
    const runAt = at - job.queuedMs - phaseMs;
    const changed = runAt < 0 ? 0 : runAt >= job.endsAfterMs ? job.queuedMs + phaseMs + job.endsAfterMs : job.queuedMs + phaseMs;
    const { progress: _progress, ...rest } = state;
    return { ...rest, ...common, jobId: '6520f3a1c9b1a20012ab34cd', updatedAt: new Date(changed + (job.skewMs ?? 0)).toISOString() } as ExportJob & AgentJob & { statusId: string; logs: string[] };
  }
  return { ...state, ...common, jobId: 'se_sim', pageCount: state.progress };
}

/** The action's wait: the real schedule and the real wait loop (`waitUntilFinal`), on a fake clock. */
export async function actionWait(job: SimJob, phaseMs = 0, limits = DEFAULT_LIMITS, api: SimApi = 'today'): Promise<WaitRecord> {
  const clock = fakeClock(0);
  const polls: number[] = [];
  const final = FINAL[job.kind];
  await waitUntilFinal({
    poll: async () => {
      polls.push(clock.now());
      return answer(job, clock.now(), phaseMs, api);
    },
    isFinal: (state) => final.includes(state.status),
    schedule: scheduleFor(job, limits),
    deadline: 24 * 3_600_000,
    initial: answer(job, 0, phaseMs, api),
    waitingOn: 'simulated job',
    now: clock.now,
    sleep: clock.sleep
  });
  return { polls, lateMs: polls.at(-1)! - endOf(job, phaseMs) };
}

/** The platform template's loop: a status request 10 s after the start, then every 10 s. */
export function loopWait(job: SimJob, phaseMs = 0, everyMs = LOOP_MS): WaitRecord {
  const end = endOf(job, phaseMs);
  const last = Math.max(1, Math.ceil(end / everyMs)) * everyMs;
  const polls = Array.from({ length: last / everyMs }, (_, i) => (i + 1) * everyMs);
  return { polls, lateMs: last - end };
}

/** When the job ends, ms after the start. */
export function endOf(job: SimJob, phaseMs = 0): number {
  return job.queuedMs + phaseMs + job.endsAfterMs;
}

/** Requests the loop has made by `at` (it stops at its last). */
export function loopCountAt(loop: WaitRecord, at: number): number {
  return loop.polls.filter((t) => t <= at).length;
}

/** A seeded generator of numbers in [0, 1) (mulberry32): a failing case is found again from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The shapes of progress the property test and the bench draw from. */
export const SHAPES = [
  'linear',
  'late start',
  'stall, then on',
  'stall, then jump',
  'a few big steps',
  'reset to 0',
  '99% and sit',
  'accelerating',
  'decelerating',
  'quick, then slow',
  'slow, then quick',
  'two stalls'
] as const;
export type Shape = (typeof SHAPES)[number];

/**
 * A random export job of `shape`: how long it queues, its progress, and whether it fails at a
 * random moment (`failing`), or as chance has it. `foretold` is set for phase 0; see foretoldAt.
 */
export function randomExport(random: () => number, shape: Shape, failing = random() < 0.25): SimJob {
  const between = (lo: number, hi: number) => lo + (hi - lo) * random();
  const logBetween = (lo: number, hi: number) => Math.exp(between(Math.log(lo), Math.log(hi)));
  const whole = (lo: number, hi: number) => Math.round(between(lo, hi));
  const runMs = logBetween(8000, 600_000);
  const at = (fraction: number) => fraction * runMs;
  let knots: Knot[];
  switch (shape) {
    case 'linear':
    case 'late start':
      knots = [[0, 0], [runMs, 100]];
      break;
    case 'stall, then on':
    case 'stall, then jump': {
      const stallAt = between(5, 95);
      const stallMs = logBetween(2000, 120_000);
      const t = at(stallAt / 100);
      const rest: Knot[] = shape === 'stall, then on' ? [[runMs + stallMs, 100]] : [[t + stallMs, stallAt + (stallMs / runMs) * 100], [runMs, 100]];
      knots = [[0, 0], [t, stallAt], [t + stallMs, stallAt], ...rest.filter(([, p]) => p <= 100)];
      if (knots.at(-1)![1] < 100) knots.push([runMs + stallMs, 100]);
      break;
    }
    case 'a few big steps': {
      const steps = whole(2, 5);
      knots = [[0, 0]];
      let percent = 0;
      let t = 0;
      for (let i = 1; i <= steps; i++) {
        t += logBetween(2000, 60_000);
        const next = i === steps ? 100 : whole(percent + 1, Math.min(99, percent + 60));
        knots.push([t, percent], [t, next]);
        percent = next;
      }
      break;
    }
    case 'reset to 0': {
      const resetAt = between(10, 99);
      const again = logBetween(8000, 600_000);
      knots = [[0, 0], [at(resetAt / 100), resetAt], [at(resetAt / 100), 0], [at(resetAt / 100) + again, 100]];
      break;
    }
    case '99% and sit':
      knots = [[0, 0], [runMs, 99], [runMs + logBetween(3000, 300_000), 99]];
      break;
    case 'accelerating':
    case 'decelerating': {
      const power = shape === 'accelerating' ? between(1.5, 3) : between(0.3, 0.7);
      knots = Array.from({ length: 13 }, (_, i): Knot => [at(i / 12), 100 * (i / 12) ** power]);
      break;
    }
    case 'quick, then slow':
    case 'slow, then quick': {
      const knee = between(20, 80);
      const kneeMs = shape === 'quick, then slow' ? at(between(0.05, 0.4)) : at(between(0.6, 0.95));
      knots = [[0, 0], [kneeMs, knee], [runMs, 100]];
      break;
    }
    case 'two stalls': {
      const [a, b] = [between(5, 50), between(50, 95)];
      const [sa, sb] = [logBetween(2000, 60_000), logBetween(2000, 60_000)];
      knots = [[0, 0], [at(a / 100), a], [at(a / 100) + sa, a], [at(b / 100) + sa, b], [at(b / 100) + sa + sb, b], [runMs + sa + sb, 100]];
      break;
    }
  }
  const queuedMs = shape === 'late start' ? between(20_000, 180_000) : between(0, 3000);
  const runningWord = random() < 0.3 ? (random() < 0.5 ? 'rendering' : 'processing') : 'running';
  // A completion ends where the progress does; a failure at a moment chosen at random.
  const lastKnot = knots.at(-1)![0];
  const job: SimJob = {
    shape,
    kind: 'export',
    queuedMs,
    knots,
    endsAfterMs: failing ? between(0, lastKnot) : lastKnot,
    outcome: failing ? 'failed' : 'completed',
    runningWord,
    foretold: false,
    skewMs: between(-50, 50)
  };
  job.foretold = foretoldAt(job, 0);
  return job;
}

/** A random agent job or deployment: a status word until it ends, at a random moment. */
export function randomStatusJob(random: () => number, kind: 'agent' | 'deployment'): SimJob {
  const endsAfterMs = Math.exp(Math.log(500) + (Math.log(1_200_000) - Math.log(500)) * random());
  return {
    shape: kind === 'agent' ? 'agent job' : 'deployment',
    kind,
    queuedMs: kind === 'deployment' ? 60_000 * random() : 0,
    knots: [[0, 0], [endsAfterMs, 100]],
    endsAfterMs,
    outcome: random() < 0.25 ? 'failed' : 'completed',
    runningWord: 'running',
    foretold: false
  };
}

/**
 * Whether the job's progress foretold its end, started `phaseMs` late: it completes at the end of a
 * steady last stretch, after at most one slowdown (each can cost an extra look that misses), and the
 * loop itself samples that stretch with distinct percents dated inside it: twice when the job ran
 * steadily from its start, three times otherwise (the first point after a bend may be dated by it).
 */
export function foretoldAt(job: SimJob, phaseMs: number): boolean {
  const { knots } = job;
  if (job.kind !== 'export' || job.outcome !== 'completed' || knots.length < 2) return false;
  const [ta, pa] = knots.at(-2)!;
  const [tb, pb] = knots.at(-1)!;
  if (pb !== 100 || tb <= ta || job.endsAfterMs !== tb) return false;
  // The pace of each stretch; a jump ahead has none, a drop (a reset) is the slowest of all.
  const paces: number[] = [];
  for (let i = 0; i + 1 < knots.length; i++) {
    const [t0, p0] = knots[i];
    const [t1, p1] = knots[i + 1];
    if (t1 === t0) {
      if (p1 < p0) paces.push(-Infinity);
      continue;
    }
    paces.push((p1 - p0) / (t1 - t0));
  }
  const slowdowns = paces.filter((pace, i) => i > 0 && pace < paces[i - 1]).length;
  if (slowdowns > 1) return false;
  const shown = new Set<number>();
  const start = job.queuedMs + phaseMs;
  for (let at = LOOP_MS; at < start + tb; at += LOOP_MS) {
    const run = at - start;
    if (run <= ta) continue;
    const percent = Math.floor(progressAt(knots, run));
    if (percent > Math.floor(pa)) shown.add(percent);
  }
  return shown.size >= (knots.length === 2 ? 2 : 3);
}

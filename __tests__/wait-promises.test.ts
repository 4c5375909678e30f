// The waiting's three promises against the platform's 10 s loop, with the default inputs, checked on
// thousands of random jobs on a fake clock (the real schedules and the real wait loop):
// 1. never more status requests: at every moment, the action's count is at most the loop's + 2;
// 2. never later on average: over phases of the same job (it starts later by 0..10 s), the mean
//    time from the end to seeing it is at most the loop's;
// 3. within 1 s when the progress foretold the end (see foretoldAt).
// A fixed seed and size in npm test; TEST_SEED and TEST_JOBS for other and larger runs. A failure
// prints the seed; TEST_SEED=<seed> runs that set again.
import { describe, expect, it } from '@jest/globals';
import {
  LOOP_MS,
  SHAPES,
  type SimJob,
  actionWait,
  foretoldAt,
  loopCountAt,
  loopWait,
  randomExport,
  randomStatusJob,
  seededRandom
} from './wait-sim.ts';

const SEED = Number(process.env.TEST_SEED ?? 271_828);
const JOBS = Number(process.env.TEST_JOBS ?? 800);
const PHASES = 12;
/** The constant: requests the action may make beyond the loop's, at any moment. */
const ALLOWED_EXTRA = 2;

/** What broke a promise on one job, or undefined. */
async function brokenPromise(job: SimJob, phaseShift: number): Promise<string | undefined> {
  let actionLate = 0;
  let loopLate = 0;
  for (let i = 0; i < PHASES; i++) {
    const phaseMs = ((i + phaseShift) / PHASES) * LOOP_MS;
    const ours = await actionWait(job, phaseMs);
    const loop = loopWait(job, phaseMs);
    for (const [k, at] of ours.polls.entries()) {
      if (k + 1 > loopCountAt(loop, at) + ALLOWED_EXTRA) return `phase ${phaseMs.toFixed(0)} ms: request ${k + 1} at ${at} ms, the loop had made ${loopCountAt(loop, at)}`;
    }
    if (ours.lateMs < 0) return `phase ${phaseMs.toFixed(0)} ms: saw an end ${-ours.lateMs} ms before it happened (the simulation is wrong)`;
    if (foretoldAt(job, phaseMs) && ours.lateMs > 1000) return `phase ${phaseMs.toFixed(0)} ms: a foretold end seen ${ours.lateMs.toFixed(0)} ms late (polls ${ours.polls.join(', ')})`;
    actionLate += ours.lateMs;
    loopLate += loop.lateMs;
  }
  if (actionLate > loopLate + 1e-6) return `later on average: ${(actionLate / PHASES).toFixed(0)} ms against the loop's ${(loopLate / PHASES).toFixed(0)} ms`;
  return undefined;
}

describe('waiting against the 10 s loop (property test, seeded)', () => {
  it(`holds the three promises on ${JOBS} random jobs of every shape, each at ${PHASES} phases`, async () => {
    const random = seededRandom(SEED);
    const broken: string[] = [];
    let foretold = 0;
    for (let n = 0; n < JOBS && broken.length < 5; n++) {
      const job = n % 8 === 6 ? randomStatusJob(random, 'agent') : n % 8 === 7 ? randomStatusJob(random, 'deployment') : randomExport(random, SHAPES[n % SHAPES.length]);
      if (job.foretold) foretold += 1;
      const problem = await brokenPromise(job, random());
      if (problem) broken.push(`job ${n} (${job.shape}, ${job.outcome}): ${problem}\n  ${JSON.stringify(job)}`);
    }
    if (broken.length > 0) console.error(`Seed ${SEED} broke a promise (run again with TEST_SEED=${SEED}):\n${broken.join('\n')}`);
    expect({ seed: SEED, broken }).toEqual({ seed: SEED, broken: [] });
    // The promise of landing within a second was put to the test, not skipped by the generator.
    expect(foretold).toBeGreaterThan(JOBS / 10);
  }, 300_000);
});

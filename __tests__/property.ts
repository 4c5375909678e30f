// Property tests with fast-check: random cases from a seed, and on a failure the seed, the path to
// the failing case and the smallest case fast-check could shrink it to, with the line that replays it.
// One knob per test (`FUZZ_ARCHIVES`, `TIMELINES`, …) sets the number of cases; TEST_SEED (or the
// test's own seed variable) and TEST_PATH replay a run or one case of it.
import fc from 'fast-check';

export interface PropertyOptions {
  /** How many cases, when the environment does not say (`runsVar`). */
  runs: number;
  /** The environment variable that sets the number of cases: FUZZ_ARCHIVES, TIMELINES, … */
  runsVar: string;
  /** The seed when the environment does not give one: a fixed one, so `npm test` is the same every time. */
  seed: number;
  /** The environment variable that gives the seed: TEST_SEED unless the test has its own (TIMELINE_SEED). */
  seedVar?: string;
  /** The test file, for the replay line. */
  file: string;
}

/** The run's settings from the environment: seed, cases and, to replay one case, its path. */
export function propertySettings(options: PropertyOptions, env = process.env): { seed: number; runs: number; path: string | undefined } {
  return { seed: Number(env[options.seedVar ?? 'TEST_SEED'] ?? options.seed), runs: Number(env[options.runsVar] ?? options.runs), path: env.TEST_PATH || undefined };
}

/**
 * Checks `property` on random cases of `arbitrary`; throws, on a failure, fast-check's report (the
 * seed, the path, the shrunk counterexample and its error) and the command that replays it.
 */
export async function checkProperty<T>(arbitrary: fc.Arbitrary<T>, property: (value: T) => Promise<void>, options: PropertyOptions): Promise<void> {
  const { seed, runs, path } = propertySettings(options);
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      await property(value);
    }),
    { seed, numRuns: runs, path }
  );
  if (!details.failed) return;
  const replay = `To replay this case: ${options.seedVar ?? 'TEST_SEED'}=${details.seed} TEST_PATH=${details.counterexamplePath ?? ''} npm test -- ${options.file}`;
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`${fc.defaultReportMessage(details) ?? 'The property failed.'}\nIts error on the shrunk case:\n${error}\n${replay}`);
}

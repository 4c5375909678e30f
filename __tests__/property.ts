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
  /** A `-t` pattern for the replay line, when the file holds other tests (a path replays one property only). */
  testName?: string;
  /** Environment variables that shape the cases (TIMELINE_DAYS, …): the replay line repeats those that are set. */
  knobs?: string[];
  /**
   * How long shrinking may go on, for cases that take seconds: once spent, the remaining candidates are
   * skipped (not interrupted: a run stopped halfway would go on against the shared emulators) and the
   * smallest failing case found so far is reported.
   */
  shrinkMs?: number;
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
  let firstFailure: number | undefined;
  let budgetSpent = false;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      if (firstFailure !== undefined && options.shrinkMs !== undefined && performance.now() - firstFailure > options.shrinkMs) {
        budgetSpent = true;
        fc.pre(false);
      }
      try {
        await property(value);
      } catch (error) {
        firstFailure ??= performance.now();
        throw error;
      }
    }),
    { seed, numRuns: runs, path }
  );
  if (!details.failed) return;
  const knobs = (options.knobs ?? []).filter((name) => process.env[name] !== undefined).map((name) => `${name}=${process.env[name]} `);
  const only = options.testName ? ` -t '${options.testName}'` : '';
  const replay = `To replay this case: ${knobs.join('')}${options.seedVar ?? 'TEST_SEED'}=${details.seed} TEST_PATH=${details.counterexamplePath ?? ''} npm test -- ${options.file}${only}`;
  const cut = budgetSpent ? `\nShrinking stopped after ${Math.round(options.shrinkMs! / 1000)} s: a smaller case may still fail (the replay line goes on shrinking from this one).` : '';
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`${fc.defaultReportMessage(details) ?? 'The property failed.'}${cut}\nIts error on the shrunk case:\n${error}\n${replay}`);
}

/**
 * A list of exactly `length` items when drawn, that shrinks as a list of any shorter length: a run keeps
 * its full size (a month of events), and a counterexample loses every item it does not need.
 * (`fc.array` with a minLength would never shrink below it; without one it draws lists of any length.)
 */
export function fullList<T>(item: fc.Arbitrary<T>, length: number): fc.Arbitrary<T[]> {
  const drawn = fc.array(item, { minLength: length, maxLength: length });
  // The same kind of arbitrary with the same items, so the contexts the drawn list carries serve its shrinking.
  const shrunk = fc.array(item, { maxLength: length });
  return new (class extends fc.Arbitrary<T[]> {
    generate(random: fc.Random, biasFactor: number | undefined): fc.Value<T[]> {
      return drawn.generate(random, biasFactor);
    }
    canShrinkWithoutContext(value: unknown): value is T[] {
      return shrunk.canShrinkWithoutContext(value);
    }
    shrink(value: T[], context: unknown): fc.Stream<fc.Value<T[]>> {
      return shrunk.shrink(value, context);
    }
  })();
}

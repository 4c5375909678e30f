// Jest runs in ESM mode (`@actions/*` and `p-retry` ship ESM only), on the .ts files as they are with
// their types stripped (no type check; `npm run lint` checks types).
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // Node's own type stripping, as `node scripts/*.ts` runs the sources (the file says why not ts-jest).
  transform: { '^.+\\.ts$': '<rootDir>/__tests__/setup/strip-types.mjs' },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  // The network guard: tests and the processes they start reach loopback only (__tests__/setup/).
  globalSetup: '<rootDir>/__tests__/setup/global-setup.mjs',
  // quick-bottleneck: the GitHub client's schedulers without a timer's millisecond per hand-over (the file says why).
  setupFilesAfterEnv: ['<rootDir>/__tests__/setup/after-each.mjs', '<rootDir>/__tests__/setup/quick-bottleneck.mjs'],
  // The longest files first on a fresh clone too, where jest knows no durations yet (the file says why).
  testSequencer: '<rootDir>/__tests__/setup/sequencer.mjs',
  // Twelve workers on two cores. Most files spend their time waiting on emulated jobs, deployments
  // and child processes, not on the CPU, so on a quiet machine six already kept both cores busy.
  // Beside other work (issue 44 measures the suite beside `stress-ng --cpu 2`), the kernel shares the
  // cores among runnable threads: six workers got 1.4 of the 2 cores, twelve 1.6 to 1.7, for about
  // the same CPU seconds (a tenth off the suite's time). Twelve use about 5 GB of memory in all.
  maxWorkers: 12,
  testTimeout: 60000
};

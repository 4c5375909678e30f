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
  // Six workers on two cores: most files spend their time waiting on emulated jobs, deployments
  // and child processes, not on the CPU (with four, the suite kept 1.5 of the 2 cores busy: 129 s;
  // with six, 1.8: 109 s).
  maxWorkers: 6,
  testTimeout: 60000
};

// Jest runs in ESM mode (`@actions/*` and `p-retry` ship ESM only). ts-jest strips the types with the
// pinned TypeScript 6 (isolatedModules: one file at a time, no type check; `npm run lint` checks
// types). It has no per-platform native binary, so the lock file is complete on every machine.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        useESM: true,
        tsconfig: {
          target: 'ES2023',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          isolatedModules: true,
          verbatimModuleSyntax: true,
          allowImportingTsExtensions: true,
          // The sources import `./x.ts`; jest loads those files as they are, so keep the names.
          rewriteRelativeImportExtensions: false,
          sourceMap: true
        }
      }
    ]
  },
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

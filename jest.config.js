// Jest runs in ESM mode (`@actions/*` and `p-retry` ship ESM only); swc strips the types.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
        module: { type: 'es6' }
      }
    ]
  },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  // End-to-end tests start child processes and servers; two cores, so keep the pool small.
  maxWorkers: 2,
  testTimeout: 60000
};

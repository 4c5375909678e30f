// Lint: the recommended rules of ESLint and typescript-eslint; tsc (npm run lint) checks types.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Browser code the rendering test runs in the page.
  { files: ['**/*.browser.js'], languageOptions: { globals: { window: 'readonly', document: 'readonly', NodeFilter: 'readonly' } } },
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', performance: 'readonly', NodeJS: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' }
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }]
    }
  },
  // A run reads the runner and writes to it through its environment (src/action/environment.ts), so
  // that two runs can go at once in one process: @actions/core and process.env only through there.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/action/core.ts', 'src/action/environment.ts', 'src/entry/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: '@actions/core', message: "Import src/action/core.ts: the same calls, in the run's own environment." }] }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: "Read a runner variable with core.variable() (src/action/core.ts): the run's own, not the process's." }]
    }
  }
);

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
  }
);

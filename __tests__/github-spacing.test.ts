// GitHub's writes are spaced a second apart against its secondary rate limits, except on a GitHub API
// on this machine (the emulator of tests and `npm run try`), which has none.
import { describe, expect, it } from '@jest/globals';
import { onThisMachine } from '../src/github/client.ts';

describe('where writes to GitHub are spaced a second apart', () => {
  it.each(['http://127.0.0.1:4011', 'http://localhost:8080/api', 'http://[::1]:9000', 'http://127.3.2.1'])('on this machine, not spaced: %s', (url) => {
    expect(onThisMachine(url)).toBe(true);
  });

  it.each([undefined, 'https://api.github.com', 'https://ghe.example.com/api/v3', 'http://ghe.internal.invalid/api/v3', 'not a url'])('elsewhere, spaced: %s', (url) => {
    expect(onThisMachine(url)).toBe(false);
  });
});

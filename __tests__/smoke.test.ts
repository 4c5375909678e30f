import { describe, expect, it } from '@jest/globals';
import pRetry from 'p-retry';

describe('toolchain', () => {
  it('runs ESM-only packages under jest on Node 24', async () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
    await expect(pRetry(async () => 'ok', { retries: 0 })).resolves.toBe('ok');
  });
});

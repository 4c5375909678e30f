// In each test file: install the network guard in this worker, and fail the test during which
// anything connected outside loopback, naming where (the code under test may have swallowed the error).
import { afterEach } from '@jest/globals';
import { installNetworkGuard, takeViolations } from './network-guard.mjs';

installNetworkGuard();

afterEach(() => {
  const refused = takeViolations();
  if (refused.length > 0) throw new Error(`This test connected outside loopback, to ${[...new Set(refused)].join(', ')}. Tests reach loopback only: serve it from an emulator on 127.0.0.1 (a link the action downloads too).`);
});

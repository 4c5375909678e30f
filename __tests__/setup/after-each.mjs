// In each test file: install the network guard in this worker, and fail the test during which
// anything connected outside loopback, naming where (the code under test may have swallowed the error).
import { afterEach } from '@jest/globals';
import { installNetworkGuard, takeViolations } from './network-guard.mjs';

installNetworkGuard();

// What the emulators answered or received that the real APIs' descriptions do not allow
// (emulator/contract-check.ts pushes here, on the process, which every realm of the worker shares).
const CONTRACT = Symbol.for('static-export-action.contract-violations');
process[CONTRACT] ??= { violations: [], expected: [] };

afterEach(() => {
  const refused = takeViolations();
  const seen = process[CONTRACT].violations.splice(0);
  // What the test declared with offContract() (__tests__/contract.ts) is let through, and must have happened.
  const expected = process[CONTRACT].expected.splice(0);
  const broken = seen.filter((line) => !expected.some((pattern) => pattern.test(line)));
  const stale = expected.filter((pattern) => !seen.some((line) => pattern.test(line)));
  if (broken.length > 0) throw new Error(`${[...new Set(broken)].join('\n')}\nAn emulator must answer as the real service's description says (openapi/): fix the emulator, or, if the service really sends this, say so in the test with offContract().`);
  if (stale.length > 0) throw new Error(`The test said it goes off the description (offContract ${stale.join(', ')}), and no exchange did.`);
  if (refused.length > 0) throw new Error(`This test connected outside loopback, to ${[...new Set(refused)].join(', ')}. Tests reach loopback only: serve it from an emulator on 127.0.0.1 (a link the action downloads too).`);
});

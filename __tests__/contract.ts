// For the few tests that go off the real APIs' descriptions on purpose (a bad body sent to see the
// emulator refuse it, a status word the enum does not list, as real servers send): they say so, and
// the check of every exchange (emulator/contract-check.ts, __tests__/setup/after-each.mjs) lets
// exactly those through, and fails the test if none happened, so the declaration cannot go stale.
const CONTRACT = Symbol.for('static-export-action.contract-violations');

interface ContractState {
  violations: string[];
  expected: RegExp[];
}

/** This test sends or answers, on purpose, what the description does not allow: one pattern per kind. */
export function offContract(...patterns: RegExp[]): void {
  const state = (process as unknown as Record<symbol, ContractState>)[CONTRACT];
  state.expected.push(...patterns);
}

// Once per `npm test`, before any worker starts: the processes the tests start (the bundles under
// dist/, through emulator/runner.ts) load the network guard too, and every emulator checks its
// answers against the real APIs' descriptions. Workers inherit this environment.
import { fileURLToPath } from 'node:url';

export default function globalSetup() {
  process.env.NETWORK_GUARD = fileURLToPath(new URL('./network-guard-child.mjs', import.meta.url));
  // Every emulator a test starts, in a worker or in a process the test starts, checks what it
  // answers and receives against the real APIs' descriptions (emulator/contract-check.ts).
  // EMULATOR_CONTRACT_CHECK=0 turns it off, to measure what it costs.
  process.env.EMULATOR_CONTRACT_CHECK ??= '1';
  // The publish actions poll on a constant 10 s beat; a bundle a test runs under dist/ polls the
  // emulator's jobs of a fraction of a second on this short one instead (src/action/platform-inputs.ts,
  // passed on by emulator/runner.ts). In-process runs take theirs through RunOptions.knobs.
  process.env.STATIC_EXPORT_TEST_ONLY_POLL_MS ??= '50,250';
}

// Once per `npm test`, before any worker starts: the processes the tests start (the bundles under
// dist/, through emulator/runner.ts) load the network guard too. Workers inherit this environment.
import { fileURLToPath } from 'node:url';

export default function globalSetup() {
  process.env.NETWORK_GUARD = fileURLToPath(new URL('./network-guard-child.mjs', import.meta.url));
}

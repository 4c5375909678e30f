// Loaded with `node --import` into each action the runner emulator starts under the test suite
// (emulator/runner.ts): the action's process ends at once when it connects outside loopback.
import { installNetworkGuard } from './network-guard.mjs';

installNetworkGuard({ inChild: true });

// In each test file: the GitHub client's schedulers hand over at once instead of after a timer.
//
// @octokit/plugin-retry and @octokit/plugin-throttling (src/github/client.ts) pass every request
// through Bottleneck, whose local store yields to the event loop with setTimeout(resolve, 0) three
// or four times a job: a millisecond each at least, so 4.5 ms a schedule and some 15 ms a GitHub
// request against the emulator (1 ms with @actions/github's client without the two plugins,
// measured in one Node process on this machine). An in-process run of 16 requests took 310 ms, of
// which some 140 ms on the CPU; with this, 115 ms (timeline.test.ts alone: 34 s to 13 s). Here the
// store yields with setImmediate: still a hand-over to the event loop (pending I/O goes first),
// without the timer's millisecond. Bottleneck's other timers (minTime, the write spacing, a retry's
// delay, its own run scheduling) stay as they are; only yieldLoop(0) changes. The bundles under
// dist/ that tests start as processes run as built, with their timers.
import { setImmediate } from 'node:timers';
import Bottleneck from 'bottleneck/light.js';

// The local store's class is not exported: it is the class of any limiter's store.
const LocalDatastore = Object.getPrototypeOf(new Bottleneck()._store);
const yieldLoop = LocalDatastore.yieldLoop;
LocalDatastore.yieldLoop = function quickYieldLoop(t = 0) {
  if (t > 0) return yieldLoop.call(this, t);
  return new this.Promise((resolve) => setImmediate(resolve));
};

// In each test file: the GitHub client's schedulers hand over at once instead of after a timer.
//
// @octokit/plugin-retry and @octokit/plugin-throttling (src/github/client.ts) pass every request
// through Bottleneck, whose local store yields to the event loop with setTimeout(resolve, 0) three
// or four times a job: a millisecond each at least, so 4.5 ms a schedule and some 15 ms a GitHub
// request against the emulator (1 ms with @actions/github's client alone, measured in this worker).
// At the 20 requests of a run, that is a third of a second of each in-process run spent asleep:
// 30 s of the month timelines' 34. Here the store yields with setImmediate: the same hand-over
// to the event loop (anything due runs first), without the timer's millisecond. Bottleneck's
// waits that mean something (minTime, the write spacing, a retry's delay) keep their timers; only
// yieldLoop(0) changes. Processes a test starts run the bundles under dist/ as they are.
import { setImmediate } from 'node:timers';
import Bottleneck from 'bottleneck/light.js';

// The local store's class is not exported: it is the class of any limiter's store.
const LocalDatastore = Object.getPrototypeOf(new Bottleneck()._store);
const yieldLoop = LocalDatastore.yieldLoop;
LocalDatastore.yieldLoop = function quickYieldLoop(t = 0) {
  if (t > 0) return yieldLoop.call(this, t);
  return new this.Promise((resolve) => setImmediate(resolve));
};

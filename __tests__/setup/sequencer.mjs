// Which test files jest starts first. It starts the longest first, by the durations of the last run
// it remembers; on a fresh clone (CI, a new worktree) it has none and goes by file size instead.
// holiday.test.ts is five lines that import timeline.test.ts's holiday half, a minute of work, so by
// size it started last and the whole suite waited on it (a fresh worktree's run beside
// stress-ng: 242 s, the last 63 s on holiday.test.ts alone). Here a file that imports another test
// file weighs what both weigh; everything else is jest's own order.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Sequencer from '@jest/test-sequencer';

const Base = Sequencer.default ?? Sequencer;

/** A test file's size, plus the size of each test file it imports (`import('./x.test.ts')`). */
function weight(path) {
  const text = readFileSync(path, 'utf8');
  const imported = [...text.matchAll(/import\(\s*['"](\.[^'"]+\.test\.ts)['"]\s*\)/g)].map((match) => resolve(dirname(path), match[1]));
  return text.length + imported.reduce((sum, file) => sum + readFileSync(file, 'utf8').length, 0);
}

export default class LongestFirst extends Base {
  sort(tests) {
    const weights = new Map();
    const weightOf = (test) => weights.get(test.path) ?? weights.set(test.path, weight(test.path)).get(test.path);
    for (const test of tests) test.duration = this.time(test);
    // As jest's own sort: failed first, then files it has no duration for, then the longest.
    return tests.sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      const timedA = a.duration != null;
      if (timedA !== (b.duration != null)) return timedA ? 1 : -1;
      if (timedA) return a.duration < b.duration ? 1 : -1;
      return weightOf(a) < weightOf(b) ? 1 : -1;
    });
  }
}

// `npm run bench:suite [-- --runs 3] [--try-only | --suite-only]`: the two figures a contributor and a
// new user wait on, measured as whole processes.
// - The suite: `npm test` in this checkout, --runs times (3 by default), min/median/max wall seconds
//   (issue 34's budget: 120 s on a two-core machine).
// - A first try: a fresh clone of HEAD into a temporary folder, `npm ci`, then `npm run try` on a
//   chart of the values corpus, up to the first pull request `try` reports (issue 36's budget: a minute).
// Run it on a quiet machine, or say how loaded it was (it prints the load average).
import { spawnSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] || 3);
const CHART = '__tests__/fixtures/values-real/bitnami__charts__bitnami__postgresql__values.yaml';

function timed(command: string, argv: string[], cwd: string): { seconds: number; out: string } {
  const started = performance.now();
  const run = spawnSync(command, argv, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`${command} ${argv.join(' ')} failed in ${cwd}:\n${run.stdout}\n${run.stderr}`);
  return { seconds, out: run.stdout };
}

const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');
const spread = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `min ${sorted[0]!.toFixed(1)} s, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} s, max ${sorted.at(-1)!.toFixed(1)} s`;
};

if (!args.includes('--try-only')) {
  const walls: number[] = [];
  for (let i = 0; i < runs; i++) {
    walls.push(timed('npm', ['test', '--silent'], process.cwd()).seconds);
    console.log(`npm test, run ${i + 1} of ${runs}: ${walls.at(-1)!.toFixed(1)} s (load ${load()})`);
  }
  console.log(`npm test: ${spread(walls)}`);
}

if (!args.includes('--suite-only')) {
  const work = mkdtempSync(join(tmpdir(), 'first-try-'));
  try {
    timed('git', ['clone', '--quiet', resolve('.'), work], process.cwd());
    const install = timed('npm', ['ci', '--no-fund', '--no-audit'], work);
    const tried = timed('npm', ['run', 'try', '--', '--values', CHART], work);
    const firstPull = Number(/the first pull request after ([\d.]+) s/.exec(tried.out)?.[1] ?? NaN);
    console.log(`a fresh clone: npm ci ${install.seconds.toFixed(1)} s, then npm run try ${tried.seconds.toFixed(1)} s (its first pull request after ${firstPull} s): ` + `the first pull request ${(install.seconds + firstPull).toFixed(1)} s after starting (load ${load()})`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

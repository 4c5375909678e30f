// `npm run bench:suite [-- --runs 3] [--try-only | --suite-only] [--json <file>]`: the two figures a
// contributor and a new user wait on, measured as whole processes. `--json` keeps jest's per-file and
// per-test durations of each run (`<file>.<run>.json`), to see where a slow run spent its time.
// - The suite: `npm test` in this checkout, --runs times (3 by default), min/median/max wall seconds
//   (issue 34's budget: 120 s on a two-core machine).
// - A first try: a fresh clone of HEAD into a temporary folder, `npm ci`, then `npm run try` on a
//   chart of the values corpus, up to the first pull request `try` reports (issue 36's budget: a minute).
// Run it on a quiet machine, or say how loaded it was (it prints the load average).
import { spawnSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] || 3);
const json = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const CHART = '__tests__/fixtures/values-real/bitnami__charts__bitnami__postgresql__values.yaml';

function timed(command: string, argv: string[], cwd: string): { seconds: number; out: string } {
  const started = performance.now();
  const run = spawnSync(command, argv, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`${command} ${argv.join(' ')} failed in ${cwd}:\n${run.stdout}\n${run.stderr}`);
  return { seconds, out: run.stdout };
}

/**
 * CPU seconds (user + system) of every process this one has waited for, jest's workers and the bundles
 * they start included (/proc/self/stat's cutime and cstime): what the suite costs whatever else loads
 * the machine, where its wall time depends on how much of the two cores the other work leaves it.
 */
function childCpuSeconds(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
    // After the command's name: state is field 3, cutime 16 and cstime 17 (proc(5)), in clock ticks of 1/100 s.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined; // not Linux
  }
}

const load = () => loadavg().map((n) => n.toFixed(1)).join(' ');
const spread = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `min ${sorted[0]!.toFixed(1)} s, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} s, max ${sorted.at(-1)!.toFixed(1)} s`;
};

if (!args.includes('--try-only')) {
  const walls: number[] = [];
  for (let i = 0; i < runs; i++) {
    const report = json ? ['--', '--json', `--outputFile=${resolve(`${json}.${i + 1}.json`)}`] : [];
    const cpuBefore = childCpuSeconds();
    walls.push(timed('npm', ['test', '--silent', ...report], process.cwd()).seconds);
    const cpuAfter = childCpuSeconds();
    const cpu = cpuBefore === undefined || cpuAfter === undefined ? '' : `, ${(cpuAfter - cpuBefore).toFixed(1)} CPU s`;
    console.log(`npm test, run ${i + 1} of ${runs}: ${walls.at(-1)!.toFixed(1)} s${cpu} (load ${load()})`);
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

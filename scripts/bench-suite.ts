// `npm run bench:suite [-- --runs 3] [--try-only | --suite-only] [--stress] [--offline] [--file F] [--json <file>]`:
// the two figures a contributor and a new user wait on, measured as whole processes. `--json` keeps
// jest's per-file and per-test durations of each run (`<file>.<run>.json`), to see where a slow run
// spent its time.
// - The suite: `npm test` in this checkout, --runs times (3 by default), min/median/max wall seconds
//   (issue 44's budget: 120 s on a two-core machine, beside `stress-ng --cpu 2`).
//   - --stress: two busy processes beside it for the whole measure (stress-ng --cpu 2, Debian's
//     stress-ng), as issue 44 measures it.
//   - --offline: each run in a network namespace of its own with loopback only (`unshare -rn`), so a
//     test that reached past loopback fails rather than passes on this machine's network.
//   - --file F: that test file alone, --runs times in a row, going on past a failure: how many passed,
//     and each failure's output in a file (issue 44: a file that failed once passes 20 runs in a row).
// - A first try: a fresh clone of HEAD into a temporary folder, `npm ci`, then `npm run try` on a
//   chart of the values corpus, up to the first pull request `try` reports (issue 36's budget: a minute).
// Run it on a quiet machine, or say how loaded it was (it prints the load average).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] || 3);
const file = args.includes('--file') ? args[args.indexOf('--file') + 1] : undefined;
const json = args.includes('--json') ? args[args.indexOf('--json') + 1] : undefined;
const CHART = '__tests__/fixtures/values-real/bitnami__charts__bitnami__postgresql__values.yaml';

function timed(command: string, argv: string[], cwd: string, { check = true } = {}): { seconds: number; out: string; passed: boolean } {
  const started = performance.now();
  const run = spawnSync(command, argv, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = (performance.now() - started) / 1000;
  if (check && run.status !== 0) throw new Error(`${command} ${argv.join(' ')} failed in ${cwd}:\n${run.stdout}\n${run.stderr}`);
  return { seconds, out: `${run.stdout}\n${run.stderr}`, passed: run.status === 0 };
}

/** `npm test` (on file, when given; `jest` its further arguments), offline in a loopback-only namespace with --offline. */
function testCommand(jest: string[] = []): [string, string[]] {
  const rest = [...(file ? [file] : []), ...jest];
  const npm = `npm test --silent${rest.length > 0 ? ` -- ${rest.map((arg) => `'${arg}'`).join(' ')}` : ''}`;
  return args.includes('--offline') ? ['unshare', ['-rn', 'sh', '-c', `ip link set lo up && exec ${npm}`]] : ['sh', ['-c', npm]];
}

let stress: ChildProcess | undefined;
if (args.includes('--stress')) {
  stress = spawn('stress-ng', ['--cpu', '2', '--quiet'], { stdio: 'ignore' });
  process.on('exit', () => stress?.kill());
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

if (file) {
  const [command, argv] = testCommand();
  let passed = 0;
  for (let i = 0; i < runs; i++) {
    const run = timed(command, argv, process.cwd(), { check: false });
    if (run.passed) passed++;
    else writeFileSync(join(tmpdir(), `bench-suite-failure-${i + 1}.log`), run.out);
    console.log(`${file}, run ${i + 1} of ${runs}: ${run.passed ? 'passed' : `FAILED (its output: ${join(tmpdir(), `bench-suite-failure-${i + 1}.log`)})`} in ${run.seconds.toFixed(1)} s (load ${load()})`);
  }
  console.log(`${file}: ${passed} of ${runs} runs passed${stress ? ', beside stress-ng --cpu 2' : ''}${args.includes('--offline') ? ', offline' : ''}`);
} else if (!args.includes('--try-only')) {
  const walls: number[] = [];
  for (let i = 0; i < runs; i++) {
    const [command, argv] = testCommand(json ? ['--json', `--outputFile=${resolve(`${json}.${i + 1}.json`)}`] : []);
    const cpuBefore = childCpuSeconds();
    walls.push(timed(command, argv, process.cwd()).seconds);
    const cpuAfter = childCpuSeconds();
    const cpu = cpuBefore === undefined || cpuAfter === undefined ? '' : `, ${(cpuAfter - cpuBefore).toFixed(1)} CPU s`;
    console.log(`npm test, run ${i + 1} of ${runs}: ${walls.at(-1)!.toFixed(1)} s${cpu} (load ${load()})`);
  }
  console.log(`npm test: ${spread(walls)}${stress ? ', beside stress-ng --cpu 2' : ''}${args.includes('--offline') ? ', offline' : ''}`);
}

if (!args.includes('--suite-only') && !file) {
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
stress?.kill();

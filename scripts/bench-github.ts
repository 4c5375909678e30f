// `npm run bench:github [-- path/to/index.js] [--calls]`: how many GitHub calls the configuration pull
// request costs on a good day, per path. Each call is rate-limit budget that the user's other
// workflows share, so robustness must not cost calls. Runs the built bundle (dist/index.js by default,
// or another build, such as an older one, to compare) against the emulators on loopback; `--calls`
// lists each run's calls. The runs reuse a finished export (job-id): a run that starts an export, or
// waits for a push to be published, reads the base's head once more after it (one call), since
// minutes went by.
import { readFileSync } from 'node:fs';
import { startGitHubEmulator } from '../emulator/github.ts';
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import { runAction } from '../emulator/runner.ts';

const listCalls = process.argv.includes('--calls');
const bundle = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'dist/index.js';
const values = readFileSync('__tests__/fixtures/config/values.yaml', 'utf8');
// A fixed clock: the same job in the same second gives the same link, so a re-run is "already current".
const now = Date.now();
const platform = await startPlatformEmulator({ clock: () => now });
const github = await startGitHubEmulator();
github.createRepo('acme/deploy', { 'deploy/values.yaml': values });

async function calls(jobId: string): Promise<{ calls: number; outcome: string }> {
  github.requests.length = 0;
  const run = await runAction(
    bundle,
    { 'api-key': DEFAULT_API_KEY, 'api-url': platform.url, 'github-token': 'ghs_emulator_token', 'config-path': 'deploy/values.yaml', domain: 'docs.example.com', 'job-id': jobId, 'pr-labels': 'docs' },
    { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/deploy' }
  );
  if (run.code !== 0) throw new Error(`the run failed:\n${run.log}`);
  if (listCalls) console.log(`${run.outputs['pull-request-operation']}:\n${github.requests.map((r) => `  ${r.method} ${decodeURIComponent(r.path)} ${r.status}`).join('\n')}`);
  return { calls: github.requests.length, outcome: run.outputs['pull-request-operation'] ?? '' };
}

const first = platform.seedExportJob({ domain: 'docs.example.com' });
const second = platform.seedExportJob({ domain: 'docs.example.com' });
const rows: [string, { calls: number; outcome: string }][] = [];
rows.push(['new pull request', await calls(first)]);
rows.push(['update (a new export)', await calls(second)]);
rows.push(['already current', await calls(second)]);
// A person merges the proposal: the base now holds the link, and a re-run has nothing to propose.
// (Closing it unmerged instead is a person's no, whose export is read from the file at its head: one call more.)
github.mergePull('acme/deploy', github.pulls('acme/deploy')[0]!.number, 'squash');
rows.push(['base already holds the link', await calls(second)]);

console.log(`GitHub calls per run of ${bundle}:`);
for (const [path, { calls: count, outcome }] of rows) console.log(`  ${path.padEnd(30)} ${String(count).padStart(3)}  (pull-request-operation: ${outcome})`);
await platform.close();
await github.close();

// Builds one bundle per action with ncc, as actions/cache does: the root action, agent-job/ and
// feedback/ each run their own file under dist/. dist/ is committed: the runner runs it as it is.
import { execFileSync } from 'node:child_process';

const entries = [
  ['src/entry/publish.ts', 'dist'],
  ['src/entry/agent-job.ts', 'dist/agent-job'],
  ['src/entry/feedback.ts', 'dist/feedback']
];

for (const [entry, out] of entries) {
  execFileSync(process.execPath, ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', entry, '-o', out, '--license', 'licenses.txt', '--quiet'], {
    stdio: 'inherit'
  });
}

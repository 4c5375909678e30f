// Builds one bundle per action with ncc, as actions/cache does: the root action, agent-job/ and
// feedback/ each run their own file under dist/. dist/ is committed: the runner runs it as it is.
// Minified, with a source map beside each bundle: every bundle carries @actions/core's HTTP stack
// (undici, ~0.5 MB minified), and minifying keeps the three within about 2 MB instead of 4+ MB.
// The maps (index.js.map) let a stack trace from a user's log be mapped back to src/.
import { execFileSync } from 'node:child_process';

const entries = [
  ['src/entry/publish.ts', 'dist'],
  ['src/entry/agent-job.ts', 'dist/agent-job'],
  ['src/entry/feedback.ts', 'dist/feedback']
];

for (const [entry, out] of entries) {
  execFileSync(process.execPath, ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', entry, '-o', out, '--minify', '--source-map', '--license', 'licenses.txt', '--quiet'], {
    stdio: 'inherit'
  });
}

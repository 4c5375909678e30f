// Builds one bundle per action with ncc. dist/ is committed: the runner runs it as it is.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const entries = [
  ['src/entry/publish.ts', 'dist']
];

rmSync('dist', { recursive: true, force: true });
for (const [entry, out] of entries) {
  execFileSync(process.execPath, ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', entry, '-o', out, '--license', 'licenses.txt', '--quiet'], {
    stdio: 'inherit'
  });
}

// Builds one bundle per action with ncc, as actions/cache does: the root action, renew/, host/,
// agent-job/ and feedback/ each run their own file under dist/. dist/ is committed: the runner runs it as it is.
// Minified, with a source map beside each bundle (index.js.map) so that a stack trace from a
// user's log can be mapped back to src/ (`node --enable-source-maps dist/index.js`, or any
// source-map tool). The map is not registered at run time (ncc's sourcemap-register): the first
// stack trace a run formats, an error met and retried, made it parse the whole 3.7 MB map, some
// 0.3 s of CPU in every run that met one, for a trace the step never shows.
import ncc from '@vercel/ncc';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// @actions/core imports @actions/http-client, which imports all of undici (0.44 MB minified, five
// times the rest of agent-job's bundle) for one ProxyAgent that agent-job and feedback never use:
// actions/toolkit#1621. ncc cannot tree-shake it, so those two bundles take the stand-in in
// scripts/no-undici.mjs instead, inlined as a data: URL module so that each bundle stays one file.
// The root action keeps the real undici: @actions/github sends its fetch() through ProxyAgent
// when the runner has a proxy. __tests__/proxy.e2e.test.ts runs all three behind a proxy.
const withoutUndici = {
  undici: `data:text/javascript,${encodeURIComponent(readFileSync('scripts/no-undici.mjs', 'utf8'))}`
};

const bundles = [
  // The root action's bundle holds the one reconcile that renew/ and host/ run too (PUBLISH_KINDS).
  { entry: 'src/entry/publish.ts', out: 'dist', externals: {} },
  { entry: 'src/entry/agent-job.ts', out: 'dist/agent-job', externals: withoutUndici },
  { entry: 'src/entry/feedback.ts', out: 'dist/feedback', externals: withoutUndici }
];

/**
 * renew/ and host/ run the root action's bundle as their own kind of run: a two-line entry names the
 * kind (src/entry/publish.ts reads it) and imports ../index.js, so the reconcile is bundled once, not
 * three times (three identical 1.2 MB bundles, and three ncc runs of the same code).
 */
const PUBLISH_KINDS = { 'dist/renew': 'renew', 'dist/host': 'host' };

function writeKindEntries() {
  for (const [out, kind] of Object.entries(PUBLISH_KINDS)) {
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, 'index.js'),
      `// ${kind}/'s entry, written by scripts/build.mjs: the publish actions' one bundle (../index.js), run as ${kind}/.\nglobalThis.staticExportKind = '${kind}';\nawait import('../index.js');\n`
    );
  }
}

/** One bundle, in this process. */
async function build({ entry, out, externals }) {
  const { code, assets } = await ncc(resolve(entry), {
    minify: true,
    sourceMap: true,
    sourceMapRegister: false,
    license: 'licenses.txt',
    externals,
    quiet: true
  });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.js'), code);
  for (const [name, asset] of Object.entries(assets)) {
    mkdirSync(dirname(join(out, name)), { recursive: true });
    writeFileSync(join(out, name), asset.source);
  }
}

/** One bundle in a child of its own: ncc's work is synchronous, so bundles share the cores only as processes. */
function buildApart(out) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--only', out], { stdio: 'inherit' });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`building ${out} failed (exit ${code})`))));
  });
}

const only = process.argv.indexOf('--only');
if (only >= 0) {
  await build(bundles.find((bundle) => bundle.out === process.argv[only + 1]));
} else {
  // dist/ holds what this build writes and nothing an earlier one left (a file it no longer makes).
  rmSync('dist', { recursive: true, force: true });
  // As many bundles at once as there are cores; each bundle's output is the same either way.
  const waiting = [...bundles];
  const worker = async () => {
    for (let next = waiting.shift(); next; next = waiting.shift()) await buildApart(next.out);
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), bundles.length) }, worker));
  writeKindEntries();
}

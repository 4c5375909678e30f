// Bundle entry of the three publish actions (dist/index.js): the root action runs it as it is; renew/
// and host/ run a two-line entry (dist/renew/index.js, dist/host/index.js, written by
// scripts/build.mjs) that names its kind on globalThis before it imports this bundle. A global and not
// an environment variable: nothing a workflow sets can change what kind of run a step is.
import { run } from '../publish/main.ts';
import { runAction } from '../action/runtime.ts';
import type { RunKind } from '../publish/run-kind.ts';

const kind = (globalThis as { staticExportKind?: RunKind }).staticExportKind ?? 'export';
await runAction((cancellation) => run(cancellation, { kind }));

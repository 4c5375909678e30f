// Bundle entry of host/ (dist/host/index.js): the one reconcile of src/publish, proposing a hosted URL.
import { run } from '../publish/main.ts';
import { runAction } from '../action/runtime.ts';

await runAction((cancellation) => run(cancellation, { kind: 'host' }));

// Bundle entry of renew/ (dist/renew/index.js): the one reconcile of src/publish, as a renewal.
import { run } from '../publish/main.ts';
import { runAction } from '../action/runtime.ts';

await runAction((cancellation) => run(cancellation, { kind: 'renew' }));

// Bundle entry of the feedback action (dist/feedback/index.js).
import { run } from '../feedback/run.ts';
import { runAction } from '../action/runtime.ts';

await runAction(run);

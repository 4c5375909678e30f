// Bundle entry of the feedback action (dist/feedback/index.js).
import { run } from '../feedback.ts';
import { runAction } from '../runtime.ts';

await runAction(run);

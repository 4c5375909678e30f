// Bundle entry of the agent-job action (dist/agent-job/index.js).
import { run } from '../agent-job/run.ts';
import { runAction } from '../action/runtime.ts';

await runAction(run);

// Bundle entry of the agent-job action (dist/agent-job/index.js).
import { run } from '../agent-job.ts';
import { runAction } from '../runtime.ts';

await runAction(run);

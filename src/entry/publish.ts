// Bundle entry of the root action (dist/index.js).
import { run } from '../publish/main.ts';
import { runAction } from '../action/runtime.ts';

await runAction(run);

// Bundle entry of the root action (dist/index.js).
import { run } from '../publish.ts';
import { runAction } from '../runtime.ts';

await runAction(run);

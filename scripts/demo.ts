// `npm run demo`: the publish action for real on this machine. Starts the platform emulator on
// loopback, runs the built dist/index.js as the runner would, and shows the log as it comes, then
// the outputs and the job summary a user would see.
import { fakeSha } from '../emulator/deployments.ts';
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import { runnerLog, startAction } from '../emulator/runner.ts';
import type { ApiShape } from '../emulator/platform-state.ts';

const started = Date.now();
// `npm run demo -- --api-shape next`: the platform's next static export API (project-scoped routes, export.zip), or `both`.
const shapeFlag = process.argv.indexOf('--api-shape');
const apiShape = shapeFlag < 0 ? undefined : (process.argv[shapeFlag + 1] as ApiShape);
if (apiShape !== undefined && !['today', 'next', 'both'].includes(apiShape)) throw new Error(`--api-shape expects today, next or both, got "${apiShape}"`);
const emulator = await startPlatformEmulator({ profile: { queuedMs: 1500, runMs: 8000, pageCount: 128 }, deployments: { branch: 'docs', deployMs: 3000 }, apiShape });
// A push to the docs branch, as the workflow's trigger: the platform starts publishing it on its own.
const pushed = fakeSha('demo push');
emulator.deployments.push('docs', pushed, 'Document the new CLI flags');
console.log(`Platform emulator on ${emulator.url}. A push of ${pushed.slice(0, 7)} to docs has just landed;`);
console.log('running dist/index.js as the push workflow would: wait until it is published, then export it…\n');

const action = startAction(
  'dist/index.js',
  { 'api-key': DEFAULT_API_KEY, domain: 'docs.example.com', 'api-url': emulator.url, 'project-id': 'demo-project', timeout: '2m' },
  { GITHUB_EVENT_NAME: 'push', GITHUB_SHA: pushed, GITHUB_REF: 'refs/heads/docs' },
  // The runner shows ::debug:: lines only with step debug logging on; neither does the demo.
  { onOutput: (text) => process.stdout.write(indent(runnerLog(text).replace(/^::debug::.*\n?/gm, ''))) }
);
const run = await action.done;
await emulator.close();

console.log('\nOutputs:');
for (const [name, value] of Object.entries(run.outputs)) console.log(`  ${name} = ${value}`);
console.log('\nJob summary (as text):');
console.log(indent(summaryAsText(run.summary)));
const statusCalls = emulator.requests.filter((r) => r.route === 'status').length;
const deploymentCalls = emulator.requests.filter((r) => r.route === 'deploy-status').length;
console.log(`Deployment status requests: ${deploymentCalls}; export status requests: ${statusCalls}. Exit code ${run.code}. Demo took ${((Date.now() - started) / 1000).toFixed(1)} s.`);
process.exit(run.code ?? 1);

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}

/** The summary is HTML; a terminal reader wants rows and text. */
function summaryAsText(html: string): string {
  return html
    .replace(/<h2>(.*?)<\/h2>/g, '## $1\n')
    .replace(/<tr><th>(.*?)<\/th><td>(.*?)<\/td><\/tr>/g, '$1: $2\n')
    .replace(/<\/?(table|code|p|strong)>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

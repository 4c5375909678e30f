// `npm run demo`: the publish action for real on this machine. Starts the platform emulator on
// loopback, runs the built dist/index.js as the runner would, and shows the log as it comes, then
// the outputs and the job summary a user would see.
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import { runnerLog, startAction } from '../emulator/runner.ts';

const started = Date.now();
const emulator = await startPlatformEmulator({ profile: { queuedMs: 1500, runMs: 8000, pageCount: 128 } });
console.log(`Platform emulator on ${emulator.url}; running dist/index.js for docs.example.com…\n`);

const action = startAction(
  'dist/index.js',
  { 'api-key': DEFAULT_API_KEY, domain: 'docs.example.com', 'api-url': emulator.url, timeout: '2m' },
  {},
  { onOutput: (text) => process.stdout.write(indent(runnerLog(text))) }
);
const run = await action.done;
await emulator.close();

console.log('\nOutputs:');
for (const [name, value] of Object.entries(run.outputs)) console.log(`  ${name} = ${value}`);
console.log('\nJob summary (as text):');
console.log(indent(summaryAsText(run.summary)));
const statusCalls = emulator.requests.filter((r) => r.route === 'status').length;
console.log(`Status requests: ${statusCalls}. Exit code ${run.code}. Demo took ${((Date.now() - started) / 1000).toFixed(1)} s.`);
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

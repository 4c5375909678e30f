// Runs the platform emulator as a process, for dry runs and the demo:
//   node emulator/cli.ts --port 4010 --run-ms 3000 --fail-at 40
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DEFAULT_API_KEY, sampleFeedback, startPlatformEmulator } from './platform.ts';
import type { EmulatorOptions, PlatformEmulator } from './platform.ts';
import { DEPLOYMENT_FAULTS, type DeploymentFault } from './deployments.ts';

export { startPlatformEmulator };

const USAGE =
  'Usage: node emulator/cli.ts [--port 4010] [--queued-ms 300] [--run-ms 2000] [--page-count 120] [--fail-at 40] [--link-ttl 3600] [--api-key KEY]\n' +
  '                            [--deploy-branch main] [--deploy-ms 1500] [--deploy-fault failure|unknown-status|missing-commit]';

function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) throw new Error(`--${name} expects a number >= 0, got "${value}"`);
  return number;
}

// Turns command-line flags into emulator options; throws with the usage on a bad flag.
export function parseCliOptions(args: string[]): EmulatorOptions {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      'queued-ms': { type: 'string' },
      'run-ms': { type: 'string' },
      'page-count': { type: 'string' },
      'fail-at': { type: 'string' },
      'link-ttl': { type: 'string' },
      'api-key': { type: 'string' },
      'deploy-branch': { type: 'string' },
      'deploy-ms': { type: 'string' },
      'deploy-fault': { type: 'string' }
    },
    strict: true
  });
  return {
    port: numberFlag('port', values.port) ?? 4010,
    apiKey: values['api-key'] ?? DEFAULT_API_KEY,
    linkTtlSeconds: numberFlag('link-ttl', values['link-ttl']),
    profile: {
      queuedMs: numberFlag('queued-ms', values['queued-ms']),
      runMs: numberFlag('run-ms', values['run-ms']),
      pageCount: numberFlag('page-count', values['page-count']),
      failAt: numberFlag('fail-at', values['fail-at'])
    },
    feedback: sampleFeedback(Date.now()),
    deployments: { branch: values['deploy-branch'], deployMs: numberFlag('deploy-ms', values['deploy-ms']) }
  };
}

/** --deploy-fault: checked here, armed once the emulator runs. */
function deployFault(args: string[]): DeploymentFault | undefined {
  const { values } = parseArgs({ args, options: { 'deploy-fault': { type: 'string' } }, strict: false });
  const fault = values['deploy-fault'];
  if (fault === undefined) return undefined;
  if (typeof fault !== 'string' || !DEPLOYMENT_FAULTS.includes(fault as DeploymentFault)) throw new Error(`--deploy-fault expects one of ${DEPLOYMENT_FAULTS.join(', ')}, got "${String(fault)}"`);
  return fault as DeploymentFault;
}

// Starts the emulator from flags and returns it with the line the CLI prints.
export async function startFromArgs(args: string[]): Promise<{ emulator: PlatformEmulator; banner: string }> {
  const options = parseCliOptions(args);
  const fault = deployFault(args);
  const emulator = await startPlatformEmulator(options);
  if (fault) emulator.deployments.arm(fault);
  // Print only the well-known test key; a key passed by flag stays off the console.
  const keyNote = options.apiKey === DEFAULT_API_KEY ? DEFAULT_API_KEY : 'the one given by --api-key';
  return { emulator, banner: `Platform emulator listening on ${emulator.url} (admin key: ${keyNote})` };
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(`${USAGE}\nFaults are switched at runtime: POST /_emulator/faults with {"route":"status","kind":"503"}\n(routes: start, status, bundle, agent-get, agent-create, feedback, download, deploy, deploy-status; kinds: 500, 503, 429, drop, hang, 409, truncate).\nPushes and deployment faults: POST /_emulator/deployment with {"push":{"branch":"main","sha":"<40 hex>"}} or {"fault":"failure","times":1}.`);
    return;
  }
  let started: Awaited<ReturnType<typeof startFromArgs>>;
  try {
    started = await startFromArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
  console.log(started.banner);
  const stop = (): void => {
    started.emulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Run only when started as a script, not when imported.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}

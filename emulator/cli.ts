// Runs the platform emulator as a process, for dry runs and the demo:
//   node emulator/cli.ts --port 4010 --run-ms 3000 --fail-at 40
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DEFAULT_API_KEY, startPlatformEmulator } from './platform.ts';
import type { EmulatorOptions, PlatformEmulator } from './platform.ts';
import { sampleFeedback } from './platform-state.ts';
import { DEPLOYMENT_FAULTS, type DeploymentFault } from './deployments.ts';
import { type GitHubEmulator, startGitHubEmulator } from './github.ts';
import { FAULT_KINDS, ROUTE_NAMES } from './platform-faults.ts';
import { GITHUB_FAULT_KINDS, type GitHubFault, OPERATION_NAMES, parseGitHubFault } from './github-faults.ts';

const USAGE =
  'Usage: node emulator/cli.ts [--port 4010] [--queued-ms 300] [--run-ms 2000] [--page-count 120] [--fail-at 40] [--link-ttl 3600] [--api-key KEY]\n' +
  '                            [--deploy-branch main] [--deploy-ms 1500] [--deploy-fault failure|unknown-status|missing-commit]\n' +
  '                            [--github [--github-fault KIND@CALL[*TIMES][=VALUE] ...]]';

function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) throw new Error(`--${name} expects a number >= 0, got "${value}"`);
  return number;
}

// Turns command-line flags into emulator options; throws with the usage on a bad flag.
function parseCliOptions(args: string[]): EmulatorOptions {
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
      'deploy-fault': { type: 'string' },
      github: { type: 'boolean' },
      'github-fault': { type: 'string', multiple: true }
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

/** --github and its faults: checked here, before anything starts. */
function githubFlags(args: string[]): { github: boolean; faults: GitHubFault[] } {
  const { values } = parseArgs({ args, options: { github: { type: 'boolean' }, 'github-fault': { type: 'string', multiple: true } }, strict: false });
  const faults = ((values['github-fault'] ?? []) as string[]).map(parseGitHubFault);
  if (faults.length > 0 && !values.github) throw new Error('--github-fault needs --github');
  return { github: values.github === true, faults };
}

/** --deploy-fault: checked here, armed once the emulator runs. */
function deployFault(args: string[]): DeploymentFault | undefined {
  const { values } = parseArgs({ args, options: { 'deploy-fault': { type: 'string' } }, strict: false });
  const fault = values['deploy-fault'];
  if (fault === undefined) return undefined;
  if (typeof fault !== 'string' || !DEPLOYMENT_FAULTS.includes(fault as DeploymentFault)) throw new Error(`--deploy-fault expects one of ${DEPLOYMENT_FAULTS.join(', ')}, got "${String(fault)}"`);
  return fault as DeploymentFault;
}

/** The repository the GitHub emulator starts with, so config-path can be tried at once. */
const DEMO_REPOSITORY = 'acme/deploy';
const DEMO_VALUES = `# The docs chart's values, as a team keeps them.
staticExport:
  enabled: false
  # Presigned link returned by the generate operation.
  bundleUrl: ""
`;

// Starts the emulators from flags and returns them with the lines the CLI prints.
export async function startFromArgs(args: string[]): Promise<{ emulator: PlatformEmulator; github?: GitHubEmulator; banner: string }> {
  const options = parseCliOptions(args);
  const fault = deployFault(args);
  const githubOptions = githubFlags(args);
  const emulator = await startPlatformEmulator(options);
  if (fault) emulator.deployments.arm(fault);
  // Print only the well-known test key; a key passed by flag stays off the console.
  const keyNote = options.apiKey === DEFAULT_API_KEY ? DEFAULT_API_KEY : 'the one given by --api-key';
  const lines = [`Platform emulator listening on ${emulator.url} (admin key: ${keyNote})`];
  if (!githubOptions.github) return { emulator, banner: lines[0]! };
  const github = await startGitHubEmulator();
  github.createRepo(DEMO_REPOSITORY, { 'deploy/values.yaml': DEMO_VALUES });
  for (const armed of githubOptions.faults) github.addFault(armed);
  lines.push(
    `GitHub REST emulator listening on ${github.url}`,
    `  GITHUB_API_URL=${github.url}  GITHUB_REPOSITORY=${DEMO_REPOSITORY}  github-token: ghs_emulator_token`,
    `  ${DEMO_REPOSITORY} holds deploy/values.yaml on main: try config-path: deploy/values.yaml`,
    ...githubOptions.faults.map((f) => `  fault armed: ${f.kind} at ${f.call !== undefined ? `call ${f.call}` : (f.operation ?? 'the next call')}${f.times ? ` ×${f.times}` : ''}`)
  );
  return { emulator, github, banner: lines.join('\n') };
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(`${USAGE}\nFaults are switched at runtime: POST /_emulator/faults with {"route":"status","kind":"503"}\n(routes: ${ROUTE_NAMES.join(', ')}; kinds: ${FAULT_KINDS.join(', ')}).\nPushes and deployment faults: POST /_emulator/deployment with {"push":{"branch":"main","sha":"<40 hex>"}} or {"fault":"failure","times":1}.\n\n` +
        `--github also starts the GitHub REST emulator (prints GITHUB_API_URL), with ${DEMO_REPOSITORY} holding deploy/values.yaml.\n` +
        `--github-fault KIND@CALL[*TIMES][=VALUE] (repeatable) arms a fault at a call number (1 = the first call) or at an operation:\n` +
        Object.entries(GITHUB_FAULT_KINDS).map(([kind, what]) => `  ${kind.padEnd(10)} ${what}`).join('\n') +
        `\noperations: ${OPERATION_NAMES.join(', ')}\nexamples: --github-fault 502@3  --github-fault lost@git.createRef  --github-fault secondary@pulls.create*2=5`);
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
    Promise.all([started.emulator.close(), started.github?.close()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Run only when started as a script, not when imported.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}

// Runs the platform emulator as a process, for dry runs and the demo:
//   node emulator/cli.ts --port 4010 --run-ms 3000 --fail-at 40
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DEFAULT_API_KEY, startPlatformEmulator } from './platform.ts';
import type { EmulatorOptions, PlatformEmulator } from './platform.ts';
import { type ApiShape, sampleFeedback } from './platform-state.ts';

const API_SHAPES: ApiShape[] = ['today', 'next', 'both'];
import { DEPLOYMENT_FAULTS, type DeploymentFault } from './deployments.ts';
import { type GitHubEmulator, startGitHubEmulator } from './github.ts';
import { FAULT_KINDS, ROUTE_NAMES } from './platform-faults.ts';
import { GITHUB_FAULT_KINDS, type GitHubFault, OPERATION_NAMES, parseGitHubFault } from './github-faults.ts';

const USAGE =
  'Usage: npm run emulator -- [--port 4010] [--queued-ms 300] [--run-ms 2000] [--page-count 120] [--fail-at 40] [--link-ttl 604800] [--api-key KEY]\n' +
  '                           [--pages-added 2] [--pages-removed 2] [--pages-edited 3]\n' +
  '                           [--api-shape today|next|both]\n' +
  '                           [--deploy-branch main] [--deploy-ms 1500] [--deploy-fault failure|unknown-status|missing-commit]\n' +
  '                           [--github [--github-port 4011] [--github-fault KIND@CALL[*TIMES][=VALUE] ...]] [--help]\n' +
  '  (or node emulator/cli.ts with the same flags; --port 0 or --github-port 0 takes any free port)';

function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) throw new Error(`--${name} expects a number >= 0, got "${value}"`);
  return number;
}

function definedOnly<T extends object>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>;
}

export interface CliOptions {
  help: boolean;
  platform: EmulatorOptions;
  deployFault?: DeploymentFault;
  /** Absent without --github. */
  github?: { port: number; faults: GitHubFault[] };
}

// Turns command-line flags into emulator options; throws on a bad flag (the caller adds the usage).
export function parseCliOptions(args: string[]): CliOptions {
  const { values } = parseArgs({
    args,
    options: {
      help: { type: 'boolean', short: 'h' },
      port: { type: 'string' },
      'queued-ms': { type: 'string' },
      'run-ms': { type: 'string' },
      'page-count': { type: 'string' },
      'fail-at': { type: 'string' },
      'link-ttl': { type: 'string' },
      'pages-added': { type: 'string' },
      'pages-removed': { type: 'string' },
      'pages-edited': { type: 'string' },
      'api-key': { type: 'string' },
      'api-shape': { type: 'string' },
      'deploy-branch': { type: 'string' },
      'deploy-ms': { type: 'string' },
      'deploy-fault': { type: 'string' },
      github: { type: 'boolean' },
      'github-port': { type: 'string' },
      'github-fault': { type: 'string', multiple: true }
    },
    strict: true
  });
  const fault = values['deploy-fault'];
  if (fault !== undefined && !DEPLOYMENT_FAULTS.includes(fault as DeploymentFault)) throw new Error(`--deploy-fault expects one of ${DEPLOYMENT_FAULTS.join(', ')}, got "${fault}"`);
  const githubFaults = (values['github-fault'] ?? []).map(parseGitHubFault);
  const apiShape = values['api-shape'];
  if (apiShape !== undefined && !API_SHAPES.includes(apiShape as ApiShape)) throw new Error(`--api-shape expects one of ${API_SHAPES.join(', ')}, got "${apiShape}"`);
  if (githubFaults.length > 0 && !values.github) throw new Error('--github-fault needs --github');
  if (values['github-port'] !== undefined && !values.github) throw new Error('--github-port needs --github');
  return {
    help: values.help === true,
    platform: {
      port: numberFlag('port', values.port) ?? 4010,
      apiKey: values['api-key'] ?? DEFAULT_API_KEY,
      // today: the static export API's jobs routes; next: its project-scoped routes (export.zip, 409, 429); both: the day it moves.
      apiShape: apiShape as ApiShape | undefined,
      linkTtlSeconds: numberFlag('link-ttl', values['link-ttl']),
      profile: {
        queuedMs: numberFlag('queued-ms', values['queued-ms']),
        runMs: numberFlag('run-ms', values['run-ms']),
        pageCount: numberFlag('page-count', values['page-count']),
        failAt: numberFlag('fail-at', values['fail-at']),
        // What each export changes from the one before; an unset flag keeps the emulator's default.
        changes: definedOnly({
          added: numberFlag('pages-added', values['pages-added']),
          removed: numberFlag('pages-removed', values['pages-removed']),
          edited: numberFlag('pages-edited', values['pages-edited'])
        })
      },
      feedback: sampleFeedback(Date.now()),
      // Unset flags stay undefined: the deployments keep their own defaults for them.
      deployments: { branch: values['deploy-branch'], deployMs: numberFlag('deploy-ms', values['deploy-ms']) }
    },
    deployFault: fault as DeploymentFault | undefined,
    github: values.github ? { port: numberFlag('github-port', values['github-port']) ?? 0, faults: githubFaults } : undefined
  };
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
  const emulator = await startPlatformEmulator(options.platform);
  if (options.deployFault) emulator.deployments.arm(options.deployFault);
  // Print only the well-known test key; a key passed by flag stays off the console.
  const keyNote = options.platform.apiKey === DEFAULT_API_KEY ? DEFAULT_API_KEY : 'the one given by --api-key';
  const deployed = emulator.deployments.settings.branch;
  const lines = [
    `Platform emulator listening on ${emulator.url} (admin key: ${keyNote})`,
    `  it deploys ${deployed}: a push run wants GITHUB_REF=refs/heads/${deployed} (--deploy-branch changes it), and project-id: any id`,
    `  static export speaks ${emulator.apiShape === 'next' ? "the next API only (project-scoped routes, export.zip): give project-id" : emulator.apiShape === 'both' ? "both APIs, today's and the next (--api-shape)" : "today's API (--api-shape next or both for the platform's next one)"}`
  ];
  if (!options.github) return { emulator, banner: lines.join('\n') };
  let github: GitHubEmulator;
  try {
    github = await startGitHubEmulator({ port: options.github.port });
  } catch (error) {
    await emulator.close();
    throw error;
  }
  github.createRepo(DEMO_REPOSITORY, { 'deploy/values.yaml': DEMO_VALUES });
  const githubOptions = options.github;
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
  const args = process.argv.slice(2);
  let help: boolean;
  try {
    help = parseCliOptions(args).help;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
  if (help) {
    console.log(`${USAGE}\nFaults are switched at runtime: POST /_emulator/faults with {"route":"status","kind":"503"}\n(routes: ${ROUTE_NAMES.join(', ')}; kinds: ${FAULT_KINDS.join(', ')}).\nPushes and deployment faults: POST /_emulator/deployment with {"push":{"branch":"main","sha":"<40 hex>"}} or {"fault":"failure","times":1}.\n\n` +
        `--github also starts the GitHub REST emulator (prints GITHUB_API_URL), with ${DEMO_REPOSITORY} holding deploy/values.yaml.\n` +
        `--github-fault KIND@CALL[*TIMES][=VALUE] (repeatable) arms a fault at a call number (1 = the first call) or at an operation:\n` +
        Object.entries(GITHUB_FAULT_KINDS).map(([kind, what]) => `  ${kind.padEnd(10)} ${what}`).join('\n') +
        `\noperations: ${OPERATION_NAMES.join(', ')}\nexamples: --github-fault 502@3  --github-fault lost@git.createRef  --github-fault secondary@pulls.create*2=5`);
    return;
  }
  let started: Awaited<ReturnType<typeof startFromArgs>>;
  try {
    started = await startFromArgs(args);
  } catch (error) {
    // A port in use is the likely cause here: say which, without the usage.
    const busy = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? ' (another emulator may still be running; stop it or choose another --port / --github-port)' : '';
    console.error(`${error instanceof Error ? error.message : String(error)}${busy}\n${busy ? '' : USAGE}`);
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

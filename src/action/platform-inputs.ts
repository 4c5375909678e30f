// The inputs every action of this repository reads alike, and the API client they make from them:
// the admin key (masked before anything else is read), the API's URL, one request's time limit,
// and, for the actions that wait, the bounds of polling. The last two are inputs of the actions that
// declare them (agent-job/, feedback/) and constants in the three publish actions (issue 41), which
// declare neither: a workflow had no reason to set them (docs/behaviour.md says why these values).
import * as core from './core.ts';
import { checkAdminKey } from '../platform/key.ts';
import { ApiClient, type ApiClientOptions } from '../platform/transport.ts';
import { DEFAULT_API_URL, PlatformInput, PollInput, ProjectInput, TEST_POLL_MS_VARIABLE } from './constants.ts';
import { InputError, isBareNumber, parseBaseUrl, parseDuration } from './inputs.ts';
import type { Cancellation } from './runtime.ts';
import type { ScheduleLimits } from '../wait/wait.ts';

/** One request's time limit where no input sets it: the whole answer included, and never past the step's timeout. */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The poll bounds where no input sets them: the beat of the platform's own loop (`sleep 10`, so an
 * end nothing foretold is seen no later than the loop sees it) and never two looks within a second.
 */
export const POLL_LIMITS: Readonly<ScheduleLimits> = { floorMs: 1000, ceilingMs: 10_000 };

/** POLL_LIMITS as TEST_POLL_MS_VARIABLE sets them, for a bundle a test runs under dist/. */
function testPollLimits(): ScheduleLimits | undefined {
  const text = core.variable(TEST_POLL_MS_VARIABLE);
  if (!text) return undefined;
  const [floorMs, ceilingMs] = text.split(',').map(Number);
  if (!Number.isInteger(floorMs) || !Number.isInteger(ceilingMs) || floorMs! < 0 || ceilingMs! < Math.max(1, floorMs!)) {
    throw new Error(`${TEST_POLL_MS_VARIABLE} is '${text}': a test sets it to 'floor,ceiling' in milliseconds, such as '50,250'.`);
  }
  return { floorMs: floorMs!, ceilingMs: ceilingMs! };
}

export interface PlatformInputs {
  apiKey: string;
  apiUrl: string;
  requestTimeoutMs: number;
}

/**
 * Read first: the key is masked before any other input, so no later message can echo it.
 * `keyOptional`: an empty key is returned as '' for the caller to decide (a run that sends nothing
 * to the platform needs none); otherwise it is an error. `requestTimeoutInput`: the action declares
 * request-timeout (agent-job/, feedback/); otherwise one request's limit is REQUEST_TIMEOUT_MS.
 */
export function readPlatformInputs(options: { keyOptional?: boolean; requestTimeoutInput?: boolean } = {}): PlatformInputs {
  const apiKey = core.getInput(PlatformInput.ApiKey);
  if (apiKey !== '') core.setSecret(apiKey);
  if (apiKey.trim() === '' && !options.keyOptional) {
    // What a workflow passes when the secret is not set (a fork, a typo in its name): say so.
    throw new InputError(
      PlatformInput.ApiKey,
      'is empty. Pass your admin API key from a secret, for example api-key: ${{ secrets.DOCS_ADMIN_KEY }}; a secret that is not set (or not available to this workflow, as in a pull request from a fork) arrives empty.'
    );
  }
  const base = parseBaseUrl(PlatformInput.ApiUrl, core.getInput(PlatformInput.ApiUrl) || DEFAULT_API_URL);
  if (base.droppedVersion) core.notice(`Input 'api-url' ends in /v1, as in the platform's OpenAPI files; using ${base.url}, since each request's path carries its own version.`);
  return {
    apiKey: options.keyOptional && apiKey.trim() === '' ? '' : checkAdminKey(PlatformInput.ApiKey, apiKey),
    apiUrl: base.url,
    requestTimeoutMs: options.requestTimeoutInput ? readDuration(PlatformInput.RequestTimeout, '30s') : REQUEST_TIMEOUT_MS
  };
}

/** A duration input, or its default; a bare number is read as seconds, and the log says so. */
export function readDuration(name: string, fallback: string, options: { allowZero?: boolean } = {}): number {
  const text = core.getInput(name).trim() || fallback;
  const ms = parseDuration(name, text, options);
  if (isBareNumber(text)) core.notice(`Input '${name}': ${text} has no unit, so it is read as ${text} seconds. Write ${text}s to say so, or use m or h.`);
  return ms;
}

/** The project the agent and analytics operations address. */
export function readProjectId(): string {
  const projectId = core.getInput(ProjectInput.ProjectId).trim();
  if (projectId === '') {
    throw new InputError(ProjectInput.ProjectId, 'is required. Copy your project id from the API keys page of the dashboard.');
  }
  if (/[\s/]/.test(projectId)) throw new InputError(ProjectInput.ProjectId, `'${projectId}' is not a project id: it has a space or a slash.`);
  return projectId;
}

/** The poll bounds: the action's own min-poll-interval and max-poll-interval where its action.yml declares them (`declared`: agent-job/), else POLL_LIMITS. */
export function readPollLimits(options: { declared?: boolean } = {}): ScheduleLimits {
  if (!options.declared) return testPollLimits() ?? { ...POLL_LIMITS };
  const minText = core.getInput(PollInput.MinPollInterval) || '1s';
  const floorMs = readDuration(PollInput.MinPollInterval, '1s', { allowZero: true });
  const ceilingMs = readDuration(PollInput.MaxPollInterval, '10s');
  if (ceilingMs < floorMs) throw new InputError(PollInput.MaxPollInterval, `must not be shorter than min-poll-interval (${minText}).`);
  return { floorMs, ceilingMs };
}

/** The client of an action's run: its requests log to the debug log, its retries to the log. */
export function platformClient(inputs: PlatformInputs, cancellation: Cancellation, options: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({
    baseUrl: inputs.apiUrl,
    apiKey: inputs.apiKey,
    requestTimeoutMs: inputs.requestTimeoutMs,
    signal: cancellation.signal,
    debug: (line) => core.debug(line),
    onRetry: (message) => core.info(message),
    warn: (message) => core.warning(message),
    ...options
  });
}

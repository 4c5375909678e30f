// Starting an export on the project-scoped routes (the next shape): what the user gave that the
// platform no longer takes is refused before the start, and the shape's own answers are met:
// 409 while a job is queued or running for the deployment (wait for it, then start again, within the
// step's timeout), and 429 past 10 starts per organization per hour (Retry-After honoured within the
// deadline; without one, say when to come back).
import { type ApiClient, ApiError } from './transport.ts';
import { type ExportJob, PROJECT_SHAPE, readJob } from './static-export-shapes.ts';
import { InputError } from '../action/inputs.ts';
import { formatDuration } from '../action/format.ts';
import { abortableSleep } from '../wait/sleep.ts';

/** A wait for a busy deployment looks again after 1, 2, 4 and 8 s, then every 10 s, as the platform's own loop does. */
const BUSY_FIRST_WAIT_MS = 1000;
const BUSY_LONGEST_WAIT_MS = 10_000;
/** The limit the next shape's contract declares for starts. */
const STARTS_PER_HOUR = 10;

/** The run asked for what the platform cannot do, or its answer leaves nothing to do in this step. */
export class StaticExportRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaticExportRefusal';
  }
}

export async function startOnProjectRoute(client: ApiClient, request: { domain: string; version?: string; paths?: string[] }): Promise<ExportJob> {
  const dropped = [request.version !== undefined && 'version', request.paths !== undefined && 'paths'].filter((name): name is string => typeof name === 'string');
  if (dropped.length > 0) {
    const inputs = dropped.join(' and ');
    throw new StaticExportRefusal(
      `The platform's static export API has moved to project-scoped routes, which no longer take ${inputs}: an export there always holds the latest published version of the whole site. ` +
        `This run gave ${inputs}, so nothing was exported rather than exporting something else than asked. Remove ${inputs} from the step to export the whole latest site.`
    );
  }
  const projectId = client.projectId;
  if (!projectId) {
    throw new InputError(
      'project-id',
      "is required to export: the platform's static export API has moved to project-scoped routes (POST /v1/static-export/jobs is gone), which name the project. Nothing was exported. " +
        'Copy your project id from the API keys page of the dashboard (https://app.mintlify.com/settings/organization/api-keys) and add project-id to the step, for example project-id: ${{ vars.DOCS_PROJECT_ID }}.'
    );
  }
  const path = PROJECT_SHAPE.startPath(projectId);
  const began = Date.now();
  let wait = BUSY_FIRST_WAIT_MS;
  let said = false;
  for (;;) {
    try {
      // No body: the project names what is exported.
      return readJob(await client.request('POST', path, { retry: 'project-start' }), `POST ${path}`, PROJECT_SHAPE);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 429) throw rateLimited(error);
      if (error.status !== 409) throw error;
      const other = followable(error);
      if (!said) {
        client.log(
          `Another static export job${other ? ` (${other})` : ''} is already queued or running for this deployment (409): the platform runs one at a time. ` +
            `Waiting for it to end, then starting this run's export, so that it holds what is published now.`
        );
        said = true;
      }
      if (other) await waitForOther(client, projectId, other, began);
      else {
        await pause(client, wait, began);
        wait = Math.min(BUSY_LONGEST_WAIT_MS, wait * 2);
      }
    }
  }
}

/** A 409 that names the job in the way (a field beyond the contract's `{error}`): follow it. */
function followable(error: ApiError): string | undefined {
  const id = error.body && typeof error.body === 'object' ? (error.body as Record<string, unknown>).jobId : undefined;
  return typeof id === 'string' && PROJECT_SHAPE.jobId.test(id) ? id : undefined;
}

/** Looks at the other job after 1, 2, 4, 8, then every 10 s (the platform's own loop), until it has ended. */
async function waitForOther(client: ApiClient, projectId: string, jobId: string, began: number): Promise<void> {
  const path = PROJECT_SHAPE.statusPath(jobId, projectId);
  for (let wait = BUSY_FIRST_WAIT_MS; ; wait = Math.min(BUSY_LONGEST_WAIT_MS, wait * 2)) {
    const job = readJob(await client.request('GET', path), `GET ${path}`, PROJECT_SHAPE);
    if (job.status !== 'queued' && job.status !== 'running') return;
    await pause(client, wait, began);
  }
}

async function pause(client: ApiClient, ms: number, began: number): Promise<void> {
  const deadline = client.deadline;
  if (deadline && !deadline.fits(ms)) {
    throw new StaticExportRefusal(
      `Another static export job was still queued or running for this deployment (409) after ${formatDuration(Date.now() - began)} of waiting, and the step's timeout (${formatDuration(deadline.timeoutMs)}) leaves no time to wait more: ` +
        'the platform runs one export at a time per deployment. Nothing was exported by this run. Re-run once that job has ended (a few minutes), or raise timeout.'
    );
  }
  await abortableSleep(ms, client.signal);
}

function rateLimited(error: ApiError): StaticExportRefusal {
  const server = error.serverMessage ? ` The platform said: "${error.serverMessage}"` : '';
  const reference = error.requestId ? ` (request id ${error.requestId})` : '';
  // A Retry-After the deadline could hold was waited for by the transport: only a longer one, or none, ends here.
  const when =
    error.retryAfterMs !== undefined
      ? `It asked to wait ${formatDuration(error.retryAfterMs)}, more than is left of the step: re-run after ${new Date(Date.now() + error.retryAfterMs).toISOString().slice(11, 16)} UTC.`
      : `It did not say when (no Retry-After): a start is allowed again once the oldest of the last ${STARTS_PER_HOUR} starts is an hour old, so re-run at the latest after ${new Date(Date.now() + 3_600_000).toISOString().slice(11, 16)} UTC.`;
  return new StaticExportRefusal(
    `The platform refused to start the export (429): its static export API allows ${STARTS_PER_HOUR} job starts per organization per hour, and they are used up. ${when} Nothing was exported; the deployment keeps its current bundle.${server}${reference}`
  );
}

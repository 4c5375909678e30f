// The static export area of the admin API: start a job, read its status, get its bundle link. The
// platform has two shapes of this API (static-export-shapes.ts): the run speaks today's jobs routes
// where they answer and the project-scoped ones where they are gone, and the client remembers which
// for the rest of the run. The caller sees one interface whichever it is.
import { type ApiClient, ApiError, ResponseShapeError } from './transport.ts';
import { type Bundle, type ExportJob, JOBS_SHAPE, JOB_ID_SOURCE, PROJECT_SHAPE, type StaticExportShape, readBundleOfJob, readJob, shapeOfJobId } from './static-export-shapes.ts';
import { startOnProjectRoute } from './project-start.ts';
import { InputError, isLocalHost } from '../action/inputs.ts';

export type { Bundle, ExportJob } from './static-export-shapes.ts';
export { JOB_ID_SOURCE, jobFigures } from './static-export-shapes.ts';

/** The enum's words; a server may send others, which mean "not finished yet". */
export type ExportStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface ExportRequest {
  domain: string;
  version?: string;
  paths?: string[];
}

/** An export job id of either shape (`se_3f9a2c1b8e7d4a06`, `6520f3a1c9b1a20012ab34cd`). */
export const JOB_ID = new RegExp(`^${JOB_ID_SOURCE}$`);

/** Where the platform moved the API: the route this job's id belongs to answers as a route that is not there. */
export class StaticExportMovedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaticExportMovedError';
  }
}

/** What the run learned of the platform: whether today's jobs routes are there. */
interface Learned {
  jobsRoutes: 'unknown' | 'answer' | 'gone';
}
const learned = new WeakMap<ApiClient, Learned>();

function learnedOf(client: ApiClient): Learned {
  let known = learned.get(client);
  if (!known) learned.set(client, (known = { jobsRoutes: 'unknown' }));
  return known;
}

/** The shape this run speaks, once the platform has said; undefined before its first answer. */
export function spokenShape(client: ApiClient): StaticExportShape | undefined {
  const { jobsRoutes } = learnedOf(client);
  return jobsRoutes === 'answer' ? JOBS_SHAPE : jobsRoutes === 'gone' ? PROJECT_SHAPE : undefined;
}

/**
 * True when an answer says the route itself is not there, rather than the job: a 405, or a 404 the
 * route does not declare (the start), or a declared one whose body is not about a job. The platform's
 * "no such job" names the job ("No job exists with the provided ID", the emulator's "Job not found");
 * a missing route answers as any unknown path does ("Not found", "Cannot GET …").
 */
export function routeMissing(error: unknown, declares404: boolean): boolean {
  if (!(error instanceof ApiError)) return false;
  if (error.status === 405) return true;
  if (error.status !== 404) return false;
  return !declares404 || !/\bjob\b/i.test(error.serverMessage ?? '');
}

export async function startExport(client: ApiClient, request: ExportRequest): Promise<ExportJob> {
  const known = learnedOf(client);
  if (known.jobsRoutes !== 'gone') {
    const path = JOBS_SHAPE.startPath();
    try {
      const body = await client.request('POST', path, { body: request, retry: 'start' });
      known.jobsRoutes = 'answer';
      return readJob(body, `POST ${path}`, JOBS_SHAPE);
    } catch (error) {
      if (!routeMissing(error, false)) throw error;
      known.jobsRoutes = 'gone';
      client.log(`POST ${path} answered ${(error as ApiError).status}: the platform has moved static export to its project-scoped routes (${PROJECT_SHAPE.contract}); this run speaks those from now on.`);
    }
  }
  return startOnProjectRoute(client, request);
}

export async function getExport(client: ApiClient, jobId: string): Promise<ExportJob> {
  const shape = routeOf(client, jobId);
  const path = shape.statusPath(jobId, client.projectId);
  try {
    const body = await client.request('GET', path);
    if (shape === JOBS_SHAPE) learnedOf(client).jobsRoutes = 'answer';
    return readJob(body, `GET ${path}`, shape);
  } catch (error) {
    // Routes that answered earlier in this run and fail now are the API changing under the run (a drift, said as such).
    if (shape === JOBS_SHAPE && learnedOf(client).jobsRoutes !== 'answer' && routeMissing(error, true)) {
      learnedOf(client).jobsRoutes = 'gone';
      throw movedError(jobId, `GET ${path} answered ${(error as ApiError).status}${(error as ApiError).serverMessage ? ` ("${(error as ApiError).serverMessage}")` : ''}`);
    }
    throw error;
  }
}

/**
 * A fresh link to the job's bundle. Today's shape generates it (POST …/bundle); the next one sends it
 * with a completed status, so the status is read again. Either may be asked again for a fresh link.
 */
export async function generateBundle(client: ApiClient, jobId: string): Promise<Bundle> {
  const shape = routeOf(client, jobId);
  if (shape === PROJECT_SHAPE) {
    const path = shape.statusPath(jobId, client.projectId);
    const what = `GET ${path}`;
    const body = await client.request('GET', path);
    const job = readJob(body, what, shape);
    if (job.status !== 'completed') {
      // What the jobs route's bundle call answers then (409), so the caller reads both alike.
      throw new ApiError({ method: 'GET', path, status: 409, serverMessage: `Job is ${job.status}, so it has no bundle yet`, message: `GET ${path} answered a job that is ${job.status}, with no bundle link yet` });
    }
    return checkBundle(readBundleOfJob(body, what), jobId, what);
  }
  const path = `/v1/static-export/jobs/${encodeURIComponent(jobId)}/bundle`;
  const what = `POST ${path}`;
  try {
    // Generating again for the same job is harmless (a fresh link), so it is retried like a read.
    return checkBundle(readBundleOfJob(await client.request('POST', path), what), jobId, what);
  } catch (error) {
    if (learnedOf(client).jobsRoutes !== 'answer' && routeMissing(error, true)) {
      learnedOf(client).jobsRoutes = 'gone';
      throw movedError(jobId, `POST ${path} answered ${(error as ApiError).status}`);
    }
    throw error;
  }
}

export function isFinished(job: ExportJob): boolean {
  return job.status === 'completed' || job.status === 'failed';
}

/** The route a job id belongs to: its shape's, by the id's form; an id of neither form goes to today's. */
function routeOf(client: ApiClient, jobId: string): StaticExportShape {
  const shape = shapeOfJobId(jobId) ?? JOBS_SHAPE;
  if (shape === JOBS_SHAPE && learnedOf(client).jobsRoutes === 'gone') {
    throw movedError(jobId, 'the platform no longer answers on its jobs routes (seen earlier in this run)');
  }
  if (shape === PROJECT_SHAPE && !client.projectId) {
    throw new InputError(
      'project-id',
      `is required to read export job ${jobId}: its id is one of the platform's project-scoped static export API, whose routes name the project. ` +
        'Copy your project id from the API keys page of the dashboard (https://app.mintlify.com/settings/organization/api-keys) and add project-id to the step, for example project-id: ${{ vars.DOCS_PROJECT_ID }}.'
    );
  }
  return shape;
}

/**
 * A job of today's shape when today's routes are gone: its link cannot be renewed, and a renewal
 * must not quietly export the whole site instead because a route moved.
 */
function movedError(jobId: string, seen: string): StaticExportMovedError {
  return new StaticExportMovedError(
    `Export job ${jobId} was made by the platform's earlier static export API (${JOBS_SHAPE.contract}), and ${seen}: the platform has moved static export to its project-scoped routes, where that job does not exist, so its link cannot be renewed. ` +
      'Nothing was exported in its place. Run the publishing workflow once (a push, or a manual run) with project-id set: it exports under the new API, and the nightly renewal renews that link from then on.'
  );
}

/** Each field reaches an output, a file or a download: a bad one stops here, before any of them. */
function checkBundle(bundle: Bundle, jobId: string, what: string): Bundle {
  const bad = (field: string, problem: string) => new ResponseShapeError(what, `has ${field} ${problem} for job ${jobId}`);
  if (bundle.jobId !== jobId) throw bad('`jobId`', `"${bundle.jobId}", a bundle of another job,`);
  if (!Number.isSafeInteger(bundle.sizeBytes) || bundle.sizeBytes < 0) throw bad('`sizeBytes`', `${bundle.sizeBytes}, not a size in bytes,`);
  if (Number.isNaN(Date.parse(bundle.expiresAt))) throw bad('`expiresAt`', `"${bundle.expiresAt}", not a date,`);
  let url: URL | undefined;
  try {
    url = new URL(bundle.bundleUrl);
  } catch {
    url = undefined;
  }
  // Plain http would hand the link, which is a credential, to anyone on the path; loopback is an emulator.
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && isLocalHost(url.hostname)))) {
    throw bad('`bundleUrl`', 'that is not an https link');
  }
  return { jobId: bundle.jobId, bundleUrl: bundle.bundleUrl, sizeBytes: bundle.sizeBytes, expiresAt: bundle.expiresAt };
}

// The static export area of the admin API: start a job, read its status, generate a bundle link.
import { Shape } from './shape.ts';
import { type ApiClient, ResponseShapeError } from './transport.ts';
import { isLocalHost } from '../action/inputs.ts';

/** The enum's words; a server may send others, which mean "not finished yet". */
export type ExportStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface ExportJob {
  jobId: string;
  /** Kept as sent: an unknown word must keep the wait going, not break it. */
  status: string;
  progress: number;
  pageCount: number;
  createdAt: string;
  updatedAt: string;
  error?: string;
}

export interface Bundle {
  jobId: string;
  bundleUrl: string;
  sizeBytes: number;
  expiresAt: string;
}

export interface ExportRequest {
  domain: string;
  version?: string;
  paths?: string[];
}

/** An export job id, as the platform makes them (`se_3f9a2c1b8e7d4a06`): the one pattern every reader uses. */
export const JOB_ID_SOURCE = 'se_[A-Za-z0-9]+';
export const JOB_ID = new RegExp(`^${JOB_ID_SOURCE}$`);

export async function startExport(client: ApiClient, request: ExportRequest): Promise<ExportJob> {
  const body = await client.request('POST', '/v1/static-export/jobs', { body: request, retry: 'start' });
  return readJob(body, 'POST /v1/static-export/jobs');
}

export async function getExport(client: ApiClient, jobId: string): Promise<ExportJob> {
  const path = `/v1/static-export/jobs/${encodeURIComponent(jobId)}`;
  return readJob(await client.request('GET', path), `GET ${path}`);
}

/** Generating again for the same job is harmless (a fresh link), so it is retried like a read. */
export async function generateBundle(client: ApiClient, jobId: string): Promise<Bundle> {
  const path = `/v1/static-export/jobs/${encodeURIComponent(jobId)}/bundle`;
  const what = `POST ${path}`;
  const shape = new Shape(await client.request('POST', path), what);
  const bundle = {
    jobId: shape.string('jobId'),
    bundleUrl: shape.string('bundleUrl'),
    sizeBytes: shape.number('sizeBytes'),
    expiresAt: shape.string('expiresAt')
  };
  // Each field reaches an output, a file or a download: a bad one stops here, before any of them.
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
  return bundle;
}

export function isFinished(job: ExportJob): boolean {
  return job.status === 'completed' || job.status === 'failed';
}

function readJob(body: unknown, what: string): ExportJob {
  const shape = new Shape(body, what);
  const job = {
    jobId: shape.string('jobId'),
    status: shape.string('status'),
    progress: shape.number('progress'),
    pageCount: shape.number('pageCount'),
    createdAt: shape.string('createdAt'),
    updatedAt: shape.string('updatedAt'),
    error: shape.optionalString('error')
  };
  const bad = (field: string, problem: string) => new ResponseShapeError(what, `has ${field} ${problem} for job ${job.jobId}`);
  if (job.progress < 0 || job.progress > 100) throw bad('`progress`', `${job.progress}, not a percentage,`);
  if (!Number.isSafeInteger(job.pageCount) || job.pageCount < 0) throw bad('`pageCount`', `${job.pageCount}, not a count of pages,`);
  for (const field of ['createdAt', 'updatedAt'] as const) if (Number.isNaN(Date.parse(job[field]))) throw bad(`\`${field}\``, `"${job[field]}", not a date,`);
  return job;
}

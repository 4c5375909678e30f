// The static export area of the admin API: start a job, read its status, generate a bundle link.
import { Shape } from './shape.ts';
import type { ApiClient } from './transport.ts';

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

export const JOB_ID = /^se_[A-Za-z0-9]+$/;

export async function startExport(client: ApiClient, request: ExportRequest): Promise<ExportJob> {
  const body = await client.request('POST', '/v1/static-export/jobs', { body: request, retry: 'create' });
  return readJob(body, 'POST /v1/static-export/jobs');
}

export async function getExport(client: ApiClient, jobId: string): Promise<ExportJob> {
  const path = `/v1/static-export/jobs/${encodeURIComponent(jobId)}`;
  return readJob(await client.request('GET', path), `GET ${path}`);
}

/** Generating again for the same job is harmless (a fresh link), so it is retried like a read. */
export async function generateBundle(client: ApiClient, jobId: string): Promise<Bundle> {
  const path = `/v1/static-export/jobs/${encodeURIComponent(jobId)}/bundle`;
  const shape = new Shape(await client.request('POST', path), `POST ${path}`);
  return {
    jobId: shape.string('jobId'),
    bundleUrl: shape.string('bundleUrl'),
    sizeBytes: shape.number('sizeBytes'),
    expiresAt: shape.string('expiresAt')
  };
}

export function isFinished(job: ExportJob): boolean {
  return job.status === 'completed' || job.status === 'failed';
}

function readJob(body: unknown, what: string): ExportJob {
  const shape = new Shape(body, what);
  return {
    jobId: shape.string('jobId'),
    status: shape.string('status'),
    progress: shape.number('progress'),
    pageCount: shape.number('pageCount'),
    createdAt: shape.string('createdAt'),
    updatedAt: shape.string('updatedAt'),
    error: shape.optionalString('error')
  };
}

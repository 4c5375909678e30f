// The two shapes of the static export API this action speaks, each in one place: its contract (the
// OpenAPI description by title and version, and where it is written), its routes, its job ids, its
// archive and how its answers read. Which one a run speaks is decided by what the platform answers
// (static-export.ts); nothing else in the action needs to know there are two.
//
// Both descriptions carry the same info (title "Mintlify Static Export API", version 1.0.0), so the
// next one's name adds its routes and its source; its description is openapi/platform/static-export-next.json.
import { Shape } from './shape.ts';
import { ResponseShapeError } from './transport.ts';

/** What a status answer says, in either shape. Fields a shape does not send are left out. */
export interface ExportJob {
  jobId: string;
  /** Kept as sent: an unknown word must keep the wait going, not break it. */
  status: string;
  /** 0..100; only the jobs route sends it. */
  progress?: number;
  /** Pages exported so far; only the jobs route sends it. */
  pageCount?: number;
  createdAt: string;
  /** Jobs route: when the percent last changed. Project route: when the job last changed status. */
  updatedAt: string;
  error?: string;
}

export interface Bundle {
  jobId: string;
  bundleUrl: string;
  sizeBytes: number;
  expiresAt: string;
}

export type ShapeName = 'jobs' | 'project';

export interface StaticExportShape {
  name: ShapeName;
  /** The contract, for messages: title, version and which description. */
  contract: string;
  /** A job id this shape makes, and nothing else. */
  jobId: RegExp;
  /** The archive's file name in the platform's links, and what it is. */
  archive: { fileName: string; format: 'tar.gz' | 'zip'; contentType: string };
  startPath(projectId?: string): string;
  statusPath(jobId: string, projectId?: string): string;
}

/** Today's shape: `../shared/openapi/static-export-openapi.json`. */
export const JOBS_SHAPE: StaticExportShape = {
  name: 'jobs',
  contract: 'Mintlify Static Export API 1.0.0',
  jobId: /^se_[A-Za-z0-9]+$/,
  archive: { fileName: 'bundle.tar.gz', format: 'tar.gz', contentType: 'application/gzip' },
  startPath: () => '/v1/static-export/jobs',
  statusPath: (jobId) => `/v1/static-export/jobs/${encodeURIComponent(jobId)}`
};

/**
 * The next shape: openapi/platform/static-export-next.json, written here from mintlify/docs commit
 * decfe56 ("update static export API to projectId-scoped 2-step flow", branch accd9370). No body on
 * the start, no bundle call (a completed status carries the link), no progress or page count, 409
 * while a job is queued or running for the deployment, 429 past 10 starts per organization per hour.
 */
export const PROJECT_SHAPE: StaticExportShape = {
  name: 'project',
  contract: 'Mintlify Static Export API 1.0.0, project-scoped (mintlify/docs decfe56)',
  // The vendor's example is a 24-digit hex id (6520f3a1c9b1a20012ab34cd).
  jobId: /^[0-9a-f]{24}$/,
  archive: { fileName: 'export.zip', format: 'zip', contentType: 'application/zip' },
  startPath: (projectId) => `/v1/static-export/${encodeURIComponent(projectId ?? '')}/jobs`,
  statusPath: (jobId, projectId) => `/v1/static-export/${encodeURIComponent(projectId ?? '')}/jobs/${encodeURIComponent(jobId)}`
};

export const SHAPES = [JOBS_SHAPE, PROJECT_SHAPE] as const;

/** Any export job id either shape makes: the one pattern every reader of a link or an input uses. */
export const JOB_ID_SOURCE = '(?:se_[A-Za-z0-9]+|[0-9a-f]{24})';

/** The shape whose ids look like this one; undefined for neither. */
export function shapeOfJobId(jobId: string): StaticExportShape | undefined {
  return SHAPES.find((shape) => shape.jobId.test(jobId));
}

/** A status (or start) answer of either shape, checked: the fields its contract names, no others. */
export function readJob(body: unknown, what: string, shape: StaticExportShape): ExportJob {
  const record = new Shape(body, what);
  const job: ExportJob = {
    jobId: record.string('jobId'),
    status: record.string('status'),
    createdAt: record.string('createdAt'),
    updatedAt: record.string('updatedAt'),
    error: record.optionalString('error')
  };
  const bad = (field: string, problem: string) => new ResponseShapeError(what, `has ${field} ${problem} for job ${job.jobId}`);
  if (shape.name === 'jobs') {
    job.progress = record.number('progress');
    job.pageCount = record.number('pageCount');
    if (job.progress < 0 || job.progress > 100) throw bad('`progress`', `${job.progress}, not a percentage,`);
    if (!Number.isSafeInteger(job.pageCount) || job.pageCount < 0) throw bad('`pageCount`', `${job.pageCount}, not a count of pages,`);
  }
  if (job.error === undefined) delete job.error;
  for (const field of ['createdAt', 'updatedAt'] as const) if (Number.isNaN(Date.parse(job[field]))) throw bad(`\`${field}\``, `"${job[field]}", not a date,`);
  return job;
}

/** The project route's completed answer carries the link; read it as the jobs route's bundle call would answer. */
export function readBundleOfJob(body: unknown, what: string): Bundle {
  const record = new Shape(body, what);
  return { jobId: record.string('jobId'), bundleUrl: record.string('bundleUrl'), sizeBytes: record.number('sizeBytes'), expiresAt: record.string('expiresAt') };
}

/** `42% · 128 pages`, or nothing when the shape sends neither: for logs, errors and summaries. */
export function jobFigures(job: Pick<ExportJob, 'progress' | 'pageCount'>): string | undefined {
  const parts: string[] = [];
  if (job.progress !== undefined) parts.push(`${Math.round(job.progress)}%`);
  if (job.pageCount !== undefined) parts.push(`${job.pageCount} ${job.pageCount === 1 ? 'page' : 'pages'}`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

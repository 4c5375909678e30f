// The platform's next static export API, as its description says (mintlify/docs commit decfe56,
// "update static export API to projectId-scoped 2-step flow"; a copy in
// openapi/platform/static-export-next.json): a start that names the
// project and takes no body, one job at a time per deployment (409), 10 starts per organization per
// hour (429, no Retry-After declared), and a status that carries the link once completed, a fresh one
// on each GET. Errors are `{"error": "…"}`. platform.ts routes to these; platform-state.ts keeps jobs.
import type { Answer } from './platform-faults.ts';
import { type ExportJobRecord, type PlatformState, exportJobState } from './platform-state.ts';

/** The contract's words, kept as it says them. */
const NOT_ENABLED = 'Static export is not enabled for this deployment. Contact sales@mintlify.com to upgrade.';
const IN_PROGRESS = 'A static export job is already in progress for this deployment. Wait for the active job to complete before starting a new one.';
const RATE_LIMITED = 'Rate limit exceeded. The static export API allows up to 10 job starts per organization per hour.';

export function startProjectJob(state: PlatformState, projectId: string): Answer {
  if (!state.staticExportEnabled) return { status: 403, json: { error: NOT_ENABLED } };
  const now = state.clock();
  const busy = [...state.exportJobs.values()].find((job) => job.shape === 'project' && job.projectId === projectId && ['queued', 'running'].includes(statusOf(job, now)));
  if (busy) return { status: 409, json: { error: IN_PROGRESS, ...(state.conflictNamesJob ? { jobId: busy.jobId } : {}) } };
  const retryAfter = state.admitExportStart();
  if (retryAfter !== undefined) {
    return { status: 429, json: { error: RATE_LIMITED }, ...(state.exportStartRetryAfter ? { headers: { 'Retry-After': String(retryAfter) } } : {}) };
  }
  // The project stands for the deployment; the emulator's living site is kept by domain, so a project exports its one domain.
  const job = state.startExportJob({ domain: state.projectDomain, shape: 'project', projectId });
  return { status: 202, json: projectJobView(state, job, '') };
}

export function getProjectJob(state: PlatformState, projectId: string, jobId: string, storageUrl: string): Answer {
  if (!state.staticExportEnabled) return { status: 403, json: { error: NOT_ENABLED } };
  const job = state.exportJobs.get(jobId);
  // A seeded job without a project belongs to any project: tests seed links before they know the id.
  if (!job || job.shape !== 'project' || (job.projectId !== undefined && job.projectId !== projectId)) {
    return { status: 404, json: { error: 'No job exists with the provided ID for this deployment.' } };
  }
  return { status: 200, json: projectJobView(state, job, storageUrl) };
}

function statusOf(job: ExportJobRecord, now: number): string {
  return exportJobState(job, now).status;
}

function projectJobView(state: PlatformState, job: ExportJobRecord, storageUrl: string): Record<string, unknown> {
  const now = state.clock();
  const { status, error } = exportJobState(job, now);
  // updatedAt: when the job last changed status (the contract's words), not when a percent moved.
  const runStart = job.createdAt + job.profile.queuedMs;
  const updatedAt = status === 'queued' ? job.createdAt : job.finishedAt ?? runStart;
  const view: Record<string, unknown> = { jobId: job.jobId, status, createdAt: new Date(job.createdAt).toISOString(), updatedAt: new Date(updatedAt).toISOString(), error: status === 'failed' ? error : null };
  if (status === 'completed') {
    const { archive, link, expiresAt } = state.bundleLink(job);
    Object.assign(view, { bundleUrl: `${storageUrl}${link}`, sizeBytes: archive.length, expiresAt: new Date(expiresAt).toISOString() });
  }
  return view;
}

// The export itself: start a job (or take an existing one), wait until it is completed or failed,
// and generate the bundle link. Nothing here reads inputs or writes outputs.
import {
  type Bundle,
  type ExportJob,
  type ExportRequest,
  generateBundle,
  getExport,
  isFinished,
  startExport
} from '../platform/static-export.ts';
import { ApiError, type ApiClient } from '../platform/transport.ts';
import { ExportSchedule } from '../wait/export-schedule.ts';
import { ProgressLog } from '../wait/export-progress.ts';
import { type JobRunOptions, waitUntilFinal } from '../wait/wait.ts';

/** Start an export, or reuse a job; `fallback` starts one when the job is gone or failed. */
/** `renewal`: the job a link in the values file names (renew/), which cannot start another export when it is gone. */
export type ExportPlan = { start: ExportRequest } | { reuse: string; fallback?: ExportRequest; renewal?: boolean };

export interface ExportResult {
  job: ExportJob;
  bundle: Bundle;
  /** True when this run started the job; false when it reused one. */
  started: boolean;
  /** How long the step waited for the job (ms). */
  waitedMs: number;
  /** Said when a resent start may have left other jobs running whose ids never arrived. */
  unnamedJobs?: string;
}

/** The job ended `failed`. */
export class ExportFailedError extends Error {
  readonly job: ExportJob;
  constructor(job: ExportJob) {
    super(`Export job ${job.jobId} failed: ${job.error ?? 'the platform gave no reason'}`);
    this.name = 'ExportFailedError';
    this.job = job;
  }
}

export async function runExport(client: ApiClient, plan: ExportPlan, options: JobRunOptions): Promise<ExportResult> {
  const now = options.now ?? Date.now;
  const began = now();
  const deadline = began + options.timeoutMs;
  const { first, started } = await firstState(client, plan, options.log);
  options.onJob?.(first.jobId);

  const schedule = new ExportSchedule(options.limits);
  const progress = new ProgressLog(options.log, schedule, now);
  progress.seen(first);
  // A timeout ends as the one WaitTimeoutError, waitingOn 'export', with the last job seen.
  const job = await waitUntilFinal({
    poll: () => getExport(client, first.jobId),
    isFinal: isFinished,
    schedule,
    deadline,
    signal: options.signal,
    initial: first,
    onPoll: (state) => progress.seen(state),
    waitingOn: 'export',
    began,
    now
  });
  if (job.status === 'failed') throw new ExportFailedError(job);
  const bundle = await generateBundle(client, job.jobId);
  return { job, bundle, started, waitedMs: now() - began };
}

async function firstState(client: ApiClient, plan: ExportPlan, log: (line: string) => void): Promise<{ first: ExportJob; started: boolean }> {
  const start = async (request: ExportRequest) => {
    const first = await startExport(client, request);
    log(`Started export job ${first.jobId} for ${request.domain}.`);
    return { first, started: true };
  };
  if ('start' in plan) return start(plan.start);
  let job: ExportJob;
  try {
    job = await getExport(client, plan.reuse);
  } catch (error) {
    if (plan.renewal && !plan.fallback && error instanceof ApiError && error.status === 404) {
      throw new Error(`Export job ${plan.reuse}, which the link in the values file comes from, is gone (404): no fresh link can be made for it, and renew/ exports nothing. Run the root action (an export) to propose a new bundle. Nothing was changed.`, { cause: error });
    }
    if (!(plan.fallback && error instanceof ApiError && error.status === 404)) throw error;
    log(`Export job ${plan.reuse} is gone (404): starting a new export of ${plan.fallback.domain} instead.`);
    return start(plan.fallback);
  }
  if (job.status === 'failed' && plan.fallback) {
    log(`Export job ${plan.reuse} had failed: starting a new export of ${plan.fallback.domain} instead.`);
    return start(plan.fallback);
  }
  log(`Reusing export job ${job.jobId}.`);
  return { first: job, started: false };
}

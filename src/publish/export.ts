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
import { formatDuration } from '../action/format.ts';
import { ExportSchedule } from '../wait/export-schedule.ts';
import { type JobRunOptions, waitUntilFinal } from '../wait/wait.ts';

/** Start an export, or reuse a job; `fallback` starts one when the job is gone or failed. */
export type ExportPlan = { start: ExportRequest } | { reuse: string; fallback?: ExportRequest };

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

/** Logs a line when status, progress or page count change: not on every poll. */
class ProgressLog {
  private last = '';
  private readonly log: (line: string) => void;
  private readonly schedule: ExportSchedule;
  private readonly now: () => number;

  constructor(log: (line: string) => void, schedule: ExportSchedule, now: () => number) {
    this.log = log;
    this.schedule = schedule;
    this.now = now;
  }

  seen(job: ExportJob): void {
    const key = `${job.status}|${job.progress}|${job.pageCount}`;
    if (key === this.last) return;
    this.last = key;
    // One progress sample gives only a rough guess of the end: say so rather than show it.
    this.log(progressLine(job, this.schedule.confident() ? this.schedule.estimatedEnd() : undefined, this.now()));
  }
}

/** `running · 42% · 128 pages · about 35 s left` */
function progressLine(job: ExportJob, estimatedEnd: number | undefined, now: number): string {
  const parts = [job.status];
  if (job.status === 'queued') parts.push('waiting for the platform to start it');
  else parts.push(`${Math.round(job.progress)}%`, `${job.pageCount} ${job.pageCount === 1 ? 'page' : 'pages'}`);
  if (!isFinished(job) && job.status !== 'queued') {
    const left = estimatedEnd === undefined ? undefined : estimatedEnd - now;
    parts.push(left === undefined ? 'estimating the time left' : left < 1000 ? 'about to finish' : `about ${formatDuration(left)} left`);
  }
  if (job.status === 'failed' && job.error) parts.push(job.error);
  return parts.join(' · ');
}

// The live progress line of an export's wait: a line when something a person would notice changes
// (status, percent, pages), not on every poll. Today's shape sends a percent and a page count, and
// the line shows the time left once the schedule foretells the end; the next shape sends neither,
// so the line says how long the job has been in its status, from its own dates (`updatedAt`: when
// it last changed status) and the wait's clock, and a new line comes only when the status changes.
import { type ExportJob, isFinished, jobFigures } from '../platform/static-export.ts';
import { formatDuration } from '../action/format.ts';
import type { ExportSchedule } from './export-schedule.ts';

export class ProgressLog {
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

/** `running · 42% · 128 pages · about 35 s left`, or without a percent `running · for 12 s (since 10:04:05 UTC)` */
export function progressLine(job: ExportJob, estimatedEnd: number | undefined, now: number): string {
  const parts = [job.status];
  const figures = jobFigures(job);
  if (job.status === 'queued') parts.push('waiting for the platform to start it');
  else if (figures) parts.push(figures);
  if (!isFinished(job) && job.status !== 'queued') {
    if (job.progress === undefined) {
      // No percent to foretell the end from: say what the job's own dates tell.
      const since = Date.parse(job.updatedAt);
      if (!Number.isNaN(since)) parts.push(`for ${formatDuration(Math.max(0, now - since))} (since ${new Date(since).toISOString().slice(11, 19)} UTC)`);
    } else {
      const left = estimatedEnd === undefined ? undefined : estimatedEnd - now;
      parts.push(left === undefined ? 'estimating the time left' : left < 1000 ? 'about to finish' : `about ${formatDuration(left)} left`);
    }
  }
  if (job.status === 'failed' && job.error) parts.push(job.error);
  return parts.join(' · ');
}

// When to poll an export next: the one schedule (schedule.ts), told how to read an export's progress.
// The percent and `updatedAt` (when the percent last changed) date the job's progress, so its end
// can be foretold and a look placed just after it. Without a percent (the next shape) the wait keeps
// the platform's own beat: never a look later than its loop's.
import type { ExportJob } from '../platform/static-export.ts';
import { JobSchedule } from './schedule.ts';
import type { ScheduleLimits } from './wait.ts';

export class ExportSchedule extends JobSchedule<ExportJob> {
  constructor(limits: ScheduleLimits) {
    super(limits, {
      // The next shape sends no percent: then nothing foretells the end, and the beat alone is kept.
      progress: (job) => (job.progress === undefined ? undefined : { percent: job.progress, changedAt: Date.parse(job.updatedAt), queued: job.status === 'queued' })
    });
  }
}

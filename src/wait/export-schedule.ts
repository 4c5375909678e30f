// When to poll an export next: the one schedule (schedule.ts), told how to read an export's progress.
// The percent and `updatedAt` (when the percent last changed) date the job's progress, so its end
// can be foretold and a look placed just after it.
import type { ExportJob } from '../platform/static-export.ts';
import { JobSchedule } from './schedule.ts';
import type { ScheduleLimits } from './wait.ts';

export class ExportSchedule extends JobSchedule<ExportJob> {
  constructor(limits: ScheduleLimits) {
    super(limits, {
      progress: (job) => ({ percent: job.progress, changedAt: Date.parse(job.updatedAt), queued: job.status === 'queued' })
    });
  }
}

// The publish action's errors, as one line a person can act on: what happened, what it means, what to do.
import { ApiError } from '../platform/transport.ts';
import { explainError } from '../action/explain.ts';
import { type ExportPlan, ExportFailedError } from './export.ts';
import { WaitTimeoutError } from '../wait/wait.ts';
import type { ExportJob } from '../platform/static-export.ts';
import { type PublishInputs } from './inputs.ts';
import { DeadlineError } from '../action/deadline.ts';
import { formatDuration } from '../action/format.ts';
import { PullRequestError } from '../github/errors.ts';

/** The export's wait ran out of time (the one WaitTimeoutError, waiting on the export). */
export function exportTimeout(error: unknown): WaitTimeoutError<ExportJob> | undefined {
  return error instanceof WaitTimeoutError && error.waitingOn === 'export' ? (error as WaitTimeoutError<ExportJob>) : undefined;
}

/** `publicationMs`: how long the run waited for the platform to publish before the export, when it did. */
export function explainPublishError(error: unknown, inputs: PublishInputs, plan: ExportPlan | undefined, jobId: string | undefined, publicationMs?: number): string {
  const domain = inputs.domain;
  if (error instanceof DeadlineError) {
    return `${error.message}${jobId ? ` The export job ${jobId} goes on on the server: re-run with job-id: ${jobId} to pick it up.` : ''}`;
  }
  if (error instanceof ExportFailedError) {
    return `The export of ${domain ?? `job ${error.job.jobId}`} failed${progressOf(error.job, 'failed')}: ${error.job.error ?? 'the platform gave no reason'}. Fix what it names in your docs and push again; the deployment keeps its current bundle.`;
  }
  if (error instanceof PullRequestError && error.status !== undefined && error.status >= 500) {
    // GitHub's own trouble, still there after the client's retries, usually passes; any other
    // failure of the pull request names the fix in its message.
    const again = jobId ? `re-run with job-id: ${jobId} to propose this export without exporting again` : 're-run';
    return `${error.message}. GitHub kept failing after retries, which usually passes: in a few minutes, ${again}.`;
  }
  const timeout = exportTimeout(error);
  if (timeout) {
    const job = timeout.last;
    const where = job ? `it was ${job.status}${progressOf(job, 'timeout')}` : 'no status was seen';
    const id = job?.jobId ?? jobId;
    // The step's one deadline covers the deployment's wait too: say where the time went, in units.
    const before = publicationMs === undefined ? '' : `, after ${formatDuration(publicationMs)} waiting for the platform to publish`;
    return (
      `The export job ${id} did not finish within the step's timeout of ${formatDuration(inputs.timeoutMs)} (timeout: ${inputs.timeoutText}): ${where} after ${formatDuration(timeout.waitedMs)} of export${before}. ` +
      `The job goes on on the server: re-run with job-id: ${id} to pick it up, or raise timeout (such as 30m).`
    );
  }
  if (error instanceof ApiError && error.path.startsWith('/v1/project/update/') && error.ambiguous && inputs.publication) {
    // Not resent (see triggerDeployment): say what may have happened and that a re-run is safe.
    const reference = error.requestId ? ` (request id ${error.requestId})` : '';
    return (
      `Queuing a deployment of project ${inputs.publication.projectId} got no clear answer: ${error.message}. The platform may have queued it, so it was not sent again ` +
      `(each resend could queue one more deployment, and this run could not follow one whose id never arrived). Nothing was exported. Re-run: a deployment queued meanwhile only publishes the same branch head again.${reference}`
    );
  }
  if (error instanceof ApiError && error.path.startsWith('/v1/project/') && inputs.publication) {
    const projectId = inputs.publication.projectId;
    return explainError(error, {
      apiUrl: inputs.apiUrl,
      doing: `waiting for the platform to publish project ${projectId} before exporting`,
      hints: {
        404: `the platform knows no project ${projectId} for this key (404). Check project-id: copy it from the API keys page of the dashboard. Nothing was exported.`,
        429: 'the platform limits how often deployments are queued (429). Re-run in a few minutes, or set wait-for-deployment: false for runs that need no fresh publication.'
      }
    });
  }
  const doing = plan && 'reuse' in plan ? `reusing export job ${plan.reuse}` : inputs.domain ? `exporting ${inputs.domain}` : 'reading the configuration';
  return explainError(error, {
    apiUrl: inputs.apiUrl,
    doing,
    hints: {
      403: "the organization may not use static export (403). Static export needs an Enterprise plan; ask your account team to enable it. If it is enabled, the key's IP allowlist or scope may exclude this runner.",
      404: `there is no export job ${jobId ?? (plan && 'reuse' in plan ? plan.reuse : '')} (404). Check job-id: it must be an id this organization's key can see, such as the job-id output of an earlier run.`,
      409: 'the job has not finished, so no bundle can be generated yet (409). Re-run once it has completed.'
    }
  });
}

/** ` at 42% (128 pages done)`, or nothing where the platform sends no progress (its next API). */
function progressOf(job: ExportJob, said: 'failed' | 'timeout'): string {
  if (job.progress === undefined || job.pageCount === undefined) return '';
  return said === 'failed' ? ` at ${job.progress}% (${job.pageCount} pages done)` : ` at ${job.progress}% with ${job.pageCount} pages`;
}

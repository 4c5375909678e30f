// The publish action: start a static export (or reuse a finished one), wait for it, generate the
// bundle link, and report it as outputs and a job summary.
import * as core from '@actions/core';
import { checkAdminKey } from './api/key.ts';
import { JOB_ID } from './api/static-export.ts';
import { ApiClient } from './api/transport.ts';
import { DEFAULT_API_URL, PublishInput as Input, PublishOutput as Output } from './constants.ts';
import { explainError } from './explain.ts';
import { type ExportPlan, type ExportResult, ExportFailedError, ExportTimeoutError, runExport } from './export.ts';
import { InputError, parseBaseUrl, parseDuration, parseHostname, parseList } from './inputs.ts';
import { Cancellation, CancelledError } from './runtime.ts';
import { writeFailureSummary, writePublishSummary } from './summary.ts';
import type { ScheduleLimits } from './wait/export-schedule.ts';

export interface PublishInputs {
  apiKey: string;
  apiUrl: string;
  plan: ExportPlan;
  timeoutMs: number;
  requestTimeoutMs: number;
  limits: ScheduleLimits;
}

/** Reads and checks every input before any request, so bad input costs nothing. */
export function readPublishInputs(): PublishInputs {
  const apiKey = core.getInput(Input.ApiKey, { required: true });
  core.setSecret(apiKey); // first, so no later message can echo it
  const jobId = core.getInput(Input.JobId).trim();
  const domainText = core.getInput(Input.Domain);
  const version = core.getInput(Input.Version).trim();
  const paths = parseList(core.getInput(Input.Paths));

  let plan: ExportPlan;
  if (jobId !== '') {
    if (!JOB_ID.test(jobId)) throw new InputError(Input.JobId, `'${jobId}' is not an export job id. Job ids look like se_3f9a2c1b8e7d4a06.`);
    plan = { reuse: jobId };
  } else {
    if (domainText.trim() === '') {
      throw new InputError(Input.Domain, 'is required unless job-id is given. Set it to the hostname of your docs, for example docs.example.com.');
    }
    const domain = parseHostname(Input.Domain, domainText);
    if (domain.reducedFrom) core.notice(`Input 'domain' was a URL (${domain.reducedFrom}); exporting its hostname ${domain.hostname}.`);
    plan = { start: { domain: domain.hostname, ...(version ? { version } : {}), ...(paths.length ? { paths } : {}) } };
  }

  const minPoll = parseDuration(Input.MinPollInterval, core.getInput(Input.MinPollInterval) || '1s');
  const maxPoll = parseDuration(Input.MaxPollInterval, core.getInput(Input.MaxPollInterval) || '30s');
  if (maxPoll < minPoll) {
    throw new InputError(Input.MaxPollInterval, `must not be shorter than min-poll-interval (${core.getInput(Input.MinPollInterval) || '1s'}).`);
  }
  return {
    apiKey: checkAdminKey(Input.ApiKey, apiKey),
    apiUrl: parseBaseUrl(Input.ApiUrl, core.getInput(Input.ApiUrl) || DEFAULT_API_URL),
    plan,
    timeoutMs: parseDuration(Input.Timeout, core.getInput(Input.Timeout) || '30m'),
    requestTimeoutMs: parseDuration(Input.RequestTimeout, core.getInput(Input.RequestTimeout) || '30s'),
    limits: { floorMs: minPoll, ceilingMs: maxPoll }
  };
}

export async function run(cancellation = new Cancellation()): Promise<void> {
  let inputs: PublishInputs;
  try {
    inputs = readPublishInputs();
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error));
    return;
  }
  const client = new ApiClient({
    baseUrl: inputs.apiUrl,
    apiKey: inputs.apiKey,
    requestTimeoutMs: inputs.requestTimeoutMs,
    signal: cancellation.signal,
    debug: (line) => core.debug(line),
    onRetry: (message) => core.info(message)
  });
  const domain = 'start' in inputs.plan ? inputs.plan.start.domain : undefined;
  let jobId = 'reuse' in inputs.plan ? inputs.plan.reuse : undefined;
  cancellation.note = 'The step stopped before an export job was started.';
  try {
    const result = await runExport(client, inputs.plan, {
      timeoutMs: inputs.timeoutMs,
      limits: inputs.limits,
      signal: cancellation.signal,
      log: (line) => core.info(line),
      onJob: (id) => {
        jobId = id;
        cancellation.note = `The export job ${id} goes on on the server; a later run can pick it up with job-id: ${id}.`;
      }
    });
    setOutputs(result);
    await writePublishSummary(result, domain);
    core.info(`Bundle ready: ${result.job.pageCount} pages, link valid until ${result.bundle.expiresAt}.`);
  } catch (error) {
    if (error instanceof CancelledError || cancellation.signal.aborted) return;
    if (jobId) core.setOutput(Output.JobId, jobId);
    const failedJob = error instanceof ExportFailedError || error instanceof ExportTimeoutError ? error.job : undefined;
    if (failedJob) core.setOutput(Output.Status, failedJob.status);
    const message = explainPublishError(error, inputs, domain, jobId);
    core.setFailed(message);
    await writeFailureSummary({ domain, jobId, job: failedJob, message });
  } finally {
    client.dispose();
  }
}

function setOutputs({ job, bundle }: ExportResult): void {
  core.setOutput(Output.JobId, job.jobId);
  core.setOutput(Output.Status, job.status);
  core.setOutput(Output.PageCount, String(job.pageCount));
  core.setOutput(Output.BundleUrl, bundle.bundleUrl);
  core.setOutput(Output.ExpiresAt, new Date(bundle.expiresAt).toISOString());
  core.setOutput(Output.SizeBytes, String(bundle.sizeBytes));
}

export function explainPublishError(error: unknown, inputs: PublishInputs, domain: string | undefined, jobId: string | undefined): string {
  if (error instanceof ExportFailedError) {
    return `The export of ${domain ?? `job ${error.job.jobId}`} failed at ${error.job.progress}% (${error.job.pageCount} pages done): ${error.job.error ?? 'the platform gave no reason'}. Fix what it names in your docs and push again; the deployment keeps its current bundle.`;
  }
  if (error instanceof ExportTimeoutError) {
    const job = error.job;
    const where = job ? `it was ${job.status} at ${job.progress}% with ${job.pageCount} pages` : 'no status was seen';
    return `The export job ${job?.jobId ?? jobId ?? ''} did not finish within the timeout (${core.getInput(Input.Timeout) || '30m'}): ${where} after ${Math.round(error.waitedMs / 1000)} s. The job goes on on the server: re-run with job-id: ${job?.jobId ?? jobId} to pick it up, or raise timeout.`;
  }
  const doing = domain ? `exporting ${domain}` : `reusing export job ${jobId}`;
  return explainError(error, {
    apiUrl: inputs.apiUrl,
    doing,
    hints: {
      403: 'the organization may not use static export (403). Static export needs an Enterprise plan; ask your account team to enable it. If it is enabled, the key\'s IP allowlist or scope may exclude this runner.',
      404: `there is no export job ${jobId ?? ''} (404). Check job-id: it must be an id this organization's key can see, such as the job-id output of an earlier run.`,
      409: 'the job has not finished, so no bundle can be generated yet (409). Re-run once it has completed.'
    }
  });
}

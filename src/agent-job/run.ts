// The agent-job action: start an agent job from a prompt (or take one by id), wait until it ends,
// and report the pull request it opened, or that it changed nothing, as outputs and a job summary.
import * as core from '@actions/core';
import { type AgentPlan, AgentTimeoutError, type AgentRunResult, runAgentJob } from './job.ts';
import { writeAgentFailureSummary, writeAgentSummary } from './summary.ts';
import type { AgentJob } from '../platform/agent.ts';
import { ApiError } from '../platform/transport.ts';
import { AgentJobInput as Input, AgentJobOutput as Output } from '../action/constants.ts';
import { explainError } from '../action/explain.ts';
import { formatDuration, formatInstant } from '../action/format.ts';
import { InputError, parseBoolean } from '../action/inputs.ts';
import { type PlatformInputs, platformClient, readDuration, readPlatformInputs, readPollLimits, readProjectId } from '../action/platform-inputs.ts';
import { Cancellation, CancelledError, readInputs } from '../action/runtime.ts';
import { Deadline } from '../action/deadline.ts';
import type { ScheduleLimits } from '../wait/wait.ts';

export interface AgentJobInputs extends PlatformInputs {
  projectId: string;
  plan: AgentPlan;
  timeoutMs: number;
  limits: ScheduleLimits;
  failOnFailed: boolean;
}

/** A create answered 429 with a Retry-After longer than this fails at once and says when to retry. */
const LONGEST_CREATE_WAIT_MS = 60_000;

/** Reads and checks every input before any request, so bad input costs nothing. */
export function readAgentJobInputs(): AgentJobInputs {
  const platform = readPlatformInputs();
  const projectId = readProjectId();
  const jobId = core.getInput(Input.JobId).trim();
  const prompt = core.getInput(Input.Prompt).trim();
  let plan: AgentPlan;
  if (jobId !== '' && prompt !== '') {
    throw new InputError(Input.JobId, 'and prompt are both set. Give prompt to start a new agent job, or job-id to wait on one already started, not both.');
  } else if (jobId !== '') {
    if (/[\s/]/.test(jobId)) throw new InputError(Input.JobId, `'${jobId}' is not an agent job id: it has a space or a slash.`);
    plan = { follow: jobId };
  } else if (prompt !== '') {
    plan = { start: { prompt } };
  } else {
    throw new InputError(Input.Prompt, 'neither prompt nor job-id is set. Give prompt to start an agent job, or job-id to wait on one already started.');
  }

  return {
    ...platform,
    projectId,
    plan,
    timeoutMs: readDuration(Input.Timeout, '30m'),
    limits: readPollLimits(),
    failOnFailed: parseBoolean(Input.FailOnFailed, core.getInput(Input.FailOnFailed) || 'true')
  };
}

export async function run(cancellation = new Cancellation()): Promise<void> {
  const inputs = readInputs(readAgentJobInputs);
  if (!inputs) return;
  const deadline = new Deadline(inputs.timeoutMs);
  const client = platformClient(inputs, cancellation, { maxRetryAfterMs: LONGEST_CREATE_WAIT_MS, deadline });
  const prompt = 'start' in inputs.plan ? inputs.plan.start.prompt : undefined;
  let jobId = 'follow' in inputs.plan ? inputs.plan.follow : undefined;
  cancellation.note = 'The step stopped before an agent job was started.';
  try {
    const result = await runAgentJob(client, inputs.plan, {
      projectId: inputs.projectId,
      timeoutMs: inputs.timeoutMs,
      limits: inputs.limits,
      signal: cancellation.signal,
      log: (line) => core.info(line),
      onJob: (id) => {
        jobId = id;
        cancellation.note = `The agent job ${id} goes on on the server; a later run can wait on it with job-id: ${id}.`;
        cancellation.outputs[Output.JobId] = id;
      }
    });
    setOutputs(result.job);
    if (result.job.status === 'failed') {
      const message = failedMessage(result, inputs);
      if (inputs.failOnFailed) core.setFailed(message);
      else core.warning(message);
      await writeAgentSummary(result, { projectId: inputs.projectId, prompt, message });
      return;
    }
    await writeAgentSummary(result, { projectId: inputs.projectId, prompt });
  } catch (error) {
    if (error instanceof CancelledError || cancellation.signal.aborted) return;
    const job = error instanceof AgentTimeoutError ? error.job : undefined;
    if (job) setOutputs(job);
    else if (jobId) core.setOutput(Output.JobId, jobId);
    const message = explainAgentError(error, inputs, jobId);
    core.setFailed(message);
    await writeAgentFailureSummary({ projectId: inputs.projectId, jobId, job, message });
  } finally {
    client.dispose();
  }
}

function setOutputs(job: AgentJob): void {
  core.setOutput(Output.JobId, job.id);
  core.setOutput(Output.Status, job.status);
  core.setOutput(Output.PrLink, job.prLink ?? '');
  core.setOutput(Output.Branch, job.branch ?? '');
  core.setOutput(Output.Model, job.model ?? '');
  core.setOutput(Output.CreatedAt, job.createdAt ?? '');
  core.setOutput(Output.ArchivedAt, job.archivedAt ?? '');
}

function failedMessage(result: AgentRunResult, inputs: AgentJobInputs): string {
  const next = inputs.failOnFailed
    ? ' Set fail-on-failed: false to let the workflow go on after a failed agent job.'
    : ' The step goes on because fail-on-failed is false; the status output is failed.';
  return `The agent job ${result.job.id} failed, and opened no pull request. The API gives no reason: open the job in the dashboard to see what the agent ran into, adjust the prompt, and run again.${next}`;
}

export function explainAgentError(error: unknown, inputs: AgentJobInputs, jobId: string | undefined, now = Date.now()): string {
  if (error instanceof AgentTimeoutError) {
    const id = error.job?.id ?? jobId ?? '';
    const status = error.job ? `it was still ${error.job.status}` : 'no status was seen';
    return `The agent job ${id} did not end within the timeout (${core.getInput(Input.Timeout) || '30m'}): ${status} after ${formatDuration(error.waitedMs)}. The job goes on on the server: re-run with job-id: ${id} to wait on it again, or raise timeout.`;
  }
  const creating = 'start' in inputs.plan;
  const retryAfter = error instanceof ApiError ? error.retryAfterMs : undefined;
  const when = retryAfter === undefined ? 'in an hour' : `after ${formatInstant(new Date(now + retryAfter).toISOString(), now)}`;
  return explainError(error, {
    apiUrl: inputs.apiUrl,
    doing: creating ? `starting an agent job in project ${inputs.projectId}` : `waiting on agent job ${jobId} in project ${inputs.projectId}`,
    hints: {
      404: creating
        ? `the API found no project ${inputs.projectId} (404). Check project-id: copy it from the API keys page of the dashboard.`
        : `there is no agent job ${jobId} in project ${inputs.projectId} (404). Check project-id and job-id: the job must belong to this project, such as the job-id output of an earlier run with the same project-id.`,
      429: creating
        ? `the project has started 100 agent jobs in the last hour, the most the API allows (429). Retry ${when}; meanwhile you can wait on a job already running with job-id.`
        : `rate limited (429) after retries. Retry ${when}.`
    }
  });
}

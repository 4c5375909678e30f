// The agent-job action: start an agent job from a prompt (or take one by id), wait until it ends,
// and report the pull request it opened, or that it changed nothing, as outputs and a job summary.
import { readAgentJobInputs } from './inputs.ts';
import { explainAgentError, failedMessage } from './errors.ts';
import * as core from '../action/core.ts';
import { runAgentJob } from './job.ts';
import { WaitTimeoutError } from '../wait/wait.ts';
import { writeAgentFailureSummary, writeAgentSummary } from './summary.ts';
import type { AgentJob } from '../platform/agent.ts';
import { AgentJobOutput as Output } from '../action/constants.ts';
import { platformClient } from '../action/platform-inputs.ts';
import { Cancellation, CancelledError, readInputs, stepWait } from '../action/runtime.ts';
import { Deadline } from '../action/deadline.ts';

/** A create answered 429 with a Retry-After longer than this fails at once and says when to retry. */
const LONGEST_CREATE_WAIT_MS = 60_000;

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
      deadline,
      ...stepWait(cancellation, inputs.limits),
      onJob: (id) => {
        jobId = id;
        cancellation.jobGoesOn(`The agent job ${id} goes on on the server; a later run can wait on it with job-id: ${id}.`, { [Output.JobId]: id });
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
    const job = error instanceof WaitTimeoutError ? (error as WaitTimeoutError<AgentJob>).last : undefined;
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


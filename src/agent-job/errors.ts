// The agent-job action's errors, as one line a person can act on: a failed job, a timeout, the API's answers.
import * as core from '../action/core.ts';
import type { AgentJobInputs } from './inputs.ts';
import type { AgentRunResult } from './job.ts';
import { WaitTimeoutError } from '../wait/wait.ts';
import type { AgentJob } from '../platform/agent.ts';
import { ApiError } from '../platform/transport.ts';
import { AgentJobInput as Input } from '../action/constants.ts';
import { explainError } from '../action/explain.ts';
import { formatDuration, formatInstant } from '../action/format.ts';

export function failedMessage(result: AgentRunResult, inputs: AgentJobInputs): string {
  const next = inputs.failOnFailed
    ? ' Set fail-on-failed: false to let the workflow go on after a failed agent job.'
    : ' The step goes on because fail-on-failed is false; the status output is failed.';
  return `The agent job ${result.job.id} failed, and opened no pull request. The API gives no reason: open the job in the dashboard to see what the agent ran into, adjust the prompt, and run again.${next}`;
}

export function explainAgentError(error: unknown, inputs: AgentJobInputs, jobId: string | undefined, now = Date.now()): string {
  if (error instanceof WaitTimeoutError) {
    const last = (error as WaitTimeoutError<AgentJob>).last;
    const id = last?.id ?? jobId ?? '';
    const status = last ? `it was still ${last.status}` : 'no status was seen';
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

// The agent-job action's inputs, read and checked in one place before any request is sent.
import * as core from '../action/core.ts';
import type { AgentPlan } from './job.ts';
import { AgentJobInput as Input } from '../action/constants.ts';
import { InputError, parseBoolean } from '../action/inputs.ts';
import { type PlatformInputs, readDuration, readPlatformInputs, readPollLimits, readProjectId } from '../action/platform-inputs.ts';
import type { ScheduleLimits } from '../wait/wait.ts';

export interface AgentJobInputs extends PlatformInputs {
  projectId: string;
  plan: AgentPlan;
  timeoutMs: number;
  limits: ScheduleLimits;
  failOnFailed: boolean;
}

/** Reads and checks every input before any request, so bad input costs nothing. */
export function readAgentJobInputs(): AgentJobInputs {
  const platform = readPlatformInputs({ requestTimeoutInput: true });
  const projectId = readProjectId();
  const jobId = core.getInput(Input.JobId).trim();
  const prompt = core.getInput(Input.Prompt).trim();
  let plan: AgentPlan;
  if (jobId !== '' && prompt !== '') {
    throw new InputError(Input.JobId, `'${jobId}' is set, and so is prompt: a step either starts an agent job (prompt) or waits on one already started (job-id). Remove one of the two.`);
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
    limits: readPollLimits({ declared: true }),
    failOnFailed: parseBoolean(Input.FailOnFailed, core.getInput(Input.FailOnFailed) || 'true')
  };
}

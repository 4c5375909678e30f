// An agent job from start to end: create one from a prompt (or take one someone started), then wait
// until it is completed, archived or failed. Nothing here reads inputs or writes outputs.
import { AGENT_FINAL_STATUSES, type AgentJob, createAgentJob, getAgentJob } from '../platform/agent.ts';
import type { ApiClient } from '../platform/transport.ts';
import { AgentSchedule } from '../wait/agent-schedule.ts';
import { type JobRunOptions, WaitTimeoutError, waitUntilFinal } from '../wait/wait.ts';
import { type Deadline, DeadlineError } from '../action/deadline.ts';

export type AgentPlan = { start: { prompt: string } } | { follow: string };

export interface AgentRunOptions extends JobRunOptions {
  projectId: string;
  /** The step's deadline, which bounds each request too: the wait ends on the same clock. */
  deadline?: Deadline;
}

export interface AgentRunResult {
  /** The job in its final status: completed, archived or failed. */
  job: AgentJob;
  /** True when this run created the job. */
  started: boolean;
  waitedMs: number;
}

function isAgentJobFinal(job: AgentJob): boolean {
  return AGENT_FINAL_STATUSES.includes(job.status);
}

export async function runAgentJob(client: ApiClient, plan: AgentPlan, options: AgentRunOptions): Promise<AgentRunResult> {
  const now = options.now ?? Date.now;
  const began = now();
  const started = 'start' in plan;
  const first = started
    ? await createAgentJob(client, options.projectId, plan.start.prompt)
    : await getAgentJob(client, options.projectId, plan.follow);
  options.onJob?.(first.id);
  options.log(
    started ? `Started agent job ${first.id} in project ${options.projectId}.` : `Waiting on agent job ${first.id} in project ${options.projectId}.`
  );

  let lastStatus = '';
  let last = first;
  const seen = (job: AgentJob) => {
    last = job;
    if (job.status === lastStatus) return; // a line per change, not per poll
    lastStatus = job.status;
    options.log(agentStatusLine(job, now() - began));
  };
  seen(first);
  // A timeout ends as the one WaitTimeoutError, waitingOn 'agent job', with the last job seen.
  const job = await waitUntilFinal({
    poll: () => getAgentJob(client, options.projectId, first.id),
    isFinal: isAgentJobFinal,
    schedule: new AgentSchedule(options.limits),
    deadline: options.deadline?.at ?? began + options.timeoutMs,
    signal: options.signal,
    initial: first,
    onPoll: seen,
    waitingOn: 'agent job',
    began,
    now
  }).catch((error: unknown) => {
    // A poll whose answer was still out when the step's time ran out is cut by that deadline: that is
    // the timeout, and the person needs the status last seen and the job id, not the cut request.
    if (error instanceof DeadlineError) throw new WaitTimeoutError(last, 'agent job', now() - began);
    throw error;
  });
  return { job, started, waitedMs: now() - began };
}

/** `active · the agent is working (12 s)`, `completed · pull request https://…` */
function agentStatusLine(job: AgentJob, elapsedMs: number): string {
  const seconds = `${Math.round(elapsedMs / 1000)} s`;
  switch (job.status) {
    case 'active':
      return `active · the agent is working (${seconds})`;
    case 'completed':
      return job.prLink
        ? `completed · pull request ${job.prLink}`
        : 'completed · the agent changed no files, so it opened no pull request';
    case 'archived':
      return `archived${job.prLink ? ` · pull request ${job.prLink}` : ''}`;
    case 'failed':
      return 'failed · the agent hit an error it could not recover from';
    default:
      // A word the API does not list: keep waiting, but show it.
      return `${job.status} (${seconds})`;
  }
}

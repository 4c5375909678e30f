// The agent area of the admin API (v2): start a job from a prompt, read a job.
import { Shape } from './shape.ts';
import type { ApiClient } from './transport.ts';

export interface AgentJob {
  id: string;
  /** active, completed, archived, failed; other words mean "still working". */
  status: string;
  repository?: string;
  branch?: string;
  model?: string;
  prLink?: string;
  createdAt?: string;
  archivedAt?: string;
}

export const AGENT_FINAL_STATUSES = ['completed', 'archived', 'failed'];

export async function createAgentJob(client: ApiClient, projectId: string, prompt: string): Promise<AgentJob> {
  const path = `/v2/agent/${encodeURIComponent(projectId)}/job`;
  // `create`: a second request after a lost answer could start a second agent run.
  return readAgentJob(await client.request('POST', path, { body: { prompt }, retry: 'create' }), `POST ${path}`);
}

export async function getAgentJob(client: ApiClient, projectId: string, id: string): Promise<AgentJob> {
  const path = `/v2/agent/${encodeURIComponent(projectId)}/job/${encodeURIComponent(id)}`;
  return readAgentJob(await client.request('GET', path), `GET ${path}`);
}

function readAgentJob(body: unknown, what: string): AgentJob {
  const shape = new Shape(body, what);
  const source = shape.optionalObject('source');
  return {
    id: shape.string('id'),
    status: shape.string('status'),
    repository: source?.optionalString('repository'),
    branch: source?.optionalString('ref'),
    model: shape.optionalString('model'),
    prLink: shape.optionalString('prLink'),
    createdAt: shape.optionalString('createdAt'),
    archivedAt: shape.optionalString('archivedAt')
  };
}

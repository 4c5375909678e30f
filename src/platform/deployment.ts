// The deployment area of the admin API: queue a deployment ("publish") of the configured branch, and
// read how it went. A deployment publishes what the static export then exports.
import { Shape } from './shape.ts';
import type { ApiClient } from './transport.ts';

/** The enum's words; a server may send others, which mean "not finished yet". */
export type DeploymentStatus = 'queued' | 'in_progress' | 'success' | 'failure';

export interface Deployment {
  statusId: string;
  /** Kept as sent: an unknown word must keep the wait going, not break it. */
  status: string;
  summary?: string;
  logs: string[];
  /** The commit the deployment took; may be missing while queued. */
  commit?: { sha: string; ref: string; message?: string };
}

/**
 * Queues a deployment of the branch the platform deploys. Like an agent job's start (`create`), it
 * is not sent again after a fault that the platform may have acted on: the run could not follow a
 * deployment whose id never arrived, and each resend would queue one more.
 */
export async function triggerDeployment(client: ApiClient, projectId: string): Promise<string> {
  const path = `/v1/project/update/${encodeURIComponent(projectId)}`;
  return new Shape(await client.request('POST', path, { retry: 'create' }), `POST ${path}`).string('statusId');
}

export async function getDeployment(client: ApiClient, statusId: string): Promise<Deployment> {
  const path = `/v1/project/update-status/${encodeURIComponent(statusId)}`;
  const shape = new Shape(await client.request('GET', path), `GET ${path}`);
  const commit = shape.optionalObject('commit');
  const logs = shape.optionalArray('logs') ?? [];
  return {
    statusId,
    status: shape.string('status'),
    summary: shape.optionalString('summary'),
    logs: logs.filter((line): line is string => typeof line === 'string'),
    commit: commit && { sha: commit.string('sha'), ref: commit.string('ref'), message: commit.optionalString('message') }
  };
}

export function isDeploymentFinished(deployment: Deployment): boolean {
  return deployment.status === 'success' || deployment.status === 'failure';
}

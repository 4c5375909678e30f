// The platform's deployments ("publishing"), for the emulator: pushes move a branch head; the
// platform deploys its configured branch one deployment at a time, each publishing the head as it
// stands when that deployment starts. What the static export exports is what was last published.
// State is computed from the clock, as for export jobs, so a test with a fake clock never waits.
import { createHash } from 'node:crypto';

/** `failure`: the deployment fails; `unknown-status`: a status word the enum lacks while it runs;
 * `missing-commit`: a success whose answer has no `commit`. Each applies to the next deployments queued. */
export type DeploymentFault = 'failure' | 'unknown-status' | 'missing-commit';
export const DEPLOYMENT_FAULTS: DeploymentFault[] = ['failure', 'unknown-status', 'missing-commit'];

export interface DeploymentSettings {
  /** The branch the platform deploys. */
  branch: string;
  /** How long one deployment runs. */
  deployMs: number;
  /** The commit published before any deployment. */
  initialSha: string;
}

export interface Commit {
  sha: string;
  ref: string;
  message: string;
}

interface Deployment {
  id: string;
  projectId: string;
  queuedAt: number;
  source: 'github' | 'api';
  fault?: DeploymentFault;
}

export function fakeSha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}

export class Deployments {
  readonly settings: DeploymentSettings;
  private readonly clock: () => number;
  /** The pages a deployment builds: the platform's, so a deployment and the export after it agree. */
  private readonly pageCount: () => number;
  /** Each branch's heads in the order pushed: [at, commit]. */
  private readonly heads = new Map<string, [number, Commit][]>();
  private readonly deployments: Deployment[] = [];
  private readonly armed: { fault: DeploymentFault; times: number }[] = [];
  private count = 0;

  constructor(clock: () => number, settings: Partial<DeploymentSettings> = {}, pageCount: () => number = () => 120) {
    this.clock = clock;
    this.pageCount = pageCount;
    // A setting given as undefined (an unset command-line flag) keeps its default.
    const given = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
    this.settings = { branch: 'main', deployMs: 1500, initialSha: fakeSha('initial'), ...given };
    this.heads.set(this.settings.branch, [[-Infinity, { sha: this.settings.initialSha, ref: this.settings.branch, message: 'Initial docs' }]]);
  }

  /** A push: the branch head moves, and on the deployed branch the platform's GitHub app deploys it. */
  push(branch: string, sha: string, message = `Update docs (${sha.slice(0, 7)})`): void {
    const now = this.clock();
    const list = this.heads.get(branch) ?? [];
    list.push([now, { sha, ref: branch, message }]);
    this.heads.set(branch, list);
    if (branch === this.settings.branch) this.queue('project', 'github');
  }

  /** `POST /v1/project/update/{projectId}`: queues a deployment of the deployed branch. */
  trigger(projectId: string): string {
    return this.queue(projectId, 'api').id;
  }

  /** How many deployments the API queued (POST /v1/project/update), not the platform's GitHub app. */
  triggered(): number {
    return this.deployments.filter((deployment) => deployment.source === 'api').length;
  }

  /** Every deployment queued from now on gets the fault, or the next `times` of them. */
  arm(fault: DeploymentFault, times = Number.POSITIVE_INFINITY): void {
    this.armed.push({ fault, times });
  }

  /** The commit the platform serves now: the one the last finished, successful deployment took. */
  published(): Commit {
    const now = this.clock();
    let commit = this.headAt(this.settings.branch, -Infinity);
    for (const [deployment, timing] of this.timeline()) {
      if (timing.endsAt <= now && deployment.fault !== 'failure') commit = this.headAt(this.settings.branch, timing.startsAt);
    }
    return commit;
  }

  /** The update-status answer, or undefined for an unknown id. */
  view(statusId: string): Record<string, unknown> | undefined {
    const now = this.clock();
    const entry = this.timeline().find(([deployment]) => deployment.id === statusId);
    if (!entry) return undefined;
    const [deployment, { startsAt, endsAt }] = entry;
    const commit = this.headAt(this.settings.branch, Math.min(startsAt, now));
    const base = {
      _id: deployment.id,
      projectId: deployment.projectId,
      createdAt: new Date(deployment.queuedAt).toISOString(),
      subdomain: 'docs-example',
      source: deployment.source,
      // A field no schema lists: clients must ignore it.
      screenshotAlt: 'Home page'
    };
    const withCommit = { commit: { sha: commit.sha, ref: commit.ref, message: commit.message, filesChanged: { added: [], modified: ['index.mdx'], removed: [] } } };
    if (now < startsAt) return { ...base, status: 'queued', summary: 'Waiting for an earlier deployment to finish', logs: [] };
    const pages = this.pageCount();
    const logs = [`Cloning ${commit.ref} at ${commit.sha.slice(0, 7)}`, 'Installing dependencies', `Building ${pages} pages`];
    if (now < endsAt) {
      const word = deployment.fault === 'unknown-status' ? 'building' : 'in_progress';
      return { ...base, ...withCommit, status: word, summary: 'Deploying', logs };
    }
    const endedAt = new Date(endsAt).toISOString();
    if (deployment.fault === 'failure') {
      const failed = [...logs, ...Array.from({ length: 12 }, (_, i) => `Checking links: batch ${i + 1} of 12`), 'Error: broken link /guides/missing in guides/setup.mdx', 'Build failed'];
      return { ...base, ...withCommit, status: 'failure', endedAt, summary: 'Build failed: 1 broken link', logs: failed };
    }
    const done = { ...base, status: 'success', endedAt, summary: `Deployed ${pages} pages`, logs: [...logs, 'Published'] };
    return deployment.fault === 'missing-commit' ? done : { ...done, ...withCommit };
  }

  private queue(projectId: string, source: Deployment['source']): Deployment {
    this.count += 1;
    const armed = this.armed[0];
    if (armed && --armed.times <= 0) this.armed.shift();
    const deployment: Deployment = { id: `dep_${fakeSha(`${this.count}:${this.clock()}`).slice(0, 16)}`, projectId, queuedAt: this.clock(), source, fault: armed?.fault };
    this.deployments.push(deployment);
    return deployment;
  }

  /** One at a time: each starts when it was queued or when the one before ended, whichever is later. */
  private timeline(): [Deployment, { startsAt: number; endsAt: number }][] {
    let free = -Infinity;
    return this.deployments.map((deployment) => {
      const startsAt = Math.max(deployment.queuedAt, free);
      free = startsAt + this.settings.deployMs;
      return [deployment, { startsAt, endsAt: free }];
    });
  }

  private headAt(branch: string, at: number): Commit {
    const list = this.heads.get(branch) ?? [];
    let commit = list[0]?.[1] ?? { sha: this.settings.initialSha, ref: branch, message: '' };
    for (const [pushedAt, pushed] of list) if (pushedAt <= at) commit = pushed;
    return commit;
  }
}

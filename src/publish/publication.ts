// Before exporting for a push: make sure the platform has published the pushed commit. The static
// export exports "the latest published version", and the platform deploys a push on its own, a
// minute or two after it; an export started at once would hold the docs as they were before.
//
// The deployment API cannot look up the deployment the push itself started, so this queues one
// more: deployments run one at a time, so it starts after the push's own and publishes the branch
// head as it stands then, which should be the pushed commit or a newer one. Should: when another
// commit is published, GitHub's compare says whether it includes the push; behind it, the run
// queues the next deployment once, then fails rather than export older docs.
import { type Deployment, getDeployment, isDeploymentFinished, triggerDeployment } from '../platform/deployment.ts';
import type { ApiClient } from '../platform/transport.ts';
import type { Deadline } from '../action/deadline.ts';
import { formatDuration } from '../action/format.ts';
import { StatusSchedule } from '../wait/status-schedule.ts';
import { type ScheduleLimits, WaitTimeoutError, waitUntilFinal } from '../wait/wait.ts';

/** What the run expects to be published: the commit and branch that triggered it. */
export interface PushedCommit {
  sha: string;
  /** The branch name, without refs/heads/. */
  branch: string;
}

export interface Publication {
  sha: string;
  branch: string;
  /** True when the platform published a commit that GitHub's compare shows ahead of the pushed one (another push landed). */
  newer: boolean;
  statusId: string;
}

/** A deployment takes a minute or two: no need to look more often than this. */
const DEPLOYMENT_CEILING_MS = 10_000;
/**
 * One look this long after the queue, off the beat: a deployment that started names its commit and
 * branch, so a push from a branch the platform does not deploy stops then, not a beat (10 s) later.
 */
const FIRST_LOOK_MS = 1000;
/** How many of the deployment's last log lines a failure shows. */
export const LOG_LINES_SHOWN = 10;

export class DeploymentFailedError extends Error {
  readonly deployment: Deployment;
  constructor(deployment: Deployment, pushed?: PushedCommit) {
    const what = deployment.commit ? `of ${deployment.commit.sha.slice(0, 7)} from ${deployment.commit.ref}` : pushed ? `of ${pushed.branch}` : '';
    super(
      `The platform's deployment ${what} failed: ${deployment.summary ?? 'it gave no summary'}. Nothing was exported, so no stale bundle is proposed. ` +
        (deployment.logs.length
          ? "Fix what the deployment's last log lines (below) name, then push again."
          : "The deployment gave no log: open the project's deployments in the platform's dashboard, fix what it shows, then push again.")
    );
    this.name = 'DeploymentFailedError';
    this.deployment = deployment;
  }
}

class WrongBranchError extends Error {
  constructor(pushed: PushedCommit, deployedRef: string) {
    super(
      `This run is for a push to ${pushed.branch}, but the platform deploys ${deployedRef}: an export now would hold ${deployedRef}'s docs, not this push. ` +
        `Run this workflow on pushes to ${deployedRef}, or change the platform's deployment branch; set wait-for-deployment: false to export whatever is published without waiting.`
    );
    this.name = 'WrongBranchError';
  }
}

/** The deployment answered success but named no commit, so nothing says what is published. */
class UnknownCommitError extends Error {
  constructor(statusId: string) {
    super(
      `The platform's deployment ${statusId} succeeded but its answer has no \`commit\` field, so the run cannot tell which docs are published. ` +
        'Nothing was exported. Run again; if it repeats, report it to the platform with this id, or set wait-for-deployment: false.'
    );
    this.name = 'UnknownCommitError';
  }
}

export interface PublicationOptions {
  projectId: string;
  /** The pushed commit to check against; without it, any successful deployment is taken as it is. */
  pushed?: PushedCommit;
  deadline: Deadline;
  limits: ScheduleLimits;
  signal?: AbortSignal;
  log: (line: string) => void;
  now?: () => number;
  /** GitHub's compare of the pushed commit (base) with the published one (head), when a token is at hand; or why there is none. */
  compare?: (base: string, head: string) => Promise<Comparison | string>;
}

/** How the published commit stands to the pushed one, as GitHub's compare says. */
export interface Comparison {
  status: 'ahead' | 'behind' | 'identical' | 'diverged';
  aheadBy: number;
  behindBy: number;
}

/** How many deployments a run queues when the platform published a commit behind the pushed one. */
const DEPLOYMENT_ROUNDS = 2;

export async function waitForPublication(client: ApiClient, options: PublicationOptions): Promise<Publication> {
  const { pushed, log } = options;
  for (let round = 1; ; round++) {
    const { deployment, statusId } = await deployOnce(client, options);
    const commit = deployment.commit!;
    const branch = stripHeads(commit.ref);
    if (!pushed || commit.sha === pushed.sha) {
      log(`Published ${commit.sha.slice(0, 7)} from ${branch}; exporting it.`);
      return { sha: commit.sha, branch, newer: false, statusId };
    }
    const published = commit.sha.slice(0, 7);
    const mine = pushed.sha.slice(0, 7);
    const comparison = options.compare ? await options.compare(pushed.sha, commit.sha) : 'no github-token is at hand';
    if (typeof comparison === 'string') {
      // Unchecked, so no claim that it is newer: it may as well be older.
      log(`The platform published ${published}, not this run's ${mine}, and the run could not ask GitHub whether it includes this push (${comparison}). Exporting what is published.`);
      return { sha: commit.sha, branch, newer: false, statusId };
    }
    const { status, aheadBy, behindBy } = comparison;
    const counted = (n: number) => `${n} ${n === 1 ? 'commit' : 'commits'}`;
    if (status === 'ahead' || status === 'identical') {
      log(`The platform published ${published}, ${counted(aheadBy)} ahead of this run's ${mine} (GitHub's compare): another push landed meanwhile. Exporting that, which includes this push.`);
      return { sha: commit.sha, branch, newer: true, statusId };
    }
    if (status === 'diverged') {
      throw new Error(
        `The platform published ${published}, which does not contain this run's ${mine} (GitHub's compare: ${counted(aheadBy)} ahead, ${counted(behindBy)} behind; the branch was force-pushed, or the platform deploys another history). ` +
          'Nothing was exported, so no stale bundle is proposed. Check what the platform deploys, then run again.'
      );
    }
    if (round >= DEPLOYMENT_ROUNDS) {
      throw new Error(
        `The platform published ${published}, ${counted(behindBy)} behind this run's ${mine} (GitHub's compare), after ${DEPLOYMENT_ROUNDS} deployments: it has not seen this push. ` +
          "Nothing was exported, so no stale bundle is proposed. Check the platform's GitHub app for this repository and the deployed branch, then run again."
      );
    }
    log(`The platform published ${published}, ${counted(behindBy)} behind this run's ${mine} (GitHub's compare): it had not seen this push yet. Queuing the next deployment and waiting for it.`);
  }
}

/** Queues one deployment and waits until it has published a commit; throws when it fails or times out. */
async function deployOnce(client: ApiClient, options: PublicationOptions): Promise<{ deployment: Deployment; statusId: string }> {
  const { pushed, log } = options;
  const statusId = await triggerDeployment(client, options.projectId);
  log(`Waiting for the platform to publish ${pushed ? `${pushed.sha.slice(0, 7)} from ${pushed.branch}` : 'the deployment branch'} before exporting (deployment ${statusId}).`);
  const limits = { floorMs: options.limits.floorMs, ceilingMs: Math.min(options.limits.ceilingMs, DEPLOYMENT_CEILING_MS) };
  let lastLine = '';
  const seen = (deployment: Deployment) => {
    // A wrong branch is known as soon as the deployment names its commit: say it at once.
    if (pushed && deployment.commit && stripHeads(deployment.commit.ref) !== pushed.branch) throw new WrongBranchError(pushed, stripHeads(deployment.commit.ref));
    const line = `deployment ${deployment.status}${deployment.commit ? ` · ${deployment.commit.sha.slice(0, 7)}` : ''}${deployment.summary ? ` · ${deployment.summary}` : ''}`;
    if (line !== lastLine) log(line);
    lastLine = line;
  };

  let deployment: Deployment;
  try {
    deployment = await waitUntilFinal({
      poll: async () => {
        const state = await getDeployment(client, statusId);
        seen(state);
        return state;
      },
      isFinal: isDeploymentFinished,
      schedule: new StatusSchedule<Deployment>(limits, { earlyLooksMs: [FIRST_LOOK_MS] }),
      deadline: options.deadline.at,
      signal: options.signal,
      initial: { statusId, status: 'queued', logs: [] },
      waitingOn: 'deployment',
      now: options.now
    });
  } catch (error) {
    if (error instanceof WaitTimeoutError) {
      throw new Error(
        `The platform had not published the push within the step's timeout (${formatDuration(options.deadline.timeoutMs)}; deployment ${statusId}), so nothing was exported. ` +
          'Raise timeout (a deployment takes a minute or two), or check the deployment in the platform dashboard.',
        { cause: error }
      );
    }
    throw error;
  }
  if (deployment.status === 'failure') throw new DeploymentFailedError(deployment, pushed);
  if (!deployment.commit) throw new UnknownCommitError(statusId);
  return { deployment, statusId };
}

function stripHeads(ref: string): string {
  return ref.replace(/^refs\/heads\//, '');
}

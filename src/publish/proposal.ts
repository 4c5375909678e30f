// Keeps the self-hosted deployment's configuration pointing at the new bundle: read what is deployed
// (the values file on the base branch) and what is proposed (the open pull request), plan the one file
// the pull request should hold (reconcile.ts), and write it (or, in a dry run, only show it). Runs
// only after a completed export and a bundle.
import { jobIdFromLink } from '../values/link.ts';
import { type SettingChange, readSetting } from '../values/values-file.ts';
import type { ConfigTarget, ProposalFacts, PublishedBundle } from './proposal-types.ts';
import { defaultTitle, describedFromFile, pullRequestBody, sameExport } from './pull-request-body.ts';
import { PullRequestError } from '../github/errors.ts';
import { branchHead } from '../github/repository.ts';
import { type PullState, readPullState, updatePull } from '../github/pull-edits.ts';
import { type Octokit, proposeChange } from '../github/pull-request.ts';
import { exportOfBody, linkIn, productionServes, readProposalFacts, vetoReason, vetoedExports } from './proposal-facts.ts';
import { newerElsewhere } from './order-rule.ts';
import { judgedHeadOf, rememberJudged, writeMarks } from './marks.ts';
import { regionOf, titleFor, withRegion } from './body.ts';
import { EXPIRING_LABEL, type ProductionGuard, firstLineOf, withFirstLine } from './production-guard.ts';
import { planProposal, refuseBranch } from './reconcile.ts';

export interface ConfigUpdate {
  /** True when the file on the base does not hold these values yet. */
  changed: boolean;
  operation: 'created' | 'updated' | 'none';
  number?: number;
  url?: string;
  changes: SettingChange[];
  baseBranch: string;
  body?: string;
  /** Why the open pull request was left as it is (a newer export, a person's change to the settings). */
  kept?: string;
  /** The link on the base branch as last read: what production holds. */
  deployedLink?: string;
  /** True when an open pull request waits whose merge changes production. */
  pending: boolean;
  /** The branch the proposal lives on. */
  prBranch?: string;
}

/** What the proposal needs to know beyond the bundle. */
export interface ProposalContext {
  /** What GitHub held when the run began. */
  facts: ProposalFacts;
  /** The run waited minutes on the platform: look whether the base moved since the facts were read. */
  refresh?: boolean;
  /** When an export was made (the platform's createdAt), to never replace a newer proposal; unset without an api-key. */
  createdAtOf?: (jobId: string) => Promise<string | undefined>;
  /** A warning for the log. */
  warn: (line: string) => void;
}

/** How many times a run reads and plans again when another writer moved the branch meanwhile. */
const BRANCH_ATTEMPTS = 3;

export async function updateDeploymentConfig(octokit: Octokit, target: ConfigTarget, published: PublishedBundle, context: ProposalContext): Promise<ConfigUpdate> {
  const { repo } = target;
  let facts = context.facts;
  for (let attempt = 1; attempt <= BRANCH_ATTEMPTS; attempt++) {
    if (attempt > 1 || (context.refresh && !(await stillAsRead(octokit, target, facts)))) {
      // The export took minutes, or another writer moved the branch: plan on what GitHub holds now.
      facts = await readProposalFacts(octokit, target);
      const refused = refuseBranch(facts, target);
      if (refused) throw new PullRequestError(refused);
    }
    const { base: file, open: proposal, unopened, prBranch } = facts;
    const deployedLink = linkIn(target, file.text);
    const result = { baseBranch: file.branch, deployedLink, prBranch };
    const vetoed = vetoedExports(facts, deployedLink && jobIdFromLink(deployedLink)).get(published.job.jobId);
    const newer = vetoed
      ? { kind: 'keep' as const, reason: vetoReason(published.job.jobId, vetoed) }
      : await newerElsewhere({ ...target, prBranch }, published.job, deployedLink, proposal, context.createdAtOf, unopened?.text);
    if (newer?.kind === 'keep') {
      // This run proposes nothing, yet the open pull request stays mergeable on the base as it is now,
      // and its body says what its branch holds (a run at the same moment may have left another's).
      await describeAsHeld(octokit, target, facts);
      const rebuilt = await keepProposalCurrent(octokit, target, facts);
      if (rebuilt && !rebuilt.kept) return { ...rebuilt, kept: newer.reason };
    }
    const plan = newer
      ? newer
      : planProposal({
          path: target.path,
          key: target.key,
          branch: prBranch,
          deployed: file.text,
          proposal,
          offer: { bundleUrl: published.bundle.bundleUrl, enable: !published.renewal, version: published.version }
        });
    if (plan.kind === 'current') return { changed: false, operation: 'none', changes: [], ...result, pending: false };
    if (plan.kind === 'keep') {
      return { changed: proposal !== undefined, operation: 'none', number: proposal?.number, url: proposal?.url, changes: [], kept: plan.reason, ...result, pending: proposal !== undefined };
    }
    // A new pull request after one a person closed names it, so the reviewer knows what was said before.
    // Not for a renewal: production's export is never vetoed, and a renewal the action closed as stale was no person's no.
    const closed = proposal || published.renewal ? undefined : facts.pulls.find((pull) => pull.state === 'closed' && !pull.merged && pull.base === file.branch);
    // The guard's first line is the guard's to change (markPullRequest): a new body keeps it.
    const production = { serves: productionServes(target, file.text) };
    const drafted = pullRequestBody(target, { ...published, closedBefore: closed && { number: closed.number, jobId: closed.proposedJobId } }, plan.changes, deployedLink, production);
    // The action writes its region and, while it is its own, the title; a person's lines and title stand (body.ts).
    const title = titleFor(proposal, target.title ?? defaultTitle(published, deployedLink), target.title);
    const body = withRegion(proposal?.body, withFirstLine(drafted, proposal && firstLineOf(regionOf(proposal.body))), target.title ?? defaultTitle(published, deployedLink));
    if (target.dryRun) return { changed: true, operation: 'none', changes: plan.changes, body, ...result, pending: false };
    const written = await proposeChange(octokit, repo, {
      path: target.path,
      text: plan.text,
      base: file,
      branch: prBranch,
      proposal,
      branchHead: unopened === undefined ? undefined : (unopened?.headSha ?? null),
      repositoryId: facts.repository.nodeId,
      commitMessage: commitMessage(target, published, deployedLink),
      title,
      body,
      labels: target.labels
    });
    if (written !== 'raced') {
      rememberJudged(octokit, written.number, written.commitSha ?? proposal?.headSha);
      return { changed: true, ...written, changes: plan.changes, body, ...result, pending: true };
    }
    if (attempt < BRANCH_ATTEMPTS) {
      context.warn(
        `Another writer moved branch ${prBranch} in ${repo.owner}/${repo.repo}, or a person merged or closed its pull request, while this run wrote to it; reading it again (attempt ${attempt + 1} of ${BRANCH_ATTEMPTS}).`
      );
    }
  }
  throw new PullRequestError(
    `Branch ${facts.prBranch} in ${repo.owner}/${repo.repo} kept changing while this run wrote to it: another run or a person is writing to it. ` +
      'Nothing of this run was left half-written; run again once the other writer is done (one concurrency group per workflow keeps runs of the same workflow apart).'
  );
}

/**
 * After minutes of exporting: true when the base and the open pull request are as the run read them.
 * The pull request's title and body are taken as they are now (a person may have written in them
 * meanwhile), so nothing is written from the older copy.
 */
async function stillAsRead(octokit: Octokit, target: ConfigTarget, facts: ProposalFacts): Promise<boolean> {
  if ((await branchHead(octokit, target.repo, facts.base.branch)) !== facts.base.sha) return false;
  if (!facts.open) return true;
  const now = await readPullState(octokit, target.repo, facts.open.number);
  if (now.state !== 'open' || now.headSha !== facts.open.headSha) return false;
  facts.open = { ...facts.open, title: now.title, body: now.body, labels: now.labels };
  return true;
}

/**
 * A body whose region names another export than the one its branch holds (two runs wrote at the same
 * moment, and the older's body landed last; GitHub has no precondition on a body) is described again
 * from what the branch holds: the export and its link from the file, what merging changes against the
 * base. What only the run that exported knew (size, pages, the content diff) is left to the next run.
 */
async function describeAsHeld(octokit: Octokit, target: ConfigTarget, facts: ProposalFacts): Promise<void> {
  const open = facts.open;
  if (!open || open.text === undefined || target.dryRun) return;
  const link = linkIn(target, open.text);
  const held = link && jobIdFromLink(link);
  const said = exportOfBody(regionOf(open.body));
  if (!held || !said || held === said) return;
  const region = describedFromFile(target, facts.base.text, open.text, held, link);
  const title = titleFor(open, open.title);
  try {
    await updatePull(octokit, target.repo, open.number, { body: withRegion(open.body, region, title) }, { body: open.body });
  } catch (error) {
    if (!(error instanceof PullRequestError)) throw error;
  }
}

/**
 * A run with nothing new to propose still keeps the open pull request mergeable: when the base moved
 * under it (or a merge of the base made it non-linear), the pull request's own settings and people's
 * changes are re-applied on the base's current file, with its title and body as they are. Undefined
 * when the pull request already sits on the base's head, or none is open.
 */
export async function keepProposalCurrent(octokit: Octokit, target: ConfigTarget, facts: ProposalFacts): Promise<ConfigUpdate | undefined> {
  const { open: proposal, base: file, prBranch } = facts;
  if (!proposal || proposal.text === undefined || target.dryRun || (proposal.linear && proposal.mergeBaseSha === file.sha)) return undefined;
  const link = linkIn(target, proposal.text);
  if (!link) return undefined;
  const deployedLink = linkIn(target, file.text);
  const result = { baseBranch: file.branch, deployedLink, prBranch, number: proposal.number, url: proposal.url };
  let version: unknown;
  try {
    version = readSetting(target.path, proposal.text, target.key, 'version');
  } catch {
    return undefined;
  }
  const plan = planProposal({
    path: target.path,
    key: target.key,
    branch: prBranch,
    deployed: file.text,
    proposal,
    offer: { bundleUrl: link, enable: false, ...(typeof version === 'string' ? { version } : {}) }
  });
  if (plan.kind === 'current') return undefined;
  if (plan.kind === 'keep') return { changed: true, operation: 'none', changes: [], kept: plan.reason, ...result, pending: true };
  const written = await proposeChange(octokit, target.repo, {
    path: target.path,
    text: plan.text,
    base: file,
    branch: prBranch,
    proposal,
    repositoryId: facts.repository.nodeId,
    commitMessage: `Rebuild the static export proposal on ${file.branch}'s current ${target.path}\n\nThe base changed since the pull request was written; its settings and people's changes are kept.`,
    title: proposal.title,
    body: proposal.body,
    labels: []
  });
  // Another writer moved the branch meanwhile: it is theirs to finish, and the next run looks again.
  if (written === 'raced') return undefined;
  rememberJudged(octokit, written.number, written.commitSha ?? proposal.headSha);
  return { changed: true, ...written, changes: plan.changes, ...result, pending: true };
}

/**
 * Keeps the guard's marks on a pull request: its first line, written only when its text changes, and
 * the expiring label. The pull request is read first, for GitHub's word on whether it can be merged:
 * `guard` decides from it, so a pull request that conflicts is never told "merge". A dry run only reads.
 */
export async function markPullRequest(
  octokit: Octokit,
  target: ConfigTarget,
  number: number,
  guard: (mergeable: boolean | undefined) => ProductionGuard
): Promise<ProductionGuard> {
  let decided: ProductionGuard | undefined;
  const decide = (pull: PullState) => {
    decided = guard(pull.mergeable);
    return { firstLine: decided.firstLine ?? null, labelled: decided.labelled };
  };
  // One writer of the marks (marks.ts): on the head this run judged, over the body just read.
  const marked = await writeMarks(octokit, target.repo, number, judgedHeadOf(octokit, number), decide, { dryRun: target.dryRun });
  if (marked.kind === 'overtaken') await redescribe(octokit, target);
  return decided ?? guard(undefined);
}

/**
 * After a body write that another writer overtook (marks.ts: `overtaken`): the pull request read anew,
 * and described from its branch when its body names another export.
 */
export async function redescribe(octokit: Octokit, target: ConfigTarget): Promise<void> {
  await describeAsHeld(octokit, target, await readProposalFacts(octokit, target));
}

/** True when the pull request carries a mark of the guard: a later run takes it off once production is safe. */
export function carriesGuardMarks(pull: { body: string; labels: string[] }): boolean {
  return firstLineOf(regionOf(pull.body)) !== undefined || pull.labels.includes(EXPIRING_LABEL);
}

function commitMessage(target: ConfigTarget, published: PublishedBundle, deployedLink: string | undefined): string {
  const what = sameExport(published, deployedLink) ? 'Renew the static export link' : 'Point the deployment at a new static export';
  const link = published.hosted ? 'a URL your team hosts, which does not expire' : `a link that expires at ${published.bundle.expiresAt}`;
  return `${what} (${published.job.jobId})\n\nSets ${target.key}.bundleUrl in ${target.path} to ${link}.`;
}

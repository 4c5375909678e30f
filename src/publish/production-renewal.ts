// The pull request that renews production's link: a fresh link for the export the base already serves,
// on a branch of its own (`<pr-branch>-renewal`), so that no push run ever turns it into content and a
// content pull request never holds it back. Its life follows production: every run closes it, with a
// line that says why, once it no longer renews what production serves (content merged, a newer
// renewal merged, the base's export changed by hand). Merging such a pull request would take
// production back to an older export, or to a link that expires sooner.
import { jobIdFromLink, linkExpiry } from '../values/link.ts';
import { formatUtc } from '../action/format.ts';
import { PullRequestError } from '../github/errors.ts';
import { PullChangedError, readPullState, removeLabel, updatePull } from '../github/pull-edits.ts';
import type { Octokit, OpenProposal } from '../github/pull-request.ts';
import type { ConfigTarget, ProposalFacts } from './proposal-types.ts';
import { linkIn, readProposalFacts } from './proposal-facts.ts';
import { editRegion } from './body.ts';
import { EXPIRING_LABEL, withoutMarkLines } from './production-guard.ts';
import { linkKind } from './reconcile.ts';

/** The branch production's own renewal lives on, beside the content proposal's `prBranch`. */
export function renewalBranch(prBranch: string): string {
  return `${prBranch}-renewal`;
}

/** Where production's renewal is proposed: the same file and base, its own branch, the action's own title. */
export function renewalTarget<T extends ConfigTarget>(target: T, prBranch: string): T {
  return { ...target, prBranch: renewalBranch(prBranch), prBranchDefault: false, title: undefined };
}

/** How the line a stale renewal is closed with begins. */
export const CLOSED_MARK = '**Closed by the static export action:**';

/**
 * Why the open renewal no longer renews what production serves, or undefined while it does. Only its
 * file says (the values file at its head), never its title or body.
 */
export function staleBecause(target: Pick<ConfigTarget, 'path' | 'key'>, baseText: string, baseBranch: string, open: Pick<OpenProposal, 'text'>): string | undefined {
  const proposed = linkIn(target, open.text);
  const proposedJob = proposed && jobIdFromLink(proposed);
  // A file without a link of a job is not a renewal this action wrote: not for this rule to judge.
  if (!proposed || !proposedJob) return undefined;
  const deployed = linkIn(target, baseText);
  const deployedJob = deployed && jobIdFromLink(deployed);
  if (deployedJob !== proposedJob) {
    const now = deployedJob ? `export ${deployedJob}` : deployed ? 'a link that names no export (set by hand)' : 'no bundle link';
    return `${target.path} on ${baseBranch} now holds ${now}, not export ${proposedJob}, which this pull request renews: merging it would take production back to older content.`;
  }
  // Production serves the export from a URL that never expires (one the team hosts): a renewal would move it back to one that does.
  if (deployed && linkKind(deployed).kind === 'hosted') {
    return `${baseBranch} serves export ${proposedJob} from a URL without an expiry of its own: merging this pull request would move production back to a link that expires.`;
  }
  const [deployedExpiry, proposedExpiry] = [deployed ? linkExpiry(deployed) : undefined, linkExpiry(proposed)];
  if (deployedExpiry && proposedExpiry && deployedExpiry.getTime() >= proposedExpiry.getTime()) {
    return `${baseBranch} already holds a link for export ${proposedJob} that expires at ${formatUtc(deployedExpiry.toISOString())}, no sooner than this pull request's (${formatUtc(proposedExpiry.toISOString())}): a newer renewal was merged.`;
  }
  return undefined;
}

export interface ClosedRenewal {
  number: number;
  url: string;
  why: string;
  /** A dry run closes nothing: it says what it would close. */
  dryRun: boolean;
}

/**
 * Reads production's renewal (the pull requests from its branch, beside the content proposal's
 * `content`), and closes the open one when it is stale. Returns the renewal's facts as they stand after that, and what was closed.
 */
export async function reconcileRenewal<T extends ConfigTarget>(
  octokit: Octokit,
  target: T,
  content: Pick<ProposalFacts, 'repository' | 'base' | 'prBranch'>,
  info: (line: string) => void
): Promise<{ facts: ProposalFacts; target: T; closed?: ClosedRenewal }> {
  const renewal = renewalTarget(target, content.prBranch);
  // The repository and the base's file are the ones the run just read for the content proposal; closing a pull request changes neither.
  const read = (): Promise<ProposalFacts> => readProposalFacts(octokit, renewal, content);
  const facts = await read();
  const open = facts.open;
  const why = open && staleBecause(renewal, facts.base.text, facts.base.branch, open);
  if (!open || !why) return { facts, target: renewal };
  // People's commits on the renewal's branch are theirs: the pull request is left to them.
  if (open.byPeople.length > 0) {
    info(`Renewal pull request #${open.number} (${open.url}) no longer renews what production serves (${why}), but people committed to its branch: it is left open for them to close.`);
    return { facts, target: renewal };
  }
  if (target.dryRun) {
    info(`Dry run: renewal pull request #${open.number} (${open.url}) would be closed: ${why}`);
    return { facts, target: renewal, closed: { number: open.number, url: open.url, why, dryRun: true } };
  }
  const closed = await closeRenewal(octokit, renewal, open, why);
  if (!closed) return { facts: await read(), target: renewal };
  info(`Closed renewal pull request #${open.number} (${open.url}): ${why}`);
  return { facts: await read(), target: renewal, closed: { number: open.number, url: open.url, why, dryRun: false } };
}

/**
 * Closes the renewal with its reason as the region's first line (the guard's and the urgent line
 * taken off), in one write over the body just read, at the head the run judged. False when the pull
 * request moved or closed meanwhile: the next run judges it again.
 */
async function closeRenewal(octokit: Octokit, target: ConfigTarget, open: OpenProposal, why: string): Promise<boolean> {
  const pull = await readPullState(octokit, target.repo, open.number);
  if (pull.state !== 'open' || pull.headSha !== open.headSha) return false;
  const line = `${CLOSED_MARK} ${why} Production keeps the link on its base; the nightly opens a new renewal when that one is due.`;
  const body = editRegion(pull, (region) => `${line}\n\n${withoutMarks(region)}`);
  try {
    await updatePull(octokit, target.repo, open.number, { body, state: 'closed' }, { body: pull.body });
  } catch (error) {
    if (error instanceof PullChangedError) return false;
    throw error;
  }
  // Lists filtered by the label show what production waits on: a closed renewal is not that.
  if (pull.labels.includes(EXPIRING_LABEL)) {
    try {
      await removeLabel(octokit, target.repo, open.number, EXPIRING_LABEL);
    } catch (error) {
      if (!(error instanceof PullRequestError)) throw error;
    }
  }
  return true;
}

/** The region without the guard's first line, the urgent line, or an earlier closing line. */
function withoutMarks(region: string): string {
  const unmarked = withoutMarkLines(region);
  return unmarked.startsWith(CLOSED_MARK) ? unmarked.slice(unmarked.indexOf('\n') + 1).replace(/^\n+/, '') : unmarked;
}


// Production's renewal, after the run's own proposal. A renewal is a new link for the export production
// already serves: no page changes, nothing for a reviewer to judge, yet without a merge production's
// link runs out. It lives on a branch of its own (production-renewal.ts), so a content pull request
// that waits for review never holds it back and no push turns it into content. Every run closes a
// stale one first (main.ts); here renew/ opens it as soon as production's link is due and keeps it
// current every night, whether or not the step may merge it; with auto-merge: renewals the step
// merges it (renewal-merge.ts), and the content pull request is then rebuilt on the moved base.
import type { Bundle, ExportJob } from '../platform/static-export.ts';
import type { Octokit, OpenProposal } from '../github/pull-request.ts';
import { jobIdFromLink, linkExpiry } from '../values/link.ts';
import { patchValuesFile } from '../values/values-file.ts';
import { formatUtc } from '../action/format.ts';
import { type ConfigUpdate, keepProposalCurrent, updateDeploymentConfig } from './proposal.ts';
import type { ConfigTarget, ProposalFacts } from './proposal-types.ts';
import { linkIn, productionServes, readProposalFacts } from './proposal-facts.ts';
import { refuseBranch } from './reconcile.ts';
import { type ClosedRenewal, renewalBranch } from './production-renewal.ts';
import { type MergeContext, type MergeMethod, type RenewalMerge, mergeRenewal } from './renewal-merge.ts';

export type { MergeMethod };
export { renewalBranch };

/** What the run did for production's renewal, for the report. */
export interface AutoMergeResult {
  /** A renewal closed because it no longer renews what production serves. */
  closed?: ClosedRenewal;
  /** The renewal this run opened or renewed beside a content pull request. */
  written?: ConfigUpdate;
  /** The renewal the action merged into the base. */
  merged?: { number: number; url: string; method: MergeMethod; jobId: string };
  /** GitHub's auto-merge armed on the renewal: it merges when its checks pass (`held`: once a person approves them). */
  armed?: { number: number; url: string; message: string; held: boolean };
  /** GitHub refused the merge: the renewal stays open, marked urgent. `message`: the rule, and how to allow it. */
  refused?: { number: number; url: string; message: string };
  /** The renewal's branch moved (or it was closed) while the step merged it: nothing merged, nothing marked. */
  moved?: { number: number; url: string };
  /** The content pull request, rebuilt on the base the renewal moved. */
  rebuilt?: ConfigUpdate;
  /** Production's link after the merge. */
  deployedLink?: string;
  /** The renewal that waits after the run: the pull request whose merge keeps production alive, and why it cannot merge itself (a few words), when known. */
  waiting?: { number: number; url: string; blocked?: string };
}

export interface AutoMergeContext extends MergeContext {
  /** Production's link is renewed on its own when it expires sooner than this. */
  dueWithinMs: number;
  /** A fresh link for an export; undefined without an api-key. */
  freshLink?: (jobId: string) => Promise<{ job: ExportJob; bundle: Bundle }>;
  domain?: string;
  /** renew/, or a step that may merge renewals: opens and renews production's renewal when it is due. */
  open: boolean;
  /** auto-merge: renewals. */
  merge: boolean;
}

/** Production's renewal as main.ts read it: its target, its facts (undefined: read them again), what was closed. */
export interface RenewalState {
  target: ConfigTarget;
  facts?: ProposalFacts;
  closed?: ClosedRenewal;
}

/**
 * Keeps production's renewal: opens it when production's link is due (or renews its own link when that
 * is due too), rebuilds it on a moved base, and merges it when the step may. `target`: the content
 * proposal's. Returns what it did, and the renewal that waits after it.
 */
export async function keepProductionAlive(octokit: Octokit, target: ConfigTarget, renewal: RenewalState, context: AutoMergeContext): Promise<AutoMergeResult> {
  const result: AutoMergeResult = { closed: renewal.closed };
  const renewalTarget = renewal.target;
  let facts = renewal.facts ?? (await readProposalFacts(octokit, renewalTarget));
  // Production serves no bundle (enabled: false on the base): no link of its to keep alive.
  if (!productionServes(target, facts.base.text)) {
    if (context.merge) context.info(`${target.path} on ${facts.base.branch} has enabled: false: production serves no bundle, so auto-merge: renewals merges nothing.`);
    return withWaiting(result, facts, target);
  }
  const deployedLink = linkIn(target, facts.base.text);
  const jobId = deployedLink ? jobIdFromLink(deployedLink) : undefined;
  const expiry = deployedLink ? linkExpiry(deployedLink) : undefined;
  const due = jobId !== undefined && expiry !== undefined && expiry.getTime() - context.now < context.dueWithinMs;
  const current = openRenewal(target, facts);
  if (context.open && due && (!current || !stillValid(current.text, target, context))) {
    if (!context.freshLink) {
      context.warn(`Production's link expires at ${formatUtc(expiry!.toISOString())}: without api-key this step cannot renew it. Give the step api-key.`);
      return withWaiting(result, facts, target);
    }
    const refused = refuseBranch(facts, renewalTarget);
    if (refused) {
      context.warn(refused);
      return withWaiting(result, facts, target);
    }
    const where = `production's export ${jobId} on ${renewalTarget.prBranch}, a pull request of its own that changes no page`;
    if (target.dryRun) {
      context.info(`Dry run: production's link expires at ${formatUtc(expiry!.toISOString())}; a run would renew ${where}.`);
      return withWaiting(result, facts, target);
    }
    const { job, bundle } = await context.freshLink(jobId!);
    context.info(`Production's link expires at ${formatUtc(expiry!.toISOString())}: renewing ${where}.`);
    const update = await updateDeploymentConfig(octokit, renewalTarget, { domain: context.domain, job, bundle, renewal: true }, { facts, warn: context.warn });
    if (update.number !== undefined && update.operation !== 'none') result.written = update;
    facts = await readProposalFacts(octokit, renewalTarget);
  } else if (current && !target.dryRun) {
    // Kept current: rebuilt on a base that moved under it, so it stays the one-click fix.
    const rebuilt = await keepProposalCurrent(octokit, renewalTarget, facts);
    if (rebuilt && !rebuilt.kept) facts = await readProposalFacts(octokit, renewalTarget);
  }
  const open = openRenewal(target, facts);
  if (!open || !context.merge || target.dryRun) return withWaiting(result, facts, target);
  const merge = await mergeRenewal(octokit, renewalTarget, facts, open, context);
  Object.assign(result, resultOf(merge));
  if (merge.kind !== 'merged') return result;
  // The base moved under the content pull request: rebuilt on it, its export and people's lines kept.
  const rebuilt = await keepProposalCurrent(octokit, target, await readProposalFacts(octokit, target));
  if (rebuilt && !rebuilt.kept) context.info(`Rebuilt pull request #${rebuilt.number} on ${rebuilt.baseBranch}'s renewed file, its export and people's changes kept (${rebuilt.url}).`);
  if (rebuilt?.kept) context.warn(rebuilt.kept);
  return { ...result, rebuilt };
}

function resultOf(merge: RenewalMerge): Partial<AutoMergeResult> {
  const pull = { number: merge.number, url: merge.url };
  if (merge.kind === 'merged') return { merged: { ...pull, method: merge.method, jobId: merge.jobId }, deployedLink: merge.deployedLink };
  if (merge.kind === 'armed') return { armed: { ...pull, message: merge.message, held: merge.held }, waiting: { ...pull, blocked: merge.reason } };
  if (merge.kind === 'refused') return { refused: { ...pull, message: merge.message }, waiting: { ...pull, blocked: merge.reason } };
  return { moved: pull };
}

/** The open pull request from the renewal's branch, when it renews production's export. */
function openRenewal(target: ConfigTarget, facts: ProposalFacts): OpenProposal | undefined {
  return facts.open && isRenewal(target, facts.base.text, facts.open) ? facts.open : undefined;
}

/** The renewal that waits, when one is open and renews production. */
function withWaiting(result: AutoMergeResult, facts: ProposalFacts, target: ConfigTarget): AutoMergeResult {
  const open = openRenewal(target, facts);
  return open ? { ...result, waiting: { number: open.number, url: open.url } } : result;
}

/**
 * True when merging the pull request changes only the link, to a new link of the export the base
 * already serves, and nothing else of the file or the branch: no page changes, no person's work.
 */
export function isRenewal(target: Pick<ConfigTarget, 'path' | 'key'>, deployed: string, open: Pick<OpenProposal, 'text' | 'byPeople' | 'otherFiles'>): boolean {
  if (open.text === undefined || open.byPeople.length > 0 || open.otherFiles.length > 0) return false;
  const before = linkIn(target, deployed);
  const after = linkIn(target, open.text);
  const jobId = before && jobIdFromLink(before);
  if (!after || !jobId || before === after || jobIdFromLink(after) !== jobId || !sameObject(before, after)) return false;
  try {
    return patchValuesFile(target.path, deployed, target.key, { bundleUrl: after, enable: false }).text === open.text;
  } catch {
    return false;
  }
}

/**
 * A fresh signature on the same object: the same origin and path, and an expiry of its own. Moving
 * production to another place (a URL the team hosts, another bucket) is a change a person reviews.
 */
function sameObject(before: string, after: string): boolean {
  try {
    const [a, b] = [new URL(before), new URL(after)];
    return a.origin === b.origin && a.pathname === b.pathname && linkExpiry(after) !== undefined;
  } catch {
    return false;
  }
}

/** A renewal left open by an earlier run is kept while its link outlives the window; else it is renewed first. */
function stillValid(text: string | undefined, target: ConfigTarget, context: AutoMergeContext): boolean {
  const link = linkIn(target, text);
  const expiry = link ? linkExpiry(link) : undefined;
  return expiry !== undefined && expiry.getTime() - context.now >= context.dueWithinMs;
}

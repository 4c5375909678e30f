// Renewals that merge themselves (auto-merge: renewals). A renewal is a new link for the export
// production already serves: no page changes, nothing for a reviewer to judge, yet without a merge
// production's link runs out. So, when the team opts in, the step merges such a pull request itself,
// with a method the repository allows and the head it read (`sha`), and leaves the pull request as
// the trail. A content pull request that waits for review never holds production's renewal back: the
// renewal goes on a branch of its own into the base, is merged, and the content pull request is then
// rebuilt on the moved base (keepProposalCurrent). When GitHub refuses the merge (a rule, a token
// without rights), the renewal stays open, marked urgent, and the run says which rule and how to allow it.
import type { Bundle, ExportJob } from '../platform/static-export.ts';
import type { Octokit, OpenProposal } from '../github/pull-request.ts';
import { type MergeMethod, mergeAtHead } from '../github/merge.ts';
import { jobIdFromLink, linkExpiry } from '../values/link.ts';
import { patchValuesFile } from '../values/values-file.ts';
import { formatDuration, formatUtc } from '../action/format.ts';
import { type ConfigUpdate, keepProposalCurrent, redescribe, updateDeploymentConfig } from './proposal.ts';
import type { ConfigTarget, ProposalFacts } from './proposal-types.ts';
import { linkIn, productionServes, readProposalFacts } from './proposal-facts.ts';
import { refuseBranch } from './reconcile.ts';
import { URGENT_MARK } from './production-guard.ts';
import { writeMarks } from './marks.ts';

export type { MergeMethod };

/**
 * The order the step tries the methods the repository allows. Squash first: one commit on the base
 * whose message names the job and both expiries, and no merge commit in a history kept linear. Then
 * a merge commit, then a rebase. The renewal's branch holds single-parent commits on the base, so all
 * three leave the same file.
 */
const METHODS: MergeMethod[] = ['squash', 'merge', 'rebase'];

/** What the step did to keep production's link alive by itself, for the report. */
export interface AutoMergeResult {
  /** The renewal the action merged into the base. */
  merged?: { number: number; url: string; method: MergeMethod; jobId: string };
  /** GitHub refused the merge: the renewal stays open, marked urgent. `message`: the rule, and how to allow it. */
  refused?: { number: number; url: string; message: string };
  /** The renewal's branch moved (or it was closed) while the step merged it: nothing merged, nothing marked. */
  moved?: { number: number; url: string };
  /** The content pull request, rebuilt on the base the renewal moved. */
  rebuilt?: ConfigUpdate;
  /** Production's link after the merge. */
  deployedLink?: string;
}

export interface AutoMergeContext {
  now: number;
  /** Production's link is renewed on its own when it expires sooner than this. */
  dueWithinMs: number;
  /** A fresh link for an export; undefined without an api-key (then only a proposed renewal is merged). */
  freshLink?: (jobId: string) => Promise<{ job: ExportJob; bundle: Bundle }>;
  domain?: string;
  info: (line: string) => void;
  warn: (line: string) => void;
  /** Told of a merge the moment GitHub confirms it, so a later failure (the content's rebuild) cannot hide it from the outcome. */
  onMerged?: (merged: { number: number; url: string }) => void;
}

/**
 * After the run's own proposal: merges the open pull request when it is a renewal, or, while a content
 * pull request waits and production's link is due, renews production on `<pr-branch>-renewal`, merges
 * that, and rebuilds the content pull request on the new base. Undefined when there was nothing to do.
 */
export async function keepProductionAlive(octokit: Octokit, target: ConfigTarget, context: AutoMergeContext, unchanged?: ProposalFacts): Promise<AutoMergeResult | undefined> {
  // `unchanged`: the facts the run read, when its apply step wrote nothing; else read again.
  const facts = unchanged ?? (await readProposalFacts(octokit, target));
  // Production serves no bundle (enabled: false on the base): no link of its to keep alive, nothing to merge.
  if (!productionServes(target, facts.base.text)) {
    context.info(`${target.path} on ${facts.base.branch} has enabled: false: production serves no bundle, so auto-merge: renewals merges nothing.`);
    return undefined;
  }
  if (facts.open && isRenewal(target, facts.base.text, facts.open)) return mergeRenewal(octokit, target, facts, facts.open, context);
  const deployedLink = linkIn(target, facts.base.text);
  const jobId = deployedLink ? jobIdFromLink(deployedLink) : undefined;
  const expiry = deployedLink ? linkExpiry(deployedLink) : undefined;
  if (!facts.open || !jobId || !expiry || expiry.getTime() - context.now >= context.dueWithinMs) return undefined;
  if (!context.freshLink) {
    context.warn(`Production's link expires at ${formatUtc(expiry.toISOString())} and pull request #${facts.open.number} waits for review: without api-key this step cannot renew production's link on its own. Give the step api-key.`);
    return undefined;
  }
  // Production's renewal does not wait for the content's review: a pull request of its own.
  const renewalTarget: ConfigTarget = { ...target, prBranch: renewalBranch(facts.prBranch), prBranchDefault: false, title: undefined };
  let renewalFacts = await readProposalFacts(octokit, renewalTarget);
  const refused = refuseBranch(renewalFacts, renewalTarget);
  if (refused) {
    context.warn(refused);
    return undefined;
  }
  if (!renewalFacts.open || !isRenewal(target, renewalFacts.base.text, renewalFacts.open) || !stillValid(renewalFacts.open.text, target, context)) {
    const { job, bundle } = await context.freshLink(jobId);
    context.info(`Production's link expires at ${formatUtc(expiry.toISOString())}, and pull request #${facts.open.number} waits for review: renewing production's export ${jobId} on ${renewalTarget.prBranch}, apart from it.`);
    const update = await updateDeploymentConfig(octokit, renewalTarget, { domain: context.domain, job, bundle, renewal: true }, { facts: renewalFacts, warn: context.warn });
    if (update.number === undefined) return undefined;
    renewalFacts = await readProposalFacts(octokit, renewalTarget);
  }
  if (!renewalFacts.open || !isRenewal(target, renewalFacts.base.text, renewalFacts.open)) return undefined;
  const result = await mergeRenewal(octokit, renewalTarget, renewalFacts, renewalFacts.open, context);
  if (!result.merged) return result;
  // The base moved under the content pull request: rebuilt on it, its export and people's lines kept.
  const rebuilt = await keepProposalCurrent(octokit, target, await readProposalFacts(octokit, target));
  if (rebuilt && !rebuilt.kept) context.info(`Rebuilt pull request #${rebuilt.number} on ${rebuilt.baseBranch}'s renewed file, its export and people's changes kept (${rebuilt.url}).`);
  if (rebuilt?.kept) context.warn(rebuilt.kept);
  return { ...result, rebuilt };
}

/** The branch production's own renewal goes on while a content pull request holds `prBranch`. */
export function renewalBranch(prBranch: string): string {
  return `${prBranch}-renewal`;
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

/** A renewal left open by an earlier run is merged as it is while its link outlives the window; else it is renewed first. */
function stillValid(text: string | undefined, target: ConfigTarget, context: AutoMergeContext): boolean {
  const link = linkIn(target, text);
  const expiry = link ? linkExpiry(link) : undefined;
  return expiry !== undefined && expiry.getTime() - context.now >= context.dueWithinMs;
}

/** Merges the renewal by the first method the repository allows, at the head the run read; a refusal marks it urgent. */
async function mergeRenewal(octokit: Octokit, target: ConfigTarget, facts: ProposalFacts, open: OpenProposal, context: AutoMergeContext): Promise<AutoMergeResult> {
  const repo = target.repo;
  const deployedLink = linkIn(target, facts.base.text)!;
  const newLink = linkIn(target, open.text)!;
  const jobId = jobIdFromLink(newLink)!;
  const expiries = `production's link expired or expiring at ${expiryText(deployedLink)}, the new link expiring at ${expiryText(newLink)}`;
  let said = '';
  let status = 0;
  for (const method of allowedMethods(facts)) {
    const merged = await mergeAtHead(octokit, repo, {
      number: open.number,
      method,
      // Only the head this run read and judged a renewal: a push in between is never merged blind.
      sha: open.headSha,
      title: `Renew the static export link (${jobId}) (#${open.number})`,
      message: `Merged by the static export action (auto-merge: renewals): the same export ${jobId}, a fresh link; ${expiries}.`
    });
    if (merged.kind === 'merged') {
      context.info(`Merged renewal pull request #${open.number} (${open.url}) by ${method}: export ${jobId}, ${expiries}.`);
      context.onMerged?.({ number: open.number, url: open.url });
      return { merged: { number: open.number, url: open.url, method, jobId }, deployedLink: newLink };
    }
    if (merged.kind === 'moved') {
      // What the branch holds now was not judged: it may be new content. Nothing is merged or marked; the next run judges it.
      context.info(
        `Renewal pull request #${open.number} (${open.url}) was not merged: its branch moved to ${merged.head.slice(0, 7)} while this run merged it (another run or a person pushed), and the step never merges a head it did not judge. The pull request is left as the other writer left it.`
      );
      return { moved: { number: open.number, url: open.url } };
    }
    if (merged.kind === 'closed') {
      context.info(`Renewal pull request #${open.number} (${open.url}) was closed by someone else while this run merged it; nothing was merged.`);
      return { moved: { number: open.number, url: open.url } };
    }
    ({ status, said } = merged);
    // The repository's settings said nothing of this method, and GitHub does not allow it: try the next.
    if (status === 405 && /are not allowed on this repository/i.test(said)) continue;
    break;
  }
  const message =
    `Renewal pull request #${open.number} (${open.url}) could not merge itself: GitHub answered ${status} "${said}". ${howToAllow(status, said, facts.base.branch)} ` +
    `Until it is merged and rolled out, production keeps its link, which expires at ${expiryText(deployedLink)}.`;
  await markUrgent(octokit, target, open, deployedLink, context, `GitHub refused to merge it: "${said}"`);
  return { refused: { number: open.number, url: open.url, message } };
}

/** The methods to try, in METHODS' order: those repos.get says the repository allows (all, where it does not say). */
function allowedMethods(facts: ProposalFacts): MergeMethod[] {
  const answer = facts.repository.answer as { allow_merge_commit?: boolean; allow_squash_merge?: boolean; allow_rebase_merge?: boolean };
  const allowed: Record<MergeMethod, boolean | undefined> = { merge: answer.allow_merge_commit, squash: answer.allow_squash_merge, rebase: answer.allow_rebase_merge };
  return METHODS.filter((method) => allowed[method] !== false);
}

/** Which rule refused, and what lets a renewal through it. */
function howToAllow(status: number, said: string, baseBranch: string): string {
  const bypass =
    'To let renewals merge themselves, give this step a GitHub App token (actions/create-github-app-token) as github-token and put that app on the bypass list of the rule ' +
    `(Settings → Rules → Rulesets → Bypass list, or the branch protection rule's "Allow specified actors to bypass"), or merge it yourself now.`;
  if (/approving review/i.test(said)) return `${baseBranch}'s branch protection or ruleset requires approving reviews. ${bypass}`;
  if (/status check/i.test(said)) {
    return `The base requires a status check on the renewal. A pull request opened with GITHUB_TOKEN starts no workflow, so its checks never run: pass an App token as github-token so they run, or put the app on the bypass list. ${bypass}`;
  }
  if (/repository rule|ruleset/i.test(said)) return `A ruleset on the base refuses it. ${bypass}`;
  if (status === 403) return 'The token may not merge here: give the job permissions: { contents: write, pull-requests: write }, or pass a token with write access as github-token.';
  if (status === 409) return "Someone pushed to the renewal's branch while this run merged it: the step never merges a head it did not read. The next run reads it again.";
  if (/not mergeable/i.test(said)) return 'It conflicts with the base; the next run rebuilds it on the base.';
  return bypass;
}

/** The pull request's first line says it is urgent and why, so the list and the notification show it; only on the head the run judged a renewal. */
async function markUrgent(octokit: Octokit, target: ConfigTarget, open: OpenProposal, deployedLink: string, context: AutoMergeContext, why: string): Promise<void> {
  const expiry = linkExpiry(deployedLink);
  const left = expiry ? expiry.getTime() - context.now : undefined;
  const when = expiry ? `production's link ${left! > 0 ? `expires at ${formatUtc(expiry.toISOString())}, in ${formatDuration(left!)}` : `expired at ${formatUtc(expiry.toISOString())}`}` : "production's link may expire";
  const line = `${URGENT_MARK} ${when}.** This renewal changes no page; it could not merge itself (${why}). Merge it and roll it out.`;
  try {
    const marked = await writeMarks(octokit, target.repo, open.number, open.headSha, () => ({ urgentLine: line }));
    if (marked.kind === 'skipped') context.info(`Pull request #${open.number} was not marked urgent: ${marked.reason}.`);
    if (marked.kind === 'overtaken') await redescribe(octokit, target);
  } catch (error) {
    context.warn(`Could not mark pull request #${open.number} urgent: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function expiryText(link: string): string {
  const expiry = linkExpiry(link);
  return expiry ? formatUtc(expiry.toISOString()) : 'an unknown time';
}

// Merging production's renewal (auto-merge: renewals), at the head the run wrote or read: directly,
// with the first method the repository allows, when nothing is pending; else, where required checks
// have not passed yet (or a merge queue takes every merge), GitHub's own auto-merge armed on that head,
// so the renewal merges the moment its checks pass rather than at the next night. Where it cannot work,
// the run says exactly why: checks held for approval because GITHUB_TOKEN opened the pull request, a
// repository that does not allow auto-merge, a queue whose checks never run, a review no bypass lets
// through. GitHub's words are quoted from emulator/recorded/github.json, where each has its source.
import type { Octokit, OpenProposal } from '../github/pull-request.ts';
import { type MergeMethod, mergeAtHead } from '../github/merge.ts';
import { armAutoMerge } from '../github/auto-merge.ts';
import { runsOnMergeGroup } from '../github/workflows.ts';
import { jobIdFromLink, linkExpiry } from '../values/link.ts';
import { formatDuration, formatUtc } from '../action/format.ts';
import { redescribe } from './proposal.ts';
import type { ConfigTarget, ProposalFacts } from './proposal-types.ts';
import { linkIn } from './proposal-facts.ts';
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

/** GITHUB_TOKEN's login on GitHub: a pull request it opened has its workflows held for approval. */
const GITHUB_TOKEN_LOGIN = 'github-actions[bot]';

export type RenewalMerge =
  | { kind: 'merged'; number: number; url: string; method: MergeMethod; jobId: string; deployedLink: string }
  /** GitHub's auto-merge is armed: it merges when the checks pass. `held`: they wait for a person's approval first. */
  | { kind: 'armed'; number: number; url: string; message: string; held: boolean; reason?: string }
  /** It cannot merge itself: the rule, and what lets a renewal through it (`reason`: in a few words). It stays open, marked urgent. */
  | { kind: 'refused'; number: number; url: string; message: string; reason: string }
  /** The branch moved, or someone merged or closed it, while the step merged it: nothing merged, nothing marked. */
  | { kind: 'moved'; number: number; url: string };

export interface MergeContext {
  now: number;
  info: (line: string) => void;
  warn: (line: string) => void;
  /** Told of a merge the moment GitHub confirms it, so a later failure cannot hide it from the outcome. */
  onMerged?: (merged: { number: number; url: string }) => void;
}

/** Merges the renewal at the head the run judged, or arms GitHub's auto-merge on it; a refusal marks it urgent. */
export async function mergeRenewal(octokit: Octokit, target: ConfigTarget, facts: ProposalFacts, open: OpenProposal, context: MergeContext): Promise<RenewalMerge> {
  const repo = target.repo;
  const pull = { number: open.number, url: open.url };
  const deployedLink = linkIn(target, facts.base.text)!;
  const newLink = linkIn(target, open.text)!;
  const jobId = jobIdFromLink(newLink)!;
  const expiries = `production's link expired or expiring at ${expiryText(deployedLink)}, the new link expiring at ${expiryText(newLink)}`;
  const title = `Renew the static export link (${jobId}) (#${open.number})`;
  const message = `Merged by the static export action (auto-merge: renewals): the same export ${jobId}, a fresh link; ${expiries}.`;
  const methods = allowedMethods(facts);
  const direct = async (): Promise<RenewalMerge | { status: number; said: string }> => {
    let refusal = { status: 0, said: '' };
    for (const method of methods) {
      // Only the head this run read and judged a renewal: a push in between is never merged blind.
      const merged = await mergeAtHead(octokit, repo, { number: open.number, method, sha: open.headSha, title, message });
      if (merged.kind === 'merged') {
        context.info(`Merged renewal pull request #${open.number} (${open.url}) by ${method}: export ${jobId}, ${expiries}.`);
        context.onMerged?.(pull);
        return { kind: 'merged', ...pull, method, jobId, deployedLink: newLink };
      }
      if (merged.kind === 'moved') {
        // What the branch holds now was not judged: it may be new content. Nothing is merged or marked; the next run judges it.
        context.info(
          `Renewal pull request #${open.number} (${open.url}) was not merged: its branch moved to ${merged.head.slice(0, 7)} while this run merged it (another run or a person pushed), and the step never merges a head it did not judge. The pull request is left as the other writer left it.`
        );
        return { kind: 'moved', ...pull };
      }
      if (merged.kind === 'closed') {
        context.info(`Renewal pull request #${open.number} (${open.url}) was closed by someone else while this run merged it; nothing was merged.`);
        return { kind: 'moved', ...pull };
      }
      refusal = { status: merged.status, said: merged.said };
      // The repository's settings said nothing of this method, and GitHub does not allow it: try the next.
      if (!(merged.status === 405 && /are not allowed on this repository/i.test(merged.said))) break;
    }
    return refusal;
  };
  let tried = await direct();
  if ('kind' in tried) return tried;
  const { status, said } = tried;
  const waitsForChecks = /status check/i.test(said);
  const queue = /merge queue/i.test(said);
  let why: string;
  if ((waitsForChecks || queue) && methods[0]) {
    const armed = await armAutoMerge(octokit, repo, { number: open.number, headSha: open.headSha, method: methods[0], title, message });
    if (armed.kind === 'clean') {
      // The checks passed between the merge and the arming: nothing is pending now.
      tried = await direct();
      if ('kind' in tried) return tried;
      why = howToAllow(tried.status, tried.said, facts.base.branch);
    } else if (armed.kind === 'armed') {
      const held = waitsForChecks && armed.openedBy === GITHUB_TOKEN_LOGIN;
      const armedAt = `GitHub's auto-merge is armed on it at ${open.headSha.slice(0, 7)}`;
      if (held) {
        const text =
          `Renewal pull request #${open.number} (${open.url}) waits for its required checks, and they will not run by themselves: GitHub holds the workflows of a pull request opened with GITHUB_TOKEN until a person approves them ("Approve workflows to run"). ` +
          `${armedAt}, so it merges once they are approved and pass. To let renewals merge without a person, give this step a GitHub App token (actions/create-github-app-token) as github-token: the checks of the App's pull requests run at once. ` +
          `Until then production keeps its link, which expires at ${expiryText(deployedLink)}.`;
        const reason = 'its required checks wait for a person to approve them: GitHub holds the workflows of a pull request opened with GITHUB_TOKEN. Approve them, or merge it';
        await markUrgent(octokit, target, open, deployedLink, context, reason);
        return { kind: 'armed', ...pull, message: text, held: true, reason };
      }
      if (queue && (await runsOnMergeGroup(octokit, repo, facts.base.branch)) === false) {
        const reason = `${facts.base.branch} requires a merge queue, and no workflow in .github/workflows runs on merge_group, so the queue's checks never report. Add merge_group: to the CI workflow's on:, or merge it`;
        const text = `Renewal pull request #${open.number} (${open.url}) is in ${facts.base.branch}'s merge queue (${armedAt}), but no workflow in .github/workflows on ${facts.base.branch} is triggered by merge_group: the queue's required checks never report, and it never merges. Add merge_group: to the on: of the workflow that reports them. Until then production keeps its link, which expires at ${expiryText(deployedLink)}.`;
        await markUrgent(octokit, target, open, deployedLink, context, reason);
        return { kind: 'armed', ...pull, message: text, held: true, reason };
      }
      const text = queue
        ? `Renewal pull request #${open.number} (${open.url}) is in ${facts.base.branch}'s merge queue (${armedAt}): it merges once the queue's required checks pass on the merge group (a workflow triggered by merge_group reports them; none runs for a queue entry GITHUB_TOKEN made, so use an App token).`
        : `Renewal pull request #${open.number} (${open.url}) waits for its required checks (GitHub answered "${said}"); ${armedAt}, so it merges the moment they pass.`;
      context.info(text);
      return { kind: 'armed', ...pull, message: text, held: false };
    } else if (armed.kind === 'not-allowed') {
      why =
        `${waitsForChecks ? 'Its required checks have not passed yet' : `${facts.base.branch} takes merges only through its merge queue`}, and the repository does not allow auto-merge (GitHub answered "${armed.said}"), so it cannot merge itself when they pass. ` +
        'Turn on Settings → General → "Allow auto-merge" in the configuration repository; until then a later run merges it once its checks have passed.';
    } else why = `${howToAllow(status, said, facts.base.branch)} GitHub also refused its auto-merge: "${armed.said}".`;
  } else why = howToAllow(status, said, facts.base.branch);
  const text = `Renewal pull request #${open.number} (${open.url}) could not merge itself: GitHub answered ${status} "${said}". ${why} Until it is merged and rolled out, production keeps its link, which expires at ${expiryText(deployedLink)}.`;
  const reason = `GitHub refused to merge it: "${said}"`;
  await markUrgent(octokit, target, open, deployedLink, context, reason);
  return { kind: 'refused', ...pull, message: text, reason };
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
    `(Settings → Rules → Rulesets → Bypass list, or the branch protection rule's "Allow specified actors to bypass"; GITHUB_TOKEN cannot be on it), or merge it yourself now.`;
  if (/approving review/i.test(said)) return `${baseBranch}'s branch protection or ruleset requires approving reviews, and GitHub's auto-merge never merges past a missing review. ${bypass}`;
  if (/repository rule|ruleset/i.test(said)) return `A ruleset on the base refuses it. ${bypass}`;
  if (status === 403) return 'The token may not merge here: give the job permissions: { contents: write, pull-requests: write }, or pass a token with write access as github-token.';
  if (status === 409) return "Someone pushed to the renewal's branch while this run merged it: the step never merges a head it did not read. The next run reads it again.";
  if (/not mergeable/i.test(said)) return 'It conflicts with the base; the next run rebuilds it on the base.';
  return bypass;
}

/** The pull request's first line says it is urgent and why, so the list and the notification show it; only on the head the run judged a renewal. */
async function markUrgent(octokit: Octokit, target: ConfigTarget, open: OpenProposal, deployedLink: string, context: MergeContext, why: string): Promise<void> {
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

export function expiryText(link: string): string {
  const expiry = linkExpiry(link);
  return expiry ? formatUtc(expiry.toISOString()) : 'an unknown time';
}

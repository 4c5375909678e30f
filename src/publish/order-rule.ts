// The order rule, apart from the proposal's writes: which export is newest, by the platform's createdAt.
import type { ExportJob } from '../platform/static-export.ts';
import { jobIdFromLink } from '../values/link.ts';
import { formatUtc } from '../action/format.ts';
import type { OpenProposal } from '../github/pull-request.ts';
import type { ConfigTarget } from './proposal-types.ts';
import { linkIn } from './proposal-facts.ts';

/**
 * The order rule: no run proposes older content than the open proposal or than production (by the
 * platform's createdAt of each export), so a renewal or a late run never takes newer docs out of review.
 */
export async function newerElsewhere(
  target: ConfigTarget,
  ours: ExportJob,
  deployedLink: string | undefined,
  proposal: OpenProposal | undefined,
  createdAtOf?: (jobId: string) => Promise<string | undefined>,
  unopenedText?: string
): Promise<{ kind: 'keep'; reason: string } | { kind: 'current' } | undefined> {
  const unopenedLink = linkIn(target, unopenedText);
  const opening = unopenedLink ? jobIdFromLink(unopenedLink) : undefined;
  if (opening && opening !== ours.jobId && createdAtOf) {
    const openingAt = await createdAtOf(opening);
    if (openingAt !== undefined && Date.parse(openingAt) > Date.parse(ours.createdAt)) {
      return {
        kind: 'keep',
        reason: `Branch ${target.prBranch} holds export ${opening}, made ${formatUtc(openingAt)}, newer than this run's ${ours.jobId} (made ${formatUtc(ours.createdAt)}), and no pull request yet: another run is opening one. This run left the branch alone, so the review never goes back to older content.`
      };
    }
  }
  const proposedLink = linkIn(target, proposal?.text);
  const theirs = proposedLink ? jobIdFromLink(proposedLink) : undefined;
  const deployed = deployedLink ? jobIdFromLink(deployedLink) : undefined;
  if (theirs && theirs !== ours.jobId) {
    if (!createdAtOf) {
      return {
        kind: 'keep',
        reason: `The open pull request proposes export ${theirs}, and without an api-key this run cannot tell whether it is newer than ${ours.jobId}; it left the pull request alone. Give the step api-key, or merge or close the pull request, then run again.`
      };
    }
    const theirsAt = await createdAtOf(theirs);
    if (theirsAt !== undefined && Date.parse(theirsAt) > Date.parse(ours.createdAt)) {
      return {
        kind: 'keep',
        reason: `The open pull request proposes export ${theirs}, made ${formatUtc(theirsAt)}, newer than this run's ${ours.jobId} (made ${formatUtc(ours.createdAt)}); it was left as it is, so the review never goes back to older content.`
      };
    }
  }
  if (!proposal && deployed && deployed !== ours.jobId && createdAtOf) {
    const deployedAt = await createdAtOf(deployed);
    if (deployedAt !== undefined && Date.parse(deployedAt) > Date.parse(ours.createdAt)) return { kind: 'current' };
  }
  return undefined;
}

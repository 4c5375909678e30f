// The path of a run with nothing to export or propose (the link is valid long enough, never expires,
// or its export was turned down). The open pull request still stays mergeable: when the base moved
// under it, its own settings are re-applied on the base's current file.
import * as core from '../action/core.ts';
import type { Octokit } from '../github/pull-request.ts';
import type { Facts } from './facts.ts';
import type { PublishInputs } from './inputs.ts';
import type { Applied, Progress } from './outcome.ts';
import { keepProposalCurrent } from './proposal.ts';
import type { Validity } from './renewal.ts';

export async function leave(
  plan: { kind: 'leave'; validity: Validity } | { kind: 'vetoed'; reason: string },
  octokit: Octokit | undefined,
  inputs: PublishInputs,
  facts: Facts | undefined,
  progress: Progress
): Promise<Applied> {
  const validity = plan.kind === 'vetoed' ? { due: false, reason: plan.reason } : plan.validity;
  if (plan.kind === 'vetoed') core.notice(plan.reason);
  else core.info(validity.reason);
  const rebuilt = facts && octokit ? await keepProposalCurrent(octokit, inputs.config!, facts.proposal) : undefined;
  if (rebuilt) progress.config = rebuilt;
  if (rebuilt?.kept) core.notice(rebuilt.kept);
  else if (rebuilt) core.info(`The base moved under pull request #${rebuilt.number}: rebuilt it on ${rebuilt.baseBranch}'s current file, its settings and people's changes kept (${rebuilt.url}).`);
  return { kind: 'left', validity, heading: plan.kind === 'vetoed' ? 'vetoed' : validity.hosted ? 'hosted' : 'valid', rebuilt };
}

// Read: the facts a run stands on, read once before anything is exported. First what needs no
// request (a download-path that holds files, a keep-archive that exists), then, with config-path,
// what GitHub holds: the base's file (a missing or malformed one fails here), the pull requests from
// the proposal branch, and the refusals those facts call for (preflight.ts, reconcile.ts).
import * as core from '../action/core.ts';
import { checkDownloadPath } from '../bundle/download.ts';
import { PublishInput } from '../action/constants.ts';
import { checkKeepArchivePath } from '../storage/kept-archive.ts';
import { jobIdFromLink, linkSecrets, redactLink } from '../values/link.ts';
import { checkPatchable, readSetting } from '../values/values-file.ts';
import { PullRequestError } from '../github/errors.ts';
import type { Octokit, PullSummary } from '../github/pull-request.ts';
import type { ProposalFacts } from './proposal-types.ts';
import { linkIn, readProposalFacts, vetoedExports } from './proposal-facts.ts';
import { refuseBranch, settingChanges } from './reconcile.ts';
import { refuseBeforeExport } from './preflight.ts';
import type { PublishInputs } from './inputs.ts';

/** What the run found with config-path (read once, before anything is exported). */
export interface Facts {
  /** What GitHub holds: the repository, the base's file, the pull requests from the proposal branch. */
  proposal: ProposalFacts;
  /** The link in the base's file: what production serves. */
  deployedLink?: string;
  /** The base's staticExport.enabled is not false: production serves the bundle, so its link is guarded. */
  deployedEnabled: boolean;
  /** The link to judge and renew: the open pull request's, when one proposes a link, else the base's. */
  link?: string;
  /** The open pull request, when one changes what is deployed. */
  pending?: { number: number; url: string };
  /** The export the open pull request proposes: it passed the gate when it was proposed. */
  proposedJobId?: string;
  /** Exports whose pull request a person closed without merging. */
  vetoes: Map<string, PullSummary>;
}

/** The local checks, then (with config-path) what GitHub holds and the refusals it calls for; undefined without config-path. `proposal`: already read. */
export async function readFacts(inputs: PublishInputs, octokit: Octokit | undefined, proposal?: ProposalFacts): Promise<Facts | undefined> {
  if (inputs.download) await checkDownloadPath(inputs.download.given, inputs.download.path);
  if (inputs.keepArchive) await checkKeepArchivePath(PublishInput.KeepArchive, inputs.keepArchive.given, inputs.keepArchive.path);
  if (!inputs.config || !octokit) return undefined;
  const facts = await readGitHubFacts(octokit, inputs, proposal);
  refuseOnFacts(facts, inputs);
  return facts;
}

/**
 * Reads what is deployed and what is proposed. A renewal judges the link the open pull request
 * proposes, when there is one: renewing the base's older export would push a newer, unmerged one out
 * of review. The deployed link is judged on its own, by the guard.
 */
async function readGitHubFacts(octokit: Octokit, inputs: PublishInputs, read?: ProposalFacts): Promise<Facts> {
  const target = inputs.config!;
  // `read`: what GitHub holds, read for this target a moment ago (production's renewal, main.ts).
  const proposal = read ?? (await readProposalFacts(octokit, target));
  const { base, open: proposed } = proposal;
  // A file this action cannot edit (malformed, the block behind an alias) fails here, before any
  // export: the edit itself is tried with a placeholder link.
  checkPatchable(target.path, base.text, target.key, inputs.version);
  const baseLink = linkIn(target, base.text);
  if (baseLink) maskLink(baseLink);
  const proposedLink = linkIn(target, proposed?.text);
  if (proposedLink) maskLink(proposedLink);
  const pending = proposed && proposesChange(target, base.text, proposed.text) ? { number: proposed.number, url: proposed.url } : undefined;
  const vetoes = vetoedExports(proposal, baseLink && jobIdFromLink(baseLink));
  const found = { proposal, deployedLink: baseLink, deployedEnabled: readSetting(target.path, base.text, target.key, 'enabled') !== false, pending, vetoes };
  if (!proposed || !proposedLink || proposedLink === baseLink) return { ...found, link: baseLink };
  if (inputs.plan === 'auto' || inputs.minValidityMs !== undefined) {
    core.info(`Pull request #${proposed.number} proposes ${jobIdFromLink(proposedLink) ?? redactLink(proposedLink)}, not yet merged: judging and renewing that link; the one on ${base.branch} is judged by the guard.`);
  }
  return { ...found, link: proposedLink, proposedJobId: pending ? jobIdFromLink(proposedLink) : undefined };
}

/**
 * The checks over the facts that need no export, in one place: the inputs against what GitHub holds
 * (pr-branch on the base, a token that cannot push, the block under another key than config-key),
 * then a branch this action must not move.
 */
function refuseOnFacts(facts: Facts, inputs: PublishInputs): void {
  const { base, prBranch, repository } = facts.proposal;
  refuseBeforeExport({ target: { ...inputs.config!, prBranch }, base: { branch: base.branch, text: base.text, permissions: repository.permissions } });
  const refused = refuseBranch(facts.proposal, inputs.config!);
  if (refused) throw new PullRequestError(refused);
}

/** True when merging the pull request's file would change production's settings (a file it cannot read counts as a change). */
function proposesChange(target: { path: string; key: string }, deployed: string, proposed: string | undefined): boolean {
  if (proposed === undefined) return false;
  try {
    return settingChanges(target.path, target.key, deployed, proposed).length > 0;
  } catch {
    return true;
  }
}

/** Masks a link before anything can print it: the runner then hides it in every later log line. */
export function maskLink(link: string): void {
  for (const secret of linkSecrets(link)) core.setSecret(secret);
}

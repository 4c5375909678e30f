// What GitHub holds for the proposal, read once per run: the repository, the values file on the base
// (what production serves), the pull requests from the proposal branch, and people's noes (vetoes),
// each read from the values file at a pull request's head, never from its body.
import { jobIdFromLink } from '../values/link.ts';
import { ConfigFileError, readSetting } from '../values/values-file.ts';
import type { ConfigTarget, ProposalFacts } from './proposal-types.ts';
import { PullRequestError } from '../github/errors.ts';
import { type BaseFile, type RepositoryFacts, branchHead, readBaseFile, readFileAt, readRepository } from '../github/repository.ts';
import { type BranchHistory, type Octokit, type PullSummary, listPulls, readBranchHistory, readOpenProposal } from '../github/pull-request.ts';
import { rememberJudged } from './marks.ts';
import { regionOf } from './body.ts';
import { defaultPrBranch } from './target.ts';

/** Reads the values file on the base branch; a missing file is an error a person can act on. */
export async function readConfigFile(octokit: Octokit, target: ConfigTarget, repository?: RepositoryFacts): Promise<BaseFile & { text: string; tree: string }> {
  const base = await readBaseFile(octokit, target.repo, target.path, target.baseBranch, repository);
  if (base.text === undefined) {
    throw new PullRequestError(
      `${target.path} does not exist on ${base.branch} in ${target.repo.owner}/${target.repo.repo}. Check config-path (a path from the repository's root) and base-branch.`,
      404
    );
  }
  return { ...base, text: base.text };
}

/** `read`: the repository and the base's file as this run read them a moment ago (the same file and base, another branch), not read again. */
export async function readProposalFacts(octokit: Octokit, target: ConfigTarget, read?: Pick<ProposalFacts, 'repository' | 'base'>): Promise<ProposalFacts> {
  const { repo, path } = target;
  const repository = read?.repository ?? (await readRepository(octokit, repo));
  const base = read?.base ?? (await readConfigFile(octokit, target, repository));
  const prBranch = target.prBranchDefault && base.branch !== repository.defaultBranch ? defaultPrBranch(path, target.key, base.branch) : target.prBranch;
  const pulls = await listPulls(octokit, repo, prBranch);
  await readClosedProposals(octokit, target, pulls, base.branch);
  const open = await readOpenProposal(octokit, repo, prBranch, base, path, pulls);
  if (open) rememberJudged(octokit, open.number, open.headSha);
  let unopened: BranchHistory | null | undefined;
  if (pulls.length === 0) {
    const head = await branchHead(octokit, repo, prBranch);
    unopened = head === undefined ? null : await readBranchHistory(octokit, repo, prBranch, head, base, path);
  }
  return { repository, base, prBranch, pulls, open, unopened };
}

/** The export a body of this action names in its table: only for what the values file cannot say. */
export function exportOfBody(body: string): string | undefined {
  return /^\| Export job \| `([^`]+)` \|$/m.exec(body)?.[1];
}

/**
 * People's noes: each export a pull request into this base proposed (the values file at the head it
 * was closed with says which, whatever its body says now) and a person closed without merging, with
 * that pull request (the newest). Production's own export is never vetoed: renewing its link keeps the site up.
 */
export function vetoedExports(facts: Pick<ProposalFacts, 'pulls'> & { base: { branch: string } }, deployedJobId: string | undefined): Map<string, PullSummary> {
  const vetoes = new Map<string, PullSummary>();
  for (const pull of facts.pulls) {
    const jobId = pull.proposedJobId;
    if (pull.state !== 'closed' || pull.merged || pull.base !== facts.base.branch || !jobId || jobId === deployedJobId || vetoes.has(jobId)) continue;
    vetoes.set(jobId, pull);
  }
  return vetoes;
}

/** How many pull requests closed without merging are read for their export: the newest, where a veto matters. */
const CLOSED_READ = 10;

/** The export each pull request closed without merging into this base proposed, from the values file at its head. */
async function readClosedProposals(octokit: Octokit, target: ConfigTarget, pulls: PullSummary[], base: string): Promise<void> {
  const closed = pulls.filter((pull) => pull.state === 'closed' && !pull.merged && pull.base === base).slice(0, CLOSED_READ);
  for (const pull of closed) {
    const link = linkIn(target, await readFileAt(octokit, target.repo, target.path, pull.headSha));
    // A URL the team hosts may not name its export: the table the action wrote then says which.
    pull.proposedJobId = (link && jobIdFromLink(link)) ?? exportOfBody(regionOf(pull.body));
  }
}

/** Why this export is not proposed: a person closed its pull request without merging. */
export function vetoReason(jobId: string, pull: PullSummary): string {
  return `Export ${jobId} was proposed in pull request #${pull.number} (${pull.url}), which a person closed without merging: that stands, so this run proposes nothing. A newer export opens a new pull request.`;
}

/** False when the block on the base says `enabled: false`: production serves no bundle, so no pod fetches one. */
export function productionServes(target: Pick<ConfigTarget, 'path' | 'key'>, text: string): boolean {
  try {
    return readSetting(target.path, text, target.key, 'enabled') !== false;
  } catch {
    return true;
  }
}

/** The link in a values file, or undefined when it holds none (or cannot be read). */
export function linkIn(target: Pick<ConfigTarget, 'path' | 'key'>, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let link: unknown;
  try {
    link = readSetting(target.path, text, target.key, 'bundleUrl');
  } catch (error) {
    if (error instanceof ConfigFileError) return undefined;
    throw error;
  }
  return typeof link === 'string' && link !== '' ? link : undefined;
}

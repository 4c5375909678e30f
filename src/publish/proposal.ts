// Keeps the self-hosted deployment's configuration pointing at the new bundle: read what is deployed
// (the values file on the base branch) and what is proposed (the open pull request), plan the one file
// the pull request should hold (reconcile.ts), and write it (or, in a dry run, only show it). Runs
// only after a completed export and a bundle.
import type { Bundle, ExportJob } from '../platform/static-export.ts';
import { jobIdFromLink, linkExpiry, linkFingerprint, linkPieces, shownWhole } from '../values/link.ts';
import { ConfigFileError, type SettingChange, readSetting } from '../values/values-file.ts';
import { formatBytes, formatUtc } from '../action/format.ts';
import {
  type BaseFile,
  type BranchHistory,
  type Octokit,
  type OpenProposal,
  type PullSummary,
  PullRequestError,
  type Repo,
  type RepositoryFacts,
  branchHead,
  listPulls,
  proposeChange,
  readBaseFile,
  readBranchHistory,
  readOpenProposal,
  type PullState,
  readFileAt,
  readPullState,
  readRepository
} from '../github/pull-request.ts';
import { judgedHeadOf, rememberJudged, writeMarks } from './marks.ts';
import { regionOf, titleFor, withRegion } from './body.ts';
import { EXPIRING_LABEL, type ProductionGuard, firstLineOf, withFirstLine } from './production-guard.ts';
import { OPENED_BY_THIS_ACTION, planProposal, refuseBranch } from './reconcile.ts';
import { defaultPrBranch } from './inputs.ts';
import type { ContentDiff } from '../content/gate.ts';
import { contentDiffSection } from './content-diff.ts';

export interface ConfigTarget {
  repo: Repo;
  path: string;
  /** Dotted path of the static export block, e.g. `staticExport` or `mintlify.staticExport`. */
  key: string;
  /** Undefined: the repository's default branch. */
  baseBranch?: string;
  prBranch: string;
  /** True when pr-branch was left unset: the name then includes the base when it is not the default branch. */
  prBranchDefault?: boolean;
  /** Undefined: a title that says whether this is a new bundle or a renewed link. */
  title?: string;
  labels: string[];
  dryRun: boolean;
  /** auto-merge: renewals. The step merges a renewal of production's export itself (auto-merge.ts). */
  autoMergeRenewals?: boolean;
}

export interface PublishedBundle {
  domain?: string;
  job: ExportJob;
  bundle: Bundle;
  version?: string;
  /** A renewal: the run only renews a link, so it leaves `enabled` as the pull request or the base has it. */
  renewal?: boolean;
  /** Set when the platform's link expires sooner than link-margin: why, and what to do instead. */
  shortLink?: string;
  /** Set when the link is a URL the team hosts (bundle-url-template), checked as a pod would fetch it. */
  hosted?: { sha256: string; sha256Checked: boolean };
  /** The docs commit the run's deployment published (the export holds it or a push published moments later). */
  docsCommit?: { sha: string; branch: string };
  /** What merging changes for readers: the new export compared page by page with production's. */
  contentDiff?: ContentDiff;
  /** The content diff as the open pull request already shows it: a renewal of the proposed export is not compared again. */
  contentDiffText?: string;
  /** The pull request a person closed without merging before this one, named in the new one. */
  closedBefore?: { number: number; jobId?: string };
}

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

/**
 * What GitHub holds for one proposal, read once before anything is exported: the repository, the
 * values file on the base, and every pull request from the proposal branch (one list: the open one on
 * this base, those open on another, those closed without merging). Without any pull request from it,
 * the branch itself: absent, another run's that is about to open one, or a branch this action did not make.
 */
export interface ProposalFacts {
  /** repos.get's answer (permissions, default branch), for the checks made before an export. */
  repository: RepositoryFacts;
  base: BaseFile & { text: string; tree: string };
  /** The branch this proposal lives on, its default name resolved against the base. */
  prBranch: string;
  pulls: PullSummary[];
  /** The open pull request into this base. */
  open?: OpenProposal;
  /** Only when no pull request was ever opened from the branch: null when it does not exist. */
  unopened?: BranchHistory | null;
}

export async function readProposalFacts(octokit: Octokit, target: ConfigTarget): Promise<ProposalFacts> {
  const { repo, path } = target;
  const repository = await readRepository(octokit, repo);
  const base = await readConfigFile(octokit, target, repository);
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
      // This run proposes nothing, yet the open pull request stays mergeable on the base as it is now.
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
    const closed = proposal ? undefined : facts.pulls.find((pull) => pull.state === 'closed' && !pull.merged && pull.base === file.branch);
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
  target: Pick<ConfigTarget, 'repo' | 'dryRun'>,
  number: number,
  guard: (mergeable: boolean | undefined) => ProductionGuard
): Promise<ProductionGuard> {
  let decided: ProductionGuard | undefined;
  const decide = (pull: PullState) => {
    decided = guard(pull.mergeable);
    return { firstLine: decided.firstLine ?? null, labelled: decided.labelled };
  };
  // One writer of the marks (marks.ts): on the head this run judged, over the body just read.
  await writeMarks(octokit, target.repo, number, judgedHeadOf(octokit, number), decide, { dryRun: target.dryRun });
  return decided ?? guard(undefined);
}

/** True when the pull request carries a mark of the guard: a later run takes it off once production is safe. */
export function carriesGuardMarks(pull: { body: string; labels: string[] }): boolean {
  return firstLineOf(regionOf(pull.body)) !== undefined || pull.labels.includes(EXPIRING_LABEL);
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

/**
 * The order rule: no run proposes older content than the open proposal or than production (by the
 * platform's createdAt of each export), so a renewal or a late run never takes newer docs out of review.
 */
async function newerElsewhere(
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

/** True when merging changes only the link of the export production already serves. */
function sameExport(published: PublishedBundle, deployedLink: string | undefined): boolean {
  return deployedLink !== undefined && jobIdFromLink(deployedLink) === published.job.jobId;
}

function defaultTitle(published: PublishedBundle, deployedLink: string | undefined): string {
  const what = published.hosted ? 'host the bundle' : sameExport(published, deployedLink) ? 'renew the bundle link' : 'new bundle';
  return `Static export: ${what}${published.domain ? ` for ${published.domain}` : ''}`;
}

function commitMessage(target: ConfigTarget, published: PublishedBundle, deployedLink: string | undefined): string {
  const what = sameExport(published, deployedLink) ? 'Renew the static export link' : 'Point the deployment at a new static export';
  const link = published.hosted ? 'a URL your team hosts, which does not expire' : `a link that expires at ${published.bundle.expiresAt}`;
  return `${what} (${published.job.jobId})\n\nSets ${target.key}.bundleUrl in ${target.path} to ${link}.`;
}

/**
 * What a reviewer needs: what merging changes in production (against the file on the base, whatever
 * kind of run wrote the pull request last), and by when. It holds no run-specific text (run links,
 * relative times), so an unchanged proposal keeps an unchanged body and the pull request is left alone.
 */
export function pullRequestBody(target: ConfigTarget, published: PublishedBundle, changes: SettingChange[], deployedLink?: string, production: { serves: boolean } = { serves: true }): string {
  if (published.hosted) return hostedBody(target, published, published.hosted, changes, deployedLink, production);
  const { job, bundle } = published;
  const newExpiry = formatUtc(bundle.expiresAt);
  const renewal = sameExport(published, deployedLink);
  const lines = [
    renewal
      ? `Renews the static export link${published.domain ? ` of **${published.domain}**` : ''}: the same export, a fresh link.${published.contentDiff ? '' : ' No page changed.'}`
      : `A new static export${published.domain ? ` of **${published.domain}**` : ''} is ready; this points the deployment at it.`,
    '',
    ...withBlankLine(published.contentDiffText ?? contentDiffSection(published.contentDiff, deployedLink)),
    ...withBlankLine(closedNote(published.closedBefore)),
    // The export names the table: GitHub draws a table's first row as its header, and an empty one as an empty row.
    `| Export job | \`${job.jobId}\` |`,
    '|---|---|'
  ];
  if (published.domain) lines.push(`| Domain | ${published.domain} |`);
  if (published.docsCommit) lines.push(`| Docs commit | \`${published.docsCommit.sha.slice(0, 12)}\` from ${published.docsCommit.branch} |`);
  lines.push(`| Pages exported | ${job.pageCount} |`, `| Bundle size | ${formatBytes(bundle.sizeBytes)} |`);
  const deployedExpiry = deployedLink ? linkExpiry(deployedLink) : undefined;
  if (deployedExpiry) lines.push(`| Production's link expires | ${formatUtc(deployedExpiry.toISOString())} |`);
  lines.push(`| New link expires | ${newExpiry} |`, '');
  lines.push(...changeTable(target.path, changes));
  lines.push(
    '',
    '### What merging does',
    '',
    servesAfter(production, changes)
      ? `The deployment fetches the new bundle at its next rollout (for example \`helm upgrade … -f ${target.path}\`). ` +
          `The link expires at ${newExpiry}: roll out before then. Links are shown without their signature; the file holds the full link.`
      : `\`${target.key}.enabled\` is false on the base: production serves no bundle, and merging only keeps this link in the file for when it is turned on. ` +
          `The link expires at ${newExpiry}. Links are shown without their signature; the file holds the full link.`
  );
  const deadline = mergeBy(production.serves ? deployedExpiry : undefined, new Date(bundle.expiresAt));
  if (deadline) lines.push('', deadline);
  if (published.shortLink) lines.push('', linkWarning(published.shortLink));
  lines.push('', FOOTER);
  return lines.join('\n');
}

/** Whether production serves a bundle once this is merged: it does now, or this turns it on. */
function servesAfter(production: { serves: boolean }, changes: SettingChange[]): boolean {
  return production.serves || changes.some((change) => change.key.endsWith('.enabled') && change.after === true);
}

/** The pull request a person closed before this one: their no stands for that export, and this one is newer. */
function closedNote(closed: PublishedBundle['closedBefore']): string {
  if (!closed) return '';
  return `Pull request #${closed.number}${closed.jobId ? `, which proposed export \`${closed.jobId}\`,` : ''} was closed without merging; that export is not proposed again. This one proposes a newer export.`;
}

/**
 * The "What readers see" section of a body this action wrote, to carry into the next body of the same
 * export: a renewal of a proposed export does not download and compare it again.
 */
export function contentDiffSectionOf(body: string): string | undefined {
  const start = body.indexOf('### What readers see after the merge');
  const end = body.indexOf('| Export job |');
  if (start < 0 || end < start) return undefined;
  return body.slice(start, end).replace(/\n*Pull request #\d+[^\n]* was closed without merging;[^\n]*\n*$/, '').trimEnd();
}

/** A section and the blank line after it; nothing for an empty one. */
function withBlankLine(section: string): string[] {
  return section ? [section, ''] : [];
}

/** The link-margin warning as the body shows it; the job summary leaves it out of the body it repeats, having said it once already. */
export function linkWarning(message: string): string {
  return `### ⚠️ This link may not outlive the review\n\n${message}`;
}

const FOOTER = `${OPENED_BY_THIS_ACTION} It keeps this one pull request current: later runs update it rather than open another.</sub>`;

/** The body for a URL the team hosts: nothing expires, and the URL was fetched as a pod would. */
/**
 * The one date a reviewer must beat, in bold: the earliest thing that breaks. Production keeps its own
 * link until this is merged and rolled out (when production serves a bundle at all); the new link
 * dies at its own expiry, and with one-hour links that comes first. Undefined: nothing expires.
 */
function mergeBy(deployedExpiry: Date | undefined, newExpiry: Date | undefined): string | undefined {
  const fresh = newExpiry && !Number.isNaN(newExpiry.getTime()) ? newExpiry : undefined;
  if (deployedExpiry && (!fresh || deployedExpiry.getTime() <= fresh.getTime())) {
    return `**Merge and roll out before ${formatUtc(deployedExpiry.toISOString())}**, when the link production serves now expires: after that, pods that restart cannot fetch the site until this is rolled out.`;
  }
  if (!fresh || !deployedExpiry) return undefined;
  return `**Merge and roll out before ${formatUtc(fresh.toISOString())}**, when the new link expires (before production's, at ${formatUtc(deployedExpiry.toISOString())}): a rollout after that fetches a dead link. A later run renews it.`;
}

function hostedBody(
  target: ConfigTarget,
  published: PublishedBundle,
  hosted: { sha256: string; sha256Checked: boolean },
  changes: SettingChange[],
  deployedLink: string | undefined,
  production: { serves: boolean }
): string {
  const { job, bundle } = published;
  const lines = [
    `Points the deployment at export \`${job.jobId}\`${published.domain ? ` of **${published.domain}**` : ''}, hosted by your team at a URL that does not expire.`,
    '',
    ...withBlankLine(published.contentDiffText ?? contentDiffSection(published.contentDiff, deployedLink)),
    ...withBlankLine(closedNote(published.closedBefore)),
    `| Export job | \`${job.jobId}\` |`,
    '|---|---|',
    `| Bundle URL | ${showValue(bundle.bundleUrl)} |`,
    `| Bundle size | ${formatBytes(bundle.sizeBytes)} |`,
    `| Archive SHA-256 | \`${hosted.sha256}\` |`,
    `| URL expires | ${bundle.expiresAt === 'never' ? 'never: nothing to renew' : formatUtc(bundle.expiresAt)} |`,
    `| Checked | an anonymous GET answered 200 with this size and gzip content${hosted.sha256Checked ? ', and the same SHA-256' : ''}, as the pods will fetch it |`,
    '',
    ...changeTable(target.path, changes)
  ];
  lines.push(
    '',
    '### What merging does',
    '',
    `The deployment fetches the bundle from this URL at its next rollout (for example \`helm upgrade … -f ${target.path}\`). ` +
      (bundle.expiresAt === 'never' ? 'The URL does not expire, so the review and the rollout can take as long as they need.' : `The URL's own signature expires at ${formatUtc(bundle.expiresAt)}: roll out before then.`)
  );
  const deployedExpiry = deployedLink ? linkExpiry(deployedLink) : undefined;
  const deadline = mergeBy(production.serves ? deployedExpiry : undefined, bundle.expiresAt === 'never' ? undefined : new Date(bundle.expiresAt));
  if (deadline) lines.push('', deadline);
  lines.push('', FOOTER);
  return lines.join('\n');
}

/**
 * A setting's value before and after, for people. Links show their expiry, which tells a renewal's
 * two links apart; when the expiries read the same too, a fingerprint does.
 */
export function showChange(change: { before: unknown; after: unknown }): [before: string, after: string] {
  let before = showValue(change.before);
  let after = showValue(change.after);
  if (before === after && isLink(change.before) && isLink(change.after) && change.before !== change.after) {
    before += ` (link #${linkFingerprint(change.before)})`;
    after += ` (link #${linkFingerprint(change.after)})`;
  }
  return [before, after];
}

/**
 * The "What changes" table. Before and after sit one above the other in one cell: side by side, two
 * links are wider than GitHub's column, and the after, the one the reviewer came for, would scroll out of sight.
 */
function changeTable(path: string, changes: SettingChange[]): string[] {
  return [`### What changes in \`${path}\``, '', '| setting | before → after |', '|---|---|', ...changes.map(changeRow)];
}

/** One row of the "What changes" table. */
export function changeRow(change: { key: string; before: unknown; after: unknown }): string {
  const [before, after] = showChange(change);
  return `| \`${change.key}\` | before: ${before}<br>after: ${after} |`;
}

function isLink(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\//.test(value);
}

/** A setting's value for people: links by origin, path and expiry, never their signature; other values as JSON. */
function showValue(value: unknown): string {
  if (value === undefined) return '(not set)';
  if (!isLink(value)) return `\`${JSON.stringify(value)}\``;
  const expiry = linkExpiry(value);
  // A URL that does not expire (one the team hosts) is one code span, to copy whole; a presigned
  // link is shown without its signature anyway, in two pieces so a narrow cell can wrap it.
  if (!expiry) return `\`${shownWhole(value)}\``;
  const shown = linkPieces(value)
    .map((piece) => `\`${piece}\``)
    .join(' ');
  return `${shown} (expires ${formatUtc(expiry.toISOString())})`;
}

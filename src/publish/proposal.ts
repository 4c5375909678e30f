// Keeps the self-hosted deployment's configuration pointing at the new bundle: read the values file
// on the base branch, change exactly the static export settings, and propose that as one pull
// request (or, in a dry run, only show it). Runs only after a completed export and a bundle.
import type { Bundle, ExportJob } from '../platform/static-export.ts';
import { jobIdFromLink, linkExpiry, linkFingerprint, redactLink } from '../values/link.ts';
import { type SettingChange, patchValuesFile, readSetting } from '../values/values-file.ts';
import { formatBytes, formatUtc } from '../action/format.ts';
import { type BaseFile, type Octokit, PullRequestError, type Repo, branchHead, proposeChange, readBaseFile } from '../github/pull-request.ts';

export interface ConfigTarget {
  repo: Repo;
  path: string;
  /** Dotted path of the static export block, e.g. `staticExport` or `mintlify.staticExport`. */
  key: string;
  /** Undefined: the repository's default branch. */
  baseBranch?: string;
  prBranch: string;
  /** Undefined: a title that says whether this is a new bundle or a renewed link. */
  title?: string;
  labels: string[];
  dryRun: boolean;
}

export interface PublishedBundle {
  domain?: string;
  job: ExportJob;
  bundle: Bundle;
  version?: string;
  /** Set when this run renewed the link of the export already in the file. */
  renewal?: { previousLink?: string };
  /** Set when the platform's link expires sooner than link-margin: why, and what to do instead. */
  shortLink?: string;
  /** Set when the link is a URL the team hosts (bundle-url-template), checked as a pod would fetch it. */
  hosted?: { sha256: string; sha256Checked: boolean };
  /** The docs commit the run's deployment published (the export holds it or a push published moments later). */
  docsCommit?: { sha: string; branch: string };
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
  /** Why the open pull request was left alone (it proposes a newer export). */
  kept?: string;
}

/** Reads the values file on the base branch; a missing file is an error a person can act on. */
export async function readConfigFile(octokit: Octokit, target: ConfigTarget): Promise<BaseFile & { text: string }> {
  const base = await readBaseFile(octokit, target.repo, target.path, target.baseBranch);
  if (base.text === undefined) {
    throw new PullRequestError(
      `${target.path} does not exist on ${base.branch} in ${target.repo.owner}/${target.repo.repo}. Check config-path (a path from the repository's root) and base-branch.`,
      404
    );
  }
  return { ...base, text: base.text };
}

/** What the proposal needs to know beyond the bundle. */
export interface ProposalContext {
  /** The values file as read at the start of the run; read again only if the base moved since. */
  base: BaseFile & { text: string };
  /** When an export was made (the platform's createdAt), to never replace a newer proposal; unset without an api-key. */
  createdAtOf?: (jobId: string) => Promise<string | undefined>;
  /** A warning for the log. */
  warn: (line: string) => void;
}

export async function updateDeploymentConfig(octokit: Octokit, target: ConfigTarget, published: PublishedBundle, context: ProposalContext): Promise<ConfigUpdate> {
  // The export took minutes: if the base moved, patch the file as it is now, not as it was.
  const baseHead = await branchHead(octokit, target.repo, context.base.branch);
  const file = baseHead === context.base.sha ? context.base : await readConfigFile(octokit, { ...target, baseBranch: context.base.branch });
  const patch = patchValuesFile(target.path, file.text, target.key, {
    bundleUrl: published.bundle.bundleUrl,
    enable: !published.renewal,
    ...(published.version ? { version: published.version } : {})
  });
  if (patch.changes.length === 0) {
    return { changed: false, operation: 'none', changes: [], baseBranch: file.branch };
  }
  const body = pullRequestBody(target, published, patch.changes);
  if (target.dryRun) {
    return { changed: true, operation: 'none', changes: patch.changes, baseBranch: file.branch, body };
  }
  const proposal = await proposeChange(octokit, target.repo, {
    path: target.path,
    text: patch.text,
    base: file,
    branch: target.prBranch,
    commitMessage: commitMessage(target, published),
    title: target.title ?? defaultTitle(published),
    body,
    labels: target.labels,
    judge: orderJudge(target, published.job, context.createdAtOf),
    warn: context.warn
  });
  return { changed: true, ...proposal, changes: patch.changes, baseBranch: file.branch, body };
}

/**
 * The order rule: a run never replaces an open proposal of a newer export (by the platform's
 * createdAt), so a renewal of an old export can never push a newer, unmerged one out of review.
 */
function orderJudge(target: ConfigTarget, ours: ExportJob, createdAtOf?: (jobId: string) => Promise<string | undefined>) {
  return async (branchText: string | undefined): Promise<string | undefined> => {
    if (branchText === undefined) return undefined;
    let link: unknown;
    try {
      link = readSetting(target.path, branchText, target.key, 'bundleUrl');
    } catch {
      return undefined; // a file this run cannot read is replaced by one it can
    }
    const theirs = typeof link === 'string' ? jobIdFromLink(link) : undefined;
    if (!theirs || theirs === ours.jobId) return undefined;
    if (!createdAtOf) {
      return `The open pull request proposes export ${theirs}, and without an api-key this run cannot tell whether it is newer than ${ours.jobId}; it left the pull request alone. Merge or close it, then run again.`;
    }
    const theirsAt = await createdAtOf(theirs);
    if (theirsAt === undefined || !(Date.parse(theirsAt) > Date.parse(ours.createdAt))) return undefined;
    return `The open pull request proposes export ${theirs}, made ${formatUtc(theirsAt)}, newer than this run's ${ours.jobId} (made ${formatUtc(ours.createdAt)}); it was left as it is, so the review never goes back to older content.`;
  };
}

function defaultTitle({ domain, renewal }: PublishedBundle): string {
  const what = renewal ? 'renew the bundle link' : 'new bundle';
  return `Static export: ${what}${domain ? ` for ${domain}` : ''}`;
}

function commitMessage(target: ConfigTarget, published: PublishedBundle): string {
  const what = published.renewal ? 'Renew the static export link' : 'Point the deployment at a new static export';
  const link = published.hosted ? 'a URL your team hosts, which does not expire' : `a link that expires at ${published.bundle.expiresAt}`;
  return `${what} (${published.job.jobId})\n\nSets ${target.key}.bundleUrl in ${target.path} to ${link}.`;
}

/**
 * What a reviewer needs: what was exported, what changes in the file, and what merging does. It
 * holds no run-specific text (run links, relative times), so an unchanged proposal keeps an
 * unchanged body and the pull request is left alone.
 */
export function pullRequestBody(target: ConfigTarget, published: PublishedBundle, changes: SettingChange[]): string {
  if (published.hosted) return hostedBody(target, published, published.hosted, changes);
  const { job, bundle } = published;
  const newExpiry = formatUtc(bundle.expiresAt);
  const lines = [
    published.renewal
      ? `Renews the static export link${published.domain ? ` of **${published.domain}**` : ''}: the same export, a fresh link. No page changed.`
      : `A new static export${published.domain ? ` of **${published.domain}**` : ''} is ready; this points the deployment at it.`,
    '',
    '| | |',
    '|---|---|'
  ];
  if (published.domain) lines.push(`| Domain | ${published.domain} |`);
  if (published.docsCommit) lines.push(`| Docs commit | \`${published.docsCommit.sha.slice(0, 12)}\` from ${published.docsCommit.branch} |`);
  lines.push(`| Export job | \`${job.jobId}\` |`, `| Pages exported | ${job.pageCount} |`, `| Bundle size | ${formatBytes(bundle.sizeBytes)} |`);
  if (published.renewal) {
    const previous = published.renewal.previousLink ? linkExpiry(published.renewal.previousLink) : undefined;
    lines.push(`| Old link expires | ${previous ? formatUtc(previous.toISOString()) : 'unknown'} |`);
  }
  lines.push(`| New link expires | ${newExpiry} |`, '');
  lines.push(`### What changes in \`${target.path}\``, '', '| setting | before | after |', '|---|---|---|');
  for (const change of changes) lines.push(changeRow(change));
  lines.push(
    '',
    '### What merging does',
    '',
    `The deployment fetches the new bundle at its next rollout (for example \`helm upgrade … -f ${target.path}\`). ` +
      `The link expires at ${newExpiry}: roll out before then. Links are shown without their signature; the file holds the full link.`
  );
  if (published.shortLink) lines.push('', '### ⚠️ This link may not outlive the review', '', published.shortLink);
  lines.push('', FOOTER);
  return lines.join('\n');
}

const FOOTER = '<sub>Opened by the static export action. It keeps this one pull request current: later runs update it rather than open another.</sub>';

/** The body for a URL the team hosts: nothing expires, and the URL was fetched as a pod would. */
function hostedBody(target: ConfigTarget, published: PublishedBundle, hosted: { sha256: string; sha256Checked: boolean }, changes: SettingChange[]): string {
  const { job, bundle } = published;
  const lines = [
    `Points the deployment at export \`${job.jobId}\`${published.domain ? ` of **${published.domain}**` : ''}, hosted by your team at a URL that does not expire.`,
    '',
    '| | |',
    '|---|---|',
    `| Export job | \`${job.jobId}\` |`,
    `| Bundle URL | \`${bundle.bundleUrl}\` |`,
    `| Bundle size | ${formatBytes(bundle.sizeBytes)} |`,
    `| Archive SHA-256 | \`${hosted.sha256}\` |`,
    '| URL expires | never: nothing to renew |',
    `| Checked | an anonymous GET answered 200 with this size and gzip content${hosted.sha256Checked ? ', and the same SHA-256' : ''}, as the pods will fetch it |`,
    '',
    `### What changes in \`${target.path}\``,
    '',
    '| setting | before | after |',
    '|---|---|---|'
  ];
  for (const change of changes) lines.push(changeRow(change));
  lines.push(
    '',
    '### What merging does',
    '',
    `The deployment fetches the bundle from this URL at its next rollout (for example \`helm upgrade … -f ${target.path}\`). The URL does not expire, so the review and the rollout can take as long as they need.`,
    '',
    FOOTER
  );
  return lines.join('\n');
}

/**
 * A setting's value before and after, for people. Two links that look the same once their
 * signatures are hidden (a renewal) are told apart by their expiry, or by a fingerprint when the
 * expiries read the same too.
 */
export function showChange(change: { before: unknown; after: unknown }): [before: string, after: string] {
  let before = showValue(change.before);
  let after = showValue(change.after);
  if (before === after && isLink(change.before) && isLink(change.after) && change.before !== change.after) {
    const [was, will] = [change.before, change.after].map((link) => {
      const expiry = linkExpiry(link);
      return expiry ? `expires ${formatUtc(expiry.toISOString())}` : undefined;
    });
    if (was && will && was !== will) {
      before += ` (${was})`;
      after += ` (${will})`;
    } else {
      before += ` (link #${linkFingerprint(change.before)})`;
      after += ` (link #${linkFingerprint(change.after)})`;
    }
  }
  return [before, after];
}

/** One row of the "What changes" table. */
export function changeRow(change: { key: string; before: unknown; after: unknown }): string {
  const [before, after] = showChange(change);
  return `| \`${change.key}\` | ${before} | ${after} |`;
}

function isLink(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\//.test(value);
}

/** A setting's value for people: links without their signature, other values as JSON. */
function showValue(value: unknown): string {
  if (value === undefined) return '(not set)';
  if (isLink(value)) return `\`${redactLink(value)}\``;
  return `\`${JSON.stringify(value)}\``;
}

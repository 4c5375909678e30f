// The body renderer: what a reviewer reads in the action's region of the pull request (body.ts keeps
// that region apart from a person's text). Pure: from the target, the export and the changes.
import { jobIdFromLink, linkExpiry, linkFingerprint, linkPieces, shownWhole } from '../values/link.ts';
import type { SettingChange } from '../values/values-file.ts';
import { OPENED_BY_THIS_ACTION, settingChanges } from './reconcile.ts';
import { formatBytes, formatUtc } from '../action/format.ts';
import { contentDiffSection } from './content-diff.ts';
import type { ConfigTarget, PublishedBundle } from './proposal-types.ts';

/** True when merging changes only the link of the export production already serves. */
export function sameExport(published: PublishedBundle, deployedLink: string | undefined): boolean {
  return deployedLink !== undefined && jobIdFromLink(deployedLink) === published.job.jobId;
}

export function defaultTitle(published: PublishedBundle, deployedLink: string | undefined): string {
  const what = published.hosted ? 'host the bundle' : sameExport(published, deployedLink) ? 'renew the bundle link' : 'new bundle';
  return `Static export: ${what}${published.domain ? ` for ${published.domain}` : ''}`;
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
  const deployedExpiry = deployedLink ? linkExpiry(deployedLink) : undefined;
  const deadline = mergeBy(production.serves ? deployedExpiry : undefined, new Date(bundle.expiresAt));
  const intro = renewal
    ? `Renews the static export link${published.domain ? ` of **${published.domain}**` : ''}: the same export, a fresh link.${published.contentDiff ? '' : ' No page changed.'}`
    : `A new static export${published.domain ? ` of **${published.domain}**` : ''} is ready; this points the deployment at it.`;
  const lines = [
    ...firstScreen(intro, deadline, target, changes, published, deployedLink),
    // The export names the table: GitHub draws a table's first row as its header, and an empty one as an empty row.
    `| Export job | \`${job.jobId}\` |`,
    '|---|---|'
  ];
  if (published.domain) lines.push(`| Domain | ${published.domain} |`);
  if (published.docsCommit) lines.push(`| Docs commit | \`${published.docsCommit.sha.slice(0, 12)}\` from ${published.docsCommit.branch} |`);
  if (job.pageCount !== undefined) lines.push(`| Pages exported | ${job.pageCount} |`);
  lines.push(`| Bundle size | ${formatBytes(bundle.sizeBytes)} |`);
  if (deployedExpiry) lines.push(`| Production's link expires | ${formatUtc(deployedExpiry.toISOString())} |`);
  lines.push(`| New link expires | ${newExpiry} |`);
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
  if (published.shortLink) lines.push('', linkWarning(published.shortLink));
  lines.push('', FOOTER);
  return lines.join('\n');
}

/** Whether production serves a bundle once this is merged: it does now, or this turns it on. */
function servesAfter(production: { serves: boolean }, changes: SettingChange[]): boolean {
  return production.serves || changes.some((change) => change.key.endsWith('.enabled') && change.after === true);
}

/**
 * What a reviewer takes in first, for either body: what this is, the one deadline, the settings that
 * change; then a person's earlier no and the pages, which read after.
 */
function firstScreen(intro: string, deadline: string | undefined, target: ConfigTarget, changes: SettingChange[], published: PublishedBundle, deployedLink: string | undefined): string[] {
  return [
    intro,
    '',
    ...withBlankLine(deadline ?? ''),
    ...changeTable(target.path, changes),
    '',
    ...withBlankLine(closedNote(published.closedBefore)),
    ...withBlankLine(published.contentDiffText ?? contentDiffSection(published.contentDiff, deployedLink))
  ];
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
  const deployedExpiry = deployedLink ? linkExpiry(deployedLink) : undefined;
  const deadline = mergeBy(production.serves ? deployedExpiry : undefined, bundle.expiresAt === 'never' ? undefined : new Date(bundle.expiresAt));
  const intro = `Points the deployment at export \`${job.jobId}\`${published.domain ? ` of **${published.domain}**` : ''}, hosted by your team at a URL that does not expire.`;
  const lines = [
    ...firstScreen(intro, deadline, target, changes, published, deployedLink),
    `| Export job | \`${job.jobId}\` |`,
    '|---|---|',
    `| Bundle URL | ${showValue(bundle.bundleUrl)} |`,
    `| Bundle size | ${formatBytes(bundle.sizeBytes)} |`,
    `| Archive SHA-256 | \`${hosted.sha256}\` |`,
    `| URL expires | ${bundle.expiresAt === 'never' ? 'never: nothing to renew' : formatUtc(bundle.expiresAt)} |`,
    `| Checked | an anonymous GET answered 200 with this size and an archive's content${hosted.sha256Checked ? ', and the same SHA-256' : ''}, as the pods will fetch it |`
  ];
  lines.push(
    '',
    '### What merging does',
    '',
    `The deployment fetches the bundle from this URL at its next rollout (for example \`helm upgrade … -f ${target.path}\`). ` +
      (bundle.expiresAt === 'never' ? 'The URL does not expire, so the review and the rollout can take as long as they need.' : `The URL's own signature expires at ${formatUtc(bundle.expiresAt)}: roll out before then.`)
  );
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

/**
 * The region for a branch whose export this run did not write (body.ts, describeAsHeld): only what the
 * file says, and that the rest comes with the next run.
 */
function settingChangesOf(target: ConfigTarget, deployed: string, proposed: string): SettingChange[] {
  try {
    return settingChanges(target.path, target.key, deployed, proposed);
  } catch {
    return [];
  }
}

export function describedFromFile(target: ConfigTarget, deployed: string, proposed: string, jobId: string, link: string): string {
  const expiry = linkExpiry(link);
  const lines = [
    `This pull request proposes export \`${jobId}\`, written by another run at the same moment as the one that described it last; this description is read from the file on the branch. The next run describes it in full.`,
    '',
    `| Export job | \`${jobId}\` |`,
    '|---|---|',
    `| Link expires | ${expiry ? formatUtc(expiry.toISOString()) : 'not stated by the link'} |`,
    '',
    ...changeTable(target.path, settingChangesOf(target, deployed, proposed)),
    '',
    FOOTER
  ];
  return lines.join('\n');
}

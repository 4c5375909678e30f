// The publish action's job summary: what was exported and where the link stands, or what failed
// and what to do. Written only where the runner gives a summary file.
import * as core from '../action/core.ts';
import { type ExportJob, jobFigures } from '../platform/static-export.ts';
import { linkPieces, shownWhole } from '../values/link.ts';
import type { ConfigUpdate } from './proposal.ts';
import type { ConfigTarget } from './proposal-types.ts';
import { linkWarning } from './pull-request-body.ts';
import type { Validity } from './renewal.ts';
import type { ProductionGuard } from './production-guard.ts';
import type { ExportResult } from './export.ts';
import type { ShortLink } from '../storage/link-margin.ts';
import { escapeHtml, formatBytes, formatDuration, formatInstant, messageHtml } from '../action/format.ts';

export interface ConfigSummary {
  target: ConfigTarget;
  update: ConfigUpdate;
  /** True when the step merged the update's pull request itself (auto-merge: renewals). */
  merged?: boolean;
  /** Production's renewal the step merged apart from the update's pull request. */
  mergedApart?: MergedRenewal;
}

/** What download-path unpacked and keep-archive kept, for the summary. */
export interface DownloadedSite {
  /** The path as the user gave it; undefined when only keep-archive was set. */
  path?: string;
  /** The archive keep-archive kept, as the user named it. */
  kept?: { path: string; bytes: number; sha256: string };
  files: number;
  unpackedBytes: number;
  archiveBytes: number;
  sha256: string;
}

export async function writePublishSummary(
  result: ExportResult,
  domain: string | undefined,
  config?: ConfigSummary,
  shortLink?: ShortLink,
  site?: DownloadedSite,
  docsCommit?: { sha: string; branch: string },
  guard?: ProductionGuard,
  contentDiff?: string
): Promise<void> {
  if (!core.variable('GITHUB_STEP_SUMMARY')) return;
  const summary = core.summary();
  const { job, bundle } = result;
  addGuard(summary, guard);
  // Under the guard's 🛑 the step fails: the heading must not read as a success.
  const outcome = guard?.level === 'fail' ? "exported, but the step failed on production's link" : job.status;
  summary.addHeading(`Static export${domain ? ` of ${domain}` : ''}: ${outcome}`, 2);
  addContentDiff(summary, contentDiff);
  summary
    .addTable([
      [{ data: 'Job', header: true }, { data: `<code>${job.jobId}</code>${result.started ? '' : ' (reused)'}` }],
      ...(docsCommit ? [[{ data: 'Docs commit', header: true }, `<code>${docsCommit.sha.slice(0, 12)}</code> from ${escapeHtml(docsCommit.branch)}, published before the export started`]] : []),
      ...(job.pageCount === undefined ? [] : [[{ data: 'Pages', header: true }, String(job.pageCount)]]),
      [{ data: 'Took', header: true }, formatDuration(result.waitedMs)],
      [{ data: 'Bundle size', header: true }, formatBytes(bundle.sizeBytes)],
      [{ data: 'Link expires', header: true }, formatInstant(bundle.expiresAt)],
      [{ data: 'Link', header: true }, shownLink(bundle.bundleUrl)]
    ])
    .addRaw('<p>The full link is in the <code>bundle-url</code> output; download it before it expires, or run again with <code>job-id</code> for a fresh one.</p>', true);
  if (shortLink) summary.addRaw(`<p>⚠️ <strong>This link may not outlive the review.</strong> ${messageHtml(shortLink.message)}</p>`, true);
  if (result.unnamedJobs) summary.addRaw(`<p>${escapeHtml(result.unnamedJobs)}</p>`, true);
  if (site?.kept) {
    summary.addHeading('Kept archive', 3).addTable([
      [{ data: 'Path', header: true }, `<code>${escapeHtml(site.kept.path)}</code> (the <code>archive-path</code> output), checked and unpacked before it was kept`],
      [{ data: 'Size', header: true }, formatBytes(site.kept.bytes)],
      [{ data: 'SHA-256', header: true }, `<code>${site.kept.sha256}</code>, also in <code>${escapeHtml(site.kept.path)}.sha256</code>`]
    ]);
  }
  if (site?.path !== undefined) {
    summary.addHeading('Downloaded site', 3).addTable([
      [{ data: 'Path', header: true }, `<code>${escapeHtml(site.path)}</code> (the <code>bundle-path</code> output)`],
      [{ data: 'Files', header: true }, `${site.files.toLocaleString('en-US')} (${formatBytes(site.unpackedBytes)})`],
      [{ data: 'Archive', header: true }, `${formatBytes(site.archiveBytes)}, checked before unpacking`],
      [{ data: 'SHA-256', header: true }, `<code>${site.sha256}</code>`]
    ]);
  }
  if (config) addConfigSection(summary, config, shortLink);
  await summary.write();
}

/** What readers see after the merge (publish/content-diff.ts), as Markdown: GitHub renders it between the HTML blocks. */
function addContentDiff(summary: core.Summary, markdown: string | undefined): void {
  if (markdown) summary.addRaw(`\n${markdown}\n`, true);
}

/**
 * A message of the log in the summary's HTML, each "pull request #4 (https://…)" it names made a
 * link to click: the log shows the address, the summary the link.
 */
export function withPullLinks(text: string): string {
  // messageHtml has made the address a link of its own; the pull request's name becomes the link.
  return messageHtml(text).replace(/\b([Pp]ull request #\d+) \(<a href="([^"]+)">[^<]*<\/a>\)/g, '<a href="$2">$1</a>');
}

/** A link in a table cell: origin and path apart, so the cell can wrap; never the signature. */
function shownLink(link: string): string {
  return linkPieces(link)
    .map((piece) => `<code>${escapeHtml(piece)}</code>`)
    .join(' ');
}

/** Production at risk comes first: it is what the reader must act on. Markdown, so the pull request is a link. */
function addGuard(summary: core.Summary, guard: ProductionGuard | undefined): void {
  if (!guard?.markdown || guard.level === 'ok') return;
  const what = guard.urgent ? "🛑 **Production is about to lose its site.**" : "⚠️ **Production's link runs out before long.**";
  summary.addRaw(`\n${what} ${guard.markdown}\n`, true);
}

/** `shortLink`: the link-margin warning, already said above, so the body shown here leaves it out. */
function addConfigSection(summary: core.Summary, { target, update, merged, mergedApart }: ConfigSummary, shortLink?: ShortLink): void {
  const where = `<code>${escapeHtml(target.path)}</code> in ${escapeHtml(`${target.repo.owner}/${target.repo.repo}`)}`;
  summary.addHeading('Deployment configuration', 3);
  if (mergedApart) {
    summary.addRaw(
      `<p>Merged <a href="${escapeHtml(mergedApart.url)}">pull request #${mergedApart.number}</a> (auto-merge: renewals): a fresh link for export <code>${escapeHtml(mergedApart.jobId)}</code>, the one production serves, on <code>${escapeHtml(update.baseBranch)}</code>. Roll it out (the <code>merged-pull-request-number</code> output names it).</p>`,
      true
    );
  }
  if (!update.changed) {
    summary.addRaw(`<p>${where} on <code>${escapeHtml(update.baseBranch)}</code> already holds this link: no pull request needed.</p>`, true);
    return;
  }
  if (update.kept) {
    const pull = update.url ? ` <a href="${escapeHtml(update.url)}">Pull request #${update.number}</a> is unchanged.` : '';
    summary.addRaw(`<p>Nothing proposed: ${withPullLinks(update.kept)}${pull}</p>`, true);
    return;
  }
  if (target.dryRun) {
    summary.addRaw(`<p><strong>Dry run:</strong> nothing was written. This is the pull request the step would open against ${where}:</p>`, true);
  } else if (update.url && merged) {
    const verb = { created: 'Opened and merged', updated: 'Updated and merged', none: 'Merged' }[update.operation];
    summary.addRaw(`<p>${verb} <a href="${escapeHtml(update.url)}">pull request #${update.number}</a> for ${where} (auto-merge: renewals). Roll the new link out (the <code>merged-pull-request-number</code> output names it).</p>`, true);
  } else if (update.url) {
    const verb = { created: 'Opened', updated: 'Updated', none: 'Already current:' }[update.operation];
    summary.addRaw(`<p>${verb} <a href="${escapeHtml(update.url)}">pull request #${update.number}</a> for ${where}. Merge it to roll the new bundle out.</p>`, true);
  }
  const body = shortLink ? update.body?.replace(`\n\n${linkWarning(shortLink.note)}`, '') : update.body;
  if (body) summary.addDetails('Pull request text', `\n\n${body}\n\n`);
}

export async function writeFailureSummary(failure: {
  domain?: string;
  jobId?: string;
  job?: ExportJob;
  message: string;
  /** True when the export succeeded and a later step (the configuration) failed. */
  exported?: boolean;
  /** True when the step was to propose a configuration change (config-path set). */
  configured?: boolean;
  /** The pull request the run wrote before the failure: it holds the export. */
  proposal?: { number: number; url: string };
  /** The last lines of a failed deployment's log. */
  deploymentLog?: string[];
  /** Said when a resent start may have left other jobs running whose ids never arrived. */
  unnamedJobs?: string;
  /** What the content gate refused, as Markdown. */
  contentDiff?: string;
  /** True when the step stopped waiting but the export job goes on on the server (a timeout). */
  jobGoesOn?: boolean;
}): Promise<void> {
  if (!core.variable('GITHUB_STEP_SUMMARY')) return;
  const summary = core.summary();
  const rows = [];
  if (failure.jobId) rows.push([{ data: 'Job', header: true }, `<code>${failure.jobId}</code>`]);
  if (failure.job) {
    rows.push([{ data: 'Status', header: true }, failure.job.status]);
    const figures = jobFigures(failure.job);
    if (figures) rows.push([{ data: 'Progress', header: true }, figures]);
  }
  const title = failure.exported ? 'exported, but a later step failed' : 'failed';
  summary.addHeading(`Static export${failure.domain ? ` of ${failure.domain}` : ''}: ${title}`, 2);
  if (rows.length) summary.addTable(rows);
  summary.addRaw(`<p><strong>What happened:</strong> ${withPullLinks(failure.message)}</p>`, true).addRaw(`<p>${failureConsequence(failure)}</p>`, true);
  if (failure.unnamedJobs) summary.addRaw(`<p>${escapeHtml(failure.unnamedJobs)}</p>`, true);
  addContentDiff(summary, failure.contentDiff);
  if (failure.deploymentLog?.length) summary.addHeading("The deployment's last log lines", 3).addCodeBlock(failure.deploymentLog.join('\n'));
  await summary.write();
}

/** A run that proposed a URL the team hosts (bundle-url-template). */
export async function writeHostedSummary(
  url: string,
  expiresAt: string,
  archive: { sha256: string; bytes: number },
  sha256Checked: boolean,
  config: ConfigSummary,
  guard?: ProductionGuard,
  contentDiff?: string
): Promise<void> {
  if (!core.variable('GITHUB_STEP_SUMMARY')) return;
  const summary = core.summary();
  addGuard(summary, guard);
  summary.addHeading(`Static export: bundle hosted by your team`, 2);
  addContentDiff(summary, contentDiff);
  summary.addTable([
    // One code span, to copy whole: the URL the pods fetch, never expiring (a signed one shows no signature).
    [{ data: 'URL', header: true }, `<code>${escapeHtml(shownWhole(url))}</code>`],
    [{ data: 'Expires', header: true }, expiresAt === 'never' ? 'never' : formatInstant(expiresAt)],
    [{ data: 'Size', header: true }, formatBytes(archive.bytes)],
    [{ data: 'SHA-256', header: true }, `<code>${archive.sha256}</code>`],
    [{ data: 'Checked as a pod', header: true }, `200 without credentials, right size, an archive${sha256Checked ? ', same SHA-256' : ''}`]
  ]);
  addConfigSection(summary, config);
  await summary.write();
}

/** A pull request the step merged itself (auto-merge: renewals), as the summary names it. */
export interface MergedRenewal {
  number: number;
  url: string;
  jobId: string;
}

/**
 * A run that left the proposal as it is: the link is valid long enough, never expires, or its export
 * was turned down. `merged`: production's renewal the step merged meanwhile, apart from the pull
 * request that waits (auto-merge: renewals); `rebuilt` then says the waiting one was rebuilt on it.
 */
export async function writeLeftSummary(
  validity: Validity,
  why: 'valid' | 'hosted' | 'vetoed',
  target: ConfigTarget,
  domain: string | undefined,
  facts: { baseBranch: string; link?: string; pending?: { number: number; url: string }; guard: ProductionGuard; rebuilt?: boolean; merged?: MergedRenewal }
): Promise<void> {
  if (!core.variable('GITHUB_STEP_SUMMARY')) return;
  const summary = core.summary();
  addGuard(summary, facts.guard);
  const judged = facts.pending ? `The link that <a href="${escapeHtml(facts.pending.url)}">pull request #${facts.pending.number}</a> proposes` : `The link in <code>${escapeHtml(target.path)}</code> on <code>${escapeHtml(facts.baseBranch)}</code>`;
  const expires = validity.hosted ? 'never expires' : `expires ${validity.expiresAt ? escapeHtml(formatInstant(validity.expiresAt.toISOString())) : 'at an unknown time'}`;
  if (facts.merged) {
    await writeMergedBeside(summary, facts.merged, { judged, expires, target, domain, ...facts });
    return;
  }
  const deployed = facts.pending
    ? ` Production (<code>${escapeHtml(target.path)}</code> on <code>${escapeHtml(facts.baseBranch)}</code>) keeps its own link until the pull request is merged${facts.guard.expiresAt ? `; that link expires ${escapeHtml(formatInstant(facts.guard.expiresAt.toISOString()))}` : ''}.`
    : '';
  const heading = { valid: 'link still valid, nothing to do', hosted: 'hosted URL, nothing to renew', vetoed: 'turned down in review, nothing proposed' }[why];
  summary.addHeading(`Static export${domain ? ` of ${domain}` : ''}: ${heading}`, 2).addRaw(`<p>${withPullLinks(validity.reason)}</p>`, true);
  const touched =
    facts.rebuilt && facts.pending
      ? `No request was sent to the platform. The base moved under <a href="${escapeHtml(facts.pending.url)}">pull request #${facts.pending.number}</a>, so it was rebuilt on the base's current file, its settings and people's changes kept.`
      : 'No request was sent to the platform and no pull request was touched.';
  if (why !== 'vetoed') summary.addRaw(`<p>${judged} ${expires}.${deployed} ${touched}</p>`, true);
  else summary.addRaw(`<p>${touched}${deployed}</p>`, true);
  await summary.write();
}

/** Production's renewal merged apart from the pull request that waits: the merge first, it is what to roll out. */
async function writeMergedBeside(
  summary: core.Summary,
  merged: MergedRenewal,
  said: { judged: string; expires: string; target: ConfigTarget; domain?: string; baseBranch: string; pending?: { number: number; url: string }; guard: ProductionGuard; rebuilt?: boolean }
): Promise<void> {
  const where = `<code>${escapeHtml(said.target.path)}</code> on <code>${escapeHtml(said.baseBranch)}</code>`;
  const until = said.guard.expiresAt ? `, valid until ${escapeHtml(formatInstant(said.guard.expiresAt.toISOString()))}` : '';
  summary
    .addHeading(`Static export${said.domain ? ` of ${said.domain}` : ''}: production's link renewed, pull request #${merged.number} merged`, 2)
    .addRaw(
      `<p>Merged <a href="${escapeHtml(merged.url)}">pull request #${merged.number}</a> (auto-merge: renewals): ${where} now holds a fresh link for export <code>${escapeHtml(merged.jobId)}</code>, the one production serves${until}. ` +
        'Roll it out (the <code>merged-pull-request-number</code> output names it); no page changes.</p>',
      true
    );
  const waiting = said.pending
    ? said.rebuilt
      ? ` <a href="${escapeHtml(said.pending.url)}">Pull request #${said.pending.number}</a> still waits for review; it was rebuilt on the renewed file, its export and people's changes kept.`
      : ` <a href="${escapeHtml(said.pending.url)}">Pull request #${said.pending.number}</a> still waits for review.`
    : '';
  summary.addRaw(`<p>${said.judged} ${said.expires}: it needs no renewal.${waiting}</p>`, true);
  await summary.write();
}

/** What the failure means for the user, said only of what the step was set up to do. */
function failureConsequence(failure: { exported?: boolean; configured?: boolean; jobGoesOn?: boolean; proposal?: { number: number; url: string } }): string {
  if (failure.exported && failure.proposal) {
    const pull = `<a href="${escapeHtml(failure.proposal.url)}">pull request #${failure.proposal.number}</a>`;
    return `The export is done and ${pull} proposes it (the <code>pull-request-number</code> output names it); what came after the pull request failed (see above). Nothing needs exporting again.`;
  }
  if (failure.exported) {
    const link = 'The export is done, but what came after it failed (see above). The bundle link is in the <code>bundle-url</code> output.';
    return failure.configured ? `${link} No pull request was opened or changed after the failure; the deployment keeps serving its current bundle.` : link;
  }
  const unchanged = failure.configured ? ' No configuration was changed: the deployment keeps serving its current bundle.' : '';
  // A timed-out job may still finish: "run again" would start a second export of the same docs.
  if (failure.jobGoesOn) return `The export may still finish on the server; this step stopped waiting for it.${unchanged}`;
  return unchanged ? unchanged.trim() : 'Nothing was exported; run the step again once the cause is fixed.';
}

// What merging changes for readers: the new export compared page by page with production's
// (content/), judged by the gate before anything is proposed, and shown where the reviewer looks.
// The Markdown here is the one section the pull request body and the job summary both include.
import { createReadStream } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import * as core from '../action/core.ts';
import { runnerTempPath, uniqueTempPath } from '../action/runtime.ts';
import type { Bundle } from '../platform/static-export.ts';
import type { Deadline } from '../action/deadline.ts';
import { PublishOutput as Output } from '../action/constants.ts';
import { SiteComparer } from '../content/compare.ts';
import { fetchDeployed } from '../content/deployed.ts';
import { type ContentDiff, type GateSettings, percent, refusal } from '../content/gate.ts';
import { jobIdFromLink, redactLink } from '../values/link.ts';
import { BundleError, DEFAULT_LIMITS } from '../bundle/guard.ts';
import { formatDuration } from '../action/format.ts';
import { type ArchiveFormat, detectFormat, type EntryReader, unpackTarGz, unpackZip } from '../bundle/unpack.ts';

/** An export the content gate refused: nothing was proposed. */
export class ContentGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContentGateError';
  }
}

export interface DiffRequest {
  /** The link in the base's values file; undefined: nothing deployed yet. */
  deployedLink: string | undefined;
  /** The export job production's link names, when the run knows it better than the link (a hosted URL's template). */
  deployedJobId?: string;
  /** The site's domain, when the run knows it: the section links pages added or changed to it. */
  domain?: string;
  freshLink?: (jobId: string) => Promise<Bundle>;
  deadline: Deadline;
  signal: AbortSignal;
}

/**
 * Reads the new export through `readProposed` (a download, an archive or a folder: it calls
 * `reader()` to start, and again to start over) while production's export downloads beside it,
 * each page hashed as it streams out of its archive. A production export that cannot be read leaves
 * the pages uncompared, with a warning; a new export that cannot be read stops production's and throws.
 */
export async function compareWithProduction<T>(request: DiffRequest, readProposed: (reader: () => EntryReader) => Promise<T>): Promise<{ diff: ContentDiff; proposed: T }> {
  const { deployedLink, signal, deadline } = request;
  const comparer = new SiteComparer();
  const proposedReader = () => comparer.reader('proposed');
  if (!deployedLink) {
    const proposed = await readProposed(proposedReader);
    return { proposed, diff: { kind: 'first', proposedPages: comparer.pages('proposed') } };
  }
  core.info(`Reading production's export (${redactLink(deployedLink)}) beside the new one, to compare them page by page…`);
  // The new export failing its checks ends the comparison: production's download stops with it.
  const stop = new AbortController();
  const deployed = fetchDeployed({
    deployedLink,
    jobId: request.deployedJobId,
    freshLink: request.freshLink,
    directory: uniqueTempPath('static-export-deployed'),
    reader: () => comparer.reader('deployed'),
    deadline,
    signal: AbortSignal.any([signal, stop.signal]),
    log: (line) => core.info(line)
  }).then(
    ({ readFrom }) => ({ readFrom }),
    (error: unknown) => ({ error })
  );
  let proposed: T;
  try {
    proposed = await readProposed(proposedReader);
  } catch (error) {
    stop.abort(error);
    await deployed; // its temporary file is gone before the step goes on
    throw error;
  }
  const read = await deployed;
  if ('error' in read) {
    if (signal.aborted) throw read.error;
    if (deadline.expired()) {
      throw new BundleError(
        'timeout',
        `The new export was read, but production's export, read beside it to compare the pages, did not finish within the step's timeout (${formatDuration(deadline.timeoutMs)}); nothing was proposed. Raise timeout.`,
        { cause: read.error }
      );
    }
    const reason = read.error instanceof Error ? read.error.message : String(read.error);
    core.warning(`Production's export could not be read, so the pages were not compared (${reason}). The new export is proposed on its own checks.`);
    return { proposed, diff: { kind: 'unavailable', deployedLink, reason, proposedPages: comparer.pages('proposed') } };
  }
  const comparison = comparer.comparison();
  const deployedJobId = request.deployedJobId ?? jobIdFromLink(deployedLink);
  return { proposed, diff: { kind: 'compared', deployedLink, deployedJobId, readFrom: read.readFrom, comparison, ...(request.domain ? { domain: request.domain } : {}) } };
}

/** Reads an archive kept on disk (archive-path) through `reader`, with a download's checks but the home page (the gate's). Nothing is unpacked. */
export async function readArchiveFile(file: string, reader: EntryReader, signal: AbortSignal): Promise<void> {
  if ((await formatOfFile(file)) === 'zip') await unpackZip(file, undefined, DEFAULT_LIMITS, signal, false, reader);
  else await unpackTarGz(createReadStream(file), undefined, DEFAULT_LIMITS, signal, false, reader);
}

/** An archive's format by its first bytes, as a download judges it. */
async function formatOfFile(file: string): Promise<ArchiveFormat> {
  const handle = await open(file);
  const head = Buffer.alloc(512);
  const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  return detectFormat(head.subarray(0, bytesRead));
}

/**
 * Writes the whole list to the report file, adds its outputs to `outputs` (the run reports them with
 * the rest, refused or not) and says it in the log; then the gate: a refused export throws, before
 * anything is proposed.
 */
export async function judgeContent(diff: ContentDiff, gate: GateSettings, jobId: string, outputs: Record<string, string>): Promise<void> {
  const refused = refusal(diff, gate);
  const report = reportOf(diff, jobId, refused);
  const path = runnerTempPath('static-export-content-diff.json');
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
  outputs[Output.ContentDiffPath] = path;
  outputs[Output.ContentDiff] = JSON.stringify({ status: report.status, ...report.counts });
  core.info(logLine(diff));
  if (diff.kind === 'first') core.notice(`Nothing is deployed yet, so the new export (${diff.proposedPages} pages) is the first: there is nothing to compare it with.`);
  if (refused) throw new ContentGateError(refused);
}

/** The line for the export production serves already: a fresh link for it, or the URL the team hosts it at. */
function sameExport(diff: Extract<ContentDiff, { kind: 'renewal' }>, job: string): string {
  return diff.hosted
    ? `No page changes: export ${job}, the one production serves, at the URL your team hosts.`
    : `No page changes: this renews the link of export ${job}, the one production serves.`;
}

function logLine(diff: ContentDiff): string {
  if (diff.kind === 'renewal') return sameExport(diff, diff.jobId);
  if (diff.kind !== 'compared') return `Pages not compared: ${diff.kind === 'first' ? 'nothing is deployed yet' : diff.reason}.`;
  const { comparison: c } = diff;
  return `Compared with production's export (${c.deployedPages} pages, read from ${diff.readFrom}): ${counts(diff)}.`;
}

function counts(diff: Extract<ContentDiff, { kind: 'compared' }>): string {
  const c = diff.comparison;
  return `${c.added.length} added, ${c.removed.length} removed, ${c.changed.length} changed, ${c.unchanged} unchanged`;
}

/** The JSON report: every path, for a later step. */
function reportOf(diff: ContentDiff, jobId: string, refused: string | undefined) {
  const gate = { passed: refused === undefined, ...(refused ? { reason: refused } : {}) };
  if (diff.kind !== 'compared') {
    const pages = diff.kind === 'renewal' ? undefined : diff.proposedPages;
    return {
      status: diff.kind,
      proposed: { jobId, ...(pages !== undefined ? { pages } : {}) },
      ...(diff.kind === 'unavailable' ? { reason: diff.reason } : {}),
      counts: diff.kind === 'renewal' ? { added: 0, removed: 0, changed: 0 } : {},
      gate
    };
  }
  const c = diff.comparison;
  return {
    status: diff.kind,
    deployed: { jobId: diff.deployedJobId, pages: c.deployedPages, readFrom: diff.readFrom },
    proposed: { jobId, pages: c.proposedPages },
    counts: { added: c.added.length, removed: c.removed.length, changed: c.changed.length, unchanged: c.unchanged },
    added: c.added,
    removed: c.removed,
    changed: c.changed,
    redirected: c.redirected,
    excerpts: c.excerpts,
    gate
  };
}

/** Changed pages shown with an excerpt of what changed, the first by path. */
const EXCERPTS = 5;
/**
 * Characters the section may take in a pull request body. GitHub refuses a body over 65,536 characters
 * ("body is too long (maximum is 65536 characters)", renovatebot/renovate#2032); the rest of the body
 * (settings, links, notes) stays far below the other 41,000, whatever the pages hold.
 */
export const SECTION_MAX_CHARS = 24_000;
/**
 * Characters the section may take in the job summary. GitHub drops a step's summary over 1 MiB
 * ("$GITHUB_STEP_SUMMARY upload aborted, supports content up to a size of 1024k", as in
 * maplibre/flutter-maplibre-gl's run 9454698428); a character may take three bytes, and the summary
 * holds more than this section.
 */
export const SUMMARY_SECTION_MAX_CHARS = 250_000;
/** Characters of a path shown: a path longer than that is cut, its link kept whole. */
const PATH_CHARS = 200;

/** Where the section is shown: the pull request body (the tighter limit) or the job summary. */
export type SectionPlace = 'body' | 'summary';

/**
 * The section both the pull request body and the job summary show: a count line a reviewer takes in
 * at a glance, then every page by path in a collapsed section (and an excerpt of each of the first
 * changed pages), within the place's size limit. Pages added or changed link to the page on the site
 * (removed ones have no page to open). `deployedLink`: production's link as the proposal last read
 * it; a diff made against another one says so rather than mislead.
 */
export function contentDiffSection(diff: ContentDiff | undefined, deployedLink?: string, place: SectionPlace = 'body'): string {
  if (!diff) return '';
  const heading = ['### What readers see after the merge', ''];
  if (diff.kind === 'renewal') return [...heading, sameExport(diff, `\`${diff.jobId}\``)].join('\n');
  if (diff.kind === 'first') return [...heading, `Nothing is deployed yet, so there is nothing to compare with: this first export has ${diff.proposedPages} pages.`].join('\n');
  if (diff.kind === 'unavailable') {
    return [...heading, `Production's export could not be read, so the pages were not compared (${clean(diff.reason).slice(0, 2000)}). The new export has ${diff.proposedPages} pages.`].join('\n');
  }
  if (deployedLink !== undefined && deployedLink !== diff.deployedLink) {
    return [...heading, "Production's link changed while this run compared the pages, so the comparison is left out; the next run compares again."].join('\n');
  }
  const c = diff.comparison;
  const every = Math.max(c.added.length, c.removed.length, c.changed.length);
  // Where a reader finds the pages a shortened list leaves out: the summary lists more than the body can.
  const elsewhere =
    place === 'body' && comparedSection(diff, every, Math.min(EXCERPTS, c.excerpts.length), '').length <= SUMMARY_SECTION_MAX_CHARS
      ? 'listed in the job summary of the run that compared them'
      : 'listed in the `content-diff-path` report of the run that compared them';
  const maxChars = place === 'body' ? SECTION_MAX_CHARS : SUMMARY_SECTION_MAX_CHARS;
  // Whatever the pages hold, the section fits: fewer excerpts first, then shorter lists.
  for (let listed = every, excerpts = Math.min(EXCERPTS, c.excerpts.length); ; ) {
    const section = comparedSection(diff, listed, excerpts, elsewhere);
    if (section.length <= maxChars || listed === 0) return section;
    if (excerpts > 0) excerpts--;
    else listed = Math.floor(listed / 2);
  }
}

function comparedSection(diff: Extract<ContentDiff, { kind: 'compared' }>, listed: number, excerpts: number, elsewhere: string): string {
  const c = diff.comparison;
  const page = (path: string) => pageLink(path, diff.domain);
  const touched = c.added.length + c.removed.length + c.changed.length;
  const lines = [
    '### What readers see after the merge',
    '',
    `**Pages: ${c.added.length} added, ${c.removed.length} removed, ${c.changed.length} changed**, ${c.unchanged} unchanged`,
    '',
    `Compared page by page on the text a reader sees (not the files' bytes) with production's export${diff.deployedJobId ? ` \`${diff.deployedJobId}\`` : ''}: ` +
      `${c.deployedPages} pages before, ${c.proposedPages} after${c.removed.length > 0 ? `, ${percent(c.removed.length / Math.max(1, c.deployedPages))} of production's pages removed` : ''}` +
      `${c.redirected.length > 0 ? `; ${c.redirected.length} of production's pages now redirect elsewhere (not counted as removed)` : ''}.`
  ];
  if (touched === 0) return lines.join('\n');
  const shown = c.excerpts.slice(0, excerpts);
  // Collapsed: the count line is the first screen; the list is a click away, on the pull request itself.
  const what = shown.length > 0 ? `, with what changed on ${shown.length} of them` : '';
  lines.push('', `<details><summary>Every page added, removed or changed (${touched}), by path${what}</summary>`);
  const more = (count: number) => `- and ${count} more, ${elsewhere}`;
  addPathList('Added', c.added, lines, listed, page, more);
  addPathList('Removed', c.removed, lines, listed, (path) => `\`${shortPath(path)}\``, more);
  if (c.changed.length > 0) {
    lines.push('', `**Changed** (${c.changed.length})`, '');
    for (const change of shown) {
      lines.push(`- ${page(change.path)}`, '', '```diff', ...change.removed.map((line) => `- ${clean(line)}`), ...change.added.map((line) => `+ ${clean(line)}`), '```', '');
    }
    const withExcerpt = new Set(shown.map((change) => change.path));
    const rest = c.changed.filter((path) => !withExcerpt.has(path));
    for (const path of rest.slice(0, listed)) lines.push(`- ${page(path)}`);
    if (rest.length > listed) lines.push(more(rest.length - listed));
  }
  while (lines[lines.length - 1] === '') lines.pop();
  lines.push('', '</details>');
  return lines.join('\n');
}

function addPathList(title: string, paths: string[], lines: string[], listed: number, show: (path: string) => string, more: (count: number) => string): void {
  if (paths.length === 0) return;
  lines.push('', `**${title}** (${paths.length})`, '');
  for (const path of paths.slice(0, listed)) lines.push(`- ${show(path)}`);
  if (paths.length > listed) lines.push(more(paths.length - listed));
}

/** A page as a link to it on the site, `[\`/guides/auth\`](https://docs.example.com/guides/auth)`; its path alone without a domain. */
function pageLink(path: string, domain: string | undefined): string {
  const shown = `\`${shortPath(path)}\``;
  if (!domain) return shown;
  // Parentheses would end the Markdown link early; encodeURI leaves them as they are.
  const url = `https://${domain}${encodeURI(path).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
  return `[${shown}](${url})`;
}

function shortPath(path: string): string {
  const text = clean(path);
  return text.length > PATH_CHARS ? `${text.slice(0, PATH_CHARS)}…` : text;
}

/** A page's text in Markdown: no backticks that would end a code span or fence, no line breaks. */
function clean(text: string): string {
  return text.replace(/`+/g, "'").replace(/[\r\n]+/g, ' ');
}

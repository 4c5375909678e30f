// What merging changes for readers: the new export compared page by page with production's
// (content/), judged by the gate before anything is proposed, and shown where the reviewer looks.
// The Markdown here is the one section the pull request body and the job summary both include.
import { createReadStream } from 'node:fs';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import * as core from '@actions/core';
import { runnerTempPath, uniqueTempPath } from '../action/runtime.ts';
import type { Bundle } from '../platform/static-export.ts';
import type { Deadline } from '../action/deadline.ts';
import { PublishOutput as Output } from '../action/constants.ts';
import { compareSites, listPages } from '../content/compare.ts';
import { fetchDeployed } from '../content/deployed.ts';
import { type ContentDiff, type GateSettings, percent, refusal } from '../content/gate.ts';
import { jobIdFromLink, redactLink } from '../values/link.ts';
import { DEFAULT_LIMITS } from '../bundle/guard.ts';
import { detectFormat, unpackTarGz, unpackZip } from '../bundle/unpack.ts';

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
  /** The new export, unpacked. */
  proposedRoot: string;
  freshLink?: (jobId: string) => Promise<Bundle>;
  deadline: Deadline;
  signal: AbortSignal;
}

/** Compares the new export with production's; a production export that cannot be read leaves the pages uncompared, with a warning. */
export async function diffWithProduction(request: DiffRequest): Promise<ContentDiff> {
  const { deployedLink } = request;
  if (!deployedLink) return { kind: 'first', proposedPages: (await listPages(request.proposedRoot)).size };
  const directory = uniqueTempPath('static-export-deployed');
  core.info(`Reading production's export (${redactLink(deployedLink)}) to compare the new one with, page by page…`);
  try {
    const { readFrom } = await fetchDeployed({
      deployedLink,
      jobId: request.deployedJobId,
      freshLink: request.freshLink,
      directory,
      deadline: request.deadline,
      signal: request.signal,
      log: (line) => core.info(line)
    });
    const comparison = await compareSites(directory, request.proposedRoot, request.signal);
    return { kind: 'compared', deployedLink, deployedJobId: request.deployedJobId ?? jobIdFromLink(deployedLink), readFrom, comparison };
  } catch (error) {
    if (request.signal.aborted || request.deadline.expired()) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    core.warning(`Production's export could not be read, so the pages were not compared (${reason}). The new export is proposed on its own checks.`);
    return { kind: 'unavailable', deployedLink, reason, proposedPages: (await listPages(request.proposedRoot)).size };
  } finally {
    await rm(directory, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/** Unpacks an archive kept on disk (archive-path) into a temporary folder for `use`, then removes it. */
export async function unpackArchiveFile<T>(file: string, signal: AbortSignal, use: (root: string) => Promise<T>): Promise<T> {
  const root = uniqueTempPath('static-export-proposed');
  try {
    await mkdir(root);
    const handle = await open(file);
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
    // The same checks as a download's, but the home page: that one is the content gate's to judge.
    if (detectFormat(head.subarray(0, bytesRead)) === 'zip') await unpackZip(file, root, DEFAULT_LIMITS, signal, false);
    else await unpackTarGz(createReadStream(file), root, DEFAULT_LIMITS, signal, false);
    return await use(root);
  } finally {
    await rm(root, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/**
 * Sets the outputs, writes the whole list to the report file and says it in the log; then the gate:
 * a refused export throws, before anything is proposed.
 */
export async function judgeContent(diff: ContentDiff, gate: GateSettings, jobId: string): Promise<void> {
  const refused = refusal(diff, gate);
  const report = reportOf(diff, jobId, refused);
  const path = runnerTempPath('static-export-content-diff.json');
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
  core.setOutput(Output.ContentDiffPath, path);
  core.setOutput(Output.ContentDiff, JSON.stringify({ status: report.status, ...report.counts }));
  core.info(logLine(diff));
  if (diff.kind === 'first') core.notice(`Nothing is deployed yet, so the new export (${diff.proposedPages} pages) is the first: there is nothing to compare it with.`);
  if (refused) throw new ContentGateError(refused);
}

function logLine(diff: ContentDiff): string {
  if (diff.kind === 'renewal') return `No page changes: this renews the link of export ${diff.jobId}, the one production serves.`;
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
    excerpts: c.excerpts,
    gate
  };
}

/** How many paths each list shows before "and N more". */
const LISTED = 10;

/**
 * The section both the pull request body and the job summary show: counts first, then the pages
 * by path, capped, and an excerpt of each of the first changed pages. `deployedLink`: production's
 * link as the proposal last read it; a diff made against another one says so rather than mislead.
 */
export function contentDiffSection(diff: ContentDiff | undefined, deployedLink?: string): string {
  if (!diff) return '';
  const lines = ['### What readers see after the merge', ''];
  if (diff.kind === 'renewal') {
    lines.push(`No page changes: this renews the link of export \`${diff.jobId}\`, the one production serves.`);
    return lines.join('\n');
  }
  if (diff.kind === 'first') {
    lines.push(`Nothing is deployed yet, so there is nothing to compare with: this first export has ${diff.proposedPages} pages.`);
    return lines.join('\n');
  }
  if (diff.kind === 'unavailable') {
    lines.push(`Production's export could not be read, so the pages were not compared (${clean(diff.reason)}). The new export has ${diff.proposedPages} pages.`);
    return lines.join('\n');
  }
  if (deployedLink !== undefined && deployedLink !== diff.deployedLink) {
    lines.push("Production's link changed while this run compared the pages, so the comparison is left out; the next run compares again.");
    return lines.join('\n');
  }
  const c = diff.comparison;
  lines.push(
    '| added | removed | changed | unchanged |',
    '|---:|---:|---:|---:|',
    `| ${c.added.length} | ${c.removed.length} | ${c.changed.length} | ${c.unchanged} |`,
    '',
    `Compared page by page on the text a reader sees (not the files' bytes) with production's export${diff.deployedJobId ? ` \`${diff.deployedJobId}\`` : ''}: ` +
      `${c.deployedPages} pages before, ${c.proposedPages} after${c.removed.length > 0 ? `, ${percent(c.removed.length / Math.max(1, c.deployedPages))} of production's pages removed` : ''}. ` +
      'The whole list is in the `content-diff-path` report.'
  );
  addPathList('Added', c.added, lines);
  addPathList('Removed', c.removed, lines);
  if (c.changed.length > 0) {
    lines.push('', `**Changed** (${c.changed.length})`, '');
    for (const change of c.excerpts) {
      lines.push(`- \`${clean(change.path)}\``, '', '```diff', ...change.removed.map((line) => `- ${clean(line)}`), ...change.added.map((line) => `+ ${clean(line)}`), '```', '');
    }
    const rest = c.changed.slice(c.excerpts.length, c.excerpts.length + LISTED);
    for (const path of rest) lines.push(`- \`${clean(path)}\``);
    const more = c.changed.length - c.excerpts.length - rest.length;
    if (more > 0) lines.push(`- and ${more} more`);
  }
  while (lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

function addPathList(title: string, paths: string[], lines: string[]): void {
  if (paths.length === 0) return;
  lines.push('', `**${title}** (${paths.length})`, '');
  for (const path of paths.slice(0, LISTED)) lines.push(`- \`${clean(path)}\``);
  if (paths.length > LISTED) lines.push(`- and ${paths.length - LISTED} more`);
}

/** A page's text in Markdown: no backticks that would end a code span or fence, no line breaks. */
function clean(text: string): string {
  return text.replace(/`+/g, "'").replace(/[\r\n]+/g, ' ');
}

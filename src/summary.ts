// The publish action's job summary: what was exported and where the link stands, or what failed
// and what to do. Written only where the runner gives a summary file.
import * as core from '@actions/core';
import type { ExportJob } from './api/static-export.ts';
import { redactLink } from './config/link.ts';
import type { ExportResult } from './export.ts';
import { formatBytes, formatDuration, formatInstant } from './format.ts';

export async function writePublishSummary(result: ExportResult, domain: string | undefined): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  const { job, bundle } = result;
  await core.summary
    .addHeading(`Static export${domain ? ` of ${domain}` : ''}: ${job.status}`, 2)
    .addTable([
      [{ data: 'Job', header: true }, { data: `<code>${job.jobId}</code>${result.started ? '' : ' (reused)'}` }],
      [{ data: 'Pages', header: true }, String(job.pageCount)],
      [{ data: 'Took', header: true }, formatDuration(result.waitedMs)],
      [{ data: 'Bundle size', header: true }, formatBytes(bundle.sizeBytes)],
      [{ data: 'Link expires', header: true }, formatInstant(bundle.expiresAt)],
      [{ data: 'Link', header: true }, `<code>${escapeHtml(redactLink(bundle.bundleUrl))}</code>`]
    ])
    .addRaw('The full link is in the <code>bundle-url</code> output; download it before it expires, or run again with <code>job-id</code> for a fresh one.', true)
    .write();
}

export async function writeFailureSummary(failure: {
  domain?: string;
  jobId?: string;
  job?: ExportJob;
  message: string;
}): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  const rows = [];
  if (failure.jobId) rows.push([{ data: 'Job', header: true }, `<code>${failure.jobId}</code>`]);
  if (failure.job) {
    rows.push([{ data: 'Status', header: true }, failure.job.status]);
    rows.push([{ data: 'Progress', header: true }, `${failure.job.progress}% · ${failure.job.pageCount} pages`]);
  }
  const summary = core.summary.addHeading(`Static export${failure.domain ? ` of ${failure.domain}` : ''}: failed`, 2);
  if (rows.length) summary.addTable(rows);
  await summary
    .addRaw(`<p><strong>What happened:</strong> ${escapeHtml(failure.message)}</p>`, true)
    .addRaw('<p>No configuration was changed. The deployment keeps serving its current bundle.</p>', true)
    .write();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

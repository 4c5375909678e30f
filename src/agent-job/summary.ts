// The agent-job action's job summary: the pull request the agent opened, or a plain statement that it
// changed nothing; on failure, what happened and what to do. Written only where the runner gives a
// summary file.
import * as core from '../action/core.ts';
import type { AgentJob } from '../platform/agent.ts';
import { formatDuration, formatInstant } from '../action/format.ts';
import { escapeHtml } from '../action/format.ts';
import type { AgentRunResult } from './job.ts';

type Row = [{ data: string; header: true }, string];

export async function writeAgentSummary(result: AgentRunResult, context: { projectId: string; prompt?: string; message?: string }): Promise<void> {
  if (!core.variable('GITHUB_STEP_SUMMARY')) return;
  const { job } = result;
  const summary = core.summary().addHeading(`Agent job: ${escapeHtml(job.status)}`, 2);
  if (job.prLink) {
    summary.addRaw(`<p><strong>Pull request:</strong> <a href="${escapeHtml(job.prLink)}">${escapeHtml(pullRequestName(job.prLink))}</a>. Review it and merge when it reads right.</p>`, true);
  } else if (job.status === 'failed') {
    summary.addRaw(`<p><strong>What happened:</strong> ${escapeHtml(context.message ?? 'The agent job failed.')}</p>`, true);
  } else {
    summary.addRaw('<p><strong>No pull request:</strong> the agent changed no files. Nothing needs review; if you expected a change, make the prompt more specific and run again.</p>', true);
  }
  const rows: Row[] = [row('Job', `<code>${escapeHtml(job.id)}</code>${result.started ? '' : ' (started elsewhere)'}`), row('Project', `<code>${escapeHtml(context.projectId)}</code>`)];
  if (job.branch) rows.push(row('Branch', `<code>${escapeHtml(job.branch)}</code>`));
  if (job.model) rows.push(row('Model', escapeHtml(job.model)));
  if (job.createdAt) rows.push(row('Created', escapeHtml(formatInstant(job.createdAt))));
  rows.push(row('Waited', formatDuration(result.waitedMs)));
  if (context.prompt) rows.push(row('Prompt', escapeHtml(shorten(context.prompt, 300))));
  await summary.addTable(rows).write();
}

/** A summary for a step that failed before the job reached a final status (404, 429, timeout). */
export async function writeAgentFailureSummary(failure: { projectId: string; jobId?: string; job?: AgentJob; message: string }): Promise<void> {
  if (!core.variable('GITHUB_STEP_SUMMARY')) return;
  const rows: Row[] = [row('Project', `<code>${escapeHtml(failure.projectId)}</code>`)];
  if (failure.jobId) rows.push(row('Job', `<code>${escapeHtml(failure.jobId)}</code>`));
  if (failure.job) rows.push(row('Last status', escapeHtml(failure.job.status)));
  await core.summary()
    .addHeading('Agent job: not finished', 2)
    .addTable(rows)
    .addRaw(`<p><strong>What happened:</strong> ${escapeHtml(failure.message)}</p>`, true)
    .write();
}

/** `acme/docs#101` for `https://github.com/acme/docs/pull/101`; the link itself otherwise. */
function pullRequestName(link: string): string {
  const match = /^https:\/\/github\.com\/([^/]+\/[^/]+)\/pull\/(\d+)/.exec(link);
  return match ? `${match[1]}#${match[2]}` : link;
}

function row(header: string, value: string): Row {
  return [{ data: header, header: true }, value];
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

// The feedback action's job summary: the query, the totals, the pages readers are least happy with
// as a table and as a bar chart GitHub renders (Mermaid xychart-beta), and, when the figures are
// incomplete, which dates are short and what to do about it.
import * as core from '../action/core.ts';
import { escapeHtml } from '../action/format.ts';
import type { CollectedRow } from './collect.ts';
import type { FeedbackReport } from './report.ts';

export async function writeFeedbackSummary(report: FeedbackReport, files: { jsonPath: string; csvPath: string }, top: number): Promise<void> {
  if (!core.variable('GITHUB_STEP_SUMMARY')) return;
  await core.summary().addRaw(feedbackSummary(report, files, top)).write();
}

/** The summary as HTML and Markdown, which GitHub renders together. */
export function feedbackSummary(report: FeedbackReport, files: { jsonPath: string; csvPath: string }, top: number): string {
  const { totals } = report;
  const parts: string[] = [];
  parts.push(`<h2>Reader feedback by page${report.complete ? '' : ' (incomplete)'}</h2>`);
  parts.push(`<p>${describeQuery(report)}</p>`);
  parts.push(
    table(
      ['Pages', 'Feedback', 'Thumbs up', 'Thumbs down', 'Code snippets'],
      [[totals.pages, totals.total, totals.thumbsUp, totals.thumbsDown, totals.code].map((n) => `${report.complete ? '' : '≥ '}${n}`)]
    )
  );
  if (!report.complete) {
    const ranges = report.incomplete.map((range) => `<li><code>${range.dateFrom}</code> → <code>${range.dateTo}</code>: ${escapeHtml(range.reason)}.</li>`);
    parts.push(
      `<p><strong>Incomplete:</strong> these dates have feedback on more pages than the API returned, so some pages are missing or counted low (marked ≥):</p><ul>${ranges.join('')}</ul>` +
        '<p>To get every figure: raise <code>max-requests</code> (the organization has 100 analytics requests an hour), narrow <code>date-from</code>/<code>date-to</code>, or filter by <code>source</code> or <code>status</code>.</p>'
    );
  }
  if (report.rows.length === 0) {
    parts.push('<p>No feedback matched this query.</p>');
  } else {
    const shown = report.rows.slice(0, top);
    parts.push(`<h3>${shown.length === report.rows.length ? 'All' : `Top ${shown.length} of ${report.rows.length}`} pages, most thumbs down first</h3>`);
    parts.push(
      table(
        ['#', 'Page', 'Thumbs down', 'Thumbs up', 'Code', 'Total'],
        shown.map((row, index) => [
          String(index + 1),
          `<code>${escapeHtml(row.path)}</code>`,
          ...[row.thumbsDown, row.thumbsUp, row.code, row.total].map((n) => `${row.exact ? '' : '≥ '}${n}`)
        ])
      )
    );
    parts.push(thumbsDownChart(shown));
  }
  parts.push(
    `<p>Every row is in <code>${escapeHtml(files.jsonPath)}</code> and <code>${escapeHtml(files.csvPath)}</code> (the <code>report-path</code> and <code>csv-path</code> outputs). ${report.requests} ${report.requests === 1 ? 'request' : 'requests'} to the analytics API.</p>`
  );
  return `${parts.join('\n')}\n`;
}

function describeQuery(report: FeedbackReport): string {
  const { query } = report;
  const filters = [
    `project <code>${escapeHtml(query.projectId)}</code>`,
    `from <code>${escapeHtml(query.dateFrom)}</code> up to, not including, <code>${escapeHtml(query.dateTo)}</code>`,
    query.source ? `source <code>${escapeHtml(query.source)}</code>` : 'every source',
    query.statuses?.length ? `status ${query.statuses.map((s) => `<code>${escapeHtml(s)}</code>`).join(', ')}` : 'every status'
  ];
  return `Feedback for ${filters.join(' · ')}.`;
}

/**
 * A horizontal bar chart of thumbs down for the rows shown, or a sentence when nobody pressed one.
 * The fence sits between blank lines so GitHub renders it as Mermaid amid the HTML.
 */
export function thumbsDownChart(rows: CollectedRow[]): string {
  const most = Math.max(0, ...rows.map((row) => row.thumbsDown));
  if (most === 0) return '<p>No page in this list got a thumbs down.</p>';
  const labels = rows.map((row, index) => `"${chartLabel(`${index + 1}. ${row.path}`)}"`);
  return [
    '',
    '```mermaid',
    'xychart-beta horizontal',
    `  title "Thumbs down by page (top ${rows.length})"`,
    `  x-axis [${labels.join(', ')}]`,
    `  y-axis "Thumbs down" 0 --> ${most}`,
    `  bar [${rows.map((row) => row.thumbsDown).join(', ')}]`,
    '```',
    ''
  ].join('\n');
}

const LABEL_MAX = 48;

/**
 * A path as a chart label: inside Mermaid's quotes nothing can end the string early (`"`), start a
 * markdown string or end the fence (`` ` ``), start a comment (`%%`) or be read as HTML (`<`, `>`);
 * long paths keep their end, which tells pages apart.
 */
export function chartLabel(text: string): string {
  // eslint-disable-next-line no-control-regex
  let label = text.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/["`]/g, "'").replace(/%(?=%)/g, '% ').replace(/</g, '‹').replace(/>/g, '›');
  if (label.length > LABEL_MAX) {
    const rank = /^\d+\. /.exec(label)?.[0] ?? '';
    label = `${rank}…${label.slice(label.length - (LABEL_MAX - rank.length - 1))}`;
  }
  return label;
}

function table(headers: string[], rows: string[][]): string {
  const head = `<tr>${headers.map((h) => `<th>${h}</th>`).join('')}</tr>`;
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('');
  return `<table>${head}${body}</table>`;
}

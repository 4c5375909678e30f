// The feedback action: readers' feedback per page over a date range, complete even where one request
// cannot hold it all, as outputs, a JSON and a CSV report, and a job summary with a chart.
import { resolve } from 'node:path';
import * as core from '@actions/core';
import { FEEDBACK_SOURCES, FEEDBACK_STATUSES, getFeedbackByPage } from '../platform/analytics.ts';
import { ApiError } from '../platform/transport.ts';
import { FeedbackInput as Input, FeedbackOutput as Output } from '../action/constants.ts';
import { explainError } from '../action/explain.ts';
import { type DateRange, type FeedbackFilter, collectFeedback, queryRange } from './collect.ts';
import { feedbackRange } from './dates.ts';
import { type ReportQuery, buildReport, writeReport } from './report.ts';
import { writeFeedbackSummary } from './summary.ts';
import { formatDuration, formatInstant } from '../action/format.ts';
import { InputError, parseList, parsePositiveInteger } from '../action/inputs.ts';
import { type PlatformInputs, platformClient, readDuration, readPlatformInputs, readProjectId } from '../action/platform-inputs.ts';
import { Cancellation, CancelledError, readInputs } from '../action/runtime.ts';
import { Deadline } from '../action/deadline.ts';
import { abortableSleep } from '../wait/sleep.ts';

export interface FeedbackInputs extends PlatformInputs {
  projectId: string;
  range: DateRange;
  filter: FeedbackFilter;
  top: number;
  reportPath: string;
  maxRequests: number;
  timeoutMs: number;
}

/** The organization's hourly allowance for all analytics endpoints together. */
const ANALYTICS_REQUESTS_PER_HOUR = 100;

/** Reads and checks every input before any request, so bad input costs nothing. */
export function readFeedbackInputs(now = Date.now()): FeedbackInputs {
  const platform = readPlatformInputs();
  const projectId = readProjectId();
  const range = feedbackRange(
    { fromName: Input.DateFrom, from: core.getInput(Input.DateFrom), toName: Input.DateTo, to: core.getInput(Input.DateTo) },
    now
  );

  const source = core.getInput(Input.Source).trim();
  if (source !== '' && !(FEEDBACK_SOURCES as readonly string[]).includes(source)) {
    throw new InputError(Input.Source, `'${source}' is not a feedback source. Use one of ${FEEDBACK_SOURCES.join(', ')}, or leave it empty for all.`);
  }
  const statuses = [...new Set(parseList(core.getInput(Input.Status)))];
  for (const status of statuses) {
    if (!(FEEDBACK_STATUSES as readonly string[]).includes(status)) {
      throw new InputError(Input.Status, `'${status}' is not a feedback status. Use any of ${FEEDBACK_STATUSES.join(', ')}, comma-separated, or leave it empty for all.`);
    }
  }
  const reportPath = core.getInput(Input.ReportPath).trim() || 'feedback-by-page.json';
  return {
    ...platform,
    projectId,
    range,
    filter: { ...(source ? { source } : {}), ...(statuses.length ? { statuses } : {}) },
    top: parsePositiveInteger(Input.Top, core.getInput(Input.Top) || '20', 100),
    // Relative to the workspace, where later steps (upload-artifact, a commit) look for it.
    reportPath: resolve(process.env.GITHUB_WORKSPACE ?? process.cwd(), reportPath),
    maxRequests: parsePositiveInteger(Input.MaxRequests, core.getInput(Input.MaxRequests) || '20', ANALYTICS_REQUESTS_PER_HOUR),
    timeoutMs: readDuration(Input.Timeout, '5m')
  };
}

export async function run(cancellation = new Cancellation()): Promise<void> {
  const inputs = readInputs(readFeedbackInputs);
  if (!inputs) return;
  // No retries in the client: the collector retries itself, so every request counts against max-requests.
  const deadline = new Deadline(inputs.timeoutMs);
  const client = platformClient(inputs, cancellation, { retries: 0, deadline });
  cancellation.note = 'No report was written.';
  try {
    const collection = await collectFeedback({
      range: inputs.range,
      filter: inputs.filter,
      fetchPage: (query) => getFeedbackByPage(client, inputs.projectId, query),
      maxRequests: inputs.maxRequests,
      deadline: deadline.at,
      sleep: (ms) => abortableSleep(ms, cancellation.signal),
      log: (line) => core.info(line)
    });
    const query: ReportQuery = { projectId: inputs.projectId, ...queryRange(inputs.range), ...inputs.filter };
    const report = buildReport(query, collection);
    const files = await writeReport(report, inputs.reportPath);
    const { totals } = report;
    core.setOutput(Output.Pages, String(totals.pages));
    core.setOutput(Output.Total, String(totals.total));
    core.setOutput(Output.ThumbsUp, String(totals.thumbsUp));
    core.setOutput(Output.ThumbsDown, String(totals.thumbsDown));
    core.setOutput(Output.Code, String(totals.code));
    core.setOutput(Output.Complete, String(report.complete));
    core.setOutput(Output.ReportPath, files.jsonPath);
    core.setOutput(Output.CsvPath, files.csvPath);
    core.info(
      `${totals.pages} pages, ${totals.total} feedback entries (${totals.thumbsDown} thumbs down, ${totals.thumbsUp} up, ${totals.code} on code snippets), ` +
        `from ${collection.parts} ${collection.parts === 1 ? 'date range' : 'date ranges'}; ${collection.requests} of ${inputs.maxRequests} requests used. Report: ${files.jsonPath}`
    );
    if (!report.complete) {
      const where = report.incomplete.map((range) => `${range.dateFrom} → ${range.dateTo} (${range.reason})`).join('; ');
      core.warning(
        `The figures are incomplete: some pages are missing or counted low for ${where}. Raise max-requests, narrow date-from/date-to, or filter by source or status to get them all.`
      );
    }
    await writeFeedbackSummary(report, files, inputs.top);
  } catch (error) {
    if (error instanceof CancelledError || cancellation.signal.aborted) return;
    core.setFailed(explainFeedbackError(error, inputs));
  } finally {
    client.dispose();
  }
}

export function explainFeedbackError(error: unknown, inputs: FeedbackInputs, now = Date.now()): string {
  const retryAfter = error instanceof ApiError ? error.retryAfterMs : undefined;
  const when = retryAfter === undefined ? 'later in the hour' : `after ${formatInstant(new Date(now + retryAfter).toISOString(), now)}`;
  const failing = (status: number) =>
    `the analytics API kept failing (${status}), retried as far as max-requests (${inputs.maxRequests}) and timeout (${formatDuration(inputs.timeoutMs)}) allowed; the platform may be having trouble, re-run in a few minutes.`;
  return explainError(error, {
    apiUrl: inputs.apiUrl,
    doing: `reading feedback by page for project ${inputs.projectId}`,
    hints: {
      404: `the API found no project ${inputs.projectId} (404). Check project-id: copy it from the API keys page of the dashboard.`,
      429: `the organization has used its analytics requests (429): all analytics endpoints share ${ANALYTICS_REQUESTS_PER_HOUR} requests per organization per hour. Re-run ${when}, or lower max-requests in scheduled runs.`,
      500: failing(500),
      502: failing(502),
      503: failing(503),
      504: failing(504)
    }
  });
}

// The feedback action: readers' feedback per page over a date range, complete even where one request
// cannot hold it all, as outputs, a JSON and a CSV report, and a job summary with a chart.
import { readFeedbackInputs } from './inputs.ts';
import { explainFeedbackError } from './errors.ts';
import * as core from '../action/core.ts';
import { getFeedbackByPage } from '../platform/analytics.ts';
import { FeedbackOutput as Output } from '../action/constants.ts';
import { collectFeedback, queryRange } from './collect.ts';
import { type ReportQuery, buildReport, writeReport } from './report.ts';
import { writeFeedbackSummary } from './summary.ts';
import { platformClient } from '../action/platform-inputs.ts';
import { Cancellation, CancelledError, readInputs } from '../action/runtime.ts';
import { Deadline } from '../action/deadline.ts';
import { formatCount } from '../action/format.ts';

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
      deadline,
      signal: cancellation.signal,
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
      `${formatCount(totals.pages, 'page')}, ${formatCount(totals.total, 'feedback entry', 'feedback entries')} (${totals.thumbsDown} thumbs down, ${totals.thumbsUp} up, ${totals.code} on code snippets), ` +
        `from ${formatCount(collection.parts, 'date range')}; ${collection.requests} of ${inputs.maxRequests} requests used. Report: ${files.jsonPath}`
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


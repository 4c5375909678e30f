// The feedback action's errors, as one line a person can act on.
import { ApiError } from '../platform/transport.ts';
import { ANALYTICS_REQUESTS_PER_HOUR, type FeedbackInputs } from './inputs.ts';
import { explainError } from '../action/explain.ts';
import { formatDuration, formatInstant } from '../action/format.ts';

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

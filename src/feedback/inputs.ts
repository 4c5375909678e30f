// The feedback action's inputs, read and checked in one place before any request is sent.
import { resolve } from 'node:path';
import * as core from '../action/core.ts';
import { FEEDBACK_SOURCES, FEEDBACK_STATUSES } from '../platform/analytics.ts';
import { FeedbackInput as Input } from '../action/constants.ts';
import { type DateRange, type FeedbackFilter } from './collect.ts';
import { feedbackRange } from './dates.ts';
import { InputError, parseList, parsePositiveInteger } from '../action/inputs.ts';
import { type PlatformInputs, readDuration, readPlatformInputs, readProjectId } from '../action/platform-inputs.ts';

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
export const ANALYTICS_REQUESTS_PER_HOUR = 100;

/** Reads and checks every input before any request, so bad input costs nothing. */
export function readFeedbackInputs(now = Date.now()): FeedbackInputs {
  const platform = readPlatformInputs({ requestTimeoutInput: true });
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
    reportPath: resolve(core.variable('GITHUB_WORKSPACE') ?? process.cwd(), reportPath),
    maxRequests: parsePositiveInteger(Input.MaxRequests, core.getInput(Input.MaxRequests) || '20', ANALYTICS_REQUESTS_PER_HOUR),
    timeoutMs: readDuration(Input.Timeout, '5m')
  };
}

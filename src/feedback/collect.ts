// Complete feedback figures per page from an operation that cannot page. The by-page operation
// returns at most 100 rows (the pages with the most feedback) and `hasMore`; it has no cursor. A
// range whose answer has more is split in two at its midpoint (`dateTo` is exclusive, so the halves
// never overlap), each half is asked for, and halves that still have more are split again. The
// figures of the parts, summed per path, are the figures of the whole.
//
// Every request counts against a budget (retries too: all analytics endpoints share 100 requests
// per organization per hour), and a range is split only when both halves can be paid for. Where the
// budget, the time limit, the API or the calendar stops the splitting, the range keeps its own
// partial rows and is reported as unsettled, with the reason.
import type { FeedbackPage, FeedbackQuery, PageFeedback } from '../platform/analytics.ts';
import { ApiError } from '../platform/transport.ts';
import { formatSeconds } from '../action/format.ts';
import type { Deadline } from '../action/deadline.ts';
import { retryTransient } from '../wait/backoff.ts';

/** A span of time in ms since the epoch; `to` is exclusive, as the API has it. */
export interface DateRange {
  from: number;
  to: number;
}

export interface FeedbackFilter {
  source?: string;
  statuses?: string[];
}

export type FetchPage = (query: FeedbackQuery) => Promise<FeedbackPage>;

export interface CollectOptions {
  range: DateRange;
  filter: FeedbackFilter;
  fetchPage: FetchPage;
  /** Requests this run may send, retries included. */
  maxRequests: number;
  /** The step's deadline: no wait (Retry-After, backoff) may end past it, and no range is split after it. */
  deadline: Deadline;
  /** Cuts a wait between tries short: a cancelled step must not sit out a backoff. */
  signal?: AbortSignal;
  /** How to wait between tries (a fake clock's, in tests). */
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
}

export interface CollectedRow extends PageFeedback {
  /**
   * False when an unsettled range left this path out of its rows: the path may have feedback there
   * too, so its figures are a lower bound.
   */
  exact: boolean;
}

export interface UnsettledRange {
  dateFrom: string;
  dateTo: string;
  /** Why this range was not split further: a sentence for a person. */
  reason: string;
}

export interface Collection {
  /** Sorted by thumbs down, then total, then path. */
  rows: CollectedRow[];
  complete: boolean;
  unsettled: UnsettledRange[];
  /** Requests sent, retries included. */
  requests: number;
  /** The parts the range was finally asked for in. */
  parts: number;
}

/** The API's largest `limit`: the fewer rows cut off, the fewer splits. */
const ROWS_PER_REQUEST = 100;
const DAY_MS = 86_400_000;
/** Parts shorter than this are not split: the budget is better spent elsewhere. */
const SHORTEST_PART_MS = 60_000;
/** Tries of one request before its range is given up (each try is a request). */
const MAX_ATTEMPTS = 4;
const FIRST_BACKOFF_MS = 1000;

/** A range's request gave up; `lastError` is the last answer the API gave, if it was asked at all. */
class RangeFailedError extends Error {
  readonly lastError: ApiError | undefined;
  constructor(reason: string, lastError?: ApiError) {
    super(reason);
    this.name = 'RangeFailedError';
    this.lastError = lastError;
  }
}

interface Part {
  range: DateRange;
  page: FeedbackPage;
  /** Set when the part has more rows and could not be split. */
  reason?: string;
}

export async function collectFeedback(options: CollectOptions): Promise<Collection> {
  const log = options.log ?? (() => undefined);
  let requests = 0;
  const left = () => options.maxRequests - requests;

  /** One range's answer, retrying transient faults while the budget and the time allow. */
  const fetchRange = async (range: DateRange): Promise<FeedbackPage> => {
    const query: FeedbackQuery = { ...queryRange(range), ...options.filter, limit: ROWS_PER_REQUEST };
    let tries = 0;
    try {
      return await retryTransient(
        () => {
          // Retries of an earlier range may have spent what was set aside for this one.
          if (left() <= 0) throw new RangeFailedError(`max-requests (${options.maxRequests}) was used up before this range could be split`);
          requests += 1;
          tries += 1;
          return options.fetchPage(query);
        },
        {
          retries: MAX_ATTEMPTS - 1,
          minBackoffMs: FIRST_BACKOFF_MS,
          transient: (error) => error instanceof ApiError && error.transient,
          retryAfterMs: (error) => (error as ApiError).retryAfterMs,
          deadline: options.deadline,
          pastDeadline: ({ error, waitMs }) => {
            const asked = (error as ApiError).retryAfterMs === undefined ? 'the next try' : 'the wait it asked for';
            return new RangeFailedError(`the API ${said(error as ApiError)}, and ${asked} (${formatSeconds(waitMs)}) does not fit in the time left before timeout`, error as ApiError);
          },
          onRetry: ({ error, waitMs }) => {
            if (left() <= 0) throw new RangeFailedError(`the API ${said(error as ApiError)}, and max-requests (${options.maxRequests}) left no request to retry`, error as ApiError);
            log(`${(error as ApiError).message}; retrying in ${formatSeconds(waitMs)} (${left()} of ${options.maxRequests} requests left)`);
          },
          signal: options.signal,
          sleep: options.sleep
        }
      );
    } catch (error) {
      // A transient fault comes out only when its tries are used up.
      if (error instanceof ApiError && error.transient) throw new RangeFailedError(`the API ${said(error)} ${tries} times in a row`, error);
      throw error;
    }
  };

  log(`Asking for feedback from ${describe(options.range)} (at most ${ROWS_PER_REQUEST} pages per request, ${options.maxRequests} requests at most).`);
  // The first request has nothing to fall back on: if it fails, the step fails with the API's error.
  let first: FeedbackPage;
  try {
    first = await fetchRange(options.range);
  } catch (error) {
    throw error instanceof RangeFailedError ? (error.lastError ?? error) : error;
  }
  const parts: Part[] = [{ range: options.range, page: first }];
  // Breadth first: when the budget runs out, the parts left unsettled are the smallest possible.
  const queue = first.hasMore ? [parts[0]] : [];
  let subDay = true;
  /** Set once a 429 could not be waited out: every later request would meet it too. */
  let rateLimited: string | undefined;
  for (let part = queue.shift(); part; part = queue.shift()) {
    if (rateLimited) {
      part.reason = rateLimited;
      continue;
    }
    const mid = splitPoint(part.range, subDay);
    if (mid === undefined) {
      part.reason = subDay
        ? `more than ${ROWS_PER_REQUEST} pages have feedback in this range, and it is too short to split further`
        : `more than ${ROWS_PER_REQUEST} pages have feedback in this day, and the API does not honour a time of day to split it`;
      continue;
    }
    if (left() < 2) {
      part.reason = `max-requests (${options.maxRequests}) was used up before this range could be split`;
      continue;
    }
    if (options.deadline.expired()) {
      part.reason = 'the time limit (timeout) ran out before this range could be split';
      continue;
    }
    const halves: DateRange[] = [
      { from: part.range.from, to: mid },
      { from: mid, to: part.range.to }
    ];
    log(`${describe(part.range)} has feedback on more than ${ROWS_PER_REQUEST} pages: asking for ${describe(halves[0])} and ${describe(halves[1])}.`);
    let pages: FeedbackPage[];
    try {
      pages = [await fetchRange(halves[0]), await fetchRange(halves[1])];
    } catch (error) {
      if (!(error instanceof RangeFailedError)) throw error;
      part.reason = error.message;
      if (error.lastError?.status === 429) rateLimited = error.message;
      continue;
    }
    if (overlapping(part.page, pages)) {
      // The halves counted some feedback twice, so the API read only the date of a bound: keep the
      // whole part, and stop splitting below a day.
      subDay = false;
      part.reason = 'the API gave overlapping figures for parts of this range, so it seems to ignore the time of day in dateFrom and dateTo';
      continue;
    }
    if (part.range.to - part.range.from <= DAY_MS && pages.some((page) => samePage(page, part.page))) {
      // Below a day, a half that answers exactly as the whole is what an API that drops the time of
      // day gives every time; splitting on would spend the budget for nothing.
      part.reason = `all of its feedback fell in one half: either the API ignores the time of day in dateFrom and dateTo, or more than ${ROWS_PER_REQUEST} pages got feedback within a few hours (give date-from and date-to with times to look closer)`;
      continue;
    }
    const children: Part[] = halves.map((range, index) => ({ range, page: pages[index] }));
    parts.splice(parts.indexOf(part), 1, ...children);
    queue.push(...children.filter((child) => child.page.hasMore));
  }

  const unsettled = parts.filter((part) => part.reason !== undefined);
  const rows = sumByPath(parts).map((row) => ({
    ...row,
    exact: unsettled.every((part) => part.page.feedback.some((shown) => shown.path === row.path))
  }));
  return {
    rows: sortRows(rows),
    complete: unsettled.length === 0,
    unsettled: unsettled.map((part): UnsettledRange => ({ ...queryRange(part.range), reason: part.reason ?? '' })),
    requests,
    parts: parts.length
  };
}

/** How a transient fault reads in a reason: `answered 503`, `answered 429 (rate limited)`, `gave no answer (ECONNRESET)`. */
function said(error: ApiError): string {
  return error.status === undefined ? `gave no answer (${error.code})` : error.status === 429 ? 'answered 429 (rate limited)' : `answered ${error.status}`;
}

/**
 * Where to split a range that has more rows: at the midnight (UTC) nearest its middle while it spans
 * more than a day, so queries keep plain dates; below a day (if the API honours a time of day) at
 * its middle, to the second. Undefined when it is too short to split.
 */
export function splitPoint(range: DateRange, subDay = true): number | undefined {
  const span = range.to - range.from;
  if (span > DAY_MS) {
    // A span of more than a day holds a midnight within half a day of its middle.
    return Math.round((range.from + span / 2) / DAY_MS) * DAY_MS;
  }
  if (!subDay || span < 2 * SHORTEST_PART_MS) return undefined;
  return range.from + Math.floor(span / 2 / 1000) * 1000;
}

/** A bound as the API takes it: `YYYY-MM-DD` at midnight UTC, an ISO 8601 instant otherwise. */
export function formatBound(ms: number): string {
  const iso = new Date(ms).toISOString();
  if (ms % DAY_MS === 0) return iso.slice(0, 10);
  return iso.replace('.000Z', 'Z');
}

export function queryRange(range: DateRange): { dateFrom: string; dateTo: string } {
  return { dateFrom: formatBound(range.from), dateTo: formatBound(range.to) };
}

/** `2024-05-01 → 2024-05-16` (the end is excluded). */
function describe(range: DateRange): string {
  return `${formatBound(range.from)} → ${formatBound(range.to)}`;
}

/**
 * True when the halves' totals for a path add up to more than the whole part's: feedback counted in
 * both halves. (Each row the API returns holds the full count for its path in the queried range.)
 */
function overlapping(whole: FeedbackPage, halves: FeedbackPage[]): boolean {
  const sums = new Map<string, number>();
  for (const row of halves.flatMap((half) => half.feedback)) sums.set(row.path, (sums.get(row.path) ?? 0) + row.total);
  return whole.feedback.some((row) => (sums.get(row.path) ?? 0) > row.total);
}

function samePage(a: FeedbackPage, b: FeedbackPage): boolean {
  const key = (page: FeedbackPage) => JSON.stringify([page.hasMore, page.feedback.map((row) => [row.path, row.total])]);
  return key(a) === key(b);
}

function sumByPath(parts: Part[]): PageFeedback[] {
  const byPath = new Map<string, PageFeedback>();
  for (const row of parts.flatMap((part) => part.page.feedback)) {
    const sum = byPath.get(row.path) ?? { path: row.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
    sum.thumbsUp += row.thumbsUp;
    sum.thumbsDown += row.thumbsDown;
    sum.code += row.code;
    sum.total += row.total;
    byPath.set(row.path, sum);
  }
  return [...byPath.values()];
}

/** Where readers are unhappy first: thumbs down, then total, then path for a stable order. */
function sortRows<T extends PageFeedback>(rows: T[]): T[] {
  return [...rows].sort((a, b) => b.thumbsDown - a.thumbsDown || b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

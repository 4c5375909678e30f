// The range splitting on its own, against an in-memory API that aggregates and truncates the way
// the contract says, with a fake clock: the sums must be exactly the held figures, and every request
// must count against the budget.
import { describe, expect, it } from '@jest/globals';
import type { FeedbackPage, FeedbackQuery, PageFeedback } from '../src/platform/analytics.ts';
import { ApiError } from '../src/platform/transport.ts';
import { Deadline } from '../src/action/deadline.ts';
import { fakeClock } from './fake-clock.ts';
import { type CollectOptions, collectFeedback, formatBound, splitPoint } from '../src/feedback/collect.ts';

const DAY = 86_400_000;
const MAY_1 = Date.UTC(2024, 4, 1);

interface Entry {
  path: string;
  at: number;
  source: 'code_snippet' | 'contextual' | 'agent' | 'thumbs_only';
  status: string;
  helpful?: boolean;
}

function parseBound(text: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
}

/** The figures per path over some entries, as the API computes them. */
function aggregate(entries: Entry[]): Map<string, PageFeedback> {
  const rows = new Map<string, PageFeedback>();
  for (const entry of entries) {
    const row = rows.get(entry.path) ?? { path: entry.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
    rows.set(entry.path, row);
    row.total += 1;
    if (entry.source === 'code_snippet') row.code += 1;
    if (entry.source === 'contextual' || entry.source === 'thumbs_only') {
      if (entry.helpful === true) row.thumbsUp += 1;
      if (entry.helpful === false) row.thumbsDown += 1;
    }
  }
  return rows;
}

/**
 * An in-memory by-page operation. A lax server might read only the date of each bound: `dates: 'floor'`
 * drops the time of both; `dates: 'whole-days'` also takes the whole day of a dateTo with a time.
 */
function fakeApi(entries: Entry[], options: { dates?: 'floor' | 'whole-days' } = {}) {
  const queries: FeedbackQuery[] = [];
  const floor = (ms: number) => Math.floor(ms / DAY) * DAY;
  const fetchPage = async (query: FeedbackQuery): Promise<FeedbackPage> => {
    queries.push(query);
    let from = parseBound(query.dateFrom ?? '1970-01-01');
    let to = parseBound(query.dateTo ?? '2999-01-01');
    if (options.dates) {
      from = floor(from);
      to = options.dates === 'whole-days' && to !== floor(to) ? floor(to) + DAY : floor(to);
    }
    const matching = entries.filter(
      (e) => e.at >= from && e.at < to && (!query.source || e.source === query.source) && (!query.statuses || query.statuses.includes(e.status))
    );
    const sorted = [...aggregate(matching).values()].sort((a, b) => b.total - a.total || a.path.localeCompare(b.path));
    const limit = query.limit ?? 10;
    return { feedback: sorted.slice(0, limit), hasMore: sorted.length > limit };
  };
  return { fetchPage, queries };
}

/** 20 pages with feedback every day, and 6 new pages a day with one entry each: 200 pages in May. */
function busyMonth(): Entry[] {
  const entries: Entry[] = [];
  for (let day = 0; day < 30; day++) {
    for (let p = 0; p < 20; p++) {
      entries.push({ path: `/popular/${p}`, at: MAY_1 + day * DAY + p * 60_000, source: p % 2 ? 'contextual' : 'code_snippet', status: 'pending', helpful: day % 3 === 0 });
    }
    for (let t = 0; t < 6; t++) {
      entries.push({ path: `/tail/${day * 6 + t}`, at: MAY_1 + day * DAY + 12 * 3_600_000, source: 'thumbs_only', status: 'resolved', helpful: false });
    }
  }
  return entries;
}

function options(fetchPage: CollectOptions['fetchPage'], extra: Partial<CollectOptions> = {}): CollectOptions {
  const time = fakeClock();
  return {
    range: { from: MAY_1, to: MAY_1 + 30 * DAY },
    filter: {},
    fetchPage,
    maxRequests: 20,
    deadline: new Deadline(5 * 60_000, time.now),
    sleep: time.sleep,
    ...extra
  };
}

const expected = (entries: Entry[]) => [...aggregate(entries).values()].sort((a, b) => a.path.localeCompare(b.path));
const byPath = <T extends { path: string }>(rows: T[]) => [...rows].sort((a, b) => a.path.localeCompare(b.path));
const strip = <T extends PageFeedback & { exact: boolean }>(rows: T[]) => rows.map(({ exact: _exact, ...row }) => row);

describe('collectFeedback', () => {
  it('asks once when one answer holds every page', async () => {
    const entries = busyMonth().filter((e) => e.path.startsWith('/popular/'));
    const api = fakeApi(entries);
    const result = await collectFeedback(options(api.fetchPage));
    expect(result).toMatchObject({ complete: true, requests: 1, parts: 1, unsettled: [] });
    expect(api.queries).toEqual([{ dateFrom: '2024-05-01', dateTo: '2024-05-31', limit: 100 }]);
    expect(byPath(strip(result.rows))).toEqual(expected(entries));
  });

  it('splits a range with more pages at midnights until every part fits, and sums exactly', async () => {
    const entries = busyMonth();
    const api = fakeApi(entries);
    const result = await collectFeedback(options(api.fetchPage));
    // 30 days hold 200 pages; halves of 15 days hold 110; quarters of 7 or 8 days hold 62 or 68.
    expect(result).toMatchObject({ complete: true, requests: 7, parts: 4 });
    expect(api.queries.map((q) => `${q.dateFrom}→${q.dateTo}`)).toEqual([
      '2024-05-01→2024-05-31',
      '2024-05-01→2024-05-16',
      '2024-05-16→2024-05-31',
      '2024-05-01→2024-05-09',
      '2024-05-09→2024-05-16',
      '2024-05-16→2024-05-24',
      '2024-05-24→2024-05-31'
    ]);
    expect(byPath(strip(result.rows))).toEqual(expected(entries));
    expect(result.rows.every((row) => row.exact)).toBe(true);
    // Most thumbs down first: every tail page has one, popular pages have none or some thumbs up.
    expect(result.rows[0].thumbsDown).toBeGreaterThanOrEqual(result.rows.at(-1)?.thumbsDown ?? 0);
  });

  it('keeps the filter on every part', async () => {
    const api = fakeApi(busyMonth());
    await collectFeedback(options(api.fetchPage, { filter: { source: 'thumbs_only', statuses: ['resolved', 'pending'] } }));
    expect(api.queries.every((q) => q.source === 'thumbs_only' && q.statuses?.join() === 'resolved,pending' && q.limit === 100)).toBe(true);
  });

  it('never spends more than max-requests: a part it cannot pay both halves for stays unsettled', async () => {
    const entries = busyMonth();
    const api = fakeApi(entries);
    const result = await collectFeedback(options(api.fetchPage, { maxRequests: 5 }));
    expect(result.requests).toBe(5);
    expect(api.queries).toHaveLength(5);
    expect(result.complete).toBe(false);
    expect(result.unsettled).toEqual([
      { dateFrom: '2024-05-16', dateTo: '2024-05-31', reason: 'max-requests (5) was used up before this range could be split' }
    ]);
    // Pages whose figures might be low are marked; those shown for the unsettled part are exact.
    const truth = aggregate(entries);
    for (const row of result.rows) {
      if (row.exact) expect(row.total).toBe(truth.get(row.path)?.total);
      else expect(row.total).toBeLessThanOrEqual(truth.get(row.path)?.total ?? 0);
    }
    expect(result.rows.some((row) => !row.exact)).toBe(true);
  });

  it('counts retries against the budget too: a retry in one half can leave the other unasked', async () => {
    const api = fakeApi(busyMonth());
    let calls = 0;
    const result = await collectFeedback(
      options(
        async (query) => {
          calls += 1;
          if (calls === 2) throw new ApiError({ method: 'GET', path: '/x', status: 502, message: 'GET /x answered 502' });
          return api.fetchPage(query);
        },
        { maxRequests: 3 }
      )
    );
    expect(calls).toBe(3);
    expect(result.requests).toBe(3);
    expect(result.unsettled).toEqual([
      { dateFrom: '2024-05-01', dateTo: '2024-05-31', reason: 'max-requests (3) was used up before this range could be split' }
    ]);
  });

  it('splits a single day by the time of day when the API honours it', async () => {
    const entries: Entry[] = [];
    for (let p = 0; p < 150; p++) entries.push({ path: `/p/${p}`, at: MAY_1 + p * 500_000, source: 'agent', status: 'pending' });
    const api = fakeApi(entries);
    const result = await collectFeedback(options(api.fetchPage, { range: { from: MAY_1, to: MAY_1 + DAY } }));
    expect(result.complete).toBe(true);
    expect(api.queries[1]).toMatchObject({ dateFrom: '2024-05-01', dateTo: '2024-05-01T12:00:00Z' });
    expect(byPath(strip(result.rows))).toEqual(expected(entries));
  });

  // 150 pages with feedback on May 3 only, for the two ways a server can drop the time of day.
  const busyDay = (): Entry[] =>
    Array.from({ length: 300 }, (_, i) => ({ path: `/p/${i % 150}`, at: MAY_1 + 2 * DAY + i * 250_000, source: 'agent' as const, status: 'pending' }));

  it('notices an API that drops the time of day (one half always empty): stops at the day, no double counting', async () => {
    const entries = busyDay();
    const api = fakeApi(entries, { dates: 'floor' });
    const result = await collectFeedback(options(api.fetchPage, { range: { from: MAY_1, to: MAY_1 + 4 * DAY } }));
    expect(result.complete).toBe(false);
    // The range, its halves, the 2-day half's halves, and one try below a day.
    expect(result.requests).toBe(7);
    expect(result.unsettled).toEqual([{ dateFrom: '2024-05-03', dateTo: '2024-05-04', reason: expect.stringMatching(/^all of its feedback fell in one half: either the API ignores the time of day/) }]);
    const truth = aggregate(entries);
    for (const row of result.rows) expect(row.total).toBe(truth.get(row.path)?.total);
  });

  it('notices an API that widens a time to its whole day (halves overlap): no double counting', async () => {
    const entries = busyDay();
    const api = fakeApi(entries, { dates: 'whole-days' });
    const result = await collectFeedback(options(api.fetchPage, { range: { from: MAY_1, to: MAY_1 + 4 * DAY } }));
    expect(result.complete).toBe(false);
    expect(result.unsettled).toEqual([{ dateFrom: '2024-05-03', dateTo: '2024-05-04', reason: expect.stringMatching(/overlapping figures .* ignore the time of day/) }]);
    const truth = aggregate(entries);
    for (const row of result.rows) expect(row.total).toBe(truth.get(row.path)?.total);
  });

  it('waits out a 429 when Retry-After fits the time left, and counts both requests', async () => {
    const api = fakeApi(busyMonth().slice(0, 50));
    const time = fakeClock();
    let calls = 0;
    const result = await collectFeedback(
      options(
        async (query) => {
          calls += 1;
          if (calls === 1) throw new ApiError({ method: 'GET', path: '/x', status: 429, retryAfterMs: 20_000, message: 'GET /x answered 429' });
          return api.fetchPage(query);
        },
        { deadline: new Deadline(5 * 60_000, time.now), sleep: time.sleep }
      )
    );
    expect(time.sleeps).toEqual([20_000]);
    expect(result.requests).toBe(2);
    expect(result.complete).toBe(true);
  });

  it('does not wait for a Retry-After past the deadline: the first request fails with the API error', async () => {
    const time = fakeClock();
    const error = new ApiError({ method: 'GET', path: '/x', status: 429, retryAfterMs: 3_600_000, message: 'GET /x answered 429' });
    const collecting = collectFeedback(
      options(
        async () => {
          throw error;
        },
        { deadline: new Deadline(5 * 60_000, time.now), sleep: time.sleep }
      )
    );
    await expect(collecting).rejects.toBe(error);
    expect(time.sleeps).toEqual([]);
  });

  it('retries 5xx with backoff, each try counted, and stops at max-requests', async () => {
    const time = fakeClock();
    let calls = 0;
    const collecting = collectFeedback(
      options(
        async () => {
          calls += 1;
          throw new ApiError({ method: 'GET', path: '/x', status: 500, message: 'GET /x answered 500', details: ['Failed to aggregate feedback'] });
        },
        { deadline: new Deadline(5 * 60_000, time.now), sleep: time.sleep, maxRequests: 3 }
      )
    );
    await expect(collecting).rejects.toMatchObject({ status: 500, details: ['Failed to aggregate feedback'] });
    expect(calls).toBe(3);
    expect(time.sleeps).toEqual([1000, 2000]);
  });

  it('leaves a part unsettled when its halves keep failing, keeping the part\'s own rows', async () => {
    const entries = busyMonth();
    const api = fakeApi(entries);
    let calls = 0;
    const result = await collectFeedback(
      options(async (query) => {
        calls += 1;
        if (calls > 1) throw new ApiError({ method: 'GET', path: '/x', status: 503, message: 'GET /x answered 503' });
        return api.fetchPage(query);
      })
    );
    expect(result.complete).toBe(false);
    expect(result.requests).toBe(5); // the first, then four tries of the first half
    expect(result.unsettled).toEqual([{ dateFrom: '2024-05-01', dateTo: '2024-05-31', reason: 'the API answered 503 4 times in a row' }]);
    expect(result.rows).toHaveLength(100);
  });

  it('stops asking once a 429 cannot be waited out: the parts left are unsettled without a request', async () => {
    const api = fakeApi(busyMonth());
    let calls = 0;
    const result = await collectFeedback(
      options(async (query) => {
        calls += 1;
        if (calls === 4) throw new ApiError({ method: 'GET', path: '/x', status: 429, retryAfterMs: 3_600_000, message: 'GET /x answered 429' });
        return api.fetchPage(query);
      })
    );
    // The range and its halves, then the first quarter meets the 429: the second half is not tried.
    expect(result.requests).toBe(4);
    const reason = 'the API answered 429 (rate limited), and the wait it asked for (1h 00m) does not fit in the time left before timeout';
    expect(result.unsettled).toEqual([
      { dateFrom: '2024-05-01', dateTo: '2024-05-16', reason },
      { dateFrom: '2024-05-16', dateTo: '2024-05-31', reason }
    ]);
  });

  it('fails at once on an error that retrying cannot help (400)', async () => {
    let calls = 0;
    const collecting = collectFeedback(
      options(async () => {
        calls += 1;
        throw new ApiError({ method: 'GET', path: '/x', status: 400, message: 'GET /x answered 400', details: ['dateFrom: Invalid date'] });
      })
    );
    await expect(collecting).rejects.toMatchObject({ status: 400 });
    expect(calls).toBe(1);
  });
});

describe('splitPoint and formatBound', () => {
  it('splits at the midnight nearest the middle while a range spans more than a day', () => {
    expect(formatBound(splitPoint({ from: MAY_1, to: MAY_1 + 30 * DAY }) ?? 0)).toBe('2024-05-16');
    expect(formatBound(splitPoint({ from: MAY_1, to: MAY_1 + 3 * DAY }) ?? 0)).toBe('2024-05-03');
    // Bounds that are not midnights still split at one, strictly inside.
    const odd = { from: MAY_1 + 20 * 3_600_000, to: MAY_1 + DAY + 22 * 3_600_000 };
    expect(formatBound(splitPoint(odd) ?? 0)).toBe('2024-05-02');
  });

  it('splits a day at its middle, to the second, and stops at two minutes', () => {
    expect(formatBound(splitPoint({ from: MAY_1, to: MAY_1 + DAY }) ?? 0)).toBe('2024-05-01T12:00:00Z');
    expect(splitPoint({ from: MAY_1, to: MAY_1 + DAY }, false)).toBeUndefined();
    expect(splitPoint({ from: MAY_1, to: MAY_1 + 119_000 })).toBeUndefined();
    expect(formatBound(splitPoint({ from: MAY_1, to: MAY_1 + 121_000 }) ?? 0)).toBe('2024-05-01T00:01:00Z');
  });
});

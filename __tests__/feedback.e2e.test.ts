// The feedback action against the platform emulator holding a busy May (200 pages) and a quiet June
// (3 pages). Each test reads what a user reads: exit code, log, outputs, the report files, the job
// summary, and counts the requests the emulator saw. The first runs the built dist/feedback/index.js as a separate
// process, the way the runner starts it; the rest run the real run() in this process (in-process.ts),
// with no Node start each.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_API_KEY, type FeedbackEntry, type PlatformEmulator, startPlatformEmulator } from '../emulator/platform.ts';
import { runAction } from '../emulator/runner.ts';
import { type PublishRun, runInProcess } from './in-process.ts';
import { busyMay, MAY_1 } from '../emulator/feedback-month.ts';

const BUNDLE = 'dist/feedback/index.js';
const PROJECT = 'proj_docs';
const DAY = 86_400_000;
const JUNE_1 = Date.UTC(2024, 5, 1);
let emulator: PlatformEmulator;
let feedback: PublishRun;

function quietJune(): FeedbackEntry[] {
  const at = (day: number) => new Date(JUNE_1 + day * DAY + 3_600_000).toISOString();
  return [
    { path: '/quickstart', createdAt: at(1), source: 'contextual', status: 'pending', helpful: false },
    { path: '/quickstart', createdAt: at(2), source: 'thumbs_only', status: 'pending', helpful: false },
    { path: '/quickstart', createdAt: at(3), source: 'code_snippet', status: 'resolved' },
    { path: '/api/auth', createdAt: at(2), source: 'contextual', status: 'pending', helpful: true },
    { path: '/api/auth', createdAt: at(4), source: 'agent', status: 'dismissed' },
    { path: '/changelog', createdAt: at(5), source: 'thumbs_only', status: 'in_progress', helpful: true }
  ];
}

const entries = [...busyMay(), ...quietJune()];

/** What the emulator holds per path for entries in [from, to): the figures the report must show. */
function heldFigures(from: number, to: number, keep: (e: FeedbackEntry) => boolean = () => true) {
  const rows = new Map<string, { path: string; thumbsUp: number; thumbsDown: number; code: number; total: number }>();
  for (const e of entries) {
    const at = Date.parse(e.createdAt);
    if (at < from || at >= to || !keep(e)) continue;
    const row = rows.get(e.path) ?? { path: e.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
    rows.set(e.path, row);
    row.total += 1;
    if (e.source === 'code_snippet') row.code += 1;
    if ((e.source === 'contextual' || e.source === 'thumbs_only') && e.helpful === true) row.thumbsUp += 1;
    if ((e.source === 'contextual' || e.source === 'thumbs_only') && e.helpful === false) row.thumbsDown += 1;
  }
  return [...rows.values()].sort((a, b) => a.path.localeCompare(b.path));
}

beforeAll(async () => {
  emulator = await startPlatformEmulator({ feedback: entries });
  feedback = (await import('../src/feedback/run.ts')).run;
});
afterAll(() => emulator.close());
beforeEach(() => {
  emulator.requests.length = 0;
});

const inputs = (extra: Record<string, string>) => ({ 'api-key': DEFAULT_API_KEY, 'project-id': PROJECT, 'api-url': emulator.url, ...extra });
const feedbackRequests = () => emulator.requests.filter((r) => r.route === 'feedback');
/** The action in this process. */
const runHere = (given: Record<string, string>, env: Record<string, string> = {}) => runInProcess(feedback, given, env);
const workspace = () => ({ GITHUB_WORKSPACE: mkdtempSync(join(tmpdir(), 'feedback-ws-')) });

interface Report {
  query: Record<string, unknown>;
  complete: boolean;
  incomplete: { dateFrom: string; dateTo: string; reason: string }[];
  requests: number;
  totals: { pages: number; total: number; thumbsUp: number; thumbsDown: number; code: number };
  rows: { path: string; thumbsUp: number; thumbsDown: number; code: number; total: number; exact: boolean }[];
}
const readReport = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Report;
const withoutExact = (rows: Report['rows']) => rows.map(({ exact: _exact, ...row }) => row).sort((a, b) => a.path.localeCompare(b.path));

describe('feedback: fewer pages than one request returns', () => {
  it('asks once, and reports outputs, JSON, CSV and a summary with a table and a chart', async () => {
    const env = workspace();
    const run = await runAction(BUNDLE, inputs({ 'date-from': '2024-06-01', 'date-to': '2024-07-01' }), env);

    expect(run.code).toBe(0);
    expect(feedbackRequests().map((r) => r.query)).toEqual(['dateFrom=2024-06-01&dateTo=2024-07-01&limit=100']);
    expect(run.outputs).toEqual({
      pages: '3',
      total: '6',
      'thumbs-up': '2',
      'thumbs-down': '2',
      code: '1',
      complete: 'true',
      'report-path': join(env.GITHUB_WORKSPACE, 'feedback-by-page.json'),
      'csv-path': join(env.GITHUB_WORKSPACE, 'feedback-by-page.csv')
    });
    const report = readReport(run.outputs['report-path']);
    expect(report.query).toEqual({ projectId: PROJECT, dateFrom: '2024-06-01', dateTo: '2024-07-01' });
    expect(report).toMatchObject({ complete: true, incomplete: [], requests: 1 });
    expect(withoutExact(report.rows)).toEqual(heldFigures(JUNE_1, Date.UTC(2024, 6, 1)));
    // Most thumbs down first.
    expect(report.rows.map((row) => row.path)).toEqual(['/quickstart', '/api/auth', '/changelog']);
    expect(readFileSync(run.outputs['csv-path'], 'utf8')).toBe(
      'path,thumbsUp,thumbsDown,code,total,exact\r\n/quickstart,0,2,1,3,true\r\n/api/auth,1,0,0,2,true\r\n/changelog,1,0,0,1,true\r\n'
    );

    expect(run.summary).toContain('<h2>Reader feedback by page</h2>');
    expect(run.summary).toContain('from <code>2024-06-01</code> up to, not including, <code>2024-07-01</code>');
    expect(run.summary).toContain('<h3>All pages, most thumbs down first</h3>');
    expect(run.summary).toContain('<td>1</td><td><code>/quickstart</code></td><td>2</td><td>0</td><td>1</td><td>3</td>');
    expect(run.summary).toContain('\n\n```mermaid\nxychart-beta horizontal\n');
    expect(run.summary).toContain('x-axis ["1. /quickstart", "2. /api/auth", "3. /changelog"]');
    expect(run.summary).toContain('bar [2, 0, 0]');
  });

  it('without dates, asks for the 30 days up to the start of tomorrow (UTC), and says when nothing matched', async () => {
    const tomorrow = Math.floor(Date.now() / DAY) * DAY + DAY;
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const run = await runHere(inputs({}), workspace());
    expect(run.code).toBe(0);
    expect(feedbackRequests().map((r) => r.query)).toEqual([`dateFrom=${day(tomorrow - 30 * DAY)}&dateTo=${day(tomorrow)}&limit=100`]);
    expect(run.outputs).toMatchObject({ pages: '0', total: '0', complete: 'true' });
    expect(run.summary).toContain('<p>No feedback matched this query.</p>');
    expect(run.summary).not.toContain('```mermaid');
  });

  it('counts one page and one entry in the singular', async () => {
    const run = await runHere(inputs({ 'date-from': '2024-06-06', 'date-to': '2024-06-07' }), workspace());
    expect(run.code).toBe(0);
    expect(run.log).toContain('1 page, 1 feedback entry (0 thumbs down, 1 up, 0 on code snippets), from 1 date range; 1 of ');
  });

  it('sends source and status, and counts only what they select', async () => {
    const run = await runHere(inputs({ 'date-from': '2024-06-01', 'date-to': '2024-07-01', source: 'thumbs_only', status: 'pending, in_progress' }), workspace());
    expect(run.code).toBe(0);
    expect(feedbackRequests().map((r) => r.query)).toEqual(['dateFrom=2024-06-01&dateTo=2024-07-01&source=thumbs_only&status=pending%2Cin_progress&limit=100']);
    expect(run.outputs).toMatchObject({ pages: '2', total: '2', 'thumbs-down': '1', 'thumbs-up': '1' });
  });
});

describe('feedback: more pages than one request returns', () => {
  it('splits May until every part fits, and reports exactly the sums the emulator holds', async () => {
    const run = await runHere(inputs({ 'date-from': '2024-05-01', 'date-to': '2024-05-31', top: '5' }), workspace());

    expect(run.code).toBe(0);
    // May holds 200 pages; each half 110; each quarter 62 or 68: 1 + 2 + 4 requests.
    expect(feedbackRequests().map((r) => r.query.replace(/&limit=100$/, ''))).toEqual([
      'dateFrom=2024-05-01&dateTo=2024-05-31',
      'dateFrom=2024-05-01&dateTo=2024-05-16',
      'dateFrom=2024-05-16&dateTo=2024-05-31',
      'dateFrom=2024-05-01&dateTo=2024-05-09',
      'dateFrom=2024-05-09&dateTo=2024-05-16',
      'dateFrom=2024-05-16&dateTo=2024-05-24',
      'dateFrom=2024-05-24&dateTo=2024-05-31'
    ]);
    const held = heldFigures(MAY_1, MAY_1 + 30 * DAY);
    const report = readReport(run.outputs['report-path']);
    expect(report).toMatchObject({ complete: true, requests: 7 });
    expect(withoutExact(report.rows)).toEqual(held);
    expect(run.outputs).toMatchObject({
      complete: 'true',
      pages: '200',
      total: String(held.reduce((n, row) => n + row.total, 0)),
      'thumbs-down': String(held.reduce((n, row) => n + row.thumbsDown, 0)),
      'thumbs-up': String(held.reduce((n, row) => n + row.thumbsUp, 0)),
      code: String(held.reduce((n, row) => n + row.code, 0))
    });
    expect(run.log).toContain('2024-05-01 → 2024-05-31 has feedback on more than 100 pages: asking for 2024-05-01 → 2024-05-16 and 2024-05-16 → 2024-05-31.');
    expect(run.log).toContain('7 of 20 requests used');
    // The summary shows the top 5 by thumbs down; the chart has the same 5 bars.
    expect(run.summary).toContain('<h3>Top 5 of 200 pages, most thumbs down first</h3>');
    const worst = [...held].sort((a, b) => b.thumbsDown - a.thumbsDown || b.total - a.total || a.path.localeCompare(b.path))[0];
    expect(run.summary).toContain(`<td>1</td><td><code>${worst.path}</code></td><td>${worst.thumbsDown}</td>`);
    expect(run.summary).toMatch(/ {2}bar \[\d+, \d+, \d+, \d+, \d+\]\n/);
  });

  it('with a budget too small: spends exactly max-requests, and says what is incomplete and where', async () => {
    const run = await runHere(inputs({ 'date-from': '2024-05-01', 'date-to': '2024-05-31', 'max-requests': '5' }), workspace());

    expect(run.code).toBe(0);
    expect(feedbackRequests()).toHaveLength(5);
    expect(run.outputs.complete).toBe('false');
    const report = readReport(run.outputs['report-path']);
    expect(report.complete).toBe(false);
    expect(report.incomplete).toEqual([
      { dateFrom: '2024-05-16', dateTo: '2024-05-31', reason: 'max-requests (5) was used up before this range could be split' }
    ]);
    // Every row is at most the held figure; the rows marked exact are exactly it.
    const held = new Map(heldFigures(MAY_1, MAY_1 + 30 * DAY).map((row) => [row.path, row]));
    for (const row of report.rows) {
      if (row.exact) expect(row.total).toBe(held.get(row.path)?.total);
      else expect(row.total).toBeLessThanOrEqual(held.get(row.path)?.total ?? 0);
    }
    expect(report.rows.length).toBeLessThan(200);
    expect(run.stdout).toContain('::warning::The figures are incomplete: some pages are missing or counted low for 2024-05-16 → 2024-05-31 (max-requests (5) was used up before this range could be split).');
    expect(run.summary).toContain('<h2>Reader feedback by page (incomplete)</h2>');
    expect(run.summary).toContain('raise <code>max-requests</code>');
  });
});

describe('feedback: faults and errors', () => {
  it('waits out a 429 whose Retry-After fits the time left, and counts the retry', async () => {
    emulator.addFault({ route: 'feedback', kind: '429', retryAfterSeconds: 1 });
    const run = await runHere(inputs({ 'date-from': '2024-06-01', 'date-to': '2024-07-01' }), workspace());
    expect(run.code).toBe(0);
    expect(feedbackRequests().map((r) => r.status)).toEqual([429, 200]);
    expect(run.log).toMatch(/answered 429: Rate limit exceeded; retrying in 1 s \(19 of 20 requests left\)/);
    expect(readReport(run.outputs['report-path']).requests).toBe(2);
  });

  it('does not wait for a Retry-After longer than the time left: fails at once and says when to re-run', async () => {
    emulator.addFault({ route: 'feedback', kind: '429', retryAfterSeconds: 1200 });
    const run = await runHere(inputs({ 'date-from': '2024-06-01', 'date-to': '2024-07-01' }), workspace());
    expect(run.code).toBe(1);
    // "At once": a run that waited out the 20 minutes asked for would not end within the test's timeout.
    expect(feedbackRequests()).toHaveLength(1);
    expect(run.stdout).toMatch(
      /::error::Reading feedback by page for project proj_docs failed: the organization has used its analytics requests \(429\): all analytics endpoints share 100 requests per organization per hour\. Re-run after \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(in (19m \d{2}s|20m 00s)\), or lower max-requests in scheduled runs\./
    );
  });

  it('shows the analytics error body in full when the API keeps failing, within max-requests', async () => {
    emulator.addFault({ route: 'feedback', kind: '500', times: 10 });
    const run = await runHere(inputs({ 'date-from': '2024-06-01', 'date-to': '2024-07-01', 'max-requests': '2' }), workspace());
    expect(run.code).toBe(1);
    expect(feedbackRequests()).toHaveLength(2);
    expect(run.stdout).toContain(
      '::error::Reading feedback by page for project proj_docs failed: the analytics API kept failing (500), retried as far as max-requests (2) and timeout (5m 00s) allowed; the platform may be having trouble, re-run in a few minutes. The server said: "Internal server error". Details: Failed to aggregate feedback.'
    );
    expect(run.outputs['report-path']).toBeUndefined();
  });

  it.each([
    [{ 'date-from': '2024-02-30' }, "::error::Input 'date-from': '2024-02-30' is not a calendar date: February 2024 has 29 days."],
    [{ 'date-from': '2024-13-01' }, "::error::Input 'date-from': '2024-13-01' is not a calendar date: there is no month 13 (months run from 01 to 12)."],
    [{ 'date-to': '31/05/2024' }, "::error::Input 'date-to': '31/05/2024' is not a date. Use YYYY-MM-DD"],
    [{ 'date-from': '2024-05-31', 'date-to': '2024-05-01' }, "::error::Input 'date-to': '2024-05-01' is before date-from '2024-05-31': the dates look swapped. Set date-from: 2024-05-01 and date-to: 2024-05-31."],
    [{ source: 'email' }, "::error::Input 'source': 'email' is not a feedback source. Use one of code_snippet, contextual, agent, thumbs_only"],
    [{ status: 'pending,open' }, "::error::Input 'status': 'open' is not a feedback status."],
    [{ 'max-requests': '500' }, "::error::Input 'max-requests': '500' is not a whole number from 1 to 100."],
    [{ top: '0' }, "::error::Input 'top': '0' is not a whole number from 1 to 100."]
  ])('bad input %j fails before any request', async (extra, message) => {
    const run = await runHere(inputs(extra), workspace());
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(message);
    expect(emulator.requests).toHaveLength(0);
  });
});

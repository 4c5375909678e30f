// The feedback report files: JSON with the query, the totals, what is incomplete and every row; CSV
// with the same rows beside it, for a spreadsheet.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import type { Collection, CollectedRow, UnsettledRange } from './collect.ts';

export interface ReportQuery {
  projectId: string;
  dateFrom: string;
  /** Exclusive. */
  dateTo: string;
  source?: string;
  statuses?: string[];
}

export interface FeedbackTotals {
  pages: number;
  total: number;
  thumbsUp: number;
  thumbsDown: number;
  code: number;
}

export interface FeedbackReport {
  query: ReportQuery;
  generatedAt: string;
  complete: boolean;
  /** Ranges whose figures are partial, and why. Empty when complete. */
  incomplete: UnsettledRange[];
  requests: number;
  totals: FeedbackTotals;
  rows: CollectedRow[];
}

export function buildReport(query: ReportQuery, collection: Collection, now = Date.now()): FeedbackReport {
  return {
    query,
    generatedAt: new Date(now).toISOString(),
    complete: collection.complete,
    incomplete: collection.unsettled,
    requests: collection.requests,
    totals: totalsOf(collection.rows),
    rows: collection.rows
  };
}

function totalsOf(rows: CollectedRow[]): FeedbackTotals {
  const totals: FeedbackTotals = { pages: rows.length, total: 0, thumbsUp: 0, thumbsDown: 0, code: 0 };
  for (const row of rows) {
    totals.total += row.total;
    totals.thumbsUp += row.thumbsUp;
    totals.thumbsDown += row.thumbsDown;
    totals.code += row.code;
  }
  return totals;
}

/** `feedback-by-page.json` → `feedback-by-page.csv`; a name without `.json` gets `.csv` added. */
export function csvPathFor(jsonPath: string): string {
  return extname(jsonPath).toLowerCase() === '.json' ? jsonPath.slice(0, -'.json'.length) + '.csv' : `${jsonPath}.csv`;
}

export async function writeReport(report: FeedbackReport, jsonPath: string): Promise<{ jsonPath: string; csvPath: string }> {
  const csvPath = csvPathFor(jsonPath);
  await mkdir(dirname(jsonPath), { recursive: true });
  await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(csvPath, toCsv(report.rows));
  return { jsonPath, csvPath };
}

const CSV_COLUMNS = ['path', 'thumbsUp', 'thumbsDown', 'code', 'total', 'exact'] as const;

/** RFC 4180: CRLF line ends, fields with a comma, quote or line break quoted, quotes doubled. */
export function toCsv(rows: CollectedRow[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map((column) => csvField(String(row[column]))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function csvField(value: string): string {
  // A cell starting with = + - @ is run as a formula by spreadsheets; a leading ' keeps it text.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

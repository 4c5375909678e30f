// The feedback action's files and summary text, and its date inputs: what a person opens or reads.
import { describe, expect, it } from '@jest/globals';
import type { CollectedRow } from '../src/feedback/collect.ts';
import { feedbackRange, parseFeedbackDate } from '../src/feedback/dates.ts';
import { buildReport, csvPathFor, toCsv } from '../src/feedback/report.ts';
import { chartLabel, feedbackSummary, thumbsDownChart } from '../src/feedback/summary.ts';

const row = (path: string, thumbsDown: number, total: number, exact = true): CollectedRow => ({ path, thumbsUp: 1, thumbsDown, code: 0, total, exact });

describe('report files', () => {
  it('puts the CSV beside the JSON', () => {
    expect(csvPathFor('/w/feedback-by-page.json')).toBe('/w/feedback-by-page.csv');
    expect(csvPathFor('/w/report.JSON')).toBe('/w/report.csv');
    expect(csvPathFor('/w/report')).toBe('/w/report.csv');
  });

  it('writes RFC 4180 CSV that a spreadsheet opens as text', () => {
    const csv = toCsv([row('/a,b', 2, 3), row('/say "hi"', 1, 1), row('=HYPERLINK("x")', 0, 1, false)]);
    expect(csv).toBe(
      'path,thumbsUp,thumbsDown,code,total,exact\r\n' +
        '"/a,b",1,2,0,3,true\r\n' +
        '"/say ""hi""",1,1,0,1,true\r\n' +
        '"\'=HYPERLINK(""x"")",1,0,0,1,false\r\n'
    );
  });
});

describe('the chart', () => {
  it('keeps labels inside their quotes and short, with the end of the path', () => {
    expect(chartLabel('1. /say "hi" `now` 100%% <b>')).toBe("1. /say 'hi' 'now' 100% % ‹b›");
    const long = chartLabel(`3. /${'segment/'.repeat(10)}last-page`);
    expect(long).toHaveLength(48);
    expect(long).toMatch(/^3\. ….*\/last-page$/);
    expect(chartLabel('1. /a\nb')).toBe('1. /a b');
  });

  it('is a horizontal xychart-beta of thumbs down in a mermaid fence, one bar per row', () => {
    const chart = thumbsDownChart([row('/a', 5, 9), row('/b', 2, 2)]);
    expect(chart).toBe(
      [
        '',
        '```mermaid',
        'xychart-beta horizontal',
        '  title "Thumbs down by page (top 2)"',
        '  x-axis ["1. /a", "2. /b"]',
        '  y-axis "Thumbs down" 0 --> 5',
        '  bar [5, 2]',
        '```',
        ''
      ].join('\n')
    );
  });

  it('says so instead of drawing empty bars when nobody pressed thumbs down', () => {
    expect(thumbsDownChart([row('/a', 0, 9)])).toBe('<p>No page in this list got a thumbs down.</p>');
  });
});

describe('the summary', () => {
  const files = { jsonPath: '/w/f.json', csvPath: '/w/f.csv' };
  const query = { projectId: 'proj_1', dateFrom: '2024-05-01', dateTo: '2024-05-31', source: 'contextual' };

  it('shows the query, the totals, the top rows and the chart', () => {
    const rows = [row('/worst', 9, 10), row('/bad', 4, 30), row('/ok', 0, 50)];
    const report = buildReport(query, { rows, complete: true, unsettled: [], requests: 1, parts: 1 });
    const text = feedbackSummary(report, files, 2);
    expect(text).toContain('<h2>Reader feedback by page</h2>');
    expect(text).toContain('from <code>2024-05-01</code> up to, not including, <code>2024-05-31</code> · source <code>contextual</code> · every status');
    expect(text).toContain('<td>3</td><td>90</td><td>3</td><td>13</td><td>0</td>');
    expect(text).toContain('<h3>Top 2 of 3 pages, most thumbs down first</h3>');
    expect(text).toContain('<td>1</td><td><code>/worst</code></td><td>9</td>');
    expect(text).not.toContain('<code>/ok</code>');
    expect(text).toContain('x-axis ["1. /worst", "2. /bad"]');
  });

  it('says where the figures are incomplete and what to do, and marks low counts', () => {
    const rows = [row('/a', 3, 4, false)];
    const unsettled = [{ dateFrom: '2024-05-16', dateTo: '2024-05-31', reason: 'max-requests (5) was used up before this range could be split' }];
    const report = buildReport(query, { rows, complete: false, unsettled, requests: 5, parts: 3 });
    const text = feedbackSummary(report, files, 20);
    expect(text).toContain('<h2>Reader feedback by page (incomplete)</h2>');
    expect(text).toContain('<li><code>2024-05-16</code> → <code>2024-05-31</code>: max-requests (5) was used up before this range could be split.</li>');
    expect(text).toContain('raise <code>max-requests</code>');
    expect(text).toContain('<td>≥ 3</td>');
  });

  it('escapes paths in the table', () => {
    const report = buildReport(query, { rows: [row('/<script>', 1, 1)], complete: true, unsettled: [], requests: 1, parts: 1 });
    expect(feedbackSummary(report, files, 5)).toContain('<code>/&lt;script&gt;</code>');
  });
});

describe('date inputs', () => {
  it('takes YYYY-MM-DD and ISO 8601 date-times, UTC unless an offset is given', () => {
    expect(parseFeedbackDate('date-from', '2024-05-01')).toBe(Date.UTC(2024, 4, 1));
    expect(parseFeedbackDate('date-from', '2024-05-01T12:30')).toBe(Date.UTC(2024, 4, 1, 12, 30));
    expect(parseFeedbackDate('date-from', '2024-05-01T12:30:15.5Z')).toBe(Date.UTC(2024, 4, 1, 12, 30, 15, 500));
    expect(parseFeedbackDate('date-from', '2024-05-01T02:00:00+02:00')).toBe(Date.UTC(2024, 4, 1));
  });

  it.each([
    ['2024-02-30', "Input 'date-from': '2024-02-30' is not a calendar date: February 2024 has 29 days."],
    ['2024-13-01', "Input 'date-from': '2024-13-01' is not a calendar date: there is no month 13 (months run from 01 to 12)."],
    ['2023-04-00', "Input 'date-from': '2023-04-00' is not a calendar date: days start at 01."],
    ['05/01/2024', "Input 'date-from': '05/01/2024' is not a date. Use YYYY-MM-DD"],
    ['2024-05-01T25:00Z', "Input 'date-from': '2024-05-01T25:00Z' has no such time of day"],
    ['yesterday', "Input 'date-from': 'yesterday' is not a date"]
  ])('refuses %s', (raw, message) => {
    expect(() => parseFeedbackDate('date-from', raw)).toThrow(message);
  });

  it('agrees with the Gregorian calendar on 2,000 random dates, valid or not', () => {
    const seed0 = Number(process.env.TEST_SEED ?? 20261124);
    let seed = seed0;
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    const daysIn = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
    for (let i = 0; i < 2_000; i++) {
      const [y, m, d] = [1600 + rand(800), rand(15), rand(33)];
      const text = `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
      const valid = m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
      let outcome: string;
      try {
        outcome = String(parseFeedbackDate('date-from', text));
      } catch (error) {
        outcome = (error as Error).message;
      }
      const expected = valid ? String(Date.UTC(y, m - 1, d)) : expect.stringMatching(/is not a calendar date: (there is no month|days start at 01|\w+ \d+ has \d+ days)/);
      expect({ seed: seed0, i, text, outcome }).toEqual({ seed: seed0, i, text, outcome: expected });
    }
  });

  it('defaults to the 30 days up to the start of tomorrow (UTC)', () => {
    const now = Date.UTC(2024, 4, 20, 15, 0);
    expect(feedbackRange({ fromName: 'date-from', from: '', toName: 'date-to', to: '' }, now)).toEqual({
      from: Date.UTC(2024, 3, 21),
      to: Date.UTC(2024, 4, 21)
    });
  });

  it('refuses an empty range and says date-to is exclusive', () => {
    expect(() => feedbackRange({ fromName: 'date-from', from: '2024-05-10', toName: 'date-to', to: '2024-05-10' })).toThrow(
      "Input 'date-to': '2024-05-10' is not after date-from '2024-05-10'. date-to is exclusive: to include 2024-05-10, set it to 2024-05-11."
    );
  });

  it('says swapped dates look swapped, and gives them back in order', () => {
    expect(() => feedbackRange({ fromName: 'date-from', from: '2024-06-01', toName: 'date-to', to: '2024-05-01' })).toThrow(
      "Input 'date-to': '2024-05-01' is before date-from '2024-06-01': the dates look swapped. Set date-from: 2024-05-01 and date-to: 2024-06-01."
    );
  });
});

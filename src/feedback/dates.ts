// The feedback query's dates: `YYYY-MM-DD` or an ISO 8601 date-time, as the API takes them, checked
// before any request; and the range used when none is given (splitting needs both bounds).
import { InputError } from '../action/inputs.ts';
import type { DateRange } from './collect.ts';

const DAY_MS = 86_400_000;
/** Without date-from, the range covers this many days up to date-to. */
const DEFAULT_DAYS = 30;

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Milliseconds since the epoch; a date-time without an offset is UTC, as the API reads it. */
export function parseFeedbackDate(name: string, raw: string): number {
  const text = raw.trim();
  const match = DATE.exec(text);
  const fix = 'Use YYYY-MM-DD (for example 2024-05-01) or an ISO 8601 date-time such as 2024-05-01T12:00:00Z.';
  if (!match) throw new InputError(name, `'${raw}' is not a date. ${fix}`);
  const [, year, month, day, hour, minute, second, , zone] = match;
  const problem = calendarProblem(Number(year), Number(month), Number(day));
  if (problem) throw new InputError(name, `'${raw}' is not a calendar date: ${problem}. ${fix}`);
  const midnight = Date.UTC(Number(year), Number(month) - 1, Number(day));
  if (hour === undefined) return midnight;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) throw new InputError(name, `'${raw}' has no such time of day. ${fix}`);
  const withZone = zone === undefined ? `${text}Z` : text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(withZone);
  if (Number.isNaN(ms)) throw new InputError(name, `'${raw}' is not a date. ${fix}`);
  return ms;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** What is wrong with a year, month and day, in words; undefined for a real date. */
function calendarProblem(year: number, month: number, day: number): string | undefined {
  if (month < 1 || month > 12) return `there is no month ${month} (months run from 01 to 12)`;
  // Day 0 of the next month is the last day of this one.
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1) return 'days start at 01';
  if (day > days) return `${MONTHS[month - 1]} ${year} has ${days} days`;
  return undefined;
}

/**
 * The range to ask for. Without date-to: up to the start of tomorrow (UTC), so today counts. Without
 * date-from: the 30 days before date-to.
 */
export function feedbackRange(inputs: { fromName: string; from: string; toName: string; to: string }, now = Date.now()): DateRange {
  const to = inputs.to.trim() === '' ? Math.floor(now / DAY_MS) * DAY_MS + DAY_MS : parseFeedbackDate(inputs.toName, inputs.to);
  const from = inputs.from.trim() === '' ? to - DEFAULT_DAYS * DAY_MS : parseFeedbackDate(inputs.fromName, inputs.from);
  if (from >= to && inputs.to.trim() === '') {
    throw new InputError(inputs.fromName, `'${inputs.from.trim()}' is not before the start of tomorrow (UTC), where the range ends when date-to is not set. Set date-to too.`);
  }
  if (from >= to) {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const fromDay = Math.floor(from / DAY_MS) * DAY_MS;
    // date-to before date-from is a swap, not a one-day range: say so instead of offering the next day.
    if (from > to) {
      throw new InputError(
        inputs.toName,
        `'${inputs.to.trim()}' is before ${inputs.fromName} '${inputs.from.trim()}': the dates look swapped. Set ${inputs.fromName}: ${day(to)} and ${inputs.toName}: ${day(fromDay)}.`
      );
    }
    throw new InputError(
      inputs.toName,
      `'${inputs.to.trim() || day(to)}' is not after ${inputs.fromName} '${inputs.from.trim()}'. ${inputs.toName} is exclusive: to include ${day(fromDay)}, set it to ${day(fromDay + DAY_MS)}.`
    );
  }
  return { from, to };
}

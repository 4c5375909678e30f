// A busy month of readers' feedback for the platform emulator: 200 pages in May 2024, twice what one
// answer of the by-page operation holds, so the feedback action must split the range. The
// feedback tests and the docs' request count (scripts/docs.ts) use the same month.
import type { FeedbackEntry } from './platform-state.ts';

const DAY = 86_400_000;
export const MAY_1 = Date.UTC(2024, 4, 1);

/** May: 20 pages with feedback every day, and 6 new pages a day with one thumbs down each. */
export function busyMay(): FeedbackEntry[] {
  const entries: FeedbackEntry[] = [];
  for (let day = 0; day < 30; day++) {
    for (let p = 0; p < 20; p++) {
      const at = new Date(MAY_1 + day * DAY + p * 60_000).toISOString();
      if (p % 3 === 0) entries.push({ path: `/guides/page-${p}`, createdAt: at, source: 'code_snippet', status: 'pending' });
      else entries.push({ path: `/guides/page-${p}`, createdAt: at, source: 'contextual', status: day % 2 ? 'resolved' : 'pending', helpful: (day + p) % 4 !== 0 });
    }
    for (let t = 0; t < 6; t++) {
      entries.push({ path: `/reference/item-${day * 6 + t}`, createdAt: new Date(MAY_1 + day * DAY + 43_200_000).toISOString(), source: 'thumbs_only', status: 'pending', helpful: false });
    }
  }
  return entries;
}

// Issue 42's holiday timelines: the second half of timeline.test.ts (its harness, its promises), run
// from a file of their own so that jest runs the two halves on two workers at once.
//   HOLIDAY_DAYS=90 npm test -- __tests__/holiday.test.ts        # the 90 days
(globalThis as { timelinePart?: string }).timelinePart = 'holiday';
await import('./timeline.test.ts');

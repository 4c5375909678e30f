// A unified diff of two texts, line by line, as `diff -u` and GitHub's "Files changed" show it: what
// `npm run try` writes beside the file a pull request proposes, so the "before" a reviewer reads in the
// pull request and the diff of the file show the same link.

/** Lines of context around each change, as `diff -u` and GitHub give. */
const CONTEXT = 3;
/** Above this many differing lines in the middle, one block of removals then additions (no alignment). */
const MAX_ALIGNED = 2000;

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

/** `--- a/path`, `+++ b/path` and its hunks; empty when the texts are equal. */
export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  const ops = lineOps(a, b);
  const hunks: string[] = [];
  for (let i = 0; i < ops.length; ) {
    if (ops[i]!.kind === ' ') {
      i++;
      continue;
    }
    // A hunk: from CONTEXT lines before this change to CONTEXT lines after the last change within reach.
    const start = Math.max(0, i - CONTEXT);
    let end = i;
    for (let j = i; j < ops.length && j <= end + 2 * CONTEXT; j++) if (ops[j]!.kind !== ' ') end = j;
    const stop = Math.min(ops.length, end + CONTEXT + 1);
    const slice = ops.slice(start, stop);
    const aCount = slice.filter((op) => op.kind !== '+').length;
    const bCount = slice.filter((op) => op.kind !== '-').length;
    hunks.push(`@@ -${slice[0]!.a + (aCount ? 1 : 0)},${aCount} +${slice[0]!.b + (bCount ? 1 : 0)},${bCount} @@`, ...slice.map((op) => `${op.kind}${op.line}`));
    i = stop;
  }
  return [`--- a/${path}`, `+++ b/${path}`, ...hunks, ''].join('\n');
}

/** The lines kept, removed and added, in order: common ends set aside, the middle aligned by longest common subsequence. */
function lineOps(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const ops: Op[] = a.slice(0, head).map((line, i) => ({ kind: ' ', line, a: i, b: i }));
  let i = 0;
  let j = 0;
  const push = (kind: Op['kind'], line: string) => ops.push({ kind, line, a: head + i, b: head + j });
  if (midA.length * midB.length <= MAX_ALIGNED * MAX_ALIGNED) {
    // lengths[x][y]: the longest common subsequence of midA from x and midB from y.
    const lengths = Array.from({ length: midA.length + 1 }, () => new Uint32Array(midB.length + 1));
    for (let x = midA.length - 1; x >= 0; x--) for (let y = midB.length - 1; y >= 0; y--) lengths[x]![y] = midA[x] === midB[y] ? lengths[x + 1]![y + 1]! + 1 : Math.max(lengths[x + 1]![y]!, lengths[x]![y + 1]!);
    while (i < midA.length || j < midB.length) {
      if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
        push(' ', midA[i]!);
        i++;
        j++;
      } else if (j >= midB.length || (i < midA.length && lengths[i + 1]![j]! >= lengths[i]![j + 1]!)) {
        push('-', midA[i]!);
        i++;
      } else {
        push('+', midB[j]!);
        j++;
      }
    }
  } else {
    for (; i < midA.length; i++) push('-', midA[i]!);
    for (; j < midB.length; j++) push('+', midB[j]!);
  }
  const offset = a.length - tail;
  a.slice(offset).forEach((line, k) => ops.push({ kind: ' ', line, a: offset + k, b: b.length - tail + k }));
  return ops;
}

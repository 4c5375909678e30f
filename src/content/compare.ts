// The content diff: two unpacked sites compared page by page on what a reader sees. Each page is
// read once for a hash of its text; only the few changed pages shown get read again for an excerpt,
// so memory holds a path and a hash per page, never a whole site.
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { diffComm } from 'node-diff3';
import { readPageText } from './page-text.ts';

/** A page as a reader reaches it: `/`, `/guides/`, `/guides/getting-started`. */
export type PagePath = string;

export interface PageChange {
  path: PagePath;
  /** A few lines of production's text that the new export no longer has, and what it has instead. */
  removed: string[];
  added: string[];
}

export interface SiteComparison {
  /** Pages of the deployed export and of the new one. */
  deployedPages: number;
  proposedPages: number;
  added: PagePath[];
  removed: PagePath[];
  changed: PagePath[];
  unchanged: number;
  /** Excerpts of the first changed pages, in the order of `changed`. */
  excerpts: PageChange[];
}

/** How many changed pages get an excerpt; the report lists every changed page without one. */
export const EXCERPTS = 5;
/** Lines of each side an excerpt shows, and characters of each line. */
const EXCERPT_LINES = 3;
const EXCERPT_CHARS = 160;
/** Pages read at once: enough to keep the disk busy, few enough to keep memory flat. */
const CONCURRENCY = 8;

const HTML = /\.html?$/i;

/** The page a file serves: `index.html` is `/`, `guides/index.html` is `/guides/`, `a/b.html` is `/a/b`. */
export function pagePath(file: string): PagePath {
  const path = file.split(sep).join('/').replace(HTML, '');
  if (path === 'index') return '/';
  if (path.endsWith('/index')) return `/${path.slice(0, -'index'.length)}`;
  return `/${path}`;
}

/** Every page of an unpacked site, by path, with the file it comes from. */
export async function listPages(root: string): Promise<Map<PagePath, string>> {
  const pages = new Map<PagePath, string>();
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    // Links are left out: a page is counted where its file is.
    if (!entry.isFile() || !HTML.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    pages.set(pagePath(relative(root, file)), file);
  }
  return pages;
}

/** SHA-256 of each page's visible text. */
async function hashPages(pages: Map<PagePath, string>, signal?: AbortSignal): Promise<Map<PagePath, string>> {
  const hashes = new Map<PagePath, string>();
  const queue = [...pages];
  const worker = async () => {
    for (let next = queue.pop(); next; next = queue.pop()) {
      signal?.throwIfAborted();
      const [path, file] = next;
      hashes.set(path, createHash('sha256').update((await readPageText(file, signal)).join('\n')).digest('hex'));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return hashes;
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function compareSites(deployedRoot: string, proposedRoot: string, signal?: AbortSignal): Promise<SiteComparison> {
  const [deployed, proposed] = await Promise.all([listPages(deployedRoot), listPages(proposedRoot)]);
  const [before, after] = [await hashPages(deployed, signal), await hashPages(proposed, signal)];
  const added = [...after.keys()].filter((path) => !before.has(path)).sort(byPath);
  const removed = [...before.keys()].filter((path) => !after.has(path)).sort(byPath);
  const changed = [...after.keys()].filter((path) => before.has(path) && before.get(path) !== after.get(path)).sort(byPath);
  const excerpts: PageChange[] = [];
  for (const path of changed.slice(0, EXCERPTS)) {
    excerpts.push(excerpt(path, await readPageText(deployed.get(path)!, signal), await readPageText(proposed.get(path)!, signal)));
  }
  return {
    deployedPages: deployed.size,
    proposedPages: proposed.size,
    added,
    removed,
    changed,
    unchanged: after.size - added.length - changed.length,
    excerpts
  };
}

/** The first lines that differ, each cut to the part around the change. */
export function excerpt(path: PagePath, before: string[], after: string[]): PageChange {
  const first = diffComm(before, after).find((part) => !part.common);
  const removed = (first?.buffer1 ?? []).slice(0, EXCERPT_LINES);
  const added = (first?.buffer2 ?? []).slice(0, EXCERPT_LINES);
  // A long paragraph that changed one word is shown from a little before that word.
  const from = removed.length > 0 && added.length > 0 ? commonPrefix(removed[0], added[0]) : 0;
  return { path, removed: removed.map((line, i) => cut(line, i === 0 ? from : 0)), added: added.map((line, i) => cut(line, i === 0 ? from : 0)) };
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function cut(line: string, changeAt: number): string {
  const start = changeAt > 60 ? line.lastIndexOf(' ', changeAt - 40) + 1 : 0;
  const shown = line.slice(start, start + EXCERPT_CHARS);
  return `${start > 0 ? '…' : ''}${shown}${start + EXCERPT_CHARS < line.length ? '…' : ''}`;
}

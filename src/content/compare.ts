// The content diff: two exports compared page by page on what a reader sees, as both archives
// stream in. Each page's text is hashed as it comes out of its archive (page-text.ts); memory holds
// a path and a hash per page, and the text of a page only while its counterpart in the other
// export has not come yet, within a budget, for the few excerpts the reviewer reads.
import { diffComm } from 'node-diff3';
import type { EntryReader } from '../bundle/unpack.ts';
import { type PageText, PageTextReader } from './page-text.ts';

/** A page as a reader reaches it: `/`, `/guides`, `/guides/getting-started`. */
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
  /** Production's pages that the new export turned into redirect stubs: readers are sent on, so none counts as removed. */
  redirected: PagePath[];
  unchanged: number;
  /** Excerpts of the first changed pages by path (a page too long to keep has none). */
  excerpts: PageChange[];
}

/** How many changed pages get an excerpt; the report lists every changed page without one. */
export const EXCERPTS = 5;
/** Lines of each side an excerpt shows, and characters of each line. */
const EXCERPT_LINES = 3;
const EXCERPT_CHARS = 160;
/** Characters of page text held at once while a page waits for its counterpart. */
const HELD_TEXT_CHARS = 4 * 1024 * 1024;

const HTML = /\.html?$/i;

/**
 * The page an HTML file of an export, or a link path, serves: one identity whatever the layout.
 * `guides/auth.html`, `guides/auth/index.html`, `/guides/auth` and `/guides/auth/` are all
 * `/guides/auth`; `index.html`, `` and `/` are `/`. Undefined for the 404 page (`404.html`), which
 * a server shows for every missing path: it is not a page readers open.
 */
export function pageIdentity(fileOrPath: string): PagePath | undefined {
  const path = fileOrPath.replaceAll('\\', '/');
  const isFile = HTML.test(path);
  const parts = path.replace(HTML, '').split('/').filter((part) => part !== '' && part !== '.');
  if (isFile && parts[parts.length - 1] === 'index') parts.pop();
  if (parts.length === 1 && parts[0] === '404') return undefined;
  return `/${parts.join('/')}`;
}

type Side = 'deployed' | 'proposed';

/** Both exports' pages as they arrive, in any order and interleaved; then `comparison()`. */
export class SiteComparer {
  private readonly hashes: Record<Side, Map<PagePath, string>> = { deployed: new Map(), proposed: new Map() };
  /** Text of pages whose counterpart has not come yet, for an excerpt. */
  private readonly held: Record<Side, Map<PagePath, string[]>> = { deployed: new Map(), proposed: new Map() };
  private heldChars = 0;
  /** The changed pages with the smallest paths, with their excerpt, sorted by path. */
  private excerpts: PageChange[] = [];
  /** Redirect stubs, left out of the pages: few on any site, so held by path. */
  private readonly redirects: Record<Side, Set<PagePath>> = { deployed: new Set(), proposed: new Set() };

  /**
   * A reader of one export's files: a feed for each page, undefined for any other file. A new
   * reader starts the export over (a download cut short is read again from its first byte).
   */
  reader(side: Side): EntryReader {
    for (const lines of this.held[side].values()) this.heldChars -= charsOf(lines);
    this.held[side].clear();
    this.hashes[side].clear();
    this.redirects[side].clear();
    return {
      file: (path) => {
        const page = pageIdentity(path);
        if (page === undefined || !HTML.test(path)) return undefined;
        const text = new PageTextReader();
        return { write: (chunk) => text.write(chunk), end: () => this.add(side, page, text.end()) };
      }
    };
  }

  pages(side: Side): number {
    return this.hashes[side].size;
  }

  comparison(): SiteComparison {
    const { deployed: before, proposed: after } = this.hashes;
    const added = [...after.keys()].filter((path) => !before.has(path)).sort(byPath);
    const gone = [...before.keys()].filter((path) => !after.has(path));
    const removed = gone.filter((path) => !this.redirects.proposed.has(path)).sort(byPath);
    const redirected = gone.filter((path) => this.redirects.proposed.has(path)).sort(byPath);
    const changed = [...after.keys()].filter((path) => before.has(path) && before.get(path) !== after.get(path)).sort(byPath);
    return {
      deployedPages: before.size,
      proposedPages: after.size,
      added,
      removed,
      changed,
      redirected,
      unchanged: after.size - added.length - changed.length,
      excerpts: this.excerpts
    };
  }

  private add(side: Side, path: PagePath, page: PageText): void {
    // A redirect stub sends readers to another page: the page it names is what they read.
    if (page.redirect) {
      this.redirects[side].add(path);
      return;
    }
    const other: Side = side === 'deployed' ? 'proposed' : 'deployed';
    const theirs = this.hashes[other].get(path);
    if (theirs === undefined) {
      if (page.lines && this.mayExcerpt(path) && this.heldChars + page.chars <= HELD_TEXT_CHARS) {
        this.held[side].set(path, page.lines);
        this.heldChars += page.chars;
      }
    } else {
      const theirLines = this.held[other].get(path);
      if (theirLines) {
        this.held[other].delete(path);
        this.heldChars -= charsOf(theirLines);
      }
      const shown = this.excerpts.some((change) => change.path === path);
      if (theirs !== page.hash && theirLines && page.lines && !shown && this.mayExcerpt(path)) {
        const [before, after] = side === 'proposed' ? [theirLines, page.lines] : [page.lines, theirLines];
        this.excerpts = [...this.excerpts, excerpt(path, before, after)].sort((a, b) => byPath(a.path, b.path)).slice(0, EXCERPTS);
      }
    }
    this.hashes[side].set(path, page.hash);
  }

  /** Whether a changed page at `path` would be among the excerpts shown. */
  private mayExcerpt(path: PagePath): boolean {
    return this.excerpts.length < EXCERPTS || byPath(path, this.excerpts[this.excerpts.length - 1].path) < 0;
  }
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const charsOf = (lines: string[]) => lines.reduce((sum, line) => sum + line.length, 0);

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

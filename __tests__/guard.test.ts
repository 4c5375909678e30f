// The unpack guard compares names as a case-insensitive, Unicode-normalising file system does (macOS
// and Windows runners), on every platform: twins are refused naming both, and nothing is admitted
// below a link in any spelling.
import { describe, expect, it } from '@jest/globals';
import { EntryGuard, type EntryHeader, nameKey } from '../src/bundle/guard.ts';

const limits = { maxFiles: 100_000, maxBytes: 1e9 };
const file = (path: string): EntryHeader => ({ path, type: 'File', kind: 'file', size: 1 });
const dir = (path: string): EntryHeader => ({ path, type: 'Directory', kind: 'directory', size: 0 });
const link = (path: string, linkpath: string): EntryHeader => ({ path, type: 'SymbolicLink', kind: 'symlink', size: 0, linkpath });

function admitAll(entries: EntryHeader[]): string | undefined {
  const guard = new EntryGuard(limits);
  try {
    for (const entry of entries) guard.admit(entry);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('names compared as macOS and Windows compare them', () => {
  it.each([
    [['Guide.html', 'guide.html'], "'Guide.html' and 'guide.html'"],
    [['caf\u00e9.html', 'cafe\u0301.html'], "'caf\u00e9.html' and 'cafe\u0301.html'"],
    [['docs/Intro.html', 'DOCS/intro.html'], "'docs/Intro.html' and 'DOCS/intro.html'"],
    [['a.html', 'a.html.'], "'a.html' and 'a.html.'"]
  ])('refuses twins %j, naming both', (paths, named) => {
    const message = admitAll(paths.map((p) => (p.endsWith('/') ? dir(p) : file(p))));
    expect(message).toContain(named);
    expect(message).toContain('differ only in letter case or Unicode form');
  });

  it('refuses an entry below a link, whatever the case of the link (x/L -> .. then x/l/…)', () => {
    expect(admitAll([dir('x/'), link('x/L', '..'), file('x/l/evil.html')])).toMatch(/below 'x\/l', which it holds as a symlink|'x\/L' and 'x\/l'/);
    expect(admitAll([link('Up', '.'), file('uP/index.html')])).toMatch(/which it holds as a symlink/);
  });

  it('refuses a link chain through another link in any spelling', () => {
    expect(admitAll([link('a/B', '.'), link('a/c', 'b/../../etc')])).toContain("goes through another link ('a/b')");
  });

  it('admits what a real bundle holds', () => {
    expect(admitAll([dir('./'), file('index.html'), dir('guides/'), file('guides/getting-started.html'), file('Guides-old.html'), link('latest', 'guides')])).toBeUndefined();
  });

  it('agrees with Intl.Collator on 2,000 random name pairs: twins exactly when the collator finds them equal', () => {
    let seed = Number(process.env.TEST_SEED ?? 99);
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const alphabet = ['a', 'A', 'b', 'B', 'e', 'E', '\u00e9', 'e\u0301', '\u00c9', 'E\u0301', 'z', '1', '-'];
    const name = () => Array.from({ length: 1 + rand(4) }, () => alphabet[rand(alphabet.length)]).join('');
    const collator = new Intl.Collator('en', { sensitivity: 'accent' });
    for (let i = 0; i < 2_000; i++) {
      const [a, b] = [`${name()}.html`, `${name()}.html`];
      if (a === b) continue;
      const twins = collator.compare(a, b) === 0;
      expect({ a, b, twins: nameKey(a) === nameKey(b) }).toEqual({ a, b, twins });
      const message = admitAll([file(a), file(b)]);
      expect({ a, b, refused: message !== undefined }).toEqual({ a, b, refused: twins });
    }
  });

  it('never admits anything below a link, in 1,000 random archives', () => {
    let seed = Number(process.env.TEST_SEED ?? 7);
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const parts = ['a', 'A', 'b', 'B', 'c'];
    for (let i = 0; i < 1_000; i++) {
      const guard = new EntryGuard(limits);
      const links: string[] = [];
      for (let k = 0; k < 6; k++) {
        const path = Array.from({ length: 1 + rand(3) }, () => parts[rand(parts.length)]).join('/');
        const entry = rand(3) === 0 ? link(path, '.') : file(path);
        try {
          guard.admit(entry);
          if (entry.kind === 'symlink') links.push(nameKey(path));
          // Admitted: no link of the archive is an ancestor of it, in any spelling.
          const key = nameKey(path).split('/');
          for (let d = 1; d < key.length; d++) expect({ i, path, below: links.includes(key.slice(0, d).join('/')) }).toEqual({ i, path, below: false });
        } catch {
          // refused: fine
        }
      }
    }
  });
});

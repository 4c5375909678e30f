// The content diff as it streams, in process: page identity whatever the file layout, redirect
// stubs and the 404 page, two exports whose pages arrive interleaved and in any order, an export read
// again after a cut, archives read without unpacking (with the same checks), and a section that
// stays within its size whatever the pages hold.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { type ArchiveEntry, buildTar, buildZip, pageFiles, siteFiles } from '../emulator/archive.ts';
import { Deadline } from '../src/action/deadline.ts';
import { DEFAULT_LIMITS } from '../src/bundle/guard.ts';
import { unpackTarGz } from '../src/bundle/unpack.ts';
import { SiteComparer, pageIdentity } from '../src/content/compare.ts';
import { type ContentDiff, type GateSettings, refusal } from '../src/content/gate.ts';
import { SECTION_MAX_CHARS, SUMMARY_SECTION_MAX_CHARS, compareWithProduction, contentDiffSection, readArchiveFile } from '../src/publish/content-diff.ts';
import { pullRequestBody } from '../src/publish/pull-request-body.ts';

type Side = 'deployed' | 'proposed';
const page = (title: string, body: string, head = '') => `<html><head><title>${title}</title>${head}</head><body><p>${body}</p></body></html>`;
const stub = (to: string) => `<html><head><meta http-equiv="Refresh" content="0; url=${to}"></head><body>Moved to <a href="${to}">${to}</a></body></html>`;

/** Feeds files to one side of the comparer as an archive yields them, each in two chunks. */
function feed(comparer: SiteComparer, side: Side, files: { path: string; content: string | Buffer }[], reader = comparer.reader(side)): void {
  for (const file of files) {
    const bytes = Buffer.from(file.content);
    const pageFeed = reader.file(file.path);
    pageFeed?.write(bytes.subarray(0, bytes.length >> 1));
    pageFeed?.write(bytes.subarray(bytes.length >> 1));
    pageFeed?.end();
  }
}

const GATE: GateSettings = { maxPageLoss: 0.25, maxPageLossText: '25%', allowMissingHomePage: false, inputs: { maxPageLoss: 'max-page-loss', allowMissingHomePage: 'allow-missing-home-page' } };

describe('a page is a path, not a file', () => {
  it('gives x.html, x/index.html, /x and /x/ one identity, and the 404 page none', () => {
    expect(['guides/auth.html', 'guides/auth/index.html', '/guides/auth', '/guides/auth/', 'guides/auth.htm'].map(pageIdentity)).toEqual(Array(5).fill('/guides/auth'));
    expect(['index.html', '/', '', './index.html'].map(pageIdentity)).toEqual(['/', '/', '/', '/']);
    expect(['404.html', '/404', '404/index.html'].map(pageIdentity)).toEqual([undefined, undefined, undefined]);
    expect(pageIdentity('guides/404.html')).toBe('/guides/404');
  });

  it('compares a site that moved every page into its own folder as unchanged', () => {
    const comparer = new SiteComparer();
    feed(comparer, 'deployed', siteFiles('d.test', { pages: ['index.html', 'a.html', 'b/c.html'], buildId: 'one' }));
    feed(comparer, 'proposed', siteFiles('d.test', { pages: ['index.html', 'a/index.html', 'b/c/index.html'], buildId: 'two' }));
    expect(comparer.comparison()).toMatchObject({ deployedPages: 3, proposedPages: 3, added: [], removed: [], changed: [], unchanged: 3 });
  });

  it('leaves the 404 page and redirect stubs out; a page that became a redirect is not removed', () => {
    const comparer = new SiteComparer();
    feed(comparer, 'deployed', [
      { path: 'index.html', content: page('Home', 'Welcome') },
      { path: 'old-guide.html', content: page('Old guide', 'How it was') },
      { path: '404.html', content: page('Not found', 'No such page') }
    ]);
    feed(comparer, 'proposed', [
      { path: 'index.html', content: page('Home', 'Welcome') },
      { path: 'old-guide.html', content: stub('/new-guide') },
      { path: 'new-guide/index.html', content: page('New guide', 'How it is') },
      { path: '404.html', content: page('Not found', 'Nothing here, sorry') }
    ]);
    const comparison = comparer.comparison();
    expect(comparison).toMatchObject({ deployedPages: 2, proposedPages: 2, added: ['/new-guide'], removed: [], redirected: ['/old-guide'], changed: [], unchanged: 1 });
    expect(refusal({ kind: 'compared', deployedLink: 'https://bundles.invalid/se_1/b.tar.gz', readFrom: 'x', comparison }, GATE)).toBeUndefined();
  });
});

describe('two exports read as they stream', () => {
  const pages = pageFiles(12);
  const edits = Object.fromEntries(pages.slice(1).map((path, i) => [path, `Edit ${i}.`]));
  const before = () => siteFiles('d.test', { pages, buildId: 'one' });
  const after = () => siteFiles('d.test', { pages, buildId: 'two', edits });

  it('gives the first changed pages by path their excerpt, whatever order the pages arrive in', () => {
    const interleaved = new SiteComparer();
    const [deployed, proposed] = [interleaved.reader('deployed'), interleaved.reader('proposed')];
    const [a, b] = [before(), after().reverse()];
    for (let i = 0; i < a.length; i++) {
      feed(interleaved, 'proposed', [b[i]], proposed);
      feed(interleaved, 'deployed', [a[i]], deployed);
    }
    const comparison = interleaved.comparison();
    expect(comparison.changed).toHaveLength(11);
    expect(comparison.excerpts.map((change) => change.path)).toEqual(comparison.changed.slice(0, 5));
    expect(comparison.excerpts[0]).toEqual({ path: '/pages/page-0001', removed: [], added: ['Edit 0.'] });
  });

  it('reads an export again from its start after a cut, without counting or showing anything twice', () => {
    const comparer = new SiteComparer();
    feed(comparer, 'deployed', before());
    feed(comparer, 'proposed', after().slice(0, 4)); // the download was cut here, and tried again
    feed(comparer, 'proposed', after());
    const comparison = comparer.comparison();
    expect(comparison).toMatchObject({ deployedPages: 12, proposedPages: 12, added: [], removed: [], unchanged: 1 });
    expect(comparison.changed).toHaveLength(11);
    expect(new Set(comparison.excerpts.map((change) => change.path)).size).toBe(5);
  });
});

describe('an archive read without unpacking', () => {
  const archive = (entries: ArchiveEntry[]) => Readable.from([gzipSync(buildTar(entries))]);

  it('hands every page to the reader and writes nothing', async () => {
    const read: string[] = [];
    const tree = await unpackTarGz(archive([{ path: 'index.html', content: page('Home', 'Hi') }, { path: 'a/b.html', content: page('B', 'Bee') }, { path: 'a/app.css', content: 'p{}' }]), undefined, DEFAULT_LIMITS, undefined, true, {
      file: (path) => (path.endsWith('.html') ? { write: () => undefined, end: () => void read.push(path) } : undefined)
    });
    expect(tree.files).toBe(3);
    expect(read.sort()).toEqual(['a/b.html', 'index.html']);
  });

  it('reads a kept zip for the comparison without unpacking it: its pages counted, nothing written beside it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'content-zip-'));
    try {
      const file = join(folder, 'bundle.zip');
      writeFileSync(file, buildZip(siteFiles('d.test', { pages: ['index.html', 'a.html', 'b/index.html', '404.html'] })));
      const { diff } = await compareWithProduction({ deployedLink: undefined, deadline: new Deadline(60_000), signal: new AbortController().signal }, (reader) =>
        readArchiveFile(file, reader(), new AbortController().signal)
      );
      expect(diff).toEqual({ kind: 'first', proposedPages: 3 });
      expect(readdirSync(folder)).toEqual(['bundle.zip']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('still refuses a link that leads outside through another link, and a link to nothing; accepts one that stays inside', async () => {
    const reader = { file: () => undefined };
    const read = (entries: ArchiveEntry[]) => unpackTarGz(archive([{ path: 'index.html', content: 'x' }, ...entries]), undefined, DEFAULT_LIMITS, undefined, true, reader);
    // `out` goes through `a/up`, a link that comes after it: `a/up` is the root, so `a/up/..` climbs out.
    // Only resolving the whole path once every entry is in sees it.
    await expect(read([{ path: 'out', type: 'symlink', linkpath: 'a/up/..' }, { path: 'a/up', type: 'symlink', linkpath: '..' }])).rejects.toThrow(/link 'out' whose target is not in the bundle \(or that loops, or leads outside it\)/);
    await expect(read([{ path: 'gone', type: 'symlink', linkpath: 'missing.html' }])).rejects.toThrow(/link 'gone'/);
    await expect(read([{ path: 'a/b.html', content: 'y' }, { path: 'alias.html', type: 'symlink', linkpath: 'a/b.html' }])).resolves.toMatchObject({ files: 2 });
  });
});

describe('the section a reviewer reads', () => {
  // Paths of 7,000 characters and excerpts of 10,000-character lines: as much as a page can hold.
  const paths = Array.from({ length: 40 }, (_, i) => `/${'very-long-segment/'.repeat(400)}${i}`);
  const line = 'word '.repeat(2000);
  const hugeDiff: ContentDiff = {
    kind: 'compared',
    deployedLink: 'https://bundles.invalid/se_1/b.tar.gz',
    readFrom: 'x',
    domain: 'docs.example.com',
    comparison: {
      deployedPages: 80,
      proposedPages: 80,
      added: paths,
      removed: paths,
      changed: paths,
      redirected: [],
      unchanged: 0,
      excerpts: paths.slice(0, 5).map((path) => ({ path, removed: [line, line, line], added: [line, line, line] }))
    }
  };

  it('stays within its size whatever the paths and excerpts hold, and keeps its counts', () => {
    const section = contentDiffSection(hugeDiff);
    expect(section.length).toBeLessThanOrEqual(SECTION_MAX_CHARS);
    expect(section).toContain('**Pages: 40 added, 40 removed, 40 changed**, 0 unchanged');
    expect(section).toContain('more, listed in the `content-diff-path` report of the run that compared them');
    // The summary's limit is higher: it lists what the body has no room for.
    const summary = contentDiffSection(hugeDiff, undefined, 'summary');
    expect(summary.length).toBeLessThanOrEqual(SUMMARY_SECTION_MAX_CHARS);
    expect(summary.split('\n').filter((l) => l.startsWith('- ')).length).toBeGreaterThan(section.split('\n').filter((l) => l.startsWith('- ')).length);
  });

  it("keeps the pull request body within GitHub's 65,536 characters", () => {
    const target = { repo: { owner: 'acme', repo: 'deploy' }, path: 'deploy/values.yaml', key: 'staticExport', prBranch: 'static-export/deploy-values.yaml', labels: [], dryRun: false };
    const job = { jobId: 'se_2', status: 'completed', progress: 100, pageCount: 80, createdAt: '2026-11-24T00:00:00Z', updatedAt: '2026-11-24T00:00:00Z' };
    const bundle = { jobId: 'se_2', bundleUrl: 'https://bundles.invalid/se_2/bundle.tar.gz?X-Amz-Signature=abc', sizeBytes: 10, expiresAt: '2026-11-25T00:00:00Z' };
    const body = pullRequestBody(target, { domain: 'docs.example.com', job, bundle, contentDiff: hugeDiff }, []);
    expect(body).toContain('**Pages: 40 added, 40 removed, 40 changed**, 0 unchanged');
    expect(body.length).toBeLessThanOrEqual(65_536);
  });

  it('links added and changed pages to the site, encoding what would break the link; removed pages stay plain', () => {
    const section = contentDiffSection({
      kind: 'compared',
      deployedLink: 'https://bundles.invalid/se_1/b.tar.gz',
      readFrom: 'x',
      domain: 'docs.example.com',
      comparison: { deployedPages: 2, proposedPages: 2, added: ['/a (b)'], removed: ['/gone'], changed: ['/c'], redirected: [], unchanged: 0, excerpts: [] }
    });
    expect(section).toContain('- [`/a (b)`](https://docs.example.com/a%20%28b%29)');
    expect(section).toContain('- [`/c`](https://docs.example.com/c)');
    expect(section).toContain('- `/gone`');
  });
});

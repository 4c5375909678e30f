// The content diff's parts on their own: what text a reader sees of a page, the comparison of two
// exports' pages, the gate's verdicts and the Markdown a reviewer reads.
import { describe, expect, it } from '@jest/globals';
import { pageFiles, siteFiles } from '../emulator/archive.ts';
import { SiteComparer, excerpt, pageIdentity } from '../src/content/compare.ts';
import { type ContentDiff, type GateSettings, refusal } from '../src/content/gate.ts';
import { pageText } from '../src/content/page-text.ts';
import { SECTION_MAX_CHARS, contentDiffSection } from '../src/publish/content-diff.ts';

/** Feeds each file to the comparer as an archive would yield it. */
function feed(comparer: SiteComparer, side: 'deployed' | 'proposed', files: { path: string; content: string | Buffer }[]): void {
  const reader = comparer.reader(side);
  for (const file of files) {
    const page = reader.file(file.path);
    page?.write(Buffer.from(file.content));
    page?.end();
  }
}

describe('what a reader sees of a page', () => {
  it('keeps the title and the body text by block, and leaves scripts, styles and attributes out', () => {
    expect(
      pageText(
        '<html><head><title>Auth &amp; tokens</title><script>var buildId="abc"</script><style>p{}</style></head>' +
        '<body data-build="abc"><h1>Tokens</h1><p>They   expire\nafter <b>one</b> hour.</p><ul><li>One</li><li>Two</li></ul>' +
        '<svg><title>icon</title></svg><script id="__NEXT_DATA__">{"buildId":"abc"}</script></body></html>'
      ).lines
    ).toEqual(['Auth & tokens', 'Tokens', 'They expire after one hour.', 'One', 'Two']);
  });

  it('names pages as readers reach them', () => {
    expect(['index.html', 'guides/index.html', 'guides/a.html', 'b.htm'].map(pageIdentity)).toEqual(['/', '/guides', '/guides/a', '/b']);
  });
});

describe('comparing two sites', () => {
  it('finds only the real changes when every page carries another build id', () => {
    const pages = pageFiles(6);
    const comparer = new SiteComparer();
    feed(comparer, 'deployed', siteFiles('d.test', { pages, buildId: 'one' }));
    feed(comparer, 'proposed', siteFiles('d.test', { pages: [...pages.slice(0, 5), 'new.html'], buildId: 'two', edits: { 'pages/page-0002.html': 'Edited.' } }));
    const comparison = comparer.comparison();
    expect(comparison).toMatchObject({ deployedPages: 6, proposedPages: 6, added: ['/new'], removed: ['/pages/page-0005'], changed: ['/pages/page-0002'], unchanged: 4 });
    expect(comparison.excerpts).toEqual([{ path: '/pages/page-0002', removed: [], added: ['Edited.'] }]);
  });

  it('shows a long changed line from a little before the change', () => {
    const long = `${'word '.repeat(40)}old ending`;
    const change = excerpt('/p', [long], [long.replace('old', 'new')]);
    expect(change.removed[0]).toMatch(/^….*old ending$/);
    expect(change.added[0]).toMatch(/^….*new ending$/);
    expect(change.added[0].length).toBeLessThan(long.length);
  });
});

const GATE: GateSettings = { maxPageLoss: 0.25, maxPageLossText: '25%', allowMissingHomePage: false, inputs: { maxPageLoss: 'max-page-loss', allowMissingHomePage: 'allow-missing-home-page' } };
function compared(deployedPages: number, removed: string[], proposedPages = deployedPages - removed.length): ContentDiff {
  return {
    kind: 'compared',
    deployedLink: 'https://s3.test/se_1/b.tar.gz',
    readFrom: 'its deployed link',
    comparison: { deployedPages, proposedPages, added: [], removed, changed: [], redirected: [], unchanged: proposedPages, excerpts: [] }
  };
}

describe('the gate', () => {
  it('passes a loss up to the share, refuses one past it with the pages and the input', () => {
    expect(refusal(compared(8, ['/a', '/b']), GATE)).toBeUndefined();
    expect(refusal(compared(8, ['/a', '/b', '/c']), GATE)).toMatch(/loses 3 of production's 8 pages \(38%\), more than max-page-loss allows \(25%\): \/a, \/b, \/c\..* max-page-loss: 38%\.$/);
    expect(refusal(compared(8, ['/a', '/b', '/c']), { ...GATE, maxPageLoss: undefined })).toBeUndefined();
  });

  it('refuses a lost home page unless allowed, and an empty export always', () => {
    expect(refusal(compared(100, ['/']), GATE)).toMatch(/no home page .* allow-missing-home-page: true\.$/);
    expect(refusal(compared(100, ['/']), { ...GATE, allowMissingHomePage: true })).toBeUndefined();
    expect(refusal({ kind: 'first', proposedPages: 0 }, { ...GATE, maxPageLoss: undefined })).toMatch(/^The new export has no pages at all/);
    expect(refusal({ kind: 'first', proposedPages: 3 }, GATE)).toBeUndefined();
    expect(refusal({ kind: 'renewal', jobId: 'se_1' }, GATE)).toBeUndefined();
  });
});

describe('the section a reviewer reads', () => {
  it('leads with a count line, then lists every page in a collapsed section', () => {
    const diff = compared(30, Array.from({ length: 12 }, (_, i) => `/gone/${i}`));
    const section = contentDiffSection(diff, 'https://s3.test/se_1/b.tar.gz');
    expect(section.split('\n').slice(0, 3)).toEqual(['### What readers see after the merge', '', '**Pages: 0 added, 12 removed, 0 changed**, 18 unchanged']);
    expect(section).toContain('<details><summary>Every page added, removed or changed (12), by path</summary>\n\n**Removed** (12)\n\n- `/gone/0`');
    expect(section).toContain('- `/gone/11`\n\n</details>');
    expect(section).not.toContain('more');
  });

  it('sends a reader to the job summary for the pages the body has no room for, and the summary lists them', () => {
    // 1,000 removed pages of 60 characters: too many for the body's 24,000 characters, not for the summary.
    const diff = compared(2000, Array.from({ length: 1000 }, (_, i) => `/reference/a-long-section-name/with-a-long-page-name-${String(i).padStart(4, '0')}`));
    const body = contentDiffSection(diff);
    expect(body.length).toBeLessThanOrEqual(SECTION_MAX_CHARS);
    expect(body).toMatch(/\n- and \d+ more, listed in the job summary of the run that compared them\n/);
    const summary = contentDiffSection(diff, undefined, 'summary');
    expect(summary).toContain('- `/reference/a-long-section-name/with-a-long-page-name-0999`');
    expect(summary).not.toContain('more,');
  });

  it('says "no page changes" for a renewal only, and leaves out a comparison with a link production no longer holds', () => {
    expect(contentDiffSection({ kind: 'renewal', jobId: 'se_1' })).toContain('No page changes');
    expect(contentDiffSection(compared(3, []))).not.toContain('No page changes');
    expect(contentDiffSection(compared(3, ['/a']), 'https://s3.test/se_2/b.tar.gz')).toContain("Production's link changed while this run compared the pages");
  });
});

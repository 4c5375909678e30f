// The platform emulator, started with no options, looks like production: links live 7 days, one page
// count holds everywhere (the job's, the archive's pages and the deployment's), and each export of a
// domain adds, removes and edits a few pages, which the action's own content diff sees as such. A
// test that needs the old fixed pages or one-hour links asks for them.
import { describe, expect, it } from '@jest/globals';
import { Parser, type ReadEntry } from 'tar';
import { THREE_PAGE_SITE, siteFiles } from '../emulator/archive.ts';
import { parseCliOptions } from '../emulator/cli.ts';
import { DEFAULT_SITE_CHANGES, LivingSites, NO_SITE_CHANGES } from '../emulator/living-site.ts';
import { DEFAULT_API_KEY } from '../emulator/platform.ts';
import { SiteComparer } from '../src/content/compare.ts';
import { usePlatformPerTest } from './emulators.ts';

const T0 = Date.parse('2026-11-21T23:01:02.000Z');
const DAY_MS = 86_400_000;

const { clock, start, started } = usePlatformPerTest(T0);

async function api(path: string, method = 'GET', body?: unknown): Promise<Record<string, unknown>> {
  const answer = await fetch(`${started().url}${path}`, { method, headers: { authorization: `Bearer ${DEFAULT_API_KEY}` }, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await answer.json()) as Record<string, unknown>;
}

/** An export of `domain` run to its end on the fake clock: its status, link and the page files of its archive. */
async function exportOf(domain: string): Promise<{ status: Record<string, unknown>; bundle: Record<string, unknown>; pages: Map<string, string> }> {
  const { jobId } = await api('/v1/static-export/jobs', 'POST', { domain });
  clock.now += 60_000;
  const status = await api(`/v1/static-export/jobs/${String(jobId)}`);
  const bundle = await api(`/v1/static-export/jobs/${String(jobId)}/bundle`, 'POST');
  const archive = Buffer.from(await (await fetch(String(bundle.bundleUrl))).arrayBuffer());
  return { status, bundle, pages: await htmlFiles(archive) };
}

/** The HTML files of a tar.gz, read by the tar library the action unpacks with. */
async function htmlFiles(archive: Buffer): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  const parser = new Parser({
    onReadEntry: (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => (entry.path.endsWith('.html') ? pages.set(entry.path, Buffer.concat(chunks).toString('utf8')) : undefined));
    }
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('end', resolve);
    parser.on('error', reject);
    parser.end(archive);
  });
  return pages;
}

/** The action's content diff of two exports' pages. */
function compare(deployed: Map<string, string>, proposed: Map<string, string>) {
  const comparer = new SiteComparer();
  for (const [side, pages] of [['deployed', deployed], ['proposed', proposed]] as const) {
    const reader = comparer.reader(side);
    for (const [path, html] of pages) {
      const feed = reader.file(path)!;
      feed.write(Buffer.from(html));
      feed.end();
    }
  }
  return comparer.comparison();
}

describe('the platform emulator, started with no options', () => {
  it('signs links for 7 days, as S3 allows at most', async () => {
    await start();
    const { bundle } = await exportOf('docs.example.com');
    expect(bundle.expiresAt).toBe(new Date(Math.floor(clock.now / 1000) * 1000 + 7 * DAY_MS).toISOString());
    expect(String(bundle.bundleUrl)).toContain('&X-Amz-Expires=604800&');
  });

  it('states one page count: the job, the pages in its archive and the deployment that published them', async () => {
    await start({ deployments: { deployMs: 1000 } });
    started().deployments.push('main', 'a'.repeat(40));
    const { statusId } = await api('/v1/project/update/proj_docs', 'POST');
    clock.now += 5_000;
    const deployment = await api(`/v1/project/update-status/${String(statusId)}`);
    const { status, pages } = await exportOf('docs.example.com');
    expect(status).toMatchObject({ status: 'completed', pageCount: 120 });
    expect(pages.size).toBe(120);
    expect(deployment).toMatchObject({ status: 'success', summary: 'Deployed 120 pages' });
    expect(deployment.logs).toContain('Building 120 pages');
    // The export holds the commit the deployment published, where a test reads it and a reader does not.
    expect(pages.get('index.html')).toContain(`<!-- Published from commit ${'a'.repeat(40)} -->`);
  });

  it("changes a few pages from one export of a domain to the next: 2 added, 2 removed, 3 edited, as the action's content diff counts them", async () => {
    await start();
    const first = await exportOf('docs.example.com');
    const second = await exportOf('docs.example.com');
    const third = await exportOf('docs.example.com');
    for (const [before, after] of [[first, second], [second, third]]) {
      expect(compare(before!.pages, after!.pages)).toMatchObject({ deployedPages: 120, proposedPages: 120, unchanged: 115 });
      expect(compare(before!.pages, after!.pages).added).toHaveLength(2);
      expect(compare(before!.pages, after!.pages).removed).toHaveLength(2);
      expect(compare(before!.pages, after!.pages).changed).toHaveLength(3);
    }
    // The home page stays; another domain starts from its own first version.
    expect(third.pages.has('index.html')).toBe(true);
    const other = await exportOf('help.example.com');
    expect([...other.pages.keys()].sort()).toEqual([...first.pages.keys()].sort());
  });

  it('keeps the same pages when a test asks for no changes, and serves the old three pages when asked for them', async () => {
    await start({ profile: { queuedMs: 0, runMs: 1000, changes: NO_SITE_CHANGES } });
    const first = await exportOf('docs.example.com');
    const second = await exportOf('docs.example.com');
    expect(compare(first.pages, second.pages)).toMatchObject({ added: [], removed: [], changed: [], unchanged: 120 });
    started().profile = { queuedMs: 0, runMs: 1000, site: THREE_PAGE_SITE };
    const small = await exportOf('docs.example.com');
    expect(small.status.pageCount).toBe(3);
    expect([...small.pages.keys()]).toEqual(['index.html', 'guides/getting-started.html', 'api-reference/introduction.html']);
  });
});

describe('a site that changes between exports', () => {
  it('takes the changes it is given, never removes the home page, and keeps its count when as many pages go as come', () => {
    const sites = new LivingSites();
    const counts = [sites.next('docs.example.com', 10, DEFAULT_SITE_CHANGES), sites.next('docs.example.com', 10, DEFAULT_SITE_CHANGES)].map((site) => (site.pages as string[]).length);
    expect(counts).toEqual([10, 10]);
    expect(sites.nextPageCount(10, { added: 5, removed: 1, edited: 0 })).toBe(14);
    // Asked to remove more pages than there are, it removes all but the home page.
    const bare = sites.next('docs.example.com', 10, { added: 0, removed: 50, edited: 50 });
    expect(bare.pages).toEqual(['index.html']);
    const files = siteFiles('docs.example.com', { ...bare, buildId: 'b1' });
    expect(files.map((file) => file.path)).toEqual(['index.html', '_next/static/b1/app.css']);
  });

  it('is set from the command line: --pages-added, --pages-removed and --pages-edited', () => {
    expect(parseCliOptions(['--pages-added', '4', '--pages-edited', '0']).platform.profile?.changes).toEqual({ added: 4, edited: 0 });
    expect(parseCliOptions([]).platform.profile?.changes).toEqual({});
    expect(() => parseCliOptions(['--pages-removed', 'some'])).toThrow('--pages-removed expects a number >= 0, got "some"');
  });

  it("speaks today's static export API unless --api-shape says next or both", () => {
    expect([parseCliOptions([]).platform.apiShape, parseCliOptions(['--api-shape', 'next']).platform.apiShape, parseCliOptions(['--api-shape', 'both']).platform.apiShape]).toEqual([undefined, 'next', 'both']);
    expect(() => parseCliOptions(['--api-shape', 'v2'])).toThrow('--api-shape expects one of today, next, both, got "v2"');
  });
});

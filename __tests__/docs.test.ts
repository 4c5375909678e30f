// The README is read once by a newcomer, and docs/ holds the rest: the README stays under 200 lines
// with the block the action writes and a workflow to copy in its first 40, every input and output of
// the five action.yml files is in its action's table, in docs/ or the action's own README (read from
// action.yml now, so a new input needs a row), every figure is what scripts/docs.ts writes from
// dist/ and the committed measurements, and every link between the pages leads somewhere.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { parse } from 'yaml';
import {
  DIFF_MEASUREMENT,
  DOCUMENTS,
  LIMITS_MEASUREMENT,
  STARTUP_MEASUREMENT,
  UNPACK_MEASUREMENT,
  VALUES_MEASUREMENT,
  WAITING_MEASUREMENT,
  bundleSizes,
  computeFigures,
  renderBlocks,
  startupTimes
} from '../scripts/docs.ts';

const readme = readFileSync('README.md', 'utf8');
const ACTIONS = ['action.yml', 'renew/action.yml', 'host/action.yml', 'agent-job/action.yml', 'feedback/action.yml'];
/** Pages other branches add (the content diff, issue 25; the screenshot, issue 28). */
const ADDED_ELSEWHERE = ['docs/content-diff.md', 'docs/images/pull-request-body.png'];

/** GitHub's anchor for a heading. */
const anchorOf = (heading: string) =>
  heading
    .replace(/^#+\s*/, '')
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** The rows' first cells between a block's markers: the names the table documents. */
function namesIn(kind: 'inputs' | 'outputs', file: string): string[] {
  const pattern = new RegExp(`<!-- ${kind}: ${file.replace(/[./]/g, '\\$&')} -->\\n([\\s\\S]*?)<!-- /${kind} -->`);
  const block = DOCUMENTS.map((page) => pattern.exec(readFileSync(page, 'utf8'))).find((found) => found);
  if (!block) throw new Error(`no page has the ${kind} table of ${file}`);
  return [...block[1]!.matchAll(/^\| `([\w-]+)` \|/gm)].map((match) => match[1]!);
}

describe('the README', () => {
  it('fits in a first read: under 200 lines, and no table of inputs (those are in docs/ and each action\'s README)', () => {
    expect(readme.split('\n').length).toBeLessThan(200);
    expect(readme).not.toMatch(/<!-- (inputs|outputs): /);
  });

  it('shows in its first 40 lines the block the action writes and a whole workflow to copy', () => {
    const first = readme.split('\n').slice(0, 40).join('\n');
    expect(first).toMatch(/```yaml\nstaticExport:\n {2}enabled: true\n {2}bundleUrl: "https:\/\/[^"]+"\n/);
    const workflow = /```yaml\n(name: [\s\S]*?)```/.exec(first)?.[1];
    expect(workflow).toBeDefined();
    const parsed = parse(workflow!) as { on: unknown; jobs: Record<string, { 'runs-on': string; steps: { uses: string; with: Record<string, string> }[] }> };
    const [job] = Object.values(parsed.jobs);
    expect(job!.steps[0]!.uses).toBe('<owner>/<repo>@v1');
    expect(Object.keys(job!.steps[0]!.with)).toEqual(expect.arrayContaining(['api-key', 'domain', 'config-path']));
  });

  it('says which workflows to pick: push + nightly, or push + host', () => {
    const section = /## Which workflows to run\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
    expect(section).toContain('**Push + nightly**');
    expect(section).toContain('**Push + host**');
    for (const uses of ['<owner>/<repo>@v1', '<owner>/<repo>/renew@v1', '<owner>/<repo>/host@v1']) expect(section).toContain(uses);
  });

  it('opens with a table of contents that links every section', () => {
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]!).filter((title) => title !== 'Contents');
    const contents = /## Contents\n\n((?:- .+\n)+)/.exec(readme)?.[1] ?? '';
    expect(sections.length).toBeGreaterThanOrEqual(5);
    for (const title of sections) expect([title, contents.includes(`](#${anchorOf(title)})`)]).toEqual([title, true]);
  });

  it.each(ACTIONS)('has a row for every input and output %s declares', (file) => {
    const action = parse(readFileSync(file, 'utf8')) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
    expect(namesIn('inputs', file).sort()).toEqual(Object.keys(action.inputs).sort());
    expect(namesIn('outputs', file).sort()).toEqual(Object.keys(action.outputs).sort());
  });

  it('says what the reviewer sees, with the content diff and the pull request picture', () => {
    const section = /## What the reviewer sees\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
    expect(section).toContain('](docs/content-diff.md)');
    expect(section).toContain('![The pull request a push run opens](docs/images/pull-request-body.png)');
  });

  it('gives the two commands and the three workflows', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
    for (const name of ['Publish docs', 'Renew docs link', 'Docs bundle, hosted in our bucket']) expect(readme).toContain(`\`\`\`yaml\nname: ${name}\n`);
  });
});

describe('figures and tables written by scripts/docs.ts', () => {
  let figures: Record<string, string>;
  beforeAll(async () => {
    figures = await computeFigures();
  });

  it.each(DOCUMENTS)('%s holds what the script writes now (else: npm run docs)', (file) => {
    expect(renderBlocks(readFileSync(file, 'utf8'), figures).stale).toEqual([]);
  });

  it('measures the bundle sizes from dist/ and quotes the start-up times from the committed measurement', () => {
    const measured = JSON.parse(readFileSync(STARTUP_MEASUREMENT, 'utf8')) as { medianMs: Record<string, number> };
    expect(startupTimes()).toContain(`: ${measured.medianMs['dist/index.js']} ms on Node`);
    const rootBytes = readFileSync('dist/index.js').length;
    expect(bundleSizes()).toContain(`${(rootBytes / 1024 / 1024).toFixed(2)} MB for the root action's bundle`);
    // Both are in the docs, between their markers.
    const comparison = readFileSync('docs/comparison.md', 'utf8');
    expect(comparison).toContain(startupTimes());
    expect(comparison).toContain(bundleSizes());
  });

  it('quotes the emulator table from the committed measurement, and recomputes the seeded fake-clock tables', () => {
    const measured = JSON.parse(readFileSync(WAITING_MEASUREMENT, 'utf8')) as { rows: { profile: string; action: { requests: number } }[] };
    const comparison = readFileSync('docs/comparison.md', 'utf8');
    for (const row of measured.rows) expect(comparison).toContain(`| ${row.profile} | ${row.action.requests} · `);
    for (const name of ['waiting-emulator', 'waiting-side-by-side', 'waiting-trade-off']) expect(comparison).toContain(`<!-- figures: ${name} -->\n${figures[name]}\n<!-- /figures -->`);
  });

  it('quotes the values-file edit times from the committed measurement', () => {
    const measured = JSON.parse(readFileSync(VALUES_MEASUREMENT, 'utf8')) as { files: { coldMs: number; medianMs: number }[] };
    expect(readFileSync('docs/comparison.md', 'utf8')).toContain(`took ${measured.files[0]!.coldMs} ms and later ones ${measured.files[0]!.medianMs} ms`);
  });

  /** The benchmarks whose figures only a measurement file holds, and the page that quotes each. */
  const BENCHMARKS = [
    { name: 'limits', page: 'docs/comparison.md', file: LIMITS_MEASUREMENT },
    { name: 'unpack', page: 'docs/comparison.md', file: UNPACK_MEASUREMENT },
    { name: 'diff-cost', page: 'docs/content-diff.md', file: DIFF_MEASUREMENT }
  ];

  it.each(BENCHMARKS)('quotes $name from $file, which records the machine it ran on', ({ name, page, file }) => {
    const measured = JSON.parse(readFileSync(file, 'utf8')) as { node: unknown; cores: unknown; load: unknown; runs: unknown };
    expect([typeof measured.node, typeof measured.cores, typeof measured.load, typeof measured.runs]).toEqual(['string', 'number', 'number', 'number']);
    expect(figures[name]).toContain(`${measured.cores} cores, load ${measured.load as number}, Node ${measured.node as string}`);
    expect(readFileSync(page, 'utf8')).toContain(`<!-- figures: ${name} -->\n${figures[name]}\n<!-- /figures -->`);
  });

  it('writes each benchmark figure from its measurement: the slowest, largest and worst cases', () => {
    const limits = JSON.parse(readFileSync(LIMITS_MEASUREMENT, 'utf8')) as { files: { ms: number; rssMb: number }[]; sigterm: Record<string, { worstMs: number }> };
    expect(figures.limits).toContain(`${(limits.files.at(-1)!.ms / 1000).toFixed(2)} s and ${limits.files.at(-1)!.rssMb} MB peak at the 1 MB cap`);
    expect(figures.limits).toContain(`${(limits.sigterm.reading!.worstMs / 1000).toFixed(2)} s, ${(limits.sigterm.patching!.worstMs / 1000).toFixed(2)} s)`);
    const unpack = JSON.parse(readFileSync(UNPACK_MEASUREMENT, 'utf8')) as { medianMs: { unpackTarGz: number; tar: number }; memory: { unpackMb: number }[] };
    expect(figures.unpack).toContain(`unpacking alone ${(unpack.medianMs.unpackTarGz / 1000).toFixed(2)} s against \`tar -xzf\`'s ${(unpack.medianMs.tar / 1000).toFixed(2)} s`);
    for (const row of unpack.memory) expect(figures.unpack).toContain(`${row.unpackMb} MB for `);
    const diff = JSON.parse(readFileSync(DIFF_MEASUREMENT, 'utf8')) as { rows: { pages: number; alone: { ms: number }; withDiff: { ms: number; rssMb: number } }[] };
    expect(diff.rows.map((row) => row.pages)).toEqual([100, 1_000, 10_000, 2_000]);
    for (const row of diff.rows) expect(figures['diff-cost']).toContain(`| ${(row.alone.ms / 1000).toFixed(2)} s, `);
    for (const row of diff.rows) expect(figures['diff-cost']).toContain(`| ${(row.withDiff.ms / 1000).toFixed(2)} s, ${row.withDiff.rssMb} MB |`);
  });

  it.each([{ name: 'bundle-sizes', page: 'docs/comparison.md' }, ...BENCHMARKS])('finds a figure of $name edited by hand stale', ({ name, page }) => {
    // The page as the script writes it now (dist/ may be newer than the page), then the block's first digit changed.
    const text = renderBlocks(readFileSync(page, 'utf8'), figures).text.replace(new RegExp(`(<!-- figures: ${name} -->\\n[^\\d]*)(\\d)`), (_whole, before: string, digit: string) => `${before}${(Number(digit) + 1) % 10}`);
    expect(renderBlocks(text, figures).stale).toEqual([`figures: ${name}`]);
  });

  /** Limits the code sets (the cap of a values file, of an answer; the landing margin) and the example pull request's bundle. */
  const NOT_MEASURED = ['250 ms', '1 MB', '64 KB', '16 KB', '18 MB'];

  it.each(DOCUMENTS)('%s quotes no measured time, size or ratio outside the blocks the script writes', (file) => {
    const prose = readFileSync(file, 'utf8').replace(/<!-- (inputs|outputs|figures): [\w./-]+ -->\n[\s\S]*?<!-- \/\1 -->/g, '');
    const quoted = [...prose.matchAll(/\d+(?:\.\d+)? ?(?:ms|[MK]B)\b|\d\.\d+ s\b|\d(?:\.\d+)?×/g)].map((match) => match[0]);
    expect(quoted.filter((figure) => !NOT_MEASURED.includes(figure))).toEqual([]);
  });
});

describe('links between the pages', () => {
  it.each(DOCUMENTS)('%s links only to files and headings that exist', (file) => {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#');
      const resolved = path ? normalize(join(dirname(file), path)) : file;
      if (ADDED_ELSEWHERE.includes(resolved)) continue;
      if (!existsSync(resolved)) broken.push(target!);
      else if (anchor && resolved.endsWith('.md')) {
        const headings = [...readFileSync(resolved, 'utf8').matchAll(/^#+ .+$/gm)].map((match) => anchorOf(match[0]));
        if (!headings.includes(anchor)) broken.push(target!);
      }
    }
    expect(broken).toEqual([]);
  });
});

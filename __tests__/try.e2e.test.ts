// `npm run try` (scripts/try.ts) as a platform engineer runs it on their own chart: the README's three
// workflows, as written, through dist/ against the emulators, and the pages it writes read as GitHub
// would show them: links a reader can click, no Markdown left as text, one page count. Then three
// real charts' values files (fixtures/values-real/) each get the pull request a push run opens, an
// umbrella chart's folder is tried with --config-key (and refused with a wrong one, before anything
// runs), and production's link in its last days, or expired, shows the guard in what try prints.
// Run `npm run build` first: the workflows run the built bundle.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TryResult, tryChart } from '../scripts/try.ts';
import { PageTextReader } from '../src/content/page-text.ts';
import { readSetting } from '../src/values/values-file.ts';

/** Exports and deployments of a fraction of a second: the pages, not the waiting, are under test. */
const QUICK = { queuedMs: 50, runMs: 300, deployMs: 200 };
const CORPUS = ['1384microservices__Play.Catalog__helm__values.yaml', 'bitnami__charts__bitnami__postgresql__values.yaml', 'jupyterhub__zero-to-jupyterhub-k8s__jupyterhub__values.yaml'];

let out: string;
let result: TryResult;
let corpus: TryResult[];
let umbrella: TryResult;
let umbrellaFound: TryResult;
let guarded: TryResult;
let expired: TryResult;
let umbrellaFolder: string;
const printed: string[] = [];
const guardPrinted: string[] = [];
const expiredPrinted: string[] = [];

/** An umbrella chart's folder: Chart.yaml, its values.yaml (the block under mintlify:), a subchart with values of its own. */
function umbrellaChart(root: string): string {
  const folder = join(root, 'umbrella-chart');
  mkdirSync(join(folder, 'charts', 'postgresql'), { recursive: true });
  writeFileSync(join(folder, 'Chart.yaml'), 'apiVersion: v2\nname: docs\nversion: 0.1.0\ndependencies:\n  - name: postgresql\n    version: 12.x\n');
  copyFileSync('__tests__/fixtures/config/umbrella-values.yaml', join(folder, 'values.yaml'));
  writeFileSync(join(folder, 'charts', 'postgresql', 'values.yaml'), 'auth:\n  existingSecret: ""\n');
  return folder;
}

// All four runs at once: they spend their time waiting on emulated jobs and GitHub's spacing of writes.
beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'try-'));
  umbrellaFolder = umbrellaChart(out);
  const readmeValues = '__tests__/fixtures/config/values.yaml';
  [result, umbrella, umbrellaFound, guarded, expired, ...corpus] = await Promise.all([
    tryChart({ values: readmeValues, out: join(out, 'readme'), print: (line) => printed.push(line), times: QUICK }),
    tryChart({ values: umbrellaFolder, configKey: 'mintlify.staticExport', workflows: ['push'], out: join(out, 'umbrella'), print: () => {}, times: QUICK }),
    tryChart({ values: umbrellaFolder, workflows: ['push'], out: join(out, 'umbrella-found'), print: () => {}, times: QUICK }),
    // 36 hours left of a 7-day link: past its first half, inside the guard's last two days.
    // A base that requires a review: the nightly's renewal cannot merge itself, and waits with the guard's marks.
    tryChart({ values: readmeValues, productionLeftSeconds: 36 * 3600, requireReview: true, workflows: ['push', 'nightly'], out: join(out, 'guard'), print: (line) => guardPrinted.push(line), times: QUICK }),
    tryChart({ values: readmeValues, productionLeftSeconds: -3600, requireReview: true, workflows: ['push', 'nightly'], out: join(out, 'expired'), print: (line) => expiredPrinted.push(line), times: QUICK }),
    ...CORPUS.map((file, i) => tryChart({ values: `__tests__/fixtures/values-real/${file}`, workflows: ['push'], out: join(out, `corpus-${i}`), print: () => {}, times: QUICK }))
  ]);
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The text a reader sees on a rendered page, a line per block (title, paragraph, table cell…). */
function seenText(html: string): string[] {
  const reader = new PageTextReader();
  reader.write(Buffer.from(html));
  return reader.end().lines ?? [];
}

/** Every page count the text states: "120 pages", "120 after", and the number under a "Pages" heading cell. */
function pageCounts(lines: string[]): string[] {
  const counts = lines.flatMap((line) => [...line.matchAll(/(\d[\d,]*) (?:pages|after)\b/g)].map((match) => match[1]!));
  lines.forEach((line, i) => {
    if (/^Pages( exported)?$/.test(line)) counts.push(lines[i + 1]!);
  });
  return counts;
}

describe('npm run try', () => {
  it("runs the README's push, nightly and hosted workflows on your values file, and says where it wrote their pages", () => {
    expect(result.workflows.map((workflow) => [workflow.name, workflow.failed])).toEqual([
      ['push', false],
      ['nightly', false],
      ['hosted', false]
    ]);
    const [push, nightly, hosted] = result.workflows;
    expect(push!.pullRequest!.title).toBe('Static export: new bundle for docs.example.com');
    // The nightly run finds the proposed 7-day link valid long enough; the hosted run moves the same pull request to your bucket.
    expect(nightly!.steps[0]!.run!.outputs).toMatchObject({ skipped: 'true', 'pull-request-number': String(push!.pullRequest!.number) });
    expect(hosted!.pullRequest!.number).toBe(push!.pullRequest!.number);
    expect(hosted!.steps.map((step) => step.skipped ?? `exit ${step.run!.code}`)).toEqual([
      'exit 0',
      'aws-actions/configure-aws-credentials@v4 is another action: not run here',
      'a shell step: not run here (the kept archive is put on the emulated bucket by the step that checks it)',
      'exit 0'
    ]);
    for (const workflow of result.workflows) {
      for (const file of ['summary.md', 'summary.html', 'pull-request.md', 'pull-request.html', 'values.yaml', 'values.yaml.diff']) expect(existsSync(join(workflow.folder, file))).toBe(true);
      expect(printed.join('\n')).toContain(
        `Wrote ${workflow.folder}/: summary.md, summary.html, pull-request.md, pull-request.html, values.yaml (as the pull request proposes it), values.yaml.diff (its diff, as the pull request shows it), log.txt`
      );
    }
    // Each step's outputs are printed (the root action's include job-id; page-count is no output since issue 41).
    expect(printed.join('\n')).toMatch(/job-id = se_[0-9a-f]{16}/);
  });

  it('writes pages that read as GitHub shows them: clickable links, no Markdown left as text, one page count', () => {
    const [push] = result.workflows;
    const pages = result.workflows.flatMap((workflow) => [
      { name: `${workflow.name} summary`, html: readFileSync(join(workflow.folder, 'summary.html'), 'utf8') },
      { name: `${workflow.name} pull request`, html: readFileSync(join(workflow.folder, 'pull-request.html'), 'utf8') }
    ]);
    for (const { name, html } of pages) {
      const text = seenText(html).join('\n');
      expect({ name, literalMarkdown: ['**', '`', ']('].filter((mark) => text.includes(mark)) }).toEqual({ name, literalMarkdown: [] });
    }
    // Each summary links the pull request; the push's pull request links the pages a reader can open.
    for (const workflow of result.workflows) expect(workflow.summaryHtml).toContain(`<a href="${workflow.pullRequest!.url}">`);
    expect(push!.pullRequest!.html).toMatch(/<a href="https:\/\/docs\.example\.com\/[\w/-]+">/);
    const counts = new Set(pages.flatMap(({ html }) => pageCounts(seenText(html))));
    expect([...counts]).toEqual(['120']);
  });
});

describe('npm run try on real charts', () => {
  it('opens a pull request for each of three values files of the corpus that adds the block and keeps every line of the file', () => {
    corpus.forEach((run, i) => {
      const [push] = run.workflows;
      expect({ file: CORPUS[i], failed: push!.failed }).toEqual({ file: CORPUS[i], failed: false });
      expect(push!.pullRequest!.body).toContain('deploy/values.yaml');
      const before = readFileSync(`__tests__/fixtures/values-real/${CORPUS[i]}`, 'utf8').split('\n');
      const after = readFileSync(join(push!.folder, 'values.yaml'), 'utf8');
      // The file's own lines are all there, in order; the block's three lines are all that is added.
      const lines = after.split('\n');
      let at = 0;
      for (const line of lines) if (line === before[at]) at++;
      expect(at).toBe(before.length);
      expect(lines.length - before.length).toBeLessThanOrEqual(4);
      expect(readSetting('values.yaml', after, 'staticExport', 'bundleUrl')).toBe(push!.steps[0]!.run!.outputs['bundle-url']);
    });
  });
});

describe('npm run try on any chart', () => {
  it("tries an umbrella chart's folder with --config-key: the block under mintlify: is the one proposed", () => {
    const [push] = umbrella.workflows;
    expect({ failed: push!.failed, log: push!.failed ? push!.steps.map((step) => step.run?.log).join('\n') : '' }).toEqual({ failed: false, log: '' });
    expect(umbrella.configKey).toBe('mintlify.staticExport');
    const proposed = readFileSync(join(push!.folder, 'values.yaml'), 'utf8');
    expect(readSetting('values.yaml', proposed, 'mintlify.staticExport', 'bundleUrl')).toBe(push!.steps[0]!.run!.outputs['bundle-url']);
    expect(readSetting('values.yaml', proposed, 'staticExport', 'bundleUrl')).toBeUndefined();
    expect(push!.pullRequest!.body).toContain('| `mintlify.staticExport.bundleUrl` |');
  });

  it('finds the nested block itself without --config-key, and every run edits it', () => {
    const [push] = umbrellaFound.workflows;
    expect({ configKey: umbrellaFound.configKey, failed: push!.failed, log: push!.failed ? push!.steps.map((step) => step.run?.log).join('\n') : '' }).toEqual({ configKey: 'mintlify.staticExport', failed: false, log: '' });
    const proposed = readFileSync(join(push!.folder, 'values.yaml'), 'utf8');
    expect(readSetting('values.yaml', proposed, 'mintlify.staticExport', 'bundleUrl')).toBe(push!.steps[0]!.run!.outputs['bundle-url']);
  });

  it('shows the same link as "before" in the pull request and in the diff of the file', () => {
    for (const run of [umbrella, result]) {
      const pull = run.workflows[0]!.pullRequest!;
      const before = /\.bundleUrl` \| before: `[^`]+` `\/bundles\/(se_\w+)\//.exec(pull.body)?.[1];
      const diff = readFileSync(join(run.workflows[0]!.folder, pull.diffFile!), 'utf8');
      const removed = diff.split('\n').filter((line) => line.startsWith('-') && line.includes('bundleUrl'));
      expect(before).toMatch(/^se_/);
      expect(removed).toEqual([expect.stringContaining(`/bundles/${before}/`)]);
    }
  });

  it('refuses a key that names no block of the file before anything runs, naming where the file keeps its settings', async () => {
    const refusedOut = join(out, 'refused');
    await expect(tryChart({ values: umbrellaFolder, configKey: 'docs.staticExport', out: refusedOut, print: () => {}, times: QUICK })).rejects.toThrow(
      '--config-key docs.staticExport names no block in values.yaml: it keeps its static export settings at "mintlify.staticExport". Give --config-key mintlify.staticExport. Nothing was run.'
    );
    expect(existsSync(refusedOut)).toBe(false);
  });

  it("shows the guard's first line and label on the renewal when production's link is past its first half, and when it expired", () => {
    for (const [run, lines, when] of [
      [guarded, guardPrinted, /expires in 3[56] hours/],
      [expired, expiredPrinted, /expired 1 hour ago/]
    ] as const) {
      // The push's content pull request never carries them: production's life waits on the nightly's renewal.
      expect(run.workflows[0]!.pullRequest!.labels).not.toContain('production-link-expiring');
      const pull = run.workflows[1]!.pullRequest!;
      expect(pull.title).toBe('Static export: renew the bundle link');
      expect(pull.labels).toContain('production-link-expiring');
      expect(pull.firstLine).toMatch(new RegExp(`^🛑 \\*\\*Production's link ${when.source}\\*\\*`));
      const text = lines.join('\n');
      expect(text).toContain('    labels: production-link-expiring (production waits on this pull request: its link runs out)');
      expect(text).toMatch(new RegExp(`    first line: 🛑 Production's link ${when.source} \\(`));
    }
    // With five days left (the default), the guard is quiet.
    expect(result.workflows[0]!.pullRequest!.labels).not.toContain('production-link-expiring');
    expect(printed.join('\n')).not.toContain('first line:');
  });
});

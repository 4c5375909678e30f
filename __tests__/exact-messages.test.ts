// Every message says exactly what happened (issue 36), read from the functions that write it: plain
// HTTP for a hosted URL on purpose only, the docs link, the summary's heading under a failed guard,
// a hosted URL copyable whole, and the README's failure table quoting what the ::error:: line says.
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { inputVariables } from '../emulator/runner.ts';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@actions/core';
import { docsLink } from '../src/action/docs-link.ts';
import { InputError } from '../src/action/inputs.ts';
import { readPublishInputs } from '../src/publish/inputs.ts';
import { showChange } from '../src/publish/pull-request-body.ts';
import { writeFailureSummary, writeHostedSummary, writePublishSummary } from '../src/publish/summary.ts';
import { templateProblem } from '../src/storage/durable-url.ts';
import { checkLinkMargin } from '../src/storage/link-margin.ts';

const HOSTED = 'http://minio.storage.svc.invalid:9000/docs-bundles/se_0123456789abcdef/bundle.tar.gz';

describe('plain HTTP for a hosted URL, on purpose only', () => {
  it('is refused without allow-plain-http, naming the input that allows it', () => {
    expect(templateProblem('http://minio.storage.svc.invalid:9000/docs-bundles/<job-id>/bundle.tar.gz')).toBe(
      "'http://minio.storage.svc.invalid:9000/docs-bundles/<job-id>/bundle.tar.gz' is plain http://, which anyone on the path can read and replace: use https://, or, for storage inside the cluster's network (a MinIO or Ceph gateway), set allow-plain-http: true."
    );
  });

  it('is accepted with allow-plain-http, and nothing else is (ftp, credentials)', () => {
    expect(templateProblem('http://minio.storage.svc.invalid:9000/docs-bundles/<job-id>/bundle.tar.gz', true)).toBeUndefined();
    expect(templateProblem('ftp://minio.storage.svc.invalid/<job-id>.tar.gz', true)).toContain('must start with https:// (or http:// with allow-plain-http: true');
    expect(templateProblem('http://user:pass@minio.storage.svc.invalid/<job-id>.tar.gz', true)).toContain('user name or password');
  });

  describe('as an input', () => {
    const given = { 'bundle-url-template': 'http://minio.storage.svc.invalid:9000/b/<job-id>/bundle.tar.gz', 'job-id': 'se_0123456789abcdef', 'archive-path': 'out/bundle.tar.gz', 'config-path': 'deploy/values.yaml', 'github-token': 'ghs_x' };
    const names = (inputs: Record<string, string>) => Object.keys(inputVariables(inputs));
    const set = (inputs: Record<string, string>) => {
      Object.assign(process.env, inputVariables(inputs));
    };
    beforeAll(() => {
      process.env.GITHUB_WORKSPACE = mkdtempSync(join(tmpdir(), 'plain-http-'));
      process.env.GITHUB_REPOSITORY = 'acme/deploy';
    });
    afterEach(() => {
      for (const name of names({ ...given, 'allow-plain-http': '' })) delete process.env[name];
    });

    it('allow-plain-http: true reads the template; without it, the refusal names the input', () => {
      set(given);
      expect(() => readPublishInputs('host')).toThrow(new InputError('bundle-url-template', templateProblem(given['bundle-url-template'])!));
      set({ 'allow-plain-http': 'true' });
      expect(readPublishInputs('host').durable?.template).toBe(given['bundle-url-template']);
    });

    it('allow-plain-http refuses a word that is not true or false', () => {
      set({ ...given, 'allow-plain-http': 'yes please' });
      expect(() => readPublishInputs('host')).toThrow("Input 'allow-plain-http'");
    });
  });
});

describe('the docs link in "may not outlive the review"', () => {
  it('is a full link to the section, at the action version the runner runs', () => {
    expect(docsLink('docs/hosting.md', 'links-that-outlive-the-review', { GITHUB_SERVER_URL: 'https://github.com', GITHUB_ACTION_REPOSITORY: 'acme/static-export-action', GITHUB_ACTION_REF: 'v1.2.0' })).toBe(
      'https://github.com/acme/static-export-action/blob/v1.2.0/docs/hosting.md#links-that-outlive-the-review'
    );
  });

  it('for uses: ./ is the workflow repository at its commit; outside a runner, the path', () => {
    expect(docsLink('docs/hosting.md', 'a', { GITHUB_REPOSITORY: 'acme/docs', GITHUB_SHA: 'abc123' })).toBe('https://github.com/acme/docs/blob/abc123/docs/hosting.md#a');
    expect(docsLink('docs/hosting.md', 'a', {})).toBe("docs/hosting.md#a in this action's repository");
  });

  it('names the section that exists in docs/hosting.md', () => {
    expect(readFileSync('docs/hosting.md', 'utf8')).toContain('\n## Links that outlive the review\n');
    const now = Date.parse('2026-11-27T00:00:00Z');
    const short = checkLinkMargin(new Date(now + 3_600_000).toISOString(), 72 * 3_600_000, now, 'https://github.com/o/r/blob/v1/docs/hosting.md#links-that-outlive-the-review');
    expect(short?.note).toContain('see https://github.com/o/r/blob/v1/docs/hosting.md#links-that-outlive-the-review)');
  });
});

describe('the job summary', () => {
  let file: string;
  beforeAll(() => {
    file = join(mkdtempSync(join(tmpdir(), 'summary-')), 'summary');
    writeFileSync(file, '');
    process.env.GITHUB_STEP_SUMMARY = file;
  });
  const written = () => {
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, '');
    core.summary.emptyBuffer();
    return text;
  };
  const now = new Date().toISOString();
  const exported = {
    job: { jobId: 'se_0123456789abcdef', status: 'completed' as const, progress: 100, pageCount: 3, createdAt: now, updatedAt: now },
    bundle: { jobId: 'se_0123456789abcdef', bundleUrl: 'https://static-exports.s3.invalid/se_0123456789abcdef/bundle.tar.gz', sizeBytes: 1024, expiresAt: now },
    started: true,
    waitedMs: 1000
  };

  it('does not say "completed" under the 🛑 of a failed step', async () => {
    await writePublishSummary(exported, 'docs.example.com', undefined, undefined, undefined, undefined, { level: 'fail', urgent: true, labelled: true, message: "Production's link expires soon.", markdown: "Production's link expires soon." });
    const failed = written();
    expect(failed).toContain('🛑');
    expect(failed).toContain("<h2>Static export of docs.example.com: exported, but the step failed on production's link</h2>");
    expect(failed).not.toContain('completed');
    await writePublishSummary(exported, 'docs.example.com');
    expect(written()).toContain('<h2>Static export of docs.example.com: completed</h2>');
  });

  it("renders a message's code spans as code and its links as links, with nothing literal left", async () => {
    await writeFailureSummary({ message: "The API's answer lacks the required field `bundleUrl`. See https://github.com/o/r/blob/v1/docs/behaviour.md#errors-and-what-to-do." });
    const said = /<p><strong>What happened:<\/strong> (.*?)<\/p>/.exec(written())?.[1];
    expect(said).toBe(
      'The API\'s answer lacks the required field <code>bundleUrl</code>. See <a href="https://github.com/o/r/blob/v1/docs/behaviour.md#errors-and-what-to-do">https://github.com/o/r/blob/v1/docs/behaviour.md#errors-and-what-to-do</a>.'
    );
  });

  it('shows a hosted URL in one code span, to copy whole', async () => {
    const config = {
      target: { repo: { owner: 'acme', repo: 'deploy' }, path: 'deploy/values.yaml', key: 'staticExport', prBranch: 'static-export/deploy-values.yaml', labels: [], dryRun: true },
      update: { changed: false, operation: 'none' as const, changes: [], baseBranch: 'main', pending: false }
    };
    await writeHostedSummary(HOSTED, 'never', { sha256: 'ab'.repeat(32), bytes: 1024 }, false, config);
    expect(written()).toContain(`<th>URL</th><td><code>${HOSTED}</code></td>`);
  });
});

describe('the hosted pull request', () => {
  it('shows the URL in one code span, copyable whole; a presigned link keeps no signature', () => {
    expect(showChange({ before: '', after: HOSTED })[1]).toBe(`\`${HOSTED}\``);
    const [, presigned] = showChange({ before: '', after: 'https://static-exports.s3.invalid/se_0123456789abcdef/bundle.tar.gz?X-Amz-Date=20261127T000000Z&X-Amz-Expires=3600&X-Amz-Signature=0f3c9d0f3c9d' });
    expect(presigned).not.toContain('0f3c9d');
  });
});

describe("the README's failure table", () => {
  /** The text of src/ but the summaries (text only the job summary shows): what an ::error:: line can say. */
  function sourceText(): string {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && !path.endsWith('summary.ts')) files.push(path);
      }
    };
    walk('src');
    return files.map((path) => readFileSync(path, 'utf8')).join('\n');
  }

  it('quotes text that is in the ::error:: line, not only in the summary', () => {
    const readme = readFileSync('README.md', 'utf8');
    const table = /## When it fails\n[\s\S]*?\n\| you see \| do \|\n\|---\|---\|\n((?:\|.*\n)+)/.exec(readme)?.[1] ?? '';
    const quotes = [...table.matchAll(/^\| (.*?) \| /gm)].flatMap((row) => [...row[1]!.matchAll(/`([^`]+)`/g)].map((quote) => quote[1]!));
    expect(quotes.length).toBeGreaterThanOrEqual(8);
    const source = sourceText();
    // Each run of words between the "…" a quote leaves out is said by some message.
    // InputError writes `Input '<name>': ` before its message.
    expect(new InputError('project-id', 'is needed').message).toBe("Input 'project-id': is needed");
    const pieces = quotes.flatMap((quote) =>
      quote
        .replace(/^Input '[\w-]+': /, '')
        .replaceAll('se_…', '…')
        .split('…')
        .map((piece) => piece.trim().replace(/^[.:,] */, '').replace(/[.:,(]$/, '').trim())
    );
    for (const piece of pieces.filter((text) => text.length >= 8)) expect([piece, source.includes(piece)]).toEqual([piece, true]);
  });
});

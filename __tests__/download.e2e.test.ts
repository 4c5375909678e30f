// download-path, with the real publish action in this process (in-process.ts). The bundle the emulator serves is downloaded,
// checked and unpacked where a later step (upload-pages-artifact, a deploy) finds it.
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildTar, buildZip, defaultSiteFiles } from '../emulator/archive.ts';
import { useEmulators, useTempDir } from './emulators.ts';
import { runInProcess } from './in-process.ts';

// No test here proposes a change; the action loads its GitHub client all the same.
const { platform: emulator, publish, inputs } = useEmulators({ platform: { profile: { queuedMs: 50, runMs: 300 } }, reset: true });
const workspace = useTempDir('workspace-');

const run = (extra: Record<string, string>) => runInProcess(publish, inputs(extra), { GITHUB_WORKSPACE: workspace() });

const filesUnder = (dir: string, prefix = ''): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]
  );

describe('download-path', () => {
  it('unpacks the bundle into the workspace and reports its path, file count and checksum', async () => {
    const result = await run({ 'download-path': 'site' });
    expect(result.code).toBe(0);
    const site = join(workspace(), 'site');
    expect(result.outputs['bundle-path']).toBe(site);
    const files = filesUnder(site).sort();
    expect(files).toContain('index.html');
    // The summary says what the later step gets (the root action's outputs stop at bundle-path).
    expect(result.summary).toContain(`<td>${files.length.toLocaleString('en-US')} (`);
    // The checksum is of the archive as the link serves it.
    const archive = Buffer.from(await (await fetch(result.outputs['bundle-url'])).arrayBuffer());
    const sha256 = createHash('sha256').update(archive).digest('hex');
    expect(result.summary).toContain(`<code>${sha256}</code>`);
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toContain('docs.example.com');
    // One line says what was unpacked where, named as the input gave it.
    const unpacked = result.log.split('\n').filter((line) => line.includes('Unpacked'));
    expect(unpacked).toEqual([expect.stringMatching(new RegExp(`^Unpacked ${files.length} files \\([\\d.]+ (B|KB)\\) from a [\\d.]+ (B|KB) tar\\.gz into site in [\\d.]+ s; sha256 ${sha256}\\.$`))]);
    // The summary has the same facts for whoever reads the run later.
    expect(result.summary).toContain('<h3>Downloaded site</h3>');
    expect(result.summary).toContain('<code>site</code> (the <code>bundle-path</code> output)');
    expect(result.summary).toContain(`<th>Files</th><td>${files.length} (`);
    expect(result.summary).toContain(`<code>${sha256}</code>`);
    // Nothing but the site is left in the workspace: no staging folder, no temp archive.
    expect(readdirSync(workspace())).toEqual(['site']);
  });

  it('unpacks a zip bundle too, whatever the link calls it', async () => {
    const jobId = emulator.seedExportJob({ domain: 'docs.example.com', archive: buildZip(defaultSiteFiles('docs.example.com', 12)) });
    const result = await run({ 'job-id': jobId, 'download-path': 'site' });
    expect(result.code).toBe(0);
    expect(filesUnder(join(workspace(), 'site'))).toContain('index.html');
  });

  it('refuses a directory that holds files, before any request', async () => {
    mkdirSync(join(workspace(), 'site'));
    writeFileSync(join(workspace(), 'site', 'keep.txt'), 'mine');
    const result = await run({ 'download-path': 'site' });
    expect(result.code).toBe(1);
    expect(result.log).toContain("::error::download-path 'site' already exists and is not empty (keep.txt).");
    expect(emulator.requests).toEqual([]);
    expect(readdirSync(join(workspace(), 'site'))).toEqual(['keep.txt']);
  });

  it('refuses links over the folders an earlier entry implies (d/e/g/L2/evil.txt, then d/e/g/L2 -> ../../.., then d/e -> ..), and writes nothing outside', async () => {
    const archive = gzipSync(
      buildTar([
        ...defaultSiteFiles('docs.example.com', 3),
        { path: 'd/e/g/L2/evil.txt', content: 'evil' },
        { path: 'd/e/g/L2', type: 'symlink', linkpath: '../../..' },
        { path: 'd/e', type: 'symlink', linkpath: '..' }
      ])
    );
    const jobId = emulator.seedExportJob({ domain: 'docs.example.com', archive });
    const result = await run({ 'job-id': jobId, 'download-path': 'deep/er/site' });
    expect(result.code).toBe(1);
    expect(result.log).toContain("::error::The bundle holds a link 'd/e/g/L2' where its earlier entry 'd/e/g/L2/evil.txt' needs a folder 'd/e/g/L2'");
    // Not the site, not a staging folder, not the file two levels above it.
    expect(filesUnder(workspace())).toEqual([]);
  });

  it('refuses a bundle without index.html, leaves nothing behind, and proposes nothing', async () => {
    const jobId = emulator.seedExportJob({ domain: 'docs.example.com', archive: buildZip([{ path: 'readme.txt', content: 'no site here', type: 'file' }]) });
    const result = await run({ 'job-id': jobId, 'download-path': 'site' });
    expect(result.code).toBe(1);
    expect(result.log).toMatch(/::error::.*index\.html/);
    expect(existsSync(join(workspace(), 'site'))).toBe(false);
    expect(readdirSync(workspace())).toEqual([]);
    expect(result.summary).toContain('exported, but a later step failed');
  });
});

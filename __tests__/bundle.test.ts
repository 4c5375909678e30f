// download-path: the bundle downloaded from the emulator's presigned link, checked, unpacked.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type ArchiveEntry, buildTar, buildZip } from '../emulator/archive.ts';
import { startPlatformEmulator } from '../emulator/platform.ts';
import type { EmulatorOptions, PlatformEmulator } from '../emulator/platform.ts';
import { type Bundle, generateBundle } from '../src/platform/static-export.ts';
import { ApiClient } from '../src/platform/transport.ts';
import { BundleError, type DownloadBundleOptions, type DownloadedBundle, downloadBundle } from '../src/bundle/download.ts';
import { DEFAULT_LIMITS } from '../src/bundle/guard.ts';
import { unpackZip } from '../src/bundle/unpack.ts';

const T0 = Date.parse('2026-11-21T23:01:02.000Z');
let now = T0;
let emulator: PlatformEmulator | undefined;
let client: ApiClient | undefined;
let work = '';

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'bundle-test-'));
});

afterEach(async () => {
  client?.dispose();
  await emulator?.close();
  emulator = undefined;
  client = undefined;
  await rm(work, { recursive: true, force: true });
});

async function start(options: EmulatorOptions = {}): Promise<PlatformEmulator> {
  now = T0;
  emulator = await startPlatformEmulator({ clock: () => now, ...options });
  client = new ApiClient({ baseUrl: emulator.url, apiKey: 'mint_test_admin_key', minBackoffMs: 1 });
  return emulator;
}

/** A finished job whose link serves `archive`, and its first bundle link. */
async function serve(archive: Buffer): Promise<{ jobId: string; bundle: Bundle }> {
  const jobId = emulator!.seedExportJob({ domain: 'docs.example.com', archive });
  return { jobId, bundle: await generateBundle(client!, jobId) };
}

interface Run {
  result?: DownloadedBundle;
  error?: BundleError;
  log: string[];
  renewals: number;
}

async function download(archive: Buffer, options: Partial<DownloadBundleOptions> = {}): Promise<Run> {
  const { jobId, bundle } = await serve(archive);
  const run: Run = { log: [], renewals: 0 };
  try {
    run.result = await downloadBundle({
      bundle,
      directory: join(work, 'site'),
      renew: () => {
        run.renewals += 1;
        return generateBundle(client!, jobId);
      },
      log: (line) => run.log.push(line),
      retries: 2,
      minBackoffMs: 1,
      ...options
    });
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    run.error = error;
  }
  return run;
}

const requestsTo = (route: string) => emulator!.requests.filter((request) => request.route === route);

/** Every entry below `dir`: a file's content, a link's target, or '/' for a folder. */
async function tree(dir: string, prefix = ''): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    const key = prefix + name;
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) found[key] = `-> ${await readlink(path)}`;
    else if (stats.isDirectory()) Object.assign(found, { [`${key}/`]: '/' }, await tree(path, `${key}/`));
    else found[key] = createHash('sha256').update(await readFile(path)).digest('hex');
  }
  return found;
}

const page = (title: string) => `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`;
const INDEX: ArchiveEntry = { path: 'index.html', content: page('Home') };

// A site with what a real export holds, and a little more: folders, a binary, an empty file, a
// file large enough to stream, an executable, a link inside the tree.
const SITE: ArchiveEntry[] = [
  INDEX,
  { path: 'guides', type: 'directory' },
  { path: 'guides/getting-started.html', content: page('Getting started') },
  { path: 'api-reference/introduction.html', content: page('API reference') },
  { path: '_next/static/chunks/main.js', content: 'console.log("ready");\n' },
  { path: '_next/static/media/logo.bin', content: randomBytes(3000) },
  { path: '_next/static/media/video.bin', content: randomBytes(1_500_000) },
  { path: 'empty.txt', content: '' },
  { path: 'tools/serve.sh', content: '#!/bin/sh\nexec python3 -m http.server\n', mode: 0o755 },
  { path: 'start.html', type: 'symlink', linkpath: 'guides/getting-started.html' }
];

const tarGz = (entries: ArchiveEntry[]) => gzipSync(buildTar(entries));

describe('downloadBundle unpacks a bundle', () => {
  it('unpacks a tar.gz and a zip of the same site to the same tree, with the archive hash and counts', async () => {
    await start();
    const archives = { 'tar.gz': tarGz(SITE), zip: buildZip(SITE) };
    const trees: Record<string, Record<string, string>> = {};
    for (const [format, archive] of Object.entries(archives)) {
      const run = await download(archive, { directory: join(work, format) });
      expect(run.error).toBeUndefined();
      expect(run.result).toMatchObject({
        path: join(work, format),
        files: 8,
        bytes: archive.length,
        sha256: createHash('sha256').update(archive).digest('hex'),
        format,
        renewed: false
      });
      trees[format] = await tree(join(work, format));
      expect(run.log.at(-1)).toMatch(new RegExp(`^Unpacked 8 files \\(1\\.\\d MB\\) from a .* ${format.replace('.', '\\.')} into .*; sha256 [0-9a-f]{64}\\.$`));
      // The link's signature never reaches the log.
      expect(run.log.join('\n')).not.toMatch(/X-Amz-Signature|X-Amz-Credential/);
    }
    expect(trees['tar.gz']).toEqual(trees.zip);
    expect(Object.keys(trees.zip)).toEqual([
      '_next/', '_next/static/', '_next/static/chunks/', '_next/static/chunks/main.js', '_next/static/media/', '_next/static/media/logo.bin',
      '_next/static/media/video.bin', 'api-reference/', 'api-reference/introduction.html', 'empty.txt', 'guides/',
      'guides/getting-started.html', 'index.html', 'start.html', 'tools/', 'tools/serve.sh'
    ]);
    expect(trees.zip['start.html']).toBe('-> guides/getting-started.html');
    expect(await readFile(join(work, 'zip', 'start.html'), 'utf8')).toBe(page('Getting started'));
    expect((await lstat(join(work, 'zip', 'tools/serve.sh'))).mode & 0o777).toBe(0o755);
    expect((await lstat(join(work, 'tar.gz', 'index.html'))).mode & 0o111).toBe(0);
    // Only the two directories: no staging folder or zip file left beside them.
    expect((await readdir(work)).sort()).toEqual(['tar.gz', 'zip']);
    // The storage link is not the admin API: the key never goes there.
    expect(requestsTo('download').map((request) => request.authorization)).toEqual([undefined, undefined]);
  });

  it('detects the format by its first bytes, whatever the link calls the file', async () => {
    await start(); // the emulator's links end in bundle.tar.gz
    const run = await download(buildZip(SITE));
    expect(run.result?.format).toBe('zip');
    expect(requestsTo('download')[0].path).toMatch(/bundle\.tar\.gz$/);
  });

  it('unpacks into an empty directory that already exists', async () => {
    await start();
    await mkdir(join(work, 'site'));
    const run = await download(tarGz(SITE));
    expect(run.result?.files).toBe(8);
    expect(await readFile(join(work, 'site', 'index.html'), 'utf8')).toBe(page('Home'));
  });

  it('refuses a download-path that holds files, before downloading, and leaves them be', async () => {
    await start();
    await mkdir(join(work, 'site'));
    await writeFile(join(work, 'site', 'notes.md'), 'mine');
    const run = await download(tarGz(SITE));
    expect(run.error?.message).toBe(
      `download-path '${join(work, 'site')}' already exists and is not empty (notes.md). The action does not delete files it did not write: point download-path at a new directory, or remove this one in an earlier step.`
    );
    expect(requestsTo('download')).toHaveLength(0);
    expect(await readdir(join(work, 'site'))).toEqual(['notes.md']);
    expect(await readdir(work)).toEqual(['site']);
  });
});

describe('downloadBundle refuses hostile archives, and writes nothing anywhere', () => {
  const outside = () => join(work, 'outside.html');
  const cases: [string, () => Buffer, RegExp][] = [
    ['a ../ entry', () => tarGz([INDEX, { path: '../outside.html', content: 'x' }]), /holds an entry '\.\.\/outside\.html' whose path climbs with '\.\.'/],
    ['a ../ hidden in the middle', () => tarGz([INDEX, { path: 'guides/../../outside.html', content: 'x' }]), /whose path climbs with '\.\.'/],
    ['an absolute path', () => tarGz([INDEX, { path: outside(), content: 'x' }]), /holds an entry '\/.*outside\.html' with an absolute path/],
    ['a symlink out of the tree', () => tarGz([INDEX, { path: 'escape', type: 'symlink', linkpath: '../..' }]), /holds a link 'escape' to '\.\.\/\.\.', which points outside the directory/],
    ['a symlink to an absolute path', () => tarGz([INDEX, { path: 'passwd', type: 'symlink', linkpath: '/etc/passwd' }]), /a link 'passwd' to '\/etc\/passwd', which is an absolute path/],
    [
      'a file written through a symlink',
      () => tarGz([INDEX, { path: 'up', type: 'symlink', linkpath: 'guides' }, { path: 'guides', type: 'directory' }, { path: 'up/page.html', content: 'x' }]),
      /holds an entry 'up\/page\.html' below 'up', which it holds as a symlink/
    ],
    [
      'a symlink through another symlink',
      () => tarGz([INDEX, { path: 'a/b', type: 'symlink', linkpath: '..' }, { path: 'c', type: 'symlink', linkpath: 'a/b/../outside.html' }]),
      /a link 'c' to 'a\/b\/\.\.\/outside\.html', which goes through another link \('a\/b'\)/
    ],
    [
      'a symlink that leads out through a link written after it',
      () => tarGz([INDEX, { path: 'a', type: 'directory' }, { path: 'c', type: 'symlink', linkpath: 'a/b/..' }, { path: 'a/b', type: 'symlink', linkpath: '../..' }]),
      /holds a link 'a\/b' to '\.\.\/\.\.', which points outside the directory/
    ],
    [
      'a symlink whose target becomes a link out only on disk',
      () => tarGz([INDEX, { path: 'a', type: 'directory' }, { path: 'c', type: 'symlink', linkpath: 'a/b/../..' }, { path: 'a/b', type: 'symlink', linkpath: '..' }]),
      /holds a link 'c' that leads outside the directory, through other links/
    ],
    ['a hard link out of the tree', () => tarGz([INDEX, { path: 'hard', type: 'hardlink', linkpath: '../../etc/passwd' }]), /a link 'hard' to '\.\.\/\.\.\/etc\/passwd' whose path climbs/],
    ['a character device', () => tarGz([INDEX, { path: 'null', type: 'character-device' }]), /holds a device file at 'null'/],
    ['a block device', () => tarGz([INDEX, { path: 'sda', type: 'block-device' }]), /holds a device file at 'sda'/],
    ['a FIFO', () => tarGz([INDEX, { path: 'pipe', type: 'fifo' }]), /holds a FIFO \(named pipe\) at 'pipe'/],
    ['a zip with a ../ entry', () => buildZip([INDEX, { path: '../outside.html', content: 'x' }]), /holds an entry '\.\.\/outside\.html' whose path climbs/],
    ['a zip with a symlink out', () => buildZip([INDEX, { path: 'escape', type: 'symlink', linkpath: '../../etc' }]), /holds a link 'escape' to '\.\.\/\.\.\/etc', which points outside/],
    ['a zip with a device', () => buildZip([INDEX, { path: 'null', type: 'character-device' }]), /holds a device file at 'null'/]
  ];

  it.each(cases)('refuses %s', async (_name, archive, message) => {
    await start();
    const run = await download(archive());
    expect(run.error?.kind).toBe('unsafe');
    expect(run.error?.message).toMatch(message);
    expect(run.error?.message).toMatch(/so the archive was refused and nothing was unpacked/);
    // Not the directory, not a staging folder, not the file outside: the parent is empty.
    expect(await readdir(work)).toEqual([]);
    expect(requestsTo('download')).toHaveLength(1); // refused, not retried
  });

  it('stops a bomb of bytes at the entry that crosses the limit', async () => {
    await start();
    const bomb = tarGz([INDEX, { path: 'zeros.bin', content: Buffer.alloc(8 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(20_000);
    const run = await download(bomb, { limits: { maxBytes: 4 * 1024 * 1024 } });
    expect(run.error?.message).toBe("The bundle unpacks to more than 4.0 MB (reached at 'zeros.bin'), the most this action unpacks. It may be a decompression bomb; nothing was kept.");
    expect(await readdir(work)).toEqual([]);
  });

  it('stops a bomb of files at the entry that crosses the limit, in a tar.gz and in a zip', async () => {
    await start();
    const many: ArchiveEntry[] = [INDEX, ...Array.from({ length: 300 }, (_, i) => ({ path: `f/${i}.html`, content: '' }))];
    for (const archive of [tarGz(many), buildZip(many)]) {
      const run = await download(archive, { limits: { maxFiles: 100 } });
      expect(run.error?.kind).toBe('limit');
      expect(run.error?.message).toBe('The bundle holds more than 100 files and folders, the most this action unpacks. It may be a decompression bomb; nothing was kept.');
      expect(await readdir(work)).toEqual([]);
    }
  });

  it('stops a bomb hidden after the end of the tar, which no entry counts', async () => {
    await start();
    const bomb = gzipSync(Buffer.concat([buildTar([INDEX]), Buffer.alloc(16 * 1024 * 1024)]));
    const run = await download(bomb, { limits: { maxBytes: 1024 * 1024, maxFiles: 10 } });
    expect(run.error?.message).toBe("The bundle's tar data runs past 1,089,536 bytes, more than its files' limit allows. It may be a decompression bomb; nothing was kept.");
    expect(await readdir(work)).toEqual([]);
  });

  it('stops a zip bomb of bytes', async () => {
    await start();
    const run = await download(buildZip([INDEX, { path: 'zeros.bin', content: Buffer.alloc(8 * 1024 * 1024) }]), { limits: { maxBytes: 4 * 1024 * 1024 } });
    expect(run.error?.message).toMatch(/^The bundle unpacks to more than 4\.0 MB \(reached at 'zeros\.bin'\)/);
    expect(await readdir(work)).toEqual([]);
  });
});

describe('downloadBundle checks what it downloaded', () => {
  it('refuses a bundle without index.html at its root, and says where one is', async () => {
    await start();
    const run = await download(tarGz([{ path: 'site/index.html', content: page('Home') }, { path: 'site/a.html', content: page('A') }]), {
      directory: join(work, 'public', 'docs', 'site') // folders made for it go too
    });
    expect(run.error?.kind).toBe('content');
    expect(run.error?.message).toMatch(/^The bundle has no index\.html at its root, so it is not a site that can be served \(2 files\)\. It has one at 'site\/index\.html'/);
    expect(await readdir(work)).toEqual([]);
  });

  it('refuses a link whose size differs from sizeBytes, without retrying', async () => {
    const platform = await start();
    const { jobId, bundle } = await serve(tarGz(SITE));
    platform.exportJobs.get(jobId)!.archive = tarGz([...SITE, { path: 'extra.html', content: page('Extra') }]);
    const error = await downloadBundle({ bundle, directory: join(work, 'site'), renew: () => generateBundle(client!, jobId), log: () => undefined, minBackoffMs: 1 }).catch((e: unknown) => e);
    expect((error as BundleError).message).toMatch(
      new RegExp(`^The storage holds [\\d,]+ bytes at the bundle link, but the platform said the bundle has ${bundle.sizeBytes.toLocaleString('en-US')} \\(sizeBytes\\)`)
    );
    expect(requestsTo('download')).toHaveLength(1);
    expect(await readdir(work)).toEqual([]);
  });

  it('refuses what is not an archive, and says what it looks like', async () => {
    await start();
    const run = await download(Buffer.from('<!DOCTYPE html><html><body>Sign in to continue</body></html>'));
    expect(run.error?.message).toMatch(/^The bundle is neither a gzip'd tar nor a zip: it starts with the bytes 3c 21 44 4f 43 54 59 50\. It looks like an HTML or XML page/);
  });

  it('refuses a damaged tar inside a sound gzip', async () => {
    await start();
    const tar = buildTar(SITE);
    tar[148] ^= 0x01; // the first header's checksum
    const run = await download(gzipSync(tar));
    expect(run.error?.kind).toBe('format');
    expect(run.error?.message).toMatch(/^The bundle's tar is damaged: .*checksum/);
    expect(await readdir(work)).toEqual([]);
  });
});

describe('downloadBundle and the storage', () => {
  it('renews an expired link once, says so, and downloads again', async () => {
    await start({ linkTtlSeconds: 60 });
    const { jobId, bundle } = await serve(tarGz(SITE));
    now = T0 + 61_000; // the link is a minute old when the download starts
    const log: string[] = [];
    const result = await downloadBundle({ bundle, directory: join(work, 'site'), renew: () => generateBundle(client!, jobId), log: (line) => log.push(line), minBackoffMs: 1 });
    expect(result.renewed).toBe(true);
    expect(result.bundle.bundleUrl).not.toBe(bundle.bundleUrl);
    expect(log).toContain('The bundle link had expired; generated a fresh one and downloading again.');
    expect(requestsTo('bundle')).toHaveLength(2); // the first link, and the fresh one
    expect(requestsTo('download').map((request) => request.status)).toEqual([403, 200]);
    expect(Object.keys(await tree(join(work, 'site')))).toContain('index.html');
  });

  it('fails clearly when the fresh link is refused too', async () => {
    await start({ linkTtlSeconds: 0 }); // every link is expired when it is made
    const run = await download(tarGz(SITE));
    expect(run.renewals).toBe(1);
    expect(run.error?.status).toBe(403);
    expect(run.error?.message).toMatch(/^The storage refused the bundle link again after a fresh one was generated \(403 AccessDenied: .*Request has expired\)\. The runner's clock may be far off/);
    expect(requestsTo('download').map((request) => request.status)).toEqual([403, 403]);
    expect(await readdir(work)).toEqual([]);
  });

  it('retries a download cut short, and says so', async () => {
    const platform = await start();
    platform.addFault({ route: 'download', kind: 'truncate', times: 1 });
    const run = await download(tarGz(SITE));
    expect(run.error).toBeUndefined();
    expect(run.result?.files).toBe(8);
    expect(run.log.some((line) => /^The download of the bundle stopped after [\d,]+ of [\d,]+ bytes \(.*\)\. Retrying in/.test(line))).toBe(true);
    expect(requestsTo('download')).toHaveLength(2);
  });

  it('fails on a download cut short every time, after the retries, leaving nothing', async () => {
    const platform = await start();
    platform.addFault({ route: 'download', kind: 'truncate', times: 10 });
    const archive = tarGz(SITE);
    const run = await download(archive, { retries: 2 });
    expect(run.error?.kind).toBe('truncated');
    expect(run.error?.message).toMatch(new RegExp(`^The download of the bundle stopped after [\\d,]+ of ${archive.length.toLocaleString('en-US')} bytes`));
    expect(requestsTo('download')).toHaveLength(3);
    expect(await readdir(work)).toEqual([]);
  });

  it('detects an archive cut short at its source (the gzip ends early)', async () => {
    await start();
    const archive = tarGz(SITE);
    const run = await download(archive.subarray(0, Math.floor(archive.length * 0.6)), { retries: 1 });
    expect(run.error?.kind).toBe('truncated');
    expect(run.error?.message).toBe("The bundle's gzip data ends early: the archive is incomplete.");
    expect(requestsTo('download')).toHaveLength(2);
    expect(await readdir(work)).toEqual([]);
  });

  it('cuts a download that gets no answer, and tries again', async () => {
    const platform = await start();
    platform.addFault({ route: 'download', kind: 'hang', times: 1 });
    const run = await download(tarGz(SITE), { idleTimeoutMs: 200 });
    expect(run.result?.files).toBe(8);
    expect(run.log.some((line) => /^The download of the bundle from http:\/\/127\.0\.0\.1:\d+\/bundles\/se_\w+\/bundle\.tar\.gz\?… failed before an answer \(ETIMEDOUT\)\. Retrying in/.test(line))).toBe(true);
    expect(requestsTo('download')).toHaveLength(2);
  });

  it('stops when the step is cancelled, leaving nothing', async () => {
    const platform = await start();
    platform.addFault({ route: 'download', kind: 'hang', times: 1 });
    const { jobId, bundle } = await serve(tarGz(SITE));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('Cancelled: SIGTERM')), 100);
    const directory = join(work, 'out', 'site');
    const outcome = downloadBundle({ bundle, directory, renew: () => generateBundle(client!, jobId), log: () => undefined, signal: controller.signal });
    await expect(outcome).rejects.toThrow('Cancelled: SIGTERM');
    expect(await readdir(work)).toEqual([]);
  });

  it('stops unpacking a zip when the step is cancelled: no entry starts after the signal', async () => {
    const files: ArchiveEntry[] = [INDEX, ...Array.from({ length: 3000 }, (_, i) => ({ path: `pages/${i}.html`, content: page(`Page ${i}`) }))];
    const zipFile = join(work, 'bundle.zip');
    await writeFile(zipFile, buildZip(files));
    const root = join(work, 'site');
    await mkdir(root);
    const controller = new AbortController();
    // Cancelled as soon as the first entry lands.
    const watcher = watch(root, () => controller.abort(new Error('Cancelled: SIGTERM')));
    try {
      await expect(unpackZip(zipFile, root, DEFAULT_LIMITS, controller.signal)).rejects.toThrow('Cancelled: SIGTERM');
    } finally {
      watcher.close();
    }
    const written = (await readdir(join(root, 'pages')).catch(() => [])).length;
    expect(written).toBeLessThan(files.length - 1);
  });

  it('retries 5xx and dropped connections from the storage', async () => {
    const platform = await start();
    platform.addFault({ route: 'download', kind: '503', times: 1 });
    platform.addFault({ route: 'download', kind: 'drop', times: 1 });
    const run = await download(tarGz(SITE), { retries: 3 });
    expect(run.result?.files).toBe(8);
    expect(run.log.some((line) => line.startsWith('The storage answered 503 SlowDown'))).toBe(true);
    expect(run.log.some((line) => /failed before an answer \(ECONNRESET\)/.test(line))).toBe(true);
    expect(requestsTo('download')).toHaveLength(3);
  });
});

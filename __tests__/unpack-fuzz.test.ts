// Unpacking is safe by construction, not by timing: random archives of files, folders, symbolic and
// hard links in random orders are unpacked with the real writer. Whatever the archive, nothing
// exists outside the folder afterwards; an archive the guard accepts unpacks as GNU `tar -xzf` does.
// TEST_SEED and FUZZ_ARCHIVES change the run; the seed is printed, and named in every failure.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { type ArchiveEntry, buildTar } from '../emulator/archive.ts';
import { BundleError, DEFAULT_LIMITS } from '../src/bundle/guard.ts';
import { unpackTarGz } from '../src/bundle/unpack.ts';

const SEED = Number(process.env.TEST_SEED ?? 23);
const ARCHIVES = Number(process.env.FUZZ_ARCHIVES ?? 300);
/** Folders between the sandbox and the unpack folder: room for an escape to land where it is seen. */
const DEPTH = 8;

const INDEX: ArchiveEntry = { path: 'index.html', content: '<h1>Home</h1>\n' };
// The issue's archive: a file deep in a folder, then links over the folders its path implies.
const ISSUE_CASE: ArchiveEntry[] = [
  INDEX,
  { path: 'd/e/g/L2/evil.txt', content: 'evil' },
  { path: 'd/e/g/L2', type: 'symlink', linkpath: '../../..' },
  { path: 'd/e', type: 'symlink', linkpath: '..' }
];

let work = '';
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'unpack-fuzz-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function randomArchive(rand: (n: number) => number): ArchiveEntry[] {
  const names = ['a', 'b', 'd', 'e', 'g'];
  const path = () => Array.from({ length: 1 + rand(3) }, () => names[rand(names.length)]).join('/');
  const entries: ArchiveEntry[] = [];
  const files: string[] = [];
  for (let count = 2 + rand(9), i = 0; i < count; i++) {
    const at = path();
    const roll = rand(20);
    if (roll < 8 || (roll >= 17 && files.length === 0)) {
      entries.push({ path: at, content: `${at} #${i}` });
      files.push(at);
    } else if (roll < 12) {
      entries.push({ path: at, type: 'directory' });
    } else if (roll < 17) {
      const steps = ['..', '..', '..', '.', ...names];
      // Half lead to a file written earlier, as a site's links do; half anywhere.
      const linkpath =
        files.length > 0 && rand(2) === 0
          ? [...Array.from({ length: at.split('/').length - 1 }, () => '..'), files[rand(files.length)]].join('/')
          : Array.from({ length: 1 + rand(4) }, () => steps[rand(steps.length)]).join('/');
      entries.push({ path: at, type: 'symlink', linkpath });
    } else {
      entries.push({ path: at, type: 'hardlink', linkpath: rand(8) > 0 ? files[rand(files.length)] : path() });
    }
  }
  entries.splice(rand(entries.length + 1), 0, INDEX);
  // Now and then the issue's archive, its entries mixed into the others in a random order.
  if (rand(8) === 0) for (const entry of ISSUE_CASE.slice(1)) entries.splice(rand(entries.length + 1), 0, entry);
  return entries;
}

/** Every entry below `dir`: a folder, a file's content and inode, a link's target. */
async function tree(dir: string, prefix = ''): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) found.set(prefix + name, `link -> ${await readlink(path)}`);
    else if (stats.isDirectory()) {
      found.set(prefix + name, 'folder');
      for (const [key, value] of await tree(path, `${prefix}${name}/`)) found.set(key, value);
    } else found.set(prefix + name, `file ${JSON.stringify(await readFile(path, 'utf8'))} inode ${stats.ino}`);
  }
  return found;
}

/** The tree with inodes replaced by which paths share them, so two unpacks can be compared. */
function comparable(found: Map<string, string>): Record<string, string> {
  const byInode = new Map<string, string[]>();
  for (const [path, value] of found) {
    const inode = / inode (\d+)$/.exec(value)?.[1];
    if (inode !== undefined) byInode.set(inode, [...(byInode.get(inode) ?? []), path]);
  }
  return Object.fromEntries([...found].map(([path, value]) => [path, value.replace(/ inode (\d+)$/, (_all, inode: string) => ` linked with [${byInode.get(inode)!.join(', ')}]`)]));
}

describe('unpacking random archives with the real writer', () => {
  it(`writes nothing outside the folder in ${ARCHIVES} random archives, and unpacks what it accepts as tar -xzf does`, async () => {
    let seed = SEED;
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    let accepted = 0;
    let refused = 0;
    console.log(`Archive fuzzer: ${ARCHIVES} archives, seed ${SEED} (TEST_SEED=${SEED} FUZZ_ARCHIVES=${ARCHIVES} to repeat).`);
    for (let i = 0; i < ARCHIVES; i++) {
      const entries = i === 0 ? ISSUE_CASE : randomArchive(rand);
      const context = { seed: SEED, archive: i, entries: entries.map((entry) => `${entry.type ?? 'file'} ${entry.path}${entry.linkpath ? ` -> ${entry.linkpath}` : ''}`) };
      const sandbox = join(work, `archive-${i}`);
      const chain = Array.from({ length: DEPTH }, (_, d) => `l${d}`).join('/');
      const root = join(sandbox, chain, 'site');
      await mkdir(root, { recursive: true });
      const archive = join(work, `archive-${i}.tar.gz`);
      await writeFile(archive, gzipSync(buildTar(entries)));
      let error: unknown;
      try {
        await unpackTarGz(createReadStream(archive), root, DEFAULT_LIMITS);
      } catch (caught) {
        error = caught;
      }
      if (error !== undefined && !(error instanceof BundleError)) throw error;

      // Outside the folder: the chain of folders leading to it, and nothing else.
      const outside = [...(await tree(sandbox)).keys()].filter((path) => !path.startsWith(`${chain}/site/`));
      const expected = [...chain.split('/').map((_, d, parts) => parts.slice(0, d + 1).join('/')), `${chain}/site`];
      expect({ ...context, outside: outside.sort() }).toEqual({ ...context, outside: expected.sort() });

      if (error === undefined) {
        accepted += 1;
        const reference = join(work, `tar-${i}`);
        await mkdir(reference);
        await promisify(execFile)('tar', ['-xzf', archive, '-C', reference]);
        expect({ ...context, tree: comparable(await tree(root)) }).toEqual({ ...context, tree: comparable(await tree(reference)) });
        await rm(reference, { recursive: true });
      } else {
        refused += 1;
        // Refused by the guard or the check of the tree, never by a write that met something unforeseen.
        expect({ ...context, kind: (error as BundleError).kind }).toEqual({ ...context, kind: expect.stringMatching(/^(unsafe|content)$/) });
      }
      if (i === 0) expect((error as Error | undefined)?.message).toMatch(/holds a link 'd\/e\/g\/L2' where its earlier entry 'd\/e\/g\/L2\/evil\.txt' needs a folder 'd\/e\/g\/L2'/);
      await rm(sandbox, { recursive: true });
      await rm(archive);
    }
    console.log(`Archive fuzzer: ${accepted} accepted and compared with tar -xzf, ${refused} refused.`);
    // The generator must exercise both sides, or the comparison proves nothing.
    expect(accepted).toBeGreaterThan(ARCHIVES / 10);
    expect(refused).toBeGreaterThan(ARCHIVES / 10);
  }, 120_000);
});

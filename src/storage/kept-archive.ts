// The bundle's archive kept byte for byte as the platform served it, beside a `<path>.sha256` file
// in sha256sum's format, so a later step can upload it to the team's own storage with the tools it
// trusts (`aws s3 cp`, `mc cp`) and anyone can check it (`sha256sum -c`).
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { link, lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';

export interface KeptArchive {
  /** The archive, absolute. */
  path: string;
  sha256: string;
  /** `<path>.sha256`, absolute. */
  sha256Path: string;
  bytes: number;
  /** What it is, for an upload's Content-Type: application/gzip (a .tar.gz) or application/zip. */
  contentType: string;
}

/**
 * The name the platform gives its archive: bundle.tar.gz from today's API, export.zip from its
 * project-scoped one. A keep-archive that names a folder keeps the archive there under this name.
 */
export function archiveFileName(format: 'tar.gz' | 'zip'): string {
  return format === 'zip' ? 'export.zip' : 'bundle.tar.gz';
}

/** keep-archive given as a folder (`out/`): the archive keeps the platform's own name in it, whichever API served it. */
export function namesFolder(given: string): boolean {
  return /[\\/]$/.test(given);
}

class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

/** Refuses a path (or its .sha256) that exists: the action does not overwrite files it did not write. */
export async function checkKeepArchivePath(input: string, given: string, path: string): Promise<void> {
  const archives = namesFolder(given) ? (['tar.gz', 'zip'] as const).map((format) => join(path, archiveFileName(format))) : [path];
  for (const candidate of archives.flatMap((archive) => [archive, `${archive}.sha256`])) {
    if (await exists(candidate)) {
      throw new ArchiveError(`${input} '${given}': ${candidate === path ? 'a file' : `${basename(candidate)}`} already exists there. The action does not overwrite files it did not write: point ${input} at a new path, or remove the file in an earlier step.`);
    }
  }
}

/** Where the archive is written while it downloads: beside its final path, so placing it is a rename on one disk. */
export function archiveStagingPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.partial-${randomBytes(6).toString('hex')}`);
}

/**
 * Copies every byte that passes into a file, one chunk at a time (the next chunk waits for the
 * disk), so memory stays flat whatever the archive's size. Each attempt starts the file afresh.
 */
export function archiveCopy(path: string): Transform {
  let file: WriteStream | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      if (!file) {
        file = createWriteStream(path, { flags: 'w' });
        file.once('error', (error) => this.destroy(error));
      }
      file.write(chunk, (error) => (error ? callback(error) : callback(null, chunk)));
    },
    flush(callback: TransformCallback) {
      if (!file) file = createWriteStream(path, { flags: 'w' });
      file.end(callback);
    },
    destroy(error, callback) {
      file?.destroy();
      callback(error);
    }
  });
}

/** Refuses to keep a zip under a .tar.gz name, or a tar.gz under a .zip one: the next step goes by the name. */
export function checkArchiveFormat(input: string, path: string, format: 'tar.gz' | 'zip'): void {
  const named = /\.zip$/i.test(path) ? 'zip' : /\.(tar\.gz|tgz)$/i.test(path) ? 'tar.gz' : undefined;
  if (named === undefined || named === format) return;
  const wanted = format === 'zip' ? '.zip' : '.tar.gz';
  throw new ArchiveError(`${input}: the platform served a ${format}, but ${basename(path)} names a ${named}, so the archive was not kept. Name it with ${wanted} (${basename(path).replace(/\.(tar\.gz|tgz|zip)$/i, wanted)}) and run again. Or give keep-archive a folder (such as out/): the archive then keeps the platform's own name, whichever API served it.`);
}

/** Puts the staged archive at `path` (never over an existing file) and writes `<path>.sha256`. */
export async function placeArchive(input: string, staged: string, path: string, sha256: string, bytes: number, format: 'tar.gz' | 'zip' = 'tar.gz'): Promise<KeptArchive> {
  await mkdir(dirname(path), { recursive: true });
  try {
    await link(staged, path); // fails if something appeared at path meanwhile, where a rename would replace it
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ArchiveError(`${input}: a file appeared at ${path} while the bundle downloaded; it was left alone and the archive was not kept.`);
    throw error;
  }
  await rm(staged, { force: true });
  const sha256Path = `${path}.sha256`;
  await writeFile(sha256Path, sha256Line(sha256, path), { flag: 'wx' });
  return { path, sha256, sha256Path, bytes, contentType: format === 'zip' ? 'application/zip' : 'application/gzip' };
}

/** `<hex>  <file name>`: what `sha256sum -c` reads, run from the archive's folder. */
function sha256Line(sha256: string, path: string): string {
  return `${sha256}  ${basename(path)}\n`;
}

/** Size and SHA-256 of an archive on disk (streamed), refusing one that is neither gzip nor zip. */
export async function readArchive(input: string, path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      if (head.length < 4) head = Buffer.concat([head, chunk.subarray(0, 4 - head.length)]);
      hash.update(chunk);
      bytes += chunk.length;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ArchiveError(`${input} '${path}' cannot be read (${code ?? String(error)}). Point it at the archive kept by the exporting job (its keep-archive).`);
  }
  if (!archiveKind(head)) throw new ArchiveError(`${input} '${path}' is not a gzip archive or a zip (it starts with neither 1f 8b nor 50 4b 03 04). Point it at the archive the exporting job kept (its archive-path output).`);
  return { sha256: hash.digest('hex'), bytes };
}

export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * What the platform's archive is, by its first bytes: today's API serves a gzip'd tar
 * (bundle.tar.gz, application/gzip), its project-scoped API a zip (export.zip, application/zip).
 */
export function archiveKind(head: Buffer): { name: 'gzip' | 'zip'; contentType: string } | undefined {
  if (isGzip(head)) return { name: 'gzip', contentType: 'application/gzip' };
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return { name: 'zip', contentType: 'application/zip' };
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false
  );
}

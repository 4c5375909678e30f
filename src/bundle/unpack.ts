// Unpacks a bundle into a fresh directory: a gzip'd tar as its bytes arrive, a zip from a file.
// Reading the formats is left to well-kept libraries (tar's Parser, yauzl); every entry they read
// passes the guard before the tree writer touches the disk. Nothing here knows about HTTP.
import { realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import { BundleError, EntryGuard, type EntryHeader, type EntryKind, type UnpackLimits } from './guard.ts';
import { type ByteSource, TreeWriter } from './tree-writer.ts';

export type ArchiveFormat = 'tar.gz' | 'zip';

/**
 * Reads the content of the files it asks for as the archive yields them (the content diff reads
 * pages this way): a feed per file, or undefined to let the file pass unread.
 */
export interface EntryReader {
  file(path: string): FileFeed | undefined;
}

/** One file's content, chunk by chunk as the archive yields it, then its end. */
export interface FileFeed {
  write(chunk: Buffer): void;
  end(): void;
}

export interface UnpackedTree {
  /** Regular files (hard links included). */
  files: number;
  /** Bytes of file content. */
  bytes: number;
}

/** Files up to this size are held in memory and written several at a time; larger ones stream. */
const SMALL_FILE_BYTES = 1024 * 1024;
/** Bytes a tar may hold beyond its files' content: headers, long names, padding, end blocks. */
const TAR_OVERHEAD_PER_ENTRY = 4096;

/** The format by the archive's first bytes, whatever its name says. */
export function detectFormat(head: Buffer): ArchiveFormat {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  // A local file header starts a zip with files; an end-of-directory record starts an empty one.
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return 'zip';
  const text = head.subarray(0, 64).toString('latin1');
  const looksLike = /^\s*</.test(text)
    ? ' It looks like an HTML or XML page: a proxy, firewall or login page may have answered in place of the storage.'
    : head.length >= 262 && head.toString('latin1', 257, 262) === 'ustar'
      ? ' It looks like a tar that is not gzip-compressed.'
      : '';
  const hex = [...head.subarray(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
  throw new BundleError('format', `The bundle is neither a gzip'd tar nor a zip: it starts with the bytes ${hex || '(none)'}.${looksLike}`);
}

/**
 * Unpacks the bytes of a tar.gz into `root` (an empty directory) as they arrive, and resolves once
 * every file is written and the tree checked. `root` undefined: nothing is written, the entries
 * pass the same checks and go to `reader` only.
 */
export async function unpackTarGz(
  source: AsyncIterable<Buffer> | NodeJS.ReadableStream,
  root: string | undefined,
  limits: UnpackLimits,
  signal?: AbortSignal,
  requireHomePage = true,
  reader?: EntryReader
): Promise<UnpackedTree> {
  const guard = new EntryGuard(limits);
  const writer = root === undefined ? undefined : new TreeWriter(root);
  const sink = new TarSink(guard, writer, limits, reader);
  try {
    // Node's own gunzip runs on libuv's threads, beside the parser and the writes.
    await pipeline(source, createGunzip({ chunkSize: 256 * 1024 }), sink, { signal });
    await writer?.finish();
  } catch (error) {
    writer?.abort(error as Error);
    await writer?.settle();
    throw gzipError(error);
  }
  await checkTree(root, guard, requireHomePage);
  return { files: guard.files, bytes: guard.bytes };
}

class TarSink extends Writable {
  private readonly guard: EntryGuard;
  private readonly writer: TreeWriter | undefined;
  private readonly reader: EntryReader | undefined;
  private readonly parser: Parser;
  private readonly maxTarBytes: number;
  private tarBytes = 0;
  private failure: Error | undefined;
  /** The tar's end blocks were read; what follows is padding, not content. */
  private atEnd = false;
  private readonly parsed: Promise<void>;

  constructor(guard: EntryGuard, writer: TreeWriter | undefined, limits: UnpackLimits, reader?: EntryReader) {
    super({ highWaterMark: 256 * 1024 });
    this.guard = guard;
    this.writer = writer;
    this.reader = reader;
    this.maxTarBytes = limits.maxBytes + limits.maxFiles * TAR_OVERHEAD_PER_ENTRY;
    // strict: any warning of the parser (a bad checksum, a truncated entry, no tar at all) is an error.
    this.parser = new Parser({ strict: true, onReadEntry: (entry) => this.onEntry(entry) });
    this.parsed = new Promise<void>((resolve, reject) => {
      this.parser.on('end', resolve);
      this.parser.on('error', (error: Error) => {
        this.fail(damaged(error));
        reject(this.failure);
      });
    });
    this.parsed.catch(() => undefined); // read in _final, or the failure surfaces through _write
    this.parser.on('eof', () => {
      this.atEnd = true;
    });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.failure) return callback(this.failure);
    if (this.tarBytes === 0 && chunk.length >= 4 && ((chunk[0] === 0x1f && chunk[1] === 0x8b) || chunk.readUInt32BE(0) === 0x28b52ffd)) {
      // tar's parser would decompress a second layer on its own, out of sight of the limits here.
      this.fail(new BundleError('format', 'The bundle is compressed twice (a compressed archive inside the gzip). A bundle from the platform is a single gzip\'d tar; report it to the platform.'));
      return callback(this.failure);
    }
    this.tarBytes += chunk.length;
    if (this.tarBytes > this.maxTarBytes) {
      this.fail(new BundleError('limit', `The bundle's tar data runs past ${this.maxTarBytes.toLocaleString('en-US')} bytes, more than its files' limit allows. It may be a decompression bomb; nothing was kept.`));
      return callback(this.failure);
    }
    // Past the end blocks the parser would only buffer what comes: count it, drop it.
    const flowing = this.atEnd || this.parser.write(chunk);
    if (this.failure) return callback(this.failure);
    // The parser's queue drains, or it fails (and `parsed` rejects), or it ends.
    const drained = flowing ? undefined : Promise.race([new Promise<void>((resolve) => this.parser.once('drain', resolve)), this.parsed]);
    Promise.all([drained, this.writer?.whenReady()]).then(
      () => callback(this.failure ?? null),
      (error: Error) => callback(this.failure ?? error)
    );
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.parser.end();
    this.parsed.then(
      () => callback(this.failure ?? null),
      () => callback(this.failure)
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (error) this.fail(error);
    callback(error);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.parser.abort(error);
  }

  private onEntry(entry: ReadEntry): void {
    if (this.failure) return void entry.resume();
    try {
      const kind = TAR_KINDS[entry.type];
      const path = this.guard.admit({ path: entry.path, type: entry.type, kind, size: entry.size, linkpath: entry.linkpath });
      const { writer } = this;
      const feed = path !== undefined && kind === 'file' ? this.reader?.file(path) : undefined;
      // A file goes to the disk, and to the reader as it passes; with nothing written, to the reader only.
      if (path === undefined || kind !== 'file' || !writer) {
        if (path !== undefined && writer) {
          if (kind === 'directory') writer.directory(path);
          else if (kind === 'symlink') writer.symlink(path, entry.linkpath!);
          else if (kind === 'hardlink') writer.hardlink(path, this.guard.hardlinkTarget(entry.linkpath!));
        }
        if (feed) {
          entry.on('data', (chunk: Buffer) => feed.write(chunk));
          entry.on('end', () => feed.end());
        } else entry.resume();
      } else if (entry.size > SMALL_FILE_BYTES) {
        writer.fileFromStream(path, feed ? readWhilePassing(entry as unknown as ByteSource & NodeJS.EventEmitter, feed) : (entry as unknown as ByteSource), fileMode(entry.mode));
      } else {
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        entry.on('end', () => {
          const content = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          if (feed) {
            feed.write(content);
            feed.end();
          }
          writer.file(path, content, fileMode(entry.mode));
        });
      }
    } catch (error) {
      entry.resume();
      this.fail(error as Error);
    }
  }
}

/** A file's bytes on their way to the disk, read by `feed` as they pass. */
function readWhilePassing(source: ByteSource & NodeJS.EventEmitter, feed: FileFeed): ByteSource {
  const passing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      feed.write(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      feed.end();
      callback();
    }
  });
  source.on('error', (error: Error) => passing.destroy(error));
  source.pipe(passing);
  return passing;
}

// tar's names for entry types; anything else (devices, FIFOs, …) is refused.
const TAR_KINDS: Partial<Record<string, EntryKind>> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Directory: 'directory',
  GNUDumpDir: 'directory',
  SymbolicLink: 'symlink',
  Link: 'hardlink'
};

/** Executable or not is all a site needs; no setuid, no odd permissions from the archive. */
function fileMode(mode: number | undefined): number {
  return mode !== undefined && (mode & 0o111) !== 0 ? 0o755 : 0o644;
}

function damaged(error: Error): Error {
  if (error instanceof BundleError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'TAR_BAD_ARCHIVE' && /truncated/i.test(error.message)) {
    return new BundleError('truncated', `The bundle's tar ends in the middle of a file (${error.message.replace(/^TAR_BAD_ARCHIVE: /, '')}): the archive is incomplete.`, { transient: true, cause: error });
  }
  if (code === 'TAR_BAD_ARCHIVE') {
    return new BundleError('format', 'The bundle is gzip-compressed but holds no tar archive. Report it to the platform with the job id.', { cause: error });
  }
  return new BundleError('format', `The bundle's tar is damaged: ${error.message}. Generate the bundle again; if it happens again, report it to the platform with the job id.`, { cause: error });
}

function gzipError(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'Z_BUF_ERROR') {
    return new BundleError('truncated', 'The bundle\'s gzip data ends early: the archive is incomplete.', { transient: true, cause: error });
  }
  if (code === 'Z_DATA_ERROR') {
    return new BundleError('format', `The bundle's gzip data is damaged (${(error as Error).message}). Generate the bundle again; if it happens again, report it to the platform with the job id.`, { cause: error });
  }
  return error;
}

/**
 * Unpacks a zip file into `root`, an empty directory (undefined: nothing is written, the entries
 * pass the checks and go to `reader` only). A zip's directory of entries sits at its end, and yauzl
 * reads the entries by offset, so a zip is unpacked from a file, never from a stream.
 */
export async function unpackZip(file: string, root: string | undefined, limits: UnpackLimits, signal?: AbortSignal, requireHomePage = true, reader?: EntryReader): Promise<UnpackedTree> {
  signal?.throwIfAborted();
  const guard = new EntryGuard(limits);
  const writer = root === undefined ? undefined : new TreeWriter(root);
  // Cancel and the step's deadline cut the files being written, and no entry after them starts.
  const onAbort = () => writer?.abort(signal?.reason instanceof Error ? signal.reason : new Error('Aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  let zip: yauzl.ZipFile;
  try {
    // decodeStrings off: names are decoded below and judged by the guard, with its messages.
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true });
  } catch (error) {
    throw new BundleError('format', `The bundle starts like a zip but is not a readable one (${(error as Error).message}). Generate the bundle again; if it happens again, report it to the platform with the job id.`, { cause: error });
  }
  try {
    if (zip.entryCount > limits.maxFiles) guard.admitCount(zip.entryCount);
    for await (const entry of zip.eachEntry()) {
      signal?.throwIfAborted();
      const header = await zipHeader(zip, entry);
      const path = guard.admit(header);
      if (path === undefined) continue;
      const feed = header.kind === 'file' ? reader?.file(path) : undefined;
      if (!writer) {
        if (feed) await readInto(await zip.openReadStreamPromise(entry), feed, signal);
        continue;
      }
      if (header.kind === 'directory') writer.directory(path);
      else if (header.kind === 'symlink') writer.symlink(path, header.linkpath!);
      else if (entry.uncompressedSize > SMALL_FILE_BYTES) {
        const stream = await zip.openReadStreamPromise(entry);
        writer.fileFromStream(path, feed ? readWhilePassing(stream, feed) : stream, fileMode(unixMode(entry)));
      } else {
        // A small file is read whole and written with the others, as from a tar: a write stream per
        // file would make a site of many small pages take several times as long.
        const content = await buffer(await zip.openReadStreamPromise(entry));
        if (feed) {
          feed.write(content);
          feed.end();
        }
        writer.file(path, content, fileMode(unixMode(entry)));
      }
      await writer.whenReady();
    }
    await writer?.finish();
  } catch (error) {
    writer?.abort(error as Error);
    await writer?.settle();
    if (signal?.aborted) throw signal.reason;
    throw error instanceof BundleError ? error : zipError(error);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    zip.close();
  }
  await checkTree(root, guard, requireHomePage);
  return { files: guard.files, bytes: guard.bytes };
}

async function readInto(stream: NodeJS.ReadableStream, feed: FileFeed, signal?: AbortSignal): Promise<void> {
  for await (const chunk of stream) {
    signal?.throwIfAborted();
    feed.write(chunk as Buffer);
  }
  feed.end();
}

async function buffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

const S_IFMT = 0o170000;
const ZIP_TYPES: Record<number, { type: string; kind: EntryKind | undefined }> = {
  0: { type: 'File', kind: 'file' }, // made on a system that does not record Unix types
  0o100000: { type: 'File', kind: 'file' },
  0o040000: { type: 'Directory', kind: 'directory' },
  0o120000: { type: 'SymbolicLink', kind: 'symlink' },
  0o020000: { type: 'CharacterDevice', kind: undefined },
  0o060000: { type: 'BlockDevice', kind: undefined },
  0o010000: { type: 'FIFO', kind: undefined },
  0o140000: { type: 'Socket', kind: undefined }
};

function unixMode(entry: yauzl.Entry): number {
  // The top 16 bits of the external attributes hold st_mode when the zip was made on Unix (3).
  return entry.versionMadeBy >> 8 === 3 ? (entry.externalFileAttributes >>> 16) & 0xffff : 0;
}

async function zipHeader(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<EntryHeader> {
  const path = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
  if (entry.isEncrypted()) throw new BundleError('format', `The bundle's zip holds an encrypted entry '${path}', which cannot be unpacked. Report it to the platform.`);
  const { type, kind } = path.endsWith('/') ? ZIP_TYPES[0o040000] : (ZIP_TYPES[unixMode(entry) & S_IFMT] ?? { type: `mode ${(unixMode(entry) & S_IFMT).toString(8)}`, kind: undefined });
  const header: EntryHeader = { path, type, kind, size: kind === 'file' ? entry.uncompressedSize : 0 };
  if (kind === 'symlink') {
    // A zip stores a link's target as the entry's content.
    if (entry.uncompressedSize > 4096) throw new BundleError('unsafe', `The bundle holds a link '${path}' whose target is ${entry.uncompressedSize} bytes long. A bundle from the platform never does; report it to the platform.`);
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    header.linkpath = Buffer.concat(chunks).toString('utf8');
  }
  return header;
}

function zipError(error: unknown): BundleError {
  return new BundleError('format', `The bundle's zip is damaged: ${(error as Error).message}. Generate the bundle again; if it happens again, report it to the platform with the job id.`, { cause: error });
}

/**
 * What can only be checked once everything is on disk: an index.html at the root, and every link
 * resolving inside the directory (a link may point through another one written after it).
 */
async function checkTree(root: string | undefined, guard: EntryGuard, requireHomePage: boolean): Promise<void> {
  const index = guard.kindAt('index.html');
  if (requireHomePage && index !== 'file' && index !== 'hardlink') {
    const nested = guard.nestedIndex();
    const hint = nested ? ` It has one at '${nested}': the site sits in a folder of the archive, not at its root.` : '';
    throw new BundleError('content', `The bundle has no index.html at its root, so it is not a site that can be served (${guard.files} files).${hint} Check that the export's domain is the docs site, and report it to the platform if so.`);
  }
  if (guard.symlinks.length === 0) return;
  if (root === undefined) {
    // Nothing on disk: the links are followed through the archive's own entries.
    const outside = guard.symlinks.find((link) => !guard.linkResolvesInside(link));
    if (outside !== undefined) {
      throw new BundleError('unsafe', `The bundle holds a link '${outside}' whose target is not in the bundle (or that loops, or leads outside it). A bundle from the platform never does; report it to the platform.`);
    }
    return;
  }
  const top = await realpath(root);
  for (const link of guard.symlinks) {
    let target: string;
    try {
      target = await realpath(join(root, link));
    } catch {
      throw new BundleError('unsafe', `The bundle holds a link '${link}' whose target is not in the bundle (or that loops). A bundle from the platform never does; report it to the platform.`);
    }
    if (target !== top && !target.startsWith(top + sep)) {
      throw new BundleError('unsafe', `The bundle holds a link '${link}' that leads outside the directory, through other links. A bundle from the platform never holds such a link, so the archive was refused and nothing was unpacked.`);
    }
  }
}

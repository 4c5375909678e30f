// Writes the entries the guard admitted into the staging directory, several at a time.
//
// Why not tar's own Unpack: it finishes each entry's checks and file open before it reads the next
// entry, so a site of 10,000 small files spends most of its time waiting on one file-system call
// after another (3 to 4 times `tar -xzf` in scripts/bench-unpack.ts). Here small files are held in
// memory until written and up to `concurrency` writes run at once on libuv's threads, which brings
// it to about the time of `tar -xzf`. The directory is fresh and ours (made by downloadBundle).
// Symbolic links are made last, once every folder, file and hard link is written: while anything
// else is made no link exists in the tree, so nothing is made through one, whatever the order of
// the entries and however many writes run at once. The guard admits no entry below a link and no
// link where a folder stands, so making the links goes through none either. Files are opened with
// O_EXCL ('wx'), which refuses a name that exists already.
import { createWriteStream } from 'node:fs';
import { link, lstat, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Writable } from 'node:stream';
import { BundleError } from './guard.ts';

/** A stream of bytes: a Node readable (yauzl) or a Minipass one (tar's ReadEntry). */
export interface ByteSource {
  pipe(destination: Writable): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface TreeWriterOptions {
  /** Writes in flight at once. */
  concurrency?: number;
  /** Content held in memory, waiting to be written. */
  maxBufferedBytes?: number;
}

export class TreeWriter {
  private readonly root: string;
  private readonly concurrency: number;
  private readonly maxBufferedBytes: number;
  private readonly folders = new Map<string, Promise<void>>();
  /** Files by path, so a hard link waits for its target. */
  private readonly written = new Map<string, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();
  /** Symbolic links, made by finish() once everything else is on disk. */
  private readonly symlinks: { path: string; target: string }[] = [];
  /** Files being streamed: a failure elsewhere cuts them, since their source will never end. */
  private readonly streaming = new Set<Writable>();
  private bufferedBytes = 0;
  private failure: BundleError | undefined;
  private waiters: (() => void)[] = [];

  constructor(root: string, options: TreeWriterOptions = {}) {
    this.root = resolve(root);
    this.concurrency = options.concurrency ?? 16;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 32 * 1024 * 1024;
    this.folders.set('', Promise.resolve());
  }

  directory(path: string): void {
    this.track(this.folder(path), path);
  }

  file(path: string, content: Buffer, mode: number): void {
    this.bufferedBytes += content.length;
    const done = this.folder(parentOf(path)).then(() => writeFile(this.absolute(path), content, { flag: 'wx', mode }));
    this.written.set(path, done);
    this.track(done, path, content.length);
  }

  /** A file too large to hold in memory: its source is read as the file takes it. */
  fileFromStream(path: string, source: ByteSource, mode: number): void {
    const done = this.folder(parentOf(path)).then(
      () =>
        new Promise<void>((resolve, reject) => {
          const output = createWriteStream(this.absolute(path), { flags: 'wx', mode });
          if (this.failure) output.destroy(this.failure);
          this.streaming.add(output);
          source.on('error', (error) => output.destroy(new BundleError('format', `The bundle's entry '${path}' cannot be read: ${error.message}.`, { cause: error })));
          output.on('error', reject);
          output.on('close', () => {
            this.streaming.delete(output);
            if (!output.errored) resolve();
          });
          source.pipe(output);
        })
    );
    this.written.set(path, done);
    this.track(done, path);
  }

  symlink(path: string, target: string): void {
    this.symlinks.push({ path, target });
    this.track(this.folder(parentOf(path)), path);
  }

  hardlink(path: string, target: string): void {
    const targetWritten = this.written.get(target) ?? Promise.resolve();
    this.track(
      Promise.all([this.folder(parentOf(path)), targetWritten]).then(() => link(this.absolute(target), this.absolute(path))),
      path
    );
  }

  /** Resolves once another entry may be handed over; rejects once a write has failed. */
  whenReady(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push(() => (this.failure ? reject(this.failure) : resolve()));
    });
  }

  /** Waits for every write, then makes the links; throws the first failure. */
  async finish(): Promise<void> {
    await this.settle();
    if (this.failure) throw this.failure;
    for (const { path, target } of this.symlinks) this.track(Promise.resolve().then(() => symlink(target, this.absolute(path))), path);
    await this.settle();
    if (this.failure) throw this.failure;
  }

  /** Stops: files being streamed are cut, and nothing new starts. Then settle(). */
  abort(reason: Error): void {
    this.failure ??= reason instanceof BundleError ? reason : new BundleError('write', reason.message, { cause: reason });
    for (const output of this.streaming) output.destroy(this.failure);
  }

  /** Waits until nothing is in flight, failed or not, so the directory can be removed. */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private ready(): boolean {
    return this.pending.size < this.concurrency && this.bufferedBytes < this.maxBufferedBytes;
  }

  private track(work: Promise<unknown>, path: string, bytes = 0): void {
    const done: Promise<void> = work.then(
      () => undefined,
      (error: unknown) => {
        this.failure ??= writeError(error, path);
      }
    );
    done.finally(() => {
      this.pending.delete(done);
      this.bufferedBytes -= bytes;
      if (this.failure || this.ready()) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const wake of waiters) wake();
      }
    });
    this.pending.add(done);
  }

  // mkdir -p, once per folder, each folder after its parent.
  private folder(path: string): Promise<void> {
    let made = this.folders.get(path);
    if (made === undefined) {
      made = this.folder(parentOf(path)).then(async () => {
        try {
          await mkdir(this.absolute(path));
        } catch (error) {
          // The same folder in another spelling, on a case-insensitive file system; never a link.
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !(await lstat(this.absolute(path))).isDirectory()) throw error;
        }
      });
      made.catch(() => undefined); // reported by whichever entry waits on it
      this.folders.set(path, made);
    }
    return made;
  }

  // The guard admitted `path` already; this is the second line, should it ever let one through.
  private absolute(path: string): string {
    const absolute = join(this.root, path);
    if (!absolute.startsWith(this.root + sep)) throw new BundleError('unsafe', `Refused to write '${path}', outside the directory.`);
    return absolute;
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function writeError(error: unknown, path: string): BundleError {
  if (error instanceof BundleError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const reason = error instanceof Error ? error.message : String(error);
  if (code === 'ENOSPC') {
    return new BundleError('write', `The disk filled up while unpacking the bundle (at '${path}'). Free space on the runner or choose a download-path on a larger disk.`, { cause: error });
  }
  if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
    return new BundleError(
      'write',
      `Could not unpack '${path}': another entry of the bundle is already there (${code}). On a file system that ignores letter case, two names that differ only in case collide; unpack on Linux, or report it to the platform.`,
      { cause: error }
    );
  }
  return new BundleError('write', `Could not unpack '${path}': ${reason}`, { cause: error });
}

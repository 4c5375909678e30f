// Downloads the bundle from its presigned link, checks it and unpacks it into a directory, so the
// site can be served from anywhere. The archive streams: a tar.gz is unpacked as its bytes arrive,
// a zip is written to a file first (see unpackZip). Everything lands in a staging directory beside
// the target and is renamed into place only once every check passed, so a failure leaves nothing.
// With writeFiles false nothing is written at all: every entry passes the same checks and goes to a
// reader (the content diff hashes pages as they stream out), and only a zip waits in a file.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { basename, dirname, join, resolve } from 'node:path';
import { PassThrough, Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getProxyUrl, HttpClient } from '@actions/http-client';
import type { Bundle } from '../platform/static-export.ts';
import { redactLink } from '../values/link.ts';
import { formatBytes, formatDuration, formatSeconds } from '../action/format.ts';
import type { Deadline } from '../action/deadline.ts';
import { dnsAdvice, isDnsCode, isTlsCode, networkCode, tlsAdvice } from '../action/network.ts';
import { parseRetryAfter, retryTransient } from '../wait/backoff.ts';
import { BundleError, DEFAULT_LIMITS, type UnpackLimits } from './guard.ts';
import { type ArchiveFormat, detectFormat, type EntryReader, unpackTarGz, unpackZip, type UnpackedTree } from './unpack.ts';
import { archiveCopy, archiveFileName, archiveStagingPath, checkArchiveFormat, type KeptArchive, placeArchive } from '../storage/kept-archive.ts';

export { BundleError } from './guard.ts';

/** A link to download. A link read from a values file comes without a size: the storage's Content-Length stands in. */
export type DownloadLink = Omit<Bundle, 'sizeBytes'> & { sizeBytes?: number };

export interface DownloadBundleOptions {
  bundle: DownloadLink;
  /** Where the site goes: a directory that does not exist yet, or is empty. */
  directory: string;
  /** Generates a fresh link (the generate operation); called at most once, when the storage answers 403. Without it a 403 fails. */
  renew?: () => Promise<Bundle>;
  /** False: a bundle without index.html at its root is unpacked too, for the content gate to judge (content/gate.ts). */
  requireHomePage?: boolean;
  limits?: Partial<UnpackLimits>;
  /** Lines for the log. */
  log: (line: string) => void;
  /** How the log names the directory: the path as the user gave it. */
  shownAs?: string;
  signal?: AbortSignal;
  /** Transient faults retried per link. */
  retries?: number;
  /** The first backoff; each retry doubles it, with jitter (wait/backoff.ts). */
  minBackoffMs?: number;
  /** A download that receives nothing for this long is cut and retried. */
  idleTimeoutMs?: number;
  /** The step's one deadline: the download, its retries and their waits end by it. */
  deadline?: Deadline;
  /** Also keep the archive as served at this path (absolute; must not exist), once every check passed. */
  keepArchive?: { input: string; path: string; folder?: boolean };
  /**
   * Reads files as they come out of the archive (the content diff's pages). Called at the start of
   * each attempt, so an attempt cut short and tried again is read afresh.
   */
  reader?: () => EntryReader;
  /** False: nothing is written to `directory`; the entries pass every check and go to `reader` only. */
  writeFiles?: boolean;
}

export interface DownloadedBundle {
  /** The directory, absolute (nothing is there when writeFiles was false). */
  path: string;
  /** Regular files unpacked. */
  files: number;
  /** SHA-256 of the archive as downloaded, hex. */
  sha256: string;
  /** Bytes of the archive. */
  bytes: number;
  /** Bytes of the files, unpacked. */
  unpackedBytes: number;
  format: ArchiveFormat;
  /** True when the link had to be renewed. */
  renewed: boolean;
  /** The bundle whose link was used last: the renewed one, if renewed. */
  bundle: DownloadLink;
  /** Set when keepArchive was given. */
  kept?: KeptArchive;
}

/** What one download gives; downloadBundle adds where it went and which link. */
type Fetched = Omit<DownloadedBundle, 'path' | 'renewed' | 'bundle' | 'kept'>;

const MAX_REDIRECTS = 5;

export async function downloadBundle(given: DownloadBundleOptions): Promise<DownloadedBundle> {
  // The step's deadline ends the download too: its signal aborts whatever is in flight then.
  const stepEnd = given.deadline && AbortSignal.timeout(Math.max(1, given.deadline.remaining()));
  const signal = stepEnd ? (given.signal ? AbortSignal.any([given.signal, stepEnd]) : stepEnd) : given.signal;
  try {
    return await downloadWithin({ ...given, signal });
  } catch (error) {
    if (stepEnd?.aborted && !given.signal?.aborted) {
      throw new BundleError('timeout', `The download of the bundle did not finish within the step's timeout (${formatDuration(given.deadline!.timeoutMs)}); nothing was unpacked or kept. Raise timeout.`);
    }
    throw error;
  }
}

async function downloadWithin(options: DownloadBundleOptions): Promise<DownloadedBundle> {
  const limits: UnpackLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const target = resolve(options.directory);
  const writeFiles = options.writeFiles !== false;
  if (writeFiles) await checkDownloadPath(options.directory, target);
  const parent = dirname(target);
  const madeParent = await mkdir(parent, { recursive: true });
  const staging = join(parent, `.${basename(target)}.partial-${randomBytes(6).toString('hex')}`);
  const started = Date.now();
  let bundle = options.bundle;
  let renewed = false;
  let placed = false;
  const archive = options.keepArchive && archiveStagingPath(options.keepArchive.path);
  const madeArchiveFolder = archive ? await mkdir(dirname(archive), { recursive: true }) : undefined;
  try {
    let fetched: Fetched;
    for (;;) {
      try {
        fetched = await fetchWithRetries(bundle, staging, limits, options, archive);
        break;
      } catch (error) {
        if (!(error instanceof BundleError) || error.status !== 403 || !options.renew) throw error;
        if (renewed) {
          throw new BundleError(
            'http',
            `The storage refused the bundle link again after a fresh one was generated (${storageSaid(403, error)}). The runner's clock may be far off, or the platform's storage refuses this runner; re-run, and report it to the platform with the job id ${bundle.jobId} if it persists.`,
            { status: 403, storageCode: error.storageCode, storageMessage: error.storageMessage, cause: error }
          );
        }
        options.log(
          error.expired
            ? 'The bundle link had expired; generated a fresh one and downloading again.'
            : `The storage refused the bundle link (${storageSaid(403, error)}); generated a fresh one and downloading again.`
        );
        bundle = await options.renew();
        renewed = true;
      }
    }
    if (writeFiles) await checkDownloadPath(options.directory, target); // nothing appeared there while downloading
    const keep = options.keepArchive;
    // A folder keeps the archive under the platform's own name; a file name must say what the archive is.
    const keptPath = keep?.folder ? join(keep.path, archiveFileName(fetched.format)) : keep?.path;
    if (archive && !keep!.folder) checkArchiveFormat(keep!.input, keptPath!, fetched.format);
    const kept = archive ? await placeArchive(keep!.input, archive, keptPath!, fetched.sha256, fetched.bytes, fetched.format) : undefined;
    if (writeFiles) {
      await rmdir(target).catch(() => undefined); // an empty directory gives way (rename over it fails on Windows)
      await rename(staging, target);
      placed = true;
    }
    const result: DownloadedBundle = { path: target, renewed, bundle, ...fetched, kept };
    const files = `${result.files.toLocaleString('en-US')} files (${formatBytes(result.unpackedBytes)}) from a ${formatBytes(result.bytes)} ${result.format}`;
    const seconds = formatSeconds(Date.now() - started);
    options.log(
      writeFiles
        ? `Unpacked ${files} into ${options.shownAs ?? options.directory} in ${seconds}; sha256 ${result.sha256}.`
        : `Read ${files} (${options.shownAs ?? 'checked, not unpacked'}) in ${seconds}; sha256 ${result.sha256}.`
    );
    return result;
  } finally {
    await removeQuietly(staging);
    await removeQuietly(`${staging}.zip`);
    if (archive) await removeQuietly(archive);
    if (archive && madeArchiveFolder !== undefined) await rmdir(dirname(archive)).catch(() => undefined); // only if left empty
    // Folders made for the target go too, when nothing was placed in them.
    if (!placed && madeParent !== undefined) {
      for (let folder = parent; folder.length >= madeParent.length; folder = dirname(folder)) {
        if (!(await rmdir(folder).then(() => true, () => false))) break;
      }
    }
  }
}

/**
 * Refuses a download-path that is a file or holds files. downloadBundle checks it first and again
 * before the rename; call it before starting an export too, so a bad path fails in a second.
 */
export async function checkDownloadPath(given: string, target = resolve(given)): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new BundleError('directory', `download-path '${given}' is a file, not a directory. Point download-path at a new directory.`);
    throw new BundleError('directory', `download-path '${given}' cannot be read (${code}). Point download-path at a new directory.`);
  }
  if (entries.length === 0) return;
  // Replacing it would delete files this action did not write (download-path: . would be the workspace).
  const sample = entries.slice(0, 3).join(', ') + (entries.length > 3 ? ', …' : '');
  throw new BundleError(
    'directory',
    `download-path '${given}' already exists and is not empty (${sample}). The action does not delete files it did not write: point download-path at a new directory, or remove this one in an earlier step.`
  );
}

// One link: transient faults retried with backoff; a 403 goes back to the caller, which renews.
async function fetchWithRetries(bundle: DownloadLink, staging: string, limits: UnpackLimits, options: DownloadBundleOptions, archive?: string): Promise<Fetched> {
  const { signal } = options;
  const link = redactLink(bundle.bundleUrl);
  if (bundle.sizeBytes !== undefined && bundle.sizeBytes > limits.maxBytes) {
    throw new BundleError('limit', `The bundle is ${formatBytes(bundle.sizeBytes)} as an archive, more than the ${formatBytes(limits.maxBytes)} this action unpacks.`);
  }
  options.log(`Downloading the bundle${bundle.sizeBytes === undefined ? '' : ` (${formatBytes(bundle.sizeBytes)})`} from ${link}`);
  return retryTransient(
    async () => {
      await removeQuietly(staging);
      await removeQuietly(`${staging}.zip`);
      if (options.writeFiles !== false) await mkdir(staging);
      return fetchOnce(bundle, staging, limits, options, archive);
    },
    {
      retries: options.retries ?? 3,
      minBackoffMs: options.minBackoffMs ?? 1000,
      jitter: true,
      transient: (error) => error instanceof BundleError && error.transient,
      retryAfterMs: (error) => (error as BundleError).retryAfterMs,
      server: 'the storage',
      deadline: options.deadline,
      signal,
      onRetry: ({ error, waitMs, retriesLeft }) =>
        options.log(`${(error as BundleError).message} Retrying in ${formatSeconds(waitMs)} (${retriesLeft} ${retriesLeft === 1 ? 'try' : 'tries'} left).`)
    }
  );
}

async function fetchOnce(bundle: DownloadLink, staging: string, limits: UnpackLimits, options: DownloadBundleOptions, archive?: string): Promise<Fetched> {
  const response = await openDownload(bundle.bundleUrl, options.signal, options.idleTimeoutMs ?? 60_000);
  const length = response.headers['content-length'];
  if (length !== undefined && bundle.sizeBytes !== undefined && Number(length) !== bundle.sizeBytes) {
    response.destroy();
    throw new BundleError(
      'size',
      `The storage holds ${Number(length).toLocaleString('en-US')} bytes at the bundle link, but the platform said the bundle has ${bundle.sizeBytes.toLocaleString('en-US')} (sizeBytes). The archive at the link is not the one described; generate the bundle again.`
    );
  }
  // Without a size from the platform, the storage's Content-Length is held to, or else the unpack limit.
  const expected = bundle.sizeBytes ?? (length !== undefined ? Number(length) : undefined);
  const meter = new ArchiveMeter(expected ?? limits.maxBytes, expected !== undefined);
  const zipFile = `${staging}.zip`;
  const root = options.writeFiles === false ? undefined : staging;
  const reader = options.reader?.();
  let format: ArchiveFormat | undefined;
  let tree: UnpackedTree | undefined;
  try {
    await pipeline(
      response,
      meter,
      // The kept archive is the bytes the meter counted and hashed, written as they pass.
      archive ? archiveCopy(archive) : new PassThrough(),
      async (source: AsyncIterable<Buffer>) => {
        const iterator = source[Symbol.asyncIterator]();
        const head = await readHead(iterator);
        format = detectFormat(head);
        const rest = chain(head, iterator);
        if (format === 'tar.gz') {
          tree = await unpackTarGz(rest, root, limits, options.signal, options.requireHomePage, reader);
        } else {
          await pipeline(Readable.from(rest, { objectMode: false }), createWriteStream(zipFile, { flags: 'wx' }));
        }
      },
      { signal: options.signal }
    );
  } catch (error) {
    throw downloadError(error, meter, meter.expected);
  }
  // The whole archive is on disk and its size matched, so yauzl may read it by offset now.
  if (format === 'zip') tree = await unpackZip(zipFile, root, limits, options.signal, options.requireHomePage, reader);
  return { files: tree!.files, unpackedBytes: tree!.bytes, sha256: meter.sha256(), bytes: meter.bytes, format: format! };
}

/** Hashes and counts the archive as it passes; refuses a byte more, or fewer, than sizeBytes. */
class ArchiveMeter extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');
  readonly expected: number;
  /** False when `expected` is only a ceiling: fewer bytes are then the whole archive. */
  private readonly exact: boolean;

  constructor(expected: number, exact = true) {
    super();
    this.expected = expected;
    this.exact = exact;
  }

  sha256(): string {
    return this.hash.digest('hex');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.expected) {
      callback(new BundleError('size', `The storage sent more than the ${this.expected.toLocaleString('en-US')} bytes the platform gave as the bundle's size (sizeBytes). The archive at the link is not the one described; generate the bundle again.`));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    callback(this.exact && this.bytes < this.expected ? truncated(this.bytes, this.expected, 'the storage ended the answer early') : null);
  }
}

function truncated(received: number, expected: number, why: string): BundleError {
  return new BundleError('truncated', `The download of the bundle stopped after ${received.toLocaleString('en-US')} of ${expected.toLocaleString('en-US')} bytes (${why}).`, { transient: true });
}

// A download cut short shows up wherever it is first noticed: the response, gunzip, the tar parser.
function downloadError(error: unknown, meter: ArchiveMeter, expected: number): unknown {
  if (meter.bytes < expected && !(error instanceof BundleError && !error.transient) && !isAbort(error)) {
    const code = (error as NodeJS.ErrnoException).code;
    return truncated(meter.bytes, expected, code === 'ETIMEDOUT' ? 'no data came for too long' : code ? `the connection was lost: ${code}` : 'the connection was lost');
  }
  return error;
}

function isAbort(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'AbortError';
}

async function readHead(iterator: AsyncIterator<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < 512) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value);
    length += next.value.length;
  }
  return Buffer.concat(chunks);
}

async function* chain(head: Buffer, iterator: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  if (head.length > 0) yield head;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
}

/**
 * GET on the storage link: no Authorization header (the admin key is for the API only, and S3 refuses
 * a presigned link sent with one), proxies from the environment, a few redirects.
 */
async function openDownload(link: string, signal: AbortSignal | undefined, idleTimeoutMs: number): Promise<http.IncomingMessage> {
  let url = new URL(link);
  for (let hop = 0; ; hop++) {
    const response = await get(url, signal, idleTimeoutMs);
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return response;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location && hop < MAX_REDIRECTS) {
      response.resume();
      const next = new URL(location, url);
      if (url.protocol === 'https:' && next.protocol !== 'https:') {
        throw new BundleError('http', `The storage redirected the bundle link from https to ${next.protocol}, which this action refuses to follow.`, { status });
      }
      url = next;
      continue;
    }
    throw await storageError(response, status, link);
  }
}

function get(url: URL, signal: AbortSignal | undefined, idleTimeoutMs: number): Promise<http.IncomingMessage> {
  const proxied = getProxyUrl(url.toString()) !== '';
  // Only through a proxy does the agent matter; otherwise a one-off connection that closes after.
  const agent = proxied ? new HttpClient('static-export-action').getAgent(url.toString()) : false;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolvePromise, reject) => {
    const request = client.get(url, { agent, signal, headers: { 'user-agent': 'static-export-action', 'accept-encoding': 'identity' } }, resolvePromise);
    request.setTimeout(idleTimeoutMs, () => request.destroy(Object.assign(new Error(`no data for ${formatSeconds(idleTimeoutMs)}`), { code: 'ETIMEDOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (isAbort(error)) return reject(error);
      const code = networkCode(error) ?? 'ECONNRESET';
      if (isTlsCode(code)) {
        const advice = tlsAdvice(`the storage (${url.host})`, code);
        return reject(new BundleError('network', `The download of the bundle from ${redactLink(url.toString())} failed: ${advice}`, { cause: error }));
      }
      if (isDnsCode(code)) {
        const advice = dnsAdvice(url.hostname, code, "check the link's host");
        return reject(new BundleError('network', `The download of the bundle from ${redactLink(url.toString())} failed: ${advice}.`, { transient: code === 'EAI_AGAIN', cause: error }));
      }
      reject(new BundleError('network', `The download of the bundle from ${redactLink(url.toString())} failed before an answer (${code}).`, { transient: true, cause: error }));
    });
  });
}

// S3 answers errors with XML: <Error><Code>AccessDenied</Code><Message>Request has expired</Message>…
async function storageError(response: http.IncomingMessage, status: number, link: string): Promise<BundleError> {
  let text = '';
  try {
    for await (const chunk of response) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length > 8192) break;
    }
  } catch {
    // the status says enough
  }
  response.destroy();
  const storage = { storageCode: /<Code>([^<]*)<\/Code>/.exec(text)?.[1], storageMessage: /<Message>([^<]*)<\/Message>/.exec(text)?.[1] };
  const said = storageSaid(status, storage);
  const where = redactLink(link);
  const retryAfterHeader = response.headers['retry-after'];
  const retryAfterMs = parseRetryAfter(Array.isArray(retryAfterHeader) ? retryAfterHeader[0] : retryAfterHeader);
  if (status === 403) {
    return new BundleError('http', `The storage refused the bundle link ${where} (${said}).`, { status, ...storage, expired: /expired/i.test(storage.storageMessage ?? ''), retryAfterMs });
  }
  if (status === 404) {
    return new BundleError('http', `The storage has no bundle at ${where} (${said}). The export's files may have been removed; start a new export.`, { status, ...storage });
  }
  const transient = status >= 500 || status === 429 || status === 408;
  return new BundleError('http', `The storage answered ${said} for ${where}.`, { status, ...storage, transient, retryAfterMs });
}

/** `403 AccessDenied: Request has expired` */
function storageSaid(status: number, { storageCode, storageMessage }: { storageCode?: string; storageMessage?: string }): string {
  const words = [storageCode, storageMessage].filter(Boolean).join(': ');
  return words ? `${status} ${words}` : String(status);
}

async function removeQuietly(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}

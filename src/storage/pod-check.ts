// Fetches the durable URL as a pod of the deployment would before it is proposed: anonymously (no
// Authorization, no cookie, no token of the runner), as the Helm chart does at start-up. What it
// answers here is what the pods will get, so a refusal stops the run before anything is proposed.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { formatBytes, formatSeconds } from '../action/format.ts';
import type { Deadline } from '../action/deadline.ts';
import { retryTransient } from '../wait/backoff.ts';
import { dnsAdvice, isDnsCode, networkCode } from '../action/network.ts';
import { archiveKind } from './kept-archive.ts';

export interface PodCheckOptions {
  /** Bytes the object must have: the kept archive's size. */
  expectedBytes: number;
  /** When set, the whole object is downloaded and its SHA-256 compared with this. */
  sha256?: string;
  deadline: Deadline;
  signal?: AbortSignal;
  log: (line: string) => void;
  /** Tries after the first, for a 5xx, 429 or a lost connection. */
  retries?: number;
  /** The first backoff; each retry doubles it (wait/backoff.ts). */
  minBackoffMs?: number;
  requestTimeoutMs?: number;
}

export interface PodCheck {
  status: number;
  bytes: number;
  /** What its first bytes say it is: a gzip'd tar (today's API) or a zip (the platform's next one). */
  kind: 'gzip' | 'zip';
  /** True when the whole object was read and its SHA-256 matched. */
  sha256Checked: boolean;
}

export class PodCheckError extends Error {
  readonly status?: number;
  readonly transient: boolean;
  constructor(message: string, status?: number, transient = false) {
    super(message);
    this.name = 'PodCheckError';
    this.status = status;
    this.transient = transient;
  }
}

const MAX_REDIRECTS = 5;
const FIXES =
  'What usually fixes it: a bucket policy that allows s3:GetObject from the cluster (its VPC endpoint with aws:SourceVpce, or its NAT addresses with aws:SourceIp); ' +
  "anonymous read on the bucket (MinIO: mc anonymous set download) kept private by the cluster's network policy; or a CDN in front of the private bucket.";

export async function checkAsPod(url: string, options: PodCheckOptions): Promise<PodCheck> {
  return retryTransient(() => checkOnce(url, options), {
    retries: options.retries ?? 2,
    minBackoffMs: options.minBackoffMs ?? 1000,
    transient: (error) => error instanceof PodCheckError && error.transient,
    deadline: options.deadline,
    signal: options.signal,
    onRetry: ({ error, waitMs, retriesLeft }) =>
      options.log(`${(error as PodCheckError).message} Retrying in ${formatSeconds(waitMs)} (${retriesLeft} ${retriesLeft === 1 ? 'try' : 'tries'} left).`)
  });
}

async function checkOnce(url: string, options: PodCheckOptions): Promise<PodCheck> {
  const response = await open(url, options);
  const status = response.statusCode ?? 0;
  const said = `${url} answered ${status}`;
  if (status === 401 || status === 403) {
    response.resume();
    throw new PodCheckError(`${said} to a request without credentials: the pods will get the same answer and cannot fetch the site. Nothing was proposed. ${FIXES}`, status);
  }
  if (status === 404) {
    response.resume();
    throw new PodCheckError(`${said}: nothing is there yet, so the pods would get the same 404. Upload the kept archive to exactly this URL in an earlier step (check the key, the bucket and the job id in bundle-url-template); nothing was proposed.`, status);
  }
  if (status >= 500 || status === 429 || status === 408) {
    response.resume();
    throw new PodCheckError(`${said}.`, status, true);
  }
  if (status !== 200) {
    response.resume();
    throw new PodCheckError(`${said}, not 200: the chart fetches the bundle with a plain GET and needs a 200. Nothing was proposed.`, status);
  }
  const length = response.headers['content-length'];
  if (length !== undefined && Number(length) !== options.expectedBytes) {
    response.destroy();
    throw wrongSize(url, Number(length), options.expectedBytes);
  }
  const hash = options.sha256 ? createHash('sha256') : undefined;
  let bytes = 0;
  let head = Buffer.alloc(0);
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      if (head.length < 4) head = Buffer.concat([head, chunk.subarray(0, 4 - head.length)]);
      bytes += chunk.length;
      hash?.update(chunk);
      if (bytes > options.expectedBytes) break;
      // Without check-sha256, the first bytes and the declared length are enough.
      if (!hash && length !== undefined && head.length >= 4) break;
    }
  } catch (error) {
    throw new PodCheckError(`The check of ${url} lost the connection (${(error as NodeJS.ErrnoException).code ?? 'reset'}).`, undefined, true);
  } finally {
    response.destroy();
  }
  const kind = archiveKind(head)?.name;
  if (!kind) {
    throw new PodCheckError(`${url} answered 200, but not with a gzip archive or a zip (it starts with ${head.toString('hex') || 'nothing'}): the pods would get that page instead of the bundle. A login page or an error page of a proxy often looks like this. Nothing was proposed.`, status);
  }
  if (length === undefined || hash) {
    if (bytes !== options.expectedBytes) throw wrongSize(url, bytes, options.expectedBytes);
  }
  if (hash && hash.digest('hex') !== options.sha256) {
    throw new PodCheckError(`${url} serves ${formatBytes(bytes)} whose SHA-256 differs from the kept archive's (${options.sha256}): it holds another bundle. Upload the kept archive again; nothing was proposed.`, status);
  }
  return { status, bytes: length !== undefined ? Number(length) : bytes, kind, sha256Checked: hash !== undefined };
}

function wrongSize(url: string, got: number, expected: number): PodCheckError {
  return new PodCheckError(
    `${url} serves ${got.toLocaleString('en-US')} bytes, but the kept archive has ${expected.toLocaleString('en-US')}: it is another file, or an upload that did not finish. Upload the kept archive again; nothing was proposed.`,
    200
  );
}

/** GET without any credential, following a few redirects (a CDN may send one), never from https to http. */
async function open(link: string, options: PodCheckOptions): Promise<http.IncomingMessage> {
  let url = new URL(link);
  for (let hop = 0; ; hop++) {
    const response = await get(url, options);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status < 300 || status >= 400 || !location || hop >= MAX_REDIRECTS) return response;
    response.resume();
    const next = new URL(location, url);
    if (url.protocol === 'https:' && next.protocol !== 'https:') {
      throw new PodCheckError(`${link} redirects from https to ${next.protocol}, which the check refuses to follow. Serve the bundle over https.`, status);
    }
    url = next;
  }
}

function get(url: URL, options: PodCheckOptions): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  const timeoutMs = options.deadline.limit(options.requestTimeoutMs ?? 30_000);
  return new Promise((resolve, reject) => {
    // Only a user agent: what a pod's plain GET sends, nothing of the runner's.
    const request = client.get(url, { agent: false, signal: options.signal, headers: { 'user-agent': 'static-export-action (pod check)', 'accept-encoding': 'identity' } }, resolve);
    request.setTimeout(Math.max(1, timeoutMs), () => request.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.name === 'AbortError') return reject(error);
      const code = networkCode(error);
      if (isDnsCode(code)) return reject(new PodCheckError(`The check of ${url.toString()} failed: ${dnsAdvice(url.hostname, code, 'check the host in bundle-url-template')}. Nothing was proposed.`, undefined, code === 'EAI_AGAIN'));
      reject(new PodCheckError(`The check of ${url.toString()} failed before an answer (${code ?? 'ECONNRESET'}).`, undefined, true));
    });
  });
}

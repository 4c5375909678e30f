// The transport every call to the platform's admin API goes through: bearer auth, a time limit on
// each request, retries of transient faults with backoff and jitter (wait/backoff.ts), and errors that
// carry what a person needs to act: the status, the server's message, the request id.
import { HttpClient } from '@actions/http-client';
import type { IncomingMessage } from 'node:http';
import { type Deadline, DeadlineError } from '../action/deadline.ts';
import { formatBytes, formatSeconds } from '../action/format.ts';
import { isDnsCode, isTlsCode, networkCode } from '../action/network.ts';
import { parseRetryAfter, retryTransient } from '../wait/backoff.ts';

/**
 * `idempotent`: safe to send again after any transient fault.
 * `create`: the request creates something a second copy of which would do harm (an agent job opens
 * a pull request). It is sent again only when the server surely did not take it: the connection
 * was refused, or the answer was 429 or 503. After 500, 502 or 504 (a gateway may answer so after
 * the platform acted), a timeout or a connection dropped with the body sent, it is not resent.
 * `start`: an export start. The platform has no idempotency key, so after such an ambiguous fault
 * a resend may run a second export; it is resent all the same, with a warning that says so: a
 * second export costs the user nothing, giving up costs the run. `resentStarts` counts them, so the
 * log and the summary can say how many jobs may run unnamed.
 */
export type RetryPolicy = 'idempotent' | 'create' | 'start' | 'project-start';
// `project-start`: the project-scoped start (static export's next shape). As `start`, except that a
// 429 is its hourly limit of starts: retried only when the answer says when (Retry-After) and that
// fits the step's deadline; otherwise the caller says when to come back.

/** Statuses after which the server may have acted on the request. */
const AMBIGUOUS_STATUSES = new Set([500, 502, 504]);
/** What an error answer may carry: enough for its message, not a page of HTML. */
const ERROR_BODY_BYTES = 16 * 1024;
/** Default cap of a success body; the static export's answers are a few hundred bytes. */
const DEFAULT_BODY_BYTES = 64 * 1024;

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Time limit of one request, answer included. */
  requestTimeoutMs?: number;
  /** How many times a transient fault is retried. */
  retries?: number;
  /** The first backoff; each retry doubles it, with jitter (wait/backoff.ts). */
  minBackoffMs?: number;
  /**
   * A fault whose Retry-After asks for a longer wait than this is not retried: the caller says when
   * to come back instead of holding the step (an hourly limit can ask for an hour). Default: no cap.
   */
  maxRetryAfterMs?: number;
  signal?: AbortSignal;
  /** A line per request (method, path, status, time): goes to the debug log. */
  debug?: (line: string) => void;
  /** Called when a transient fault is retried, so the log says why the step is slower. */
  onRetry?: (message: string) => void;
  /** A warning for the log (a start resent after an ambiguous fault). */
  warn?: (message: string) => void;
  /** The step's one deadline: bounds each request, each backoff and each Retry-After. */
  deadline?: Deadline;
  userAgent?: string;
  /** The project the project-scoped routes name (static export's next shape), when the step has one. */
  projectId?: string;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  retry?: RetryPolicy;
  /** The largest success body this endpoint may send (default 64 KB); a larger one is cut off and refused. */
  maxBytes?: number;
}

/** Network error codes that mean the request never reached the server. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

export class ApiError extends Error {
  readonly method: string;
  readonly path: string;
  /** HTTP status; undefined for a network fault or a timeout. */
  readonly status?: number;
  /** The `error` field of the body, or its text. */
  readonly serverMessage?: string;
  /** The analytics API's `details[].message`. */
  readonly details: string[];
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  /** Network code (ECONNRESET, ETIMEDOUT, …) when no answer came. */
  readonly code?: string;
  /** True when the server may have taken the request (the body was sent, no answer came back). */
  readonly maybeTaken: boolean;
  /** The answer's JSON, when it was JSON: fields beyond `error` that a caller may use (a 409's job id). */
  readonly body?: unknown;

  constructor(init: {
    method: string;
    path: string;
    message: string;
    status?: number;
    serverMessage?: string;
    details?: string[];
    requestId?: string;
    retryAfterMs?: number;
    code?: string;
    maybeTaken?: boolean;
    body?: unknown;
  }) {
    super(init.message);
    this.name = 'ApiError';
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.serverMessage = init.serverMessage;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.code = init.code;
    this.maybeTaken = init.maybeTaken ?? false;
    this.body = init.body;
  }

  get transient(): boolean {
    if (this.status !== undefined) return this.status >= 500 || this.status === 429;
    // A name that does not exist stays so at the next try; a resolver that did not answer may answer.
    return !this.tls && this.code !== 'ENOTFOUND';
  }

  /** The TLS handshake failed (an untrusted or wrong certificate): nothing was sent, and another try fails alike. */
  get tls(): boolean {
    return this.status === undefined && isTlsCode(this.code);
  }

  /** The server may have acted on the request although no success came back. */
  get ambiguous(): boolean {
    return this.status === undefined ? this.maybeTaken : AMBIGUOUS_STATUSES.has(this.status);
  }
}

/** The API answered 2xx but the body is not what the contract says. */
export class ResponseShapeError extends Error {
  constructor(what: string, problem: string) {
    super(`The API's answer to ${what} ${problem}. The API may have changed; report this with the job id.`);
    this.name = 'ResponseShapeError';
  }
}

export class ApiClient {
  /** Export starts sent again after an ambiguous fault: each may have started a job whose id never arrived. */
  resentStarts = 0;
  private readonly http: HttpClient;
  private readonly options: Required<Pick<ApiClientOptions, 'requestTimeoutMs' | 'retries' | 'minBackoffMs'>> &
    ApiClientOptions;

  constructor(options: ApiClientOptions) {
    this.options = { requestTimeoutMs: 30_000, retries: 4, minBackoffMs: 500, ...options };
    // keepAlive: a wait polls the same host many times; one connection saves a handshake each time.
    this.http = new HttpClient(options.userAgent ?? 'static-export-action', [], {
      keepAlive: true,
      socketTimeout: this.options.requestTimeoutMs,
      allowRetries: false
    });
  }

  get projectId(): string | undefined {
    return this.options.projectId;
  }

  get deadline(): Deadline | undefined {
    return this.options.deadline;
  }

  get signal(): AbortSignal | undefined {
    return this.options.signal;
  }

  /** A line for the step's log (where retries go): what the client learned or is waiting for. */
  log(message: string): void {
    this.options.onRetry?.(message);
  }

  /** Ends idle keep-alive sockets so the process can exit. */
  dispose(): void {
    this.http.dispose();
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<unknown> {
    const policy = options.retry ?? 'idempotent';
    const { retries, minBackoffMs, signal, maxRetryAfterMs, deadline } = this.options;
    return retryTransient(() => this.send(method, path, options), {
      retries,
      minBackoffMs,
      jitter: true,
      transient: (error) => isRetryable(error, policy, deadline),
      retryAfterMs: (error) => (error as ApiError).retryAfterMs,
      maxRetryAfterMs,
      server: 'the platform',
      deadline,
      signal,
      onRetry: ({ error, waitMs, retriesLeft }) => {
        const apiError = error as ApiError;
        if ((policy === 'start' || policy === 'project-start') && apiError.ambiguous) {
          this.resentStarts += 1;
          this.options.warn?.(
            `${apiError.message}, so the platform may have started the export although no answer arrived. Sending the start again: a second export may run on the platform (it costs nothing but its time); this step follows the one whose answer arrives.`
          );
        }
        this.options.onRetry?.(`${apiError.message}; retrying in ${formatSeconds(waitMs)} (${retriesLeft} ${retriesLeft === 1 ? 'try' : 'tries'} left)`);
      }
    });
  }

  private async send(method: string, path: string, options: RequestOptions): Promise<unknown> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json'
    };
    let data: string | null = null;
    if (options.body !== undefined) {
      data = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const started = Date.now();
    const { deadline } = this.options;
    if (deadline?.expired()) throw new DeadlineError(`${method} ${path} could be sent`, 0, deadline);
    // One request's limit: request-timeout (agent-job/ and feedback/; a constant 30 s in the publish actions), or what is left of the step if that is less.
    const limit = deadline ? deadline.limit(this.options.requestTimeoutMs) : this.options.requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let answer: IncomingMessage | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Close the socket: an answer that trickles in must not go on past the limit.
        answer?.destroy();
        reject(
          new ApiError({
            method,
            path,
            code: 'ETIMEDOUT',
            maybeTaken: true,
            message: `${method} ${path} got no whole answer within ${formatSeconds(limit)}`
          })
        );
      }, limit);
    });
    try {
      const exchange = (async () => {
        const response = await this.http.request(method, url, data, headers);
        answer = response.message;
        const status = response.message.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const body = await readCapped(response.message, ok ? (options.maxBytes ?? DEFAULT_BODY_BYTES) : ERROR_BODY_BYTES);
        if (ok && body.cut) throw new ResponseShapeError(`${method} ${path}`, `is larger than ${formatBytes(options.maxBytes ?? DEFAULT_BODY_BYTES)}, far more than this endpoint sends, so it was cut off`);
        return { status, headers: response.message.headers, body: body.text };
      })();
      exchange.catch(() => undefined); // a late failure after the time limit is already reported
      const { status, headers: responseHeaders, body } = await Promise.race([exchange, timeout]);
      this.options.debug?.(`${method} ${path} → ${status} in ${Date.now() - started} ms`);
      const json = parseJson(body);
      if (status >= 200 && status < 300) {
        if (json === undefined) throw new ResponseShapeError(`${method} ${path}`, 'is not JSON');
        return json;
      }
      throw errorFromResponse(method, path, status, json, body, responseHeaders);
    } catch (error) {
      if (error instanceof ApiError || error instanceof ResponseShapeError) {
        if (error instanceof ApiError && error.status === undefined) {
          this.options.debug?.(`${method} ${path} → ${error.code} after ${Date.now() - started} ms`);
        }
        throw error;
      }
      const code = networkCode(error) ?? 'ECONNRESET';
      const notSent = NOT_SENT_CODES.has(code) || isTlsCode(code);
      this.options.debug?.(`${method} ${path} → ${code} after ${Date.now() - started} ms`);
      const host = new URL(this.options.baseUrl).host;
      throw new ApiError({
        method,
        path,
        code,
        maybeTaken: !notSent,
        message: isTlsCode(code)
          ? `${method} ${path} could not reach ${host}: its TLS certificate was refused (${code})`
          : isDnsCode(code)
            ? `${method} ${path} could not resolve ${new URL(this.options.baseUrl).hostname} (DNS, ${code})`
            : notSent
            ? `${method} ${path} could not reach ${host} (${code})`
            : `${method} ${path} lost its connection before an answer (${code})`
      });
    } finally {
      clearTimeout(timer);
    }
  }

  private url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(this.options.baseUrl + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }
}

function isRetryable(error: unknown, policy: RetryPolicy, deadline?: Deadline): boolean {
  if (!(error instanceof ApiError) || !error.transient) return false;
  if (policy === 'project-start' && error.status === 429) return error.retryAfterMs !== undefined && (!deadline || deadline.fits(error.retryAfterMs));
  return policy !== 'create' || !error.ambiguous;
}

/** Reads a body up to `cap` bytes; past that, the rest is not read and the socket is closed. */
async function readCapped(message: IncomingMessage, cap: number): Promise<{ text: string; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of message as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > cap) {
      chunks.push(chunk.subarray(0, chunk.length - (size - cap)));
      message.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), cut: true };
    }
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), cut: false };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorFromResponse(
  method: string,
  path: string,
  status: number,
  json: unknown,
  text: string,
  headers: Record<string, string | string[] | undefined>
): ApiError {
  const record = json && typeof json === 'object' ? (json as Record<string, unknown>) : {};
  const serverMessage =
    typeof record.error === 'string' ? record.error : typeof record.message === 'string' ? record.message : text.trim().slice(0, 300) || undefined;
  const details = Array.isArray(record.details)
    ? record.details.flatMap((d) => (d && typeof (d as { message?: unknown }).message === 'string' ? [(d as { message: string }).message] : []))
    : [];
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const requestId = header('x-request-id') ?? header('x-amzn-requestid') ?? header('cf-ray');
  const retryAfterMs = parseRetryAfter(header('retry-after'));
  return new ApiError({
    method,
    path,
    status,
    serverMessage,
    details,
    requestId,
    retryAfterMs,
    body: json,
    message: `${method} ${path} answered ${status}${serverMessage ? `: ${serverMessage}` : ''}`
  });
}

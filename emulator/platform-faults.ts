// The platform's bad days, for the platform emulator: which faults exist, which requests they hit,
// and the answers they give. platform.ts routes requests and platform-state.ts keeps the state;
// this file spoils answers.
import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

// '404', '405': the route answers as an API that moved or changed it would.
// 'truncate': the route answers, but the body stops halfway (short of its Content-Length) and the connection ends.
// 'trickle': the route answers, one byte of the body every 200 ms. 'oversize': a 200 whose body runs
// to megabytes. 'bad-expiry': the bundle answer's expiresAt is "in 7 days". '502-taken', 'drop-taken':
// the route acts (a start creates its job), then the answer is a gateway 502 or a dropped connection.
export type FaultKind = '500' | '503' | '429' | 'drop' | 'hang' | '409' | '404' | '405' | 'truncate' | 'trickle' | 'oversize' | 'bad-expiry' | '502-taken' | 'drop-taken';
export type RouteName = 'start' | 'status' | 'bundle' | 'agent-get' | 'agent-create' | 'feedback' | 'download' | 'deploy' | 'deploy-status';

export interface Fault {
  route: RouteName | 'any';
  kind: FaultKind;
  times?: number;
  retryAfterSeconds?: number;
}

/** What a route answers; the server turns it into a response. */
export interface Answer {
  status: number;
  json?: unknown;
  xml?: string;
  bytes?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export const ROUTE_NAMES: (RouteName | 'any')[] = ['start', 'status', 'bundle', 'agent-get', 'agent-create', 'feedback', 'download', 'deploy', 'deploy-status', 'any'];
export const FAULT_KINDS: FaultKind[] = ['500', '503', '429', 'drop', 'hang', '409', '404', '405', 'truncate', 'trickle', 'oversize', 'bad-expiry', '502-taken', 'drop-taken'];
/** Faults that let the route answer (or act) first and then spoil what goes back. */
export const AFTER_ANSWER: FaultKind[] = ['truncate', 'trickle', 'bad-expiry', '502-taken', 'drop-taken'];

/** Armed faults, taken by the requests they hit, each for `times` requests. */
export class PlatformFaults {
  private readonly armed: (Fault & { times: number })[] = [];

  arm(fault: Fault): void {
    this.armed.push({ route: fault.route, kind: fault.kind, times: fault.times ?? 1, retryAfterSeconds: fault.retryAfterSeconds });
  }

  take(route: RouteName | 'unknown'): Fault | undefined {
    const index = this.armed.findIndex((fault) => fault.route === route || fault.route === 'any');
    if (index < 0) return undefined;
    const fault = this.armed[index]!;
    fault.times -= 1;
    if (fault.times <= 0) this.armed.splice(index, 1);
    return fault;
  }
}

export function s3Error(status: number, code: string, message: string, extra = ''): Answer {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${extra}<RequestId>${requestId}</RequestId><HostId>${randomBytes(24).toString('base64')}</HostId></Error>`;
  return { status, xml };
}

/** The answer a fault gives in place of the route's, or 'drop' / 'hang' for no answer at all. */
export function faultAnswer(fault: Fault, route: RouteName | 'unknown'): Answer | 'drop' | 'hang' {
  if (fault.kind === 'drop' || fault.kind === 'hang') return fault.kind;
  if (fault.kind === '429') {
    const headers = { 'Retry-After': String(fault.retryAfterSeconds ?? 1) };
    if (route === 'download') return { ...s3Error(429, 'SlowDown', 'Please reduce your request rate.'), headers };
    return { status: 429, json: { error: 'Rate limit exceeded' }, headers };
  }
  if (fault.kind === '409') return { status: 409, json: { error: 'Job has not finished yet' } };
  // An API that moved the route or changed its method (a private beta may): the web framework's own answer.
  if (fault.kind === '404') return { status: 404, json: { error: 'Not Found' } };
  if (fault.kind === '405') return { status: 405, json: { error: 'Method Not Allowed' }, headers: { Allow: 'GET' } };
  const status = Number(fault.kind);
  if (route === 'download') return s3Error(status, status === 503 ? 'SlowDown' : 'InternalError', 'We encountered an internal error. Please try again.');
  if (route === 'feedback') return { status, json: { error: 'Internal server error', details: [{ message: 'Failed to aggregate feedback' }] } };
  return { status, json: { error: 'Internal server error' } };
}

// The whole answer, one byte every 200 ms: an answer that never stalls long enough for an idle timeout.
export function trickle(res: ServerResponse, answer: Answer): void {
  const payload = Buffer.from(JSON.stringify(answer.json ?? {}));
  res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(payload.length) });
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= payload.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(payload.subarray(at, at + 1));
    at += 1;
  }, 200);
}

/** A 200 whose body never ends soon: 64 KB chunks up to 400 MB, or until the client hangs up. */
export function oversize(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const pump = (): void => {
    while (sent < 400 * 1024 * 1024 && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

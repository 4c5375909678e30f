// A loopback emulator of the platform's admin API: static export, agent jobs, feedback by page,
// and the presigned bundle download, with injectable faults (platform-faults.ts). This file is the
// server and its routes; the state they read and change, computed from the clock so that a test with
// a fake clock never waits, is in platform-state.ts.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AFTER_ANSWER, type Answer, FAULT_KINDS, type Fault, type RouteName, PlatformFaults, ROUTE_NAMES, faultAnswer, oversize, s3Error, trickle } from './platform-faults.ts';
import { contractCheck } from './contract-check.ts';
import { DEPLOYMENT_FAULTS, type DeploymentFault, type Deployments } from './deployments.ts';
import {
  type AgentJobRecord,
  type AgentOutcome,
  type ExportJobRecord,
  FEEDBACK_SOURCES,
  FEEDBACK_STATUSES,
  type FeedbackSource,
  type FeedbackStatus,
  type JobProfile,
  PlatformState,
  type PlatformSettings,
  agentJobStatus,
  exportJobState,
  parseQueryDate
} from './platform-state.ts';
import type { ApiShape } from './platform-state.ts';
import { getProjectJob, startProjectJob } from './platform-next.ts';

export interface EmulatorOptions extends PlatformSettings {
  port?: number;
  apiKey?: string;
  /** The host bundle links name instead of 127.0.0.1 (on the emulator's port): storage is another host than the API. */
  storageHost?: string;
  /** The base URL bundle links name instead (scheme, host and port): a TLS proxy in front of the emulator, say. */
  storageUrl?: string;
}

export type { FeedbackEntry, JobProfile } from './platform-state.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  route: RouteName | 'unknown';
  status: number; // 0 while unanswered, and for dropped or hung requests
  at: number;
  authorization?: string;
}

export interface PlatformEmulator {
  url: string;
  requests: RecordedRequest[];
  addFault(fault: Fault): void;
  exportJobs: Map<string, ExportJobRecord>;
  agentJobs: Map<string, AgentJobRecord>;
  /** Pushes and the platform's deployments: `deployments.push(branch, sha)`, `deployments.arm(fault)`. */
  deployments: Deployments;
  profile: JobProfile; // read when a job starts, so a test may change it between jobs
  linkTtlSeconds: number; // read when a link is generated
  /** `archive`: the bytes the job's bundle link serves, as they are (any format, any content). */
  seedExportJob(input: { domain: string; status?: 'completed'; createdAt?: number; archive?: Buffer; shape?: 'jobs' | 'project'; projectId?: string }): string;
  /** A fresh presigned link to a finished job's bundle, as either shape would hand it out. */
  linkFor(jobId: string): string;
  /** Which static export API answers. */
  apiShape: ApiShape;
  seedAgentJob(input: { projectId: string; outcome?: AgentOutcome; runMs?: number; prompt?: string; createdAt?: number }): string;
  close(): Promise<void>;
}

export const DEFAULT_API_KEY = 'mint_test_admin_key';
const MAX_BODY_BYTES = 1_000_000;
// A bare hostname with at least one dot: no scheme, port, path or trailing slash.
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i;

function matchRoute(method: string, path: string, shape: ApiShape): { route: RouteName | 'unknown'; params: string[] } {
  const parts = path.split('/').slice(1).map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  const is = (...pattern: string[]): string[] | undefined => {
    if (parts.length !== pattern.length) return undefined;
    const params: string[] = [];
    for (let i = 0; i < pattern.length; i++) {
      if (pattern[i] === '*') params.push(parts[i]);
      else if (pattern[i] !== parts[i]) return undefined;
    }
    return params;
  };
  // Today's static export routes, the next shape's (project-scoped: params [projectId, jobId]), or both.
  const today: [string, RouteName, string[]][] = [
    ['POST', 'start', ['v1', 'static-export', 'jobs']],
    ['GET', 'status', ['v1', 'static-export', 'jobs', '*']],
    ['POST', 'bundle', ['v1', 'static-export', 'jobs', '*', 'bundle']]
  ];
  const next: [string, RouteName, string[]][] = [
    ['POST', 'start', ['v1', 'static-export', '*', 'jobs']],
    ['GET', 'status', ['v1', 'static-export', '*', 'jobs', '*']]
  ];
  const routes: [string, RouteName, string[]][] = [
    ...(shape === 'next' ? [] : today),
    ...(shape === 'today' ? [] : next),
    ['POST', 'agent-create', ['v2', 'agent', '*', 'job']],
    ['GET', 'agent-get', ['v2', 'agent', '*', 'job', '*']],
    ['GET', 'feedback', ['v1', 'analytics', '*', 'feedback', 'by-page']],
    ['POST', 'deploy', ['v1', 'project', 'update', '*']],
    ['GET', 'deploy-status', ['v1', 'project', 'update-status', '*']],
    ['GET', 'download', ['bundles', '*', '*']],
    ['HEAD', 'download', ['bundles', '*', '*']]
  ];
  for (const [routeMethod, route, pattern] of routes) {
    const params = method === routeMethod ? is(...pattern) : undefined;
    if (params) return { route, params };
  }
  return { route: 'unknown', params: [] };
}

async function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES };
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, answer: Answer, headOnly: boolean, truncate = false): void {
  let payload: Buffer = Buffer.alloc(0);
  let contentType: string | undefined = answer.contentType;
  if (answer.json !== undefined) {
    payload = Buffer.from(JSON.stringify(answer.json));
    contentType = 'application/json; charset=utf-8';
  } else if (answer.xml !== undefined) {
    payload = Buffer.from(answer.xml);
    contentType = 'application/xml';
  } else if (answer.bytes) {
    payload = answer.bytes;
  }
  const headers: Record<string, string> = { ...answer.headers };
  if (contentType) headers['Content-Type'] = contentType;
  if (answer.status !== 204) headers['Content-Length'] = String(payload.length);
  res.writeHead(answer.status, headers);
  if (truncate && !headOnly && payload.length > 0) {
    res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.socket?.end());
    return;
  }
  res.end(headOnly || answer.status === 204 ? undefined : payload);
}

function exportJobView(state: PlatformState, job: ExportJobRecord): Record<string, unknown> {
  const jobState = exportJobState(job, state.clock());
  return {
    jobId: job.jobId,
    status: jobState.status,
    progress: jobState.progress,
    pageCount: jobState.pageCount,
    createdAt: new Date(job.createdAt).toISOString(),
    updatedAt: new Date(jobState.updatedAt).toISOString(),
    ...(jobState.error !== undefined ? { error: jobState.error } : {}),
    // Fields no schema lists: clients must ignore them.
    region: 'us-east-1',
    _links: { self: `/v1/static-export/jobs/${job.jobId}`, bundle: `/v1/static-export/jobs/${job.jobId}/bundle` }
  };
}

function agentJobView(state: PlatformState, job: AgentJobRecord): Record<string, unknown> {
  const status = agentJobStatus(job, state.clock());
  return {
    id: job.id,
    status,
    source: { repository: 'https://github.com/acme/docs', ref: status === 'completed' ? `mintlify/agent-${job.id.slice(0, 8)}` : null },
    model: 'sonnet',
    prLink: status === 'completed' && job.outcome === 'pr' ? `https://github.com/acme/docs/pull/${job.prNumber}` : null,
    createdAt: new Date(job.createdAt).toISOString(),
    archivedAt: null
  };
}

function startJob(state: PlatformState, body: string): Answer {
  if (!state.staticExportEnabled) {
    return { status: 403, json: { error: 'Static export is not enabled for this organization. Contact sales to enable it on an Enterprise plan.' } };
  }
  const parsed = parseJson(body);
  if (!parsed || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return { status: 400, json: { error: 'Invalid JSON body: expected an object like {"domain": "docs.example.com"}' } };
  }
  const { domain, version, paths } = parsed.value as Record<string, unknown>;
  if (domain === undefined) return { status: 400, json: { error: 'domain is required' } };
  if (typeof domain !== 'string' || !HOSTNAME.test(domain)) {
    return { status: 400, json: { error: 'Invalid domain: provide the hostname only, e.g. docs.example.com' } };
  }
  if (version !== undefined && (typeof version !== 'string' || version === '')) {
    return { status: 400, json: { error: 'Invalid version: expected a non-empty string' } };
  }
  if (paths !== undefined && (!Array.isArray(paths) || !paths.every((path) => typeof path === 'string' && path.trim() !== ''))) {
    return { status: 400, json: { error: 'Invalid paths: expected an array of page paths, e.g. ["guides/getting-started"]' } };
  }
  // A page path names a page of the site: no scheme, no `..`, no query.
  const badPath = (paths as string[] | undefined)?.find((path) => /^[a-z]+:|\.\.|[?#\s]/i.test(path));
  if (badPath !== undefined) {
    return { status: 400, json: { error: `Invalid path "${badPath}": paths are page paths such as guides/getting-started` } };
  }
  const job = state.startExportJob({ domain, version, paths: paths as string[] | undefined });
  return { status: 202, json: exportJobView(state, job) };
}

// `storageUrl`: where bundle links point (the emulator itself, perhaps under another host name).
function generateBundle(state: PlatformState, jobId: string, storageUrl: string): Answer {
  const job = state.exportJobs.get(jobId);
  if (!job) return { status: 404, json: { error: 'Job not found' } };
  const jobState = exportJobState(job, state.clock());
  if (jobState.status === 'failed') return { status: 409, json: { error: `Job failed, so it has no bundle: ${jobState.error}` } };
  if (jobState.status !== 'completed') return { status: 409, json: { error: 'Job has not finished yet' } };
  const { archive, link, expiresAt } = state.bundleLink(job);
  return { status: 200, json: { jobId: job.jobId, bundleUrl: `${storageUrl}${link}`, sizeBytes: archive.length, expiresAt: new Date(expiresAt).toISOString() } };
}

function download(state: PlatformState, req: IncomingMessage, url: URL, jobId: string): Answer {
  // S3 refuses a presigned URL sent with an Authorization header too (and the admin key must not leak there).
  if (req.headers.authorization !== undefined) {
    return s3Error(400, 'InvalidArgument', 'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified');
  }
  const refusal = state.linkRefusal(url.pathname, url.searchParams);
  if (refusal?.reason === 'malformed') return s3Error(403, 'AccessDenied', 'Access Denied');
  if (refusal?.reason === 'forged') {
    return s3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
  if (refusal?.reason === 'expired') {
    const { expires, expiresAt, now } = refusal;
    const extra = `<X-Amz-Expires>${expires}</X-Amz-Expires><Expires>${new Date(expiresAt).toISOString()}</Expires><ServerTime>${new Date(now).toISOString()}</ServerTime>`;
    return s3Error(403, 'AccessDenied', 'Request has expired', extra);
  }
  const job = state.exportJobs.get(jobId);
  const format = job && state.archiveOf(job);
  if (!job?.archive || !format || url.pathname.split('/').at(-1) !== format.fileName) return s3Error(404, 'NoSuchKey', 'The specified key does not exist.');
  return { status: 200, bytes: job.archive, contentType: format.contentType };
}

function createAgent(state: PlatformState, projectId: string, body: string): Answer {
  const parsed = parseJson(body);
  const prompt = parsed && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>).prompt : undefined;
  if (typeof prompt !== 'string' || prompt.trim() === '') {
    return { status: 400, json: { error: 'Invalid request: prompt must be a non-empty string' } };
  }
  const retryAfter = state.admitAgentCreate(projectId);
  if (retryAfter !== undefined) {
    return { status: 429, json: { error: `Rate limit exceeded: ${state.agentLimit} agent jobs per project per hour` }, headers: { 'Retry-After': String(retryAfter) } };
  }
  return { status: 201, json: agentJobView(state, state.startAgentJob(projectId, prompt)) };
}

function getAgent(state: PlatformState, projectId: string, id: string): Answer {
  const job = state.agentJobs.get(id);
  if (!job || job.projectId !== projectId) return { status: 404, json: { error: 'Job not found' } };
  return { status: 200, json: agentJobView(state, job) };
}

function feedbackByPage(state: PlatformState, url: URL): Answer {
  const retryAfter = state.admitAnalyticsRequest();
  if (retryAfter !== undefined) return { status: 429, json: { error: 'Rate limit exceeded' }, headers: { 'Retry-After': String(retryAfter) } };

  const query = url.searchParams;
  const details: { message: string }[] = [];
  const dateParam = (name: string): number | undefined => {
    const value = query.get(name);
    if (value === null) return undefined;
    const ms = parseQueryDate(value);
    if (ms === undefined) details.push({ message: `${name}: Invalid date` });
    return ms;
  };
  const dateFrom = dateParam('dateFrom');
  const dateTo = dateParam('dateTo');
  let limit = 10;
  const limitParam = query.get('limit');
  if (limitParam !== null) {
    limit = Number(limitParam);
    if (limitParam.trim() === '' || !Number.isFinite(limit)) details.push({ message: 'limit: Expected number' });
    else if (limit < 1 || limit > 100) details.push({ message: 'limit: Number must be between 1 and 100' });
    limit = Math.floor(limit);
  }
  const source = query.get('source') ?? undefined;
  if (source !== undefined && !FEEDBACK_SOURCES.includes(source as FeedbackSource)) {
    details.push({ message: `source: Invalid enum value. Expected ${FEEDBACK_SOURCES.map((s) => `'${s}'`).join(' | ')}, received '${source}'` });
  }
  const statusParam = query.get('status');
  const statuses = statusParam === null ? undefined : statusParam.split(',').map((status) => status.trim());
  for (const status of statuses ?? []) {
    if (!FEEDBACK_STATUSES.includes(status as FeedbackStatus)) {
      details.push({ message: `status: Invalid status '${status}'. Expected a comma-separated list of ${FEEDBACK_STATUSES.join(', ')}` });
    }
  }
  if (details.length > 0) return { status: 400, json: { error: 'Invalid query parameters', details } };
  return { status: 200, json: state.feedbackByPage({ dateFrom, dateTo, source, statuses, limit }) };
}

export async function startPlatformEmulator(options: EmulatorOptions = {}): Promise<PlatformEmulator> {
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const state = new PlatformState(options);
  const { clock, deployments, exportJobs } = state;
  const requests: RecordedRequest[] = [];
  const faults = new PlatformFaults();
  const checkContract = contractCheck('platform');
  let storageUrl = '';

  function control(method: string, url: URL, body: string): Answer {
    if (method === 'POST' && url.pathname === '/_emulator/faults') {
      const parsed = parseJson(body);
      const fault = parsed?.value as Fault | undefined;
      if (!fault || !ROUTE_NAMES.includes(fault.route) || !FAULT_KINDS.includes(fault.kind)) {
        return { status: 400, json: { error: `Expected {route: ${ROUTE_NAMES.join('|')}, kind: ${FAULT_KINDS.join('|')}, times?, retryAfterSeconds?}` } };
      }
      faults.arm(fault);
      return { status: 204 };
    }
    if (method === 'POST' && url.pathname === '/_emulator/deployment') {
      // {push: {branch, sha, message?}} moves a branch (and deploys it, on the deployed branch);
      // {fault, times?} arms a fault for the deployments queued from now on.
      const value = parseJson(body)?.value as { push?: { branch?: unknown; sha?: unknown; message?: unknown }; fault?: unknown; times?: unknown } | undefined;
      const push = value?.push;
      if (push && typeof push.branch === 'string' && typeof push.sha === 'string') {
        deployments.push(push.branch, push.sha, typeof push.message === 'string' ? push.message : undefined);
        return { status: 204 };
      }
      if (value && DEPLOYMENT_FAULTS.includes(value.fault as DeploymentFault)) {
        deployments.arm(value.fault as DeploymentFault, typeof value.times === 'number' ? value.times : undefined);
        return { status: 204 };
      }
      return { status: 400, json: { error: `Expected {push: {branch, sha, message?}} or {fault: ${DEPLOYMENT_FAULTS.join('|')}, times?}` } };
    }
    if (method === 'GET' && url.pathname === '/_emulator/requests') {
      // The key itself stays in-process; the control API never hands it out.
      return { status: 200, json: requests.map((request) => ({ ...request, authorization: undefined })) };
    }
    if (method === 'GET' && url.pathname === '/_emulator/jobs') {
      const now = clock();
      const jobs = [...exportJobs.values()].map((job) => ({
        jobId: job.jobId,
        domain: job.domain,
        version: job.version,
        paths: job.paths,
        status: exportJobState(job, now).status,
        createdAt: job.createdAt,
        finishedAt: job.finishedAt
      }));
      return { status: 200, json: jobs };
    }
    return { status: 404, json: { error: 'Not found' } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (url.pathname.startsWith('/_emulator/')) {
      send(res, control(method, url, body.text), false);
      return;
    }
    const { route, params } = matchRoute(method, url.pathname, state.apiShape);
    const record: RecordedRequest = { method, path: url.pathname, query: url.search.slice(1), route, status: 0, at: clock() };
    if (req.headers.authorization !== undefined) record.authorization = req.headers.authorization;
    requests.push(record);
    const fault = route === 'unknown' ? undefined : faults.take(route);
    const truncate = fault?.kind === 'truncate';
    const reply = (answer: Answer): void => {
      if (fault?.kind === 'drop-taken') {
        req.socket.destroy();
        return;
      }
      if (fault?.kind === '502-taken') answer = { status: 502, bytes: Buffer.from('<html><body><h1>502 Bad Gateway</h1></body></html>'), contentType: 'text/html' };
      if (fault?.kind === 'bad-expiry' && answer.json && typeof answer.json === 'object') answer = { ...answer, json: { ...(answer.json as object), expiresAt: 'in 7 days' } };
      record.status = answer.status;
      if (!fault) checkContract?.({ method, path: req.url ?? '/', requestBody: body.text, status: answer.status, answer: answer.json });
      if (fault?.kind === 'trickle') return trickle(res, answer);
      send(res, answer, method === 'HEAD', truncate);
    };
    if (fault?.kind === 'oversize') {
      record.status = 200;
      oversize(res);
      return;
    }

    if (fault && !AFTER_ANSWER.includes(fault.kind)) {
      const answer = faultAnswer(fault, route);
      if (answer === 'drop') req.socket.destroy();
      else if (answer !== 'hang') reply(answer); // a hung request stays open until close()
      return;
    }
    if (route === 'unknown') return reply({ status: 404, json: { error: 'Not found' } });
    if (route === 'download') return reply(download(state, req, url, params[0]));
    const authorization = req.headers.authorization ?? '';
    const [scheme, token] = authorization.split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || token !== apiKey) return reply({ status: 401, json: { error: 'Invalid or expired API key' } });
    if (body.tooLarge) return reply({ status: 413, json: { error: 'Request body too large' } });

    switch (route) {
      case 'start':
        return reply(params.length === 1 ? startProjectJob(state, params[0]!) : startJob(state, body.text));
      case 'status': {
        if (params.length === 2) return reply(getProjectJob(state, params[0]!, params[1]!, storageUrl));
        const job = exportJobs.get(params[0]);
        // A job of the next shape is not on today's routes (the platform keeps the two apart).
        if (job?.shape === 'project') return reply({ status: 404, json: { error: 'Job not found' } });
        return reply(job ? { status: 200, json: exportJobView(state, job) } : { status: 404, json: { error: 'Job not found' } });
      }
      case 'bundle':
        return reply(state.exportJobs.get(params[0]!)?.shape === 'project' ? { status: 404, json: { error: 'Job not found' } } : generateBundle(state, params[0], storageUrl));
      case 'agent-create':
        return reply(createAgent(state, params[0], body.text));
      case 'agent-get':
        return reply(getAgent(state, params[0], params[1]));
      case 'feedback':
        return reply(feedbackByPage(state, url));
      case 'deploy':
        return reply({ status: 202, json: { statusId: deployments.trigger(params[0]) } });
      case 'deploy-status': {
        const view = deployments.view(params[0]);
        return reply(view ? { status: 200, json: view } : { status: 404, json: { error: 'Update status not found' } });
      }
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else send(res, { status: 500, json: { error: `Emulator error: ${error instanceof Error ? error.message : String(error)}` } }, false);
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  storageUrl = options.storageUrl ?? (options.storageHost ? url.replace('127.0.0.1', options.storageHost) : url);

  return {
    url,
    requests,
    exportJobs,
    agentJobs: state.agentJobs,
    deployments,
    get profile() {
      return state.profile;
    },
    set profile(profile) {
      state.profile = profile;
    },
    get linkTtlSeconds() {
      return state.linkTtlSeconds;
    },
    set linkTtlSeconds(seconds) {
      state.linkTtlSeconds = seconds;
    },
    addFault(fault) {
      faults.arm(fault);
    },
    seedExportJob: (input) => state.seedExportJob(input),
    linkFor(jobId) {
      const job = exportJobs.get(jobId);
      if (!job) throw new Error(`no export job ${jobId}`);
      return `${storageUrl}${state.bundleLink(job).link}`;
    },
    apiShape: state.apiShape,
    seedAgentJob: (input) => state.seedAgentJob(input),
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Ends keep-alive, hung and in-flight sockets at once rather than waiting for them.
        server.closeAllConnections();
      });
    }
  };
}

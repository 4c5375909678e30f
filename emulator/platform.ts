// A loopback emulator of the platform's admin API: static export, agent jobs, feedback by page,
// and the presigned bundle download, with injectable faults (platform-faults.ts). Job state is computed from the clock,
// so a test with a fake clock never waits.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { bundleFormats, defaultSiteFiles } from './archive.ts';
import type { BundleFormat } from './archive.ts';
import { AFTER_ANSWER, type Answer, FAULT_KINDS, type Fault, type RouteName, PlatformFaults, ROUTE_NAMES, faultAnswer, oversize, s3Error, trickle } from './platform-faults.ts';
import { DEPLOYMENT_FAULTS, type DeploymentFault, type DeploymentSettings, Deployments } from './deployments.ts';

export interface JobProfile {
  queuedMs?: number;
  runMs?: number;
  pageCount?: number;
  failAt?: number;
  error?: string;
  stall?: { at: number; forMs: number };
  resetAt?: number;
  runningWord?: string;
}

export interface EmulatorOptions {
  port?: number;
  apiKey?: string;
  staticExportEnabled?: boolean;
  profile?: JobProfile;
  linkTtlSeconds?: number;
  clock?: () => number;
  bundleFormat?: BundleFormat;
  agent?: { runMs?: number; outcome?: AgentOutcome; createLimitPerHour?: number };
  feedback?: FeedbackEntry[];
  analyticsLimitPerHour?: number;
  /** The host bundle links name instead of 127.0.0.1 (on the emulator's port): storage is another host than the API. */
  storageHost?: string;
  /** The deployed branch, how long a deployment takes, the commit published at first. */
  deployments?: Partial<DeploymentSettings>;
}

export type FeedbackSource = 'code_snippet' | 'contextual' | 'agent' | 'thumbs_only';
export type FeedbackStatus = 'pending' | 'in_progress' | 'resolved' | 'dismissed';

export interface FeedbackEntry {
  path: string;
  createdAt: string;
  source: FeedbackSource;
  status: FeedbackStatus;
  helpful?: boolean;
}

export type { Fault, FaultKind, RouteName } from './platform-faults.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  route: RouteName | 'unknown';
  status: number; // 0 while unanswered, and for dropped or hung requests
  at: number;
  authorization?: string;
}

export interface ExportJobRecord {
  jobId: string;
  domain: string;
  version?: string;
  paths?: string[];
  createdAt: number;
  profile: ResolvedProfile;
  plan: ExportPlan;
  readonly finishedAt: number | undefined; // set once the clock passes completion or failure
  archive?: Buffer;
  /** The published commit the export holds: the one the platform served when the job started. */
  commit: string;
}

export type AgentOutcome = 'pr' | 'no-change' | 'failed';

export interface AgentJobRecord {
  id: string;
  projectId: string;
  prompt: string;
  createdAt: number;
  runMs: number;
  outcome: AgentOutcome;
  prNumber: number;
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
  /** `archive`: the bytes the job's bundle link serves, as they are (any format, any content). */
  seedExportJob(input: { domain: string; status?: 'completed'; createdAt?: number; archive?: Buffer }): string;
  seedAgentJob(input: { projectId: string; outcome?: AgentOutcome; runMs?: number; prompt?: string; createdAt?: number }): string;
  close(): Promise<void>;
}

export interface ResolvedProfile {
  queuedMs: number;
  runMs: number;
  pageCount: number;
  failAt?: number;
  error: string;
  stall?: { at: number; forMs: number };
  resetAt?: number;
  runningWord?: string;
}

// Times in ms after the run starts (after queuedMs).
export interface ExportPlan {
  resetPointMs?: number;
  stallStartMs?: number;
  stallEndMs?: number;
  finishMs: number;
  outcome: 'completed' | 'failed';
}

interface JobState {
  status: string;
  progress: number;
  pageCount: number;
  updatedAt: number;
  error?: string;
}

export const DEFAULT_API_KEY = 'mint_test_admin_key';
const DEFAULT_ERROR = 'Rendering failed on page /guides/broken: ReferenceError: window is not defined';
const HOUR_MS = 3_600_000;
const MAX_BODY_BYTES = 1_000_000;
const FEEDBACK_SOURCES: FeedbackSource[] = ['code_snippet', 'contextual', 'agent', 'thumbs_only'];
const FEEDBACK_STATUSES: FeedbackStatus[] = ['pending', 'in_progress', 'resolved', 'dismissed'];
// A bare hostname with at least one dot: no scheme, port, path or trailing slash.
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/i;

const clampPercent = (value: number): number => Math.min(100, Math.max(0, value));

export function resolveProfile(profile: JobProfile = {}): ResolvedProfile {
  return {
    queuedMs: Math.max(0, profile.queuedMs ?? 300),
    runMs: Math.max(0, profile.runMs ?? 2000),
    pageCount: Math.max(0, Math.round(profile.pageCount ?? 120)),
    failAt: profile.failAt === undefined ? undefined : clampPercent(profile.failAt),
    error: profile.error ?? DEFAULT_ERROR,
    stall: profile.stall ? { at: clampPercent(profile.stall.at), forMs: Math.max(0, profile.stall.forMs) } : undefined,
    resetAt: profile.resetAt === undefined ? undefined : clampPercent(profile.resetAt),
    runningWord: profile.runningWord
  };
}

export function planExport(profile: ResolvedProfile): ExportPlan {
  const msAt = (percent: number): number => (percent / 100) * profile.runMs;
  const { failAt, resetAt, stall } = profile;
  // A failure at or before the reset point ends the job before the retried render begins.
  const resets = resetAt !== undefined && (failAt === undefined || failAt > resetAt);
  const resetPointMs = resets ? msAt(resetAt) : undefined;
  const stallStartMs = stall ? msAt(stall.at) : undefined;
  const stallEndMs = stall && stallStartMs !== undefined ? stallStartMs + stall.forMs : undefined;
  if (failAt !== undefined) {
    let failMs = (resetPointMs ?? 0) + msAt(failAt);
    // Progress held by a stall cannot reach failAt until the stall ends.
    if (stallStartMs !== undefined && stallEndMs !== undefined && failMs > stallStartMs && failMs < stallEndMs) failMs = stallEndMs;
    return { resetPointMs, stallStartMs, stallEndMs, finishMs: failMs, outcome: 'failed' };
  }
  const finishMs = Math.max((resetPointMs ?? 0) + profile.runMs, stallEndMs ?? 0);
  return { resetPointMs, stallStartMs, stallEndMs, finishMs, outcome: 'completed' };
}

// Progress (0..100, fractional) at `runMs` into the run, ignoring stalls.
function linearProgress(job: ExportJobRecord, runMs: number): number {
  const { resetPointMs } = job.plan;
  const passStart = resetPointMs !== undefined && runMs >= resetPointMs ? resetPointMs : 0;
  return Math.min(100, ((runMs - passStart) / job.profile.runMs) * 100);
}

// When the integer progress shown at `runMs` was first reached (ms into the run).
function progressReachedAt(job: ExportJobRecord, runMs: number): number {
  const { resetPointMs } = job.plan;
  const passStart = resetPointMs !== undefined && runMs >= resetPointMs ? resetPointMs : 0;
  return passStart + (Math.floor(linearProgress(job, runMs)) / 100) * job.profile.runMs;
}

export function exportJobState(job: ExportJobRecord, now: number): JobState {
  const { profile, plan } = job;
  const runStart = job.createdAt + profile.queuedMs;
  const pagesAt = (progress: number): number => Math.round((profile.pageCount * progress) / 100);
  if (now < runStart) return { status: 'queued', progress: 0, pageCount: 0, updatedAt: job.createdAt };
  const runMs = now - runStart;
  if (runMs >= plan.finishMs) {
    if (plan.outcome === 'completed') {
      return { status: 'completed', progress: 100, pageCount: profile.pageCount, updatedAt: runStart + plan.finishMs };
    }
    const progress = profile.runMs > 0 ? Math.floor(linearProgress(job, plan.finishMs)) : 0;
    return { status: 'failed', progress, pageCount: pagesAt(progress), updatedAt: runStart + plan.finishMs, error: profile.error };
  }
  const { stallStartMs, stallEndMs } = plan;
  const stalled = stallStartMs !== undefined && stallEndMs !== undefined && runMs >= stallStartMs && runMs < stallEndMs;
  const shownAt = stalled ? stallStartMs : runMs;
  const progress = Math.floor(linearProgress(job, shownAt));
  let changedAt = progressReachedAt(job, shownAt);
  // After a stall, progress jumped ahead at the moment the stall ended.
  if (stallEndMs !== undefined && runMs >= stallEndMs && changedAt < stallEndMs) changedAt = stallEndMs;
  return { status: profile.runningWord ?? 'running', progress, pageCount: pagesAt(progress), updatedAt: runStart + changedAt };
}

function agentJobView(job: AgentJobRecord, now: number): Record<string, unknown> {
  const done = now >= job.createdAt + job.runMs;
  const status = !done ? 'active' : job.outcome === 'failed' ? 'failed' : 'completed';
  const ref = done && job.outcome !== 'failed' ? `mintlify/agent-${job.id.slice(0, 8)}` : null;
  return {
    id: job.id,
    status,
    source: { repository: 'https://github.com/acme/docs', ref },
    model: 'sonnet',
    prLink: done && job.outcome === 'pr' ? `https://github.com/acme/docs/pull/${job.prNumber}` : null,
    createdAt: new Date(job.createdAt).toISOString(),
    archivedAt: null
  };
}

// Parses `YYYY-MM-DD` or an ISO 8601 date-time (UTC when no offset is given); undefined if invalid.
export function parseQueryDate(value: string): number | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i.exec(value);
  if (!match) return undefined;
  const hasZone = match[5] !== undefined;
  const ms = Date.parse(match[2] ? (hasZone ? value : `${value}Z`) : `${value}T00:00:00Z`);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls 2024-02-30 over to March; a real calendar date reads back unchanged.
  if (new Date(Date.parse(`${match[1]}T00:00:00Z`)).toISOString().slice(0, 10) !== match[1]) return undefined;
  return ms;
}

function amzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

function parseAmzDate(value: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return undefined;
  const ms = Date.parse(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

function matchRoute(method: string, path: string, bundleFileName: string): { route: RouteName | 'unknown'; params: string[] } {
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
  const routes: [string, RouteName, string[]][] = [
    ['POST', 'start', ['v1', 'static-export', 'jobs']],
    ['GET', 'status', ['v1', 'static-export', 'jobs', '*']],
    ['POST', 'bundle', ['v1', 'static-export', 'jobs', '*', 'bundle']],
    ['POST', 'agent-create', ['v2', 'agent', '*', 'job']],
    ['GET', 'agent-get', ['v2', 'agent', '*', 'job', '*']],
    ['GET', 'feedback', ['v1', 'analytics', '*', 'feedback', 'by-page']],
    ['POST', 'deploy', ['v1', 'project', 'update', '*']],
    ['GET', 'deploy-status', ['v1', 'project', 'update-status', '*']],
    ['GET', 'download', ['bundles', '*', bundleFileName]],
    ['HEAD', 'download', ['bundles', '*', bundleFileName]]
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

// Requests in the last hour; Retry-After is when the oldest of them leaves the window.
function rateLimited(times: number[], limit: number, now: number): number | undefined {
  while (times.length > 0 && times[0] <= now - HOUR_MS) times.shift();
  if (times.length < limit) return undefined;
  return Math.max(1, Math.ceil((times[0] + HOUR_MS - now) / 1000));
}

export async function startPlatformEmulator(options: EmulatorOptions = {}): Promise<PlatformEmulator> {
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const clock = options.clock ?? Date.now;
  const linkTtlSeconds = options.linkTtlSeconds ?? 3600;
  const format = bundleFormats[options.bundleFormat ?? 'tar.gz'];
  const agentRunMs = options.agent?.runMs ?? 1500;
  const agentOutcome = options.agent?.outcome ?? 'pr';
  const agentLimit = options.agent?.createLimitPerHour ?? 100;
  const analyticsLimit = options.analyticsLimitPerHour ?? 100;
  const feedback = options.feedback ?? [];
  // Signs bundle links; random per emulator, so links never outlive the emulator that made them.
  const signingSecret = randomBytes(32);
  const deployments = new Deployments(clock, options.deployments);

  const requests: RecordedRequest[] = [];
  const faults = new PlatformFaults();
  const exportJobs = new Map<string, ExportJobRecord>();
  const agentJobs = new Map<string, AgentJobRecord>();
  const agentCreates = new Map<string, number[]>();
  const analyticsRequests: number[] = [];
  let nextPrNumber = 101;
  let baseUrl = '';

  function createExportJob(input: { domain: string; version?: string; paths?: string[]; createdAt: number; profile: ResolvedProfile }): ExportJobRecord {
    const jobId = `se_${randomBytes(8).toString('hex')}`;
    const plan = planExport(input.profile);
    const job: ExportJobRecord = {
      jobId,
      domain: input.domain,
      version: input.version,
      paths: input.paths,
      createdAt: input.createdAt,
      profile: input.profile,
      plan,
      commit: deployments.published().sha,
      get finishedAt() {
        const at = input.createdAt + input.profile.queuedMs + plan.finishMs;
        return clock() >= at ? at : undefined;
      }
    };
    exportJobs.set(jobId, job);
    return job;
  }

  function createAgentJob(input: { projectId: string; prompt: string; createdAt: number; runMs: number; outcome: AgentOutcome }): AgentJobRecord {
    const job: AgentJobRecord = { id: randomBytes(12).toString('hex'), ...input, prNumber: nextPrNumber++ };
    agentJobs.set(job.id, job);
    return job;
  }

  function exportJobView(job: ExportJobRecord): Record<string, unknown> {
    const state = exportJobState(job, clock());
    return {
      jobId: job.jobId,
      status: state.status,
      progress: state.progress,
      pageCount: state.pageCount,
      createdAt: new Date(job.createdAt).toISOString(),
      updatedAt: new Date(state.updatedAt).toISOString(),
      ...(state.error !== undefined ? { error: state.error } : {}),
      // Fields no schema lists: clients must ignore them.
      region: 'us-east-1',
      _links: { self: `/v1/static-export/jobs/${job.jobId}`, bundle: `/v1/static-export/jobs/${job.jobId}/bundle` }
    };
  }

  function sign(path: string, date: string, expires: string): string {
    return createHmac('sha256', signingSecret).update(`${path}\n${date}\n${expires}`).digest('hex');
  }

  function parseJson(text: string): { value: unknown } | undefined {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return undefined;
    }
  }

  function startJob(body: string): Answer {
    if (options.staticExportEnabled === false) {
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
    const job = createExportJob({ domain, version, paths: paths as string[] | undefined, createdAt: clock(), profile: resolveProfile(emulator.profile) });
    return { status: 202, json: exportJobView(job) };
  }

  function generateBundle(jobId: string): Answer {
    const job = exportJobs.get(jobId);
    if (!job) return { status: 404, json: { error: 'Job not found' } };
    const now = clock();
    const state = exportJobState(job, now);
    if (state.status === 'failed') return { status: 409, json: { error: `Job failed, so it has no bundle: ${state.error}` } };
    if (state.status !== 'completed') return { status: 409, json: { error: 'Job has not finished yet' } };
    job.archive ??= format.build(defaultSiteFiles(job.domain, job.profile.pageCount, job.commit));
    // Links are signed to the clock's second, so the same job and second give the same link.
    const signedAt = Math.floor(now / 1000) * 1000;
    const date = amzDate(signedAt);
    const expires = String(linkTtlSeconds);
    const path = `/bundles/${job.jobId}/${format.fileName}`;
    const credential = encodeURIComponent(`EMULATOR/${date.slice(0, 8)}/us-east-1/s3/aws4_request`);
    const query =
      `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${credential}&X-Amz-Date=${date}` +
      `&X-Amz-Expires=${expires}&X-Amz-SignedHeaders=host&X-Amz-Signature=${sign(path, date, expires)}`;
    return {
      status: 200,
      json: {
        jobId: job.jobId,
        bundleUrl: `${options.storageHost ? baseUrl.replace('127.0.0.1', options.storageHost) : baseUrl}${path}?${query}`,
        sizeBytes: job.archive.length,
        expiresAt: new Date(signedAt + linkTtlSeconds * 1000).toISOString()
      }
    };
  }

  function download(req: IncomingMessage, url: URL, jobId: string): Answer {
    // S3 refuses a presigned URL sent with an Authorization header too (and the admin key must not leak there).
    if (req.headers.authorization !== undefined) {
      return s3Error(400, 'InvalidArgument', 'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified');
    }
    const date = url.searchParams.get('X-Amz-Date') ?? '';
    const expires = url.searchParams.get('X-Amz-Expires') ?? '';
    const signature = url.searchParams.get('X-Amz-Signature') ?? '';
    const signedAt = parseAmzDate(date);
    if (signedAt === undefined || !/^\d+$/.test(expires) || url.searchParams.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
      return s3Error(403, 'AccessDenied', 'Access Denied');
    }
    // Buffer.from(hex) skips a stray trailing digit, so check the exact shape first.
    const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : undefined;
    if (!given || !timingSafeEqual(given, Buffer.from(sign(url.pathname, date, expires), 'hex'))) {
      return s3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
    }
    const now = clock();
    const expiresAt = signedAt + Number(expires) * 1000;
    if (now >= expiresAt) {
      const extra = `<X-Amz-Expires>${expires}</X-Amz-Expires><Expires>${new Date(expiresAt).toISOString()}</Expires><ServerTime>${new Date(now).toISOString()}</ServerTime>`;
      return s3Error(403, 'AccessDenied', 'Request has expired', extra);
    }
    const archive = exportJobs.get(jobId)?.archive;
    if (!archive) return s3Error(404, 'NoSuchKey', 'The specified key does not exist.');
    return { status: 200, bytes: archive, contentType: format.contentType };
  }

  function createAgent(projectId: string, body: string): Answer {
    const parsed = parseJson(body);
    const prompt = parsed && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>).prompt : undefined;
    if (typeof prompt !== 'string' || prompt.trim() === '') {
      return { status: 400, json: { error: 'Invalid request: prompt must be a non-empty string' } };
    }
    const now = clock();
    const creates = agentCreates.get(projectId) ?? [];
    agentCreates.set(projectId, creates);
    const retryAfter = rateLimited(creates, agentLimit, now);
    if (retryAfter !== undefined) {
      return { status: 429, json: { error: `Rate limit exceeded: ${agentLimit} agent jobs per project per hour` }, headers: { 'Retry-After': String(retryAfter) } };
    }
    creates.push(now);
    const job = createAgentJob({ projectId, prompt, createdAt: now, runMs: agentRunMs, outcome: agentOutcome });
    return { status: 201, json: agentJobView(job, now) };
  }

  function getAgent(projectId: string, id: string): Answer {
    const job = agentJobs.get(id);
    if (!job || job.projectId !== projectId) return { status: 404, json: { error: 'Job not found' } };
    return { status: 200, json: agentJobView(job, clock()) };
  }

  function feedbackByPage(url: URL): Answer {
    const now = clock();
    const retryAfter = rateLimited(analyticsRequests, analyticsLimit, now);
    if (retryAfter !== undefined) return { status: 429, json: { error: 'Rate limit exceeded' }, headers: { 'Retry-After': String(retryAfter) } };
    analyticsRequests.push(now);

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
    const source = query.get('source');
    if (source !== null && !FEEDBACK_SOURCES.includes(source as FeedbackSource)) {
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

    const rows = new Map<string, { path: string; thumbsUp: number; thumbsDown: number; code: number; total: number }>();
    for (const entry of feedback) {
      const at = Date.parse(entry.createdAt);
      if (dateFrom !== undefined && !(at >= dateFrom)) continue;
      if (dateTo !== undefined && !(at < dateTo)) continue; // dateTo is exclusive
      if (source !== null && entry.source !== source) continue;
      if (statuses && !statuses.includes(entry.status)) continue;
      const row = rows.get(entry.path) ?? { path: entry.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
      rows.set(entry.path, row);
      row.total += 1;
      if (entry.source === 'code_snippet') row.code += 1;
      if ((entry.source === 'contextual' || entry.source === 'thumbs_only') && entry.helpful === true) row.thumbsUp += 1;
      if ((entry.source === 'contextual' || entry.source === 'thumbs_only') && entry.helpful === false) row.thumbsDown += 1;
    }
    const sorted = [...rows.values()].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { status: 200, json: { feedback: sorted.slice(0, limit), hasMore: sorted.length > limit } };
  }

  function control(method: string, url: URL, body: string): Answer {
    if (method === 'POST' && url.pathname === '/_emulator/faults') {
      const parsed = parseJson(body);
      const fault = parsed?.value as Fault | undefined;
      if (!fault || !ROUTE_NAMES.includes(fault.route) || !FAULT_KINDS.includes(fault.kind)) {
        return { status: 400, json: { error: `Expected {route: ${ROUTE_NAMES.join('|')}, kind: ${FAULT_KINDS.join('|')}, times?, retryAfterSeconds?}` } };
      }
      emulator.addFault(fault);
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    if (url.pathname.startsWith('/_emulator/')) {
      send(res, control(method, url, body.text), false);
      return;
    }
    const { route, params } = matchRoute(method, url.pathname, format.fileName);
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
    if (route === 'download') return reply(download(req, url, params[0]));
    const authorization = req.headers.authorization ?? '';
    const [scheme, token] = authorization.split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || token !== apiKey) return reply({ status: 401, json: { error: 'Invalid or expired API key' } });
    if (body.tooLarge) return reply({ status: 413, json: { error: 'Request body too large' } });

    switch (route) {
      case 'start':
        return reply(startJob(body.text));
      case 'status': {
        const job = exportJobs.get(params[0]);
        return reply(job ? { status: 200, json: exportJobView(job) } : { status: 404, json: { error: 'Job not found' } });
      }
      case 'bundle':
        return reply(generateBundle(params[0]));
      case 'agent-create':
        return reply(createAgent(params[0], body.text));
      case 'agent-get':
        return reply(getAgent(params[0], params[1]));
      case 'feedback':
        return reply(feedbackByPage(url));
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
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const emulator: PlatformEmulator = {
    url: baseUrl,
    requests,
    exportJobs,
    agentJobs,
    deployments,
    profile: options.profile ?? {},
    addFault(fault) {
      faults.arm(fault);
    },
    seedExportJob(input) {
      // A job that finished at createdAt (never in the future, so it reads as finished now).
      const createdAt = Math.min(input.createdAt ?? clock(), clock());
      const profile = resolveProfile({ ...emulator.profile, queuedMs: 0, runMs: 0, failAt: undefined, stall: undefined, resetAt: undefined });
      const job = createExportJob({ domain: input.domain, createdAt, profile });
      if (input.archive) job.archive = input.archive;
      return job.jobId;
    },
    seedAgentJob(input) {
      const job = createAgentJob({
        projectId: input.projectId,
        prompt: input.prompt ?? 'Seeded agent job',
        createdAt: input.createdAt ?? clock(),
        runMs: input.runMs ?? agentRunMs,
        outcome: input.outcome ?? agentOutcome
      });
      return job.id;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Ends keep-alive, hung and in-flight sockets at once rather than waiting for them.
        server.closeAllConnections();
      });
    }
  };
  return emulator;
}

// A few feedback entries over the last days, for dry runs and the demo.
export function sampleFeedback(now: number): FeedbackEntry[] {
  const daysAgo = (days: number): string => new Date(now - days * 86_400_000).toISOString();
  return [
    { path: '/guides/getting-started', createdAt: daysAgo(1), source: 'contextual', status: 'pending', helpful: false },
    { path: '/guides/getting-started', createdAt: daysAgo(2), source: 'thumbs_only', status: 'pending', helpful: false },
    { path: '/guides/getting-started', createdAt: daysAgo(3), source: 'code_snippet', status: 'pending' },
    { path: '/guides/getting-started', createdAt: daysAgo(4), source: 'contextual', status: 'resolved', helpful: true },
    { path: '/api-reference/introduction', createdAt: daysAgo(1), source: 'code_snippet', status: 'in_progress' },
    { path: '/api-reference/introduction', createdAt: daysAgo(5), source: 'contextual', status: 'pending', helpful: false },
    { path: '/index', createdAt: daysAgo(2), source: 'thumbs_only', status: 'dismissed', helpful: true },
    { path: '/index', createdAt: daysAgo(6), source: 'agent', status: 'pending' }
  ];
}

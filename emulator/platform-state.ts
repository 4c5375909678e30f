// The platform emulator's state and its rules: export jobs whose progress is computed from the clock,
// their bundles and signed links, agent jobs, feedback and its aggregation by page, and the hourly
// rate limits. No HTTP here: platform.ts parses requests, calls in here and writes the answers.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type BundleFormat, type BundleFormatInfo, type SiteSpec, THREE_PAGE_SITE, bundleFormats, defaultSiteFiles, siteFiles } from './archive.ts';
import { type DeploymentSettings, Deployments } from './deployments.ts';
import { DEFAULT_SITE_CHANGES, LivingSites, type SiteChanges } from './living-site.ts';

export interface JobProfile {
  queuedMs?: number;
  runMs?: number;
  pageCount?: number;
  failAt?: number;
  error?: string;
  stall?: { at: number; forMs: number };
  resetAt?: number;
  runningWord?: string;
  /**
   * The site the export holds (pages, edits, build id). Unset: a docs site of `pageCount` pages
   * (120 by default) whose every export of a domain changes a few pages from the one before.
   * THREE_PAGE_SITE: the same three pages in every export.
   */
  site?: SiteSpec | typeof THREE_PAGE_SITE;
  /** Without `site`: what each export changes from the domain's one before (default: 2 added, 2 removed, 3 edited). */
  changes?: Partial<SiteChanges>;
}

/** The platform as a test sets it up; the emulator's options add what the server needs. */
export interface PlatformSettings {
  staticExportEnabled?: boolean;
  profile?: JobProfile;
  linkTtlSeconds?: number;
  clock?: () => number;
  bundleFormat?: BundleFormat;
  agent?: { runMs?: number; outcome?: AgentOutcome; createLimitPerHour?: number };
  feedback?: FeedbackEntry[];
  analyticsLimitPerHour?: number;
  /** The deployed branch, how long a deployment takes, the commit published at first. */
  deployments?: Partial<DeploymentSettings>;
  /**
   * Which static export API answers: today's jobs routes (`today`, the default), the project-scoped
   * ones of the platform's next shape (`next`), or both at once, as on the day it moves (`both`).
   */
  apiShape?: ApiShape;
  /** The next shape's limit of starts per organization per hour (10, as its contract says). */
  exportStartsPerHour?: number;
  /** Send Retry-After with the next shape's 429 (its contract declares none). */
  exportStartRetryAfter?: boolean;
  /** The domain the next shape's project exports (its start names only the project); docs.example.com by default. */
  projectDomain?: string;
  /** Name the job in the way in the next shape's 409 (`jobId` beside `error`; its contract names none). */
  conflictNamesJob?: boolean;
}

export type ApiShape = 'today' | 'next' | 'both';
/** Which API made a job: its id, its routes and its archive follow. */
export type JobShape = 'jobs' | 'project';
/** The next shape's archive: a zip named export.zip (the vendor's example link). */
export const PROJECT_ARCHIVE = { fileName: 'export.zip', contentType: 'application/zip', build: bundleFormats.zip.build };

export type FeedbackSource = 'code_snippet' | 'contextual' | 'agent' | 'thumbs_only';
export type FeedbackStatus = 'pending' | 'in_progress' | 'resolved' | 'dismissed';

export interface FeedbackEntry {
  path: string;
  createdAt: string;
  source: FeedbackSource;
  status: FeedbackStatus;
  helpful?: boolean;
}

/** Which entries count toward the feedback by page: dates in ms, `dateTo` exclusive. */
export interface FeedbackFilter {
  dateFrom?: number;
  dateTo?: number;
  source?: string;
  statuses?: string[];
  limit: number;
}

export interface FeedbackRow {
  path: string;
  thumbsUp: number;
  thumbsDown: number;
  code: number;
  total: number;
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
  shape: JobShape;
  /** The project a project-scoped job was started for. */
  projectId?: string;
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

export interface ResolvedProfile {
  queuedMs: number;
  runMs: number;
  pageCount: number;
  failAt?: number;
  error: string;
  stall?: { at: number; forMs: number };
  resetAt?: number;
  runningWord?: string;
  site?: SiteSpec | typeof THREE_PAGE_SITE;
  changes: SiteChanges;
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

/** Why storage refuses a bundle link: not a presigned link, a signature this emulator did not make, or too late. */
export type LinkRefusal = { reason: 'malformed' } | { reason: 'forged' } | { reason: 'expired'; expires: string; expiresAt: number; now: number };

const DEFAULT_ERROR = 'Rendering failed on page /guides/broken: ReferenceError: window is not defined';
const HOUR_MS = 3_600_000;
/** An S3 presigned link lives at most 7 days, and the platform's links do. */
export const DEFAULT_LINK_TTL_SECONDS = 7 * 24 * 3600;
/** Pages of the site an export holds when a test gives neither a site nor a count. */
const DEFAULT_PAGE_COUNT = 120;
export const FEEDBACK_SOURCES: FeedbackSource[] = ['code_snippet', 'contextual', 'agent', 'thumbs_only'];
export const FEEDBACK_STATUSES: FeedbackStatus[] = ['pending', 'in_progress', 'resolved', 'dismissed'];

const clampPercent = (value: number): number => Math.min(100, Math.max(0, value));

function resolveProfile(profile: JobProfile = {}): ResolvedProfile {
  return {
    queuedMs: Math.max(0, profile.queuedMs ?? 300),
    runMs: Math.max(0, profile.runMs ?? 2000),
    // One count everywhere: a given site's pages, unless the test sets another on purpose.
    pageCount: Math.max(0, Math.round(profile.pageCount ?? siteCount(profile.site) ?? DEFAULT_PAGE_COUNT)),
    failAt: profile.failAt === undefined ? undefined : clampPercent(profile.failAt),
    error: profile.error ?? DEFAULT_ERROR,
    stall: profile.stall ? { at: clampPercent(profile.stall.at), forMs: Math.max(0, profile.stall.forMs) } : undefined,
    resetAt: profile.resetAt === undefined ? undefined : clampPercent(profile.resetAt),
    runningWord: profile.runningWord,
    site: profile.site,
    changes: { ...DEFAULT_SITE_CHANGES, ...profile.changes }
  };
}

function siteCount(site: SiteSpec | typeof THREE_PAGE_SITE | undefined): number | undefined {
  if (site === undefined) return undefined;
  if (site === THREE_PAGE_SITE) return 3;
  return typeof site.pages === 'number' ? site.pages : site.pages.length;
}

function planExport(profile: ResolvedProfile): ExportPlan {
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

/** An agent job is active for its runMs, then ends as its outcome says. */
export function agentJobStatus(job: AgentJobRecord, now: number): 'active' | 'completed' | 'failed' {
  if (now < job.createdAt + job.runMs) return 'active';
  return job.outcome === 'failed' ? 'failed' : 'completed';
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

// Counts a request in the last hour's window and returns undefined, or, when the window is full,
// returns Retry-After: the seconds until the oldest request in it leaves.
function admit(times: number[], limit: number, now: number): number | undefined {
  while (times.length > 0 && times[0] <= now - HOUR_MS) times.shift();
  if (times.length >= limit) return Math.max(1, Math.ceil((times[0] + HOUR_MS - now) / 1000));
  times.push(now);
  return undefined;
}

export class PlatformState {
  readonly clock: () => number;
  readonly staticExportEnabled: boolean;
  /** Read when a job starts, so a test may change it between jobs. */
  profile: JobProfile;
  readonly format: BundleFormatInfo;
  readonly deployments: Deployments;
  readonly exportJobs = new Map<string, ExportJobRecord>();
  readonly agentJobs = new Map<string, AgentJobRecord>();
  readonly agentLimit: number;
  /** How long the links generated from now on live; a test may change it between links. */
  linkTtlSeconds: number;
  private readonly agentRunMs: number;
  private readonly agentOutcome: AgentOutcome;
  private readonly analyticsLimit: number;
  private readonly feedback: FeedbackEntry[];
  // Signs bundle links; random per emulator, so links never outlive the emulator that made them.
  private readonly signingSecret = randomBytes(32);
  private readonly agentCreates = new Map<string, number[]>();
  private readonly analyticsRequests: number[] = [];
  private readonly livingSites = new LivingSites();
  private nextPrNumber = 101;
  readonly apiShape: ApiShape;
  readonly exportStartsPerHour: number;
  readonly exportStartRetryAfter: boolean;
  readonly conflictNamesJob: boolean;
  readonly projectDomain: string;
  private readonly exportStarts: number[] = [];

  constructor(settings: PlatformSettings = {}) {
    this.clock = settings.clock ?? Date.now;
    this.staticExportEnabled = settings.staticExportEnabled ?? true;
    this.profile = settings.profile ?? {};
    this.format = bundleFormats[settings.bundleFormat ?? 'tar.gz'];
    // A deployment builds the pages the next export will hold.
    this.deployments = new Deployments(this.clock, settings.deployments, () => this.nextPageCount());
    this.linkTtlSeconds = settings.linkTtlSeconds ?? DEFAULT_LINK_TTL_SECONDS;
    this.agentRunMs = settings.agent?.runMs ?? 1500;
    this.agentOutcome = settings.agent?.outcome ?? 'pr';
    this.agentLimit = settings.agent?.createLimitPerHour ?? 100;
    this.analyticsLimit = settings.analyticsLimitPerHour ?? 100;
    this.feedback = settings.feedback ?? [];
    this.apiShape = settings.apiShape ?? 'today';
    this.exportStartsPerHour = settings.exportStartsPerHour ?? 10;
    this.exportStartRetryAfter = settings.exportStartRetryAfter ?? false;
    this.conflictNamesJob = settings.conflictNamesJob ?? false;
    this.projectDomain = settings.projectDomain ?? 'docs.example.com';
  }

  /** Counts a start of the next shape against its hourly limit; the seconds until a start is allowed when it is reached. */
  admitExportStart(): number | undefined {
    return admit(this.exportStarts, this.exportStartsPerHour, this.clock());
  }

  /** The archive a job's links name and serve: its shape's. */
  archiveOf(job: ExportJobRecord): { fileName: string; contentType: string; build: (files: { path: string; content: string | Buffer }[]) => Buffer } {
    return job.shape === 'project' ? PROJECT_ARCHIVE : this.format;
  }

  /** A job that starts now, run as the profile says. */
  startExportJob(input: { domain: string; version?: string; paths?: string[]; shape?: JobShape; projectId?: string }): ExportJobRecord {
    return this.createExportJob({ ...input, createdAt: this.clock(), profile: resolveProfile(this.profile) });
  }

  /** A job that finished at createdAt (never in the future, so it reads as finished now). */
  seedExportJob(input: { domain: string; createdAt?: number; archive?: Buffer; shape?: JobShape; projectId?: string }): string {
    const createdAt = Math.min(input.createdAt ?? this.clock(), this.clock());
    const profile = resolveProfile({ ...this.profile, queuedMs: 0, runMs: 0, failAt: undefined, stall: undefined, resetAt: undefined });
    // A seeded job is of the shape that answers (today's where both do), unless the test says.
    const shape = input.shape ?? (this.apiShape === 'next' ? 'project' : 'jobs');
    const job = this.createExportJob({ domain: input.domain, createdAt, profile, shape, projectId: input.projectId });
    if (input.archive) job.archive = input.archive;
    return job.jobId;
  }

  /** The job's bundle, built on first ask, and a presigned link to it (a path and its query). */
  bundleLink(job: ExportJobRecord): { archive: Buffer; link: string; expiresAt: number } {
    // Each export of a generated site carries its own build id unless the test fixes one.
    const { site } = job.profile;
    const format = this.archiveOf(job);
    job.archive ??= format.build(
      site === undefined || site === THREE_PAGE_SITE ? defaultSiteFiles(job.domain, job.profile.pageCount, job.commit) : siteFiles(job.domain, { buildId: job.jobId.slice(3), ...site })
    );
    // Links are signed to the clock's second, so the same job and second give the same link.
    const signedAt = Math.floor(this.clock() / 1000) * 1000;
    const date = amzDate(signedAt);
    const expires = String(this.linkTtlSeconds);
    const path = `/bundles/${job.jobId}/${format.fileName}`;
    const credential = encodeURIComponent(`EMULATOR/${date.slice(0, 8)}/us-east-1/s3/aws4_request`);
    const query =
      `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${credential}&X-Amz-Date=${date}` +
      `&X-Amz-Expires=${expires}&X-Amz-SignedHeaders=host&X-Amz-Signature=${this.sign(path, date, expires)}`;
    return { archive: job.archive, link: `${path}?${query}`, expiresAt: signedAt + this.linkTtlSeconds * 1000 };
  }

  /** Why a bundle link is refused, or undefined when storage serves it. */
  linkRefusal(path: string, query: URLSearchParams): LinkRefusal | undefined {
    const date = query.get('X-Amz-Date') ?? '';
    const expires = query.get('X-Amz-Expires') ?? '';
    const signature = query.get('X-Amz-Signature') ?? '';
    const signedAt = parseAmzDate(date);
    if (signedAt === undefined || !/^\d+$/.test(expires) || query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return { reason: 'malformed' };
    // Buffer.from(hex) skips a stray trailing digit, so check the exact shape first.
    const given = /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : undefined;
    if (!given || !timingSafeEqual(given, Buffer.from(this.sign(path, date, expires), 'hex'))) return { reason: 'forged' };
    const now = this.clock();
    const expiresAt = signedAt + Number(expires) * 1000;
    return now >= expiresAt ? { reason: 'expired', expires, expiresAt, now } : undefined;
  }

  /** Counts an agent job create against the project's hourly limit; Retry-After seconds when it is reached. */
  admitAgentCreate(projectId: string): number | undefined {
    const creates = this.agentCreates.get(projectId) ?? [];
    this.agentCreates.set(projectId, creates);
    return admit(creates, this.agentLimit, this.clock());
  }

  startAgentJob(projectId: string, prompt: string): AgentJobRecord {
    return this.createAgentJob({ projectId, prompt, createdAt: this.clock(), runMs: this.agentRunMs, outcome: this.agentOutcome });
  }

  seedAgentJob(input: { projectId: string; outcome?: AgentOutcome; runMs?: number; prompt?: string; createdAt?: number }): string {
    const job = this.createAgentJob({
      projectId: input.projectId,
      prompt: input.prompt ?? 'Seeded agent job',
      createdAt: input.createdAt ?? this.clock(),
      runMs: input.runMs ?? this.agentRunMs,
      outcome: input.outcome ?? this.agentOutcome
    });
    return job.id;
  }

  /** Counts an analytics request against the hourly limit; Retry-After seconds when it is reached. */
  admitAnalyticsRequest(): number | undefined {
    return admit(this.analyticsRequests, this.analyticsLimit, this.clock());
  }

  /** Pages by how much feedback they have, most first (ties by path), with thumbs and code counts. */
  feedbackByPage(filter: FeedbackFilter): { feedback: FeedbackRow[]; hasMore: boolean } {
    const { dateFrom, dateTo, source, statuses, limit } = filter;
    const rows = new Map<string, FeedbackRow>();
    for (const entry of this.feedback) {
      const at = Date.parse(entry.createdAt);
      if (dateFrom !== undefined && !(at >= dateFrom)) continue;
      if (dateTo !== undefined && !(at < dateTo)) continue;
      if (source !== undefined && entry.source !== source) continue;
      if (statuses && !statuses.includes(entry.status)) continue;
      const row = rows.get(entry.path) ?? { path: entry.path, thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
      rows.set(entry.path, row);
      row.total += 1;
      if (entry.source === 'code_snippet') row.code += 1;
      if ((entry.source === 'contextual' || entry.source === 'thumbs_only') && entry.helpful === true) row.thumbsUp += 1;
      if ((entry.source === 'contextual' || entry.source === 'thumbs_only') && entry.helpful === false) row.thumbsDown += 1;
    }
    const sorted = [...rows.values()].sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { feedback: sorted.slice(0, limit), hasMore: sorted.length > limit };
  }

  /** The pages the next export will hold: a deployment's count. */
  private nextPageCount(): number {
    const profile = resolveProfile(this.profile);
    return profile.site ? profile.pageCount : this.livingSites.nextPageCount(profile.pageCount, profile.changes);
  }

  private createExportJob(input: { domain: string; version?: string; paths?: string[]; createdAt: number; profile: ResolvedProfile; shape?: JobShape; projectId?: string }): ExportJobRecord {
    const shape = input.shape ?? 'jobs';
    // Today's ids as in its contract (se_3f9a2c1b8e7d4a06); the next shape's are 24 hex digits (6520f3a1c9b1a20012ab34cd).
    const jobId = shape === 'project' ? randomBytes(12).toString('hex') : `se_${randomBytes(8).toString('hex')}`;
    const commit = this.deployments.published().sha;
    if (!input.profile.site) {
      // The domain's site, a few pages on from its last export; its pages are the export's count.
      const site = { ...this.livingSites.next(input.domain, input.profile.pageCount, input.profile.changes), commit };
      input = { ...input, profile: { ...input.profile, site, pageCount: siteCount(site)! } };
    }
    const plan = planExport(input.profile);
    const clock = this.clock;
    const job: ExportJobRecord = {
      jobId,
      domain: input.domain,
      version: input.version,
      paths: input.paths,
      createdAt: input.createdAt,
      profile: input.profile,
      plan,
      commit,
      shape,
      projectId: input.projectId,
      get finishedAt() {
        const at = input.createdAt + input.profile.queuedMs + plan.finishMs;
        return clock() >= at ? at : undefined;
      }
    };
    this.exportJobs.set(jobId, job);
    return job;
  }

  private createAgentJob(input: { projectId: string; prompt: string; createdAt: number; runMs: number; outcome: AgentOutcome }): AgentJobRecord {
    const job: AgentJobRecord = { id: randomBytes(12).toString('hex'), ...input, prNumber: this.nextPrNumber++ };
    this.agentJobs.set(job.id, job);
    return job;
  }

  private sign(path: string, date: string, expires: string): string {
    return createHmac('sha256', this.signingSecret).update(`${path}\n${date}\n${expires}`).digest('hex');
  }
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

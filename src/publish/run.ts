// The publish action, as one pass for every kind of run (a push, a renewal, a URL the team hosts):
// read the facts once (the inputs' local checks, and with config-path what GitHub holds), plan what to
// do from them in a pure function, apply the plan (export or take the hosted archive, check, compare,
// propose with compare-and-swap writes), then report once: outputs, the guard on production's link,
// the summary. See ../../docs and STYLE.md's "read, plan, apply".
import { explainPublishError, exportTimeout } from './errors.ts';
import { rm } from 'node:fs/promises';
import * as core from '@actions/core';
import { githubClient } from '../github/client.ts';
import { type Bundle, StaticExportMovedError, generateBundle, getExport } from '../platform/static-export.ts';
import { ApiError, type ApiClient } from '../platform/transport.ts';
import { type DownloadedBundle, checkDownloadPath, downloadBundle } from '../bundle/download.ts';
import { PublishInput, PublishOutput as Output } from '../action/constants.ts';
import { jobIdFromLink, linkExpiry, linkSecrets, redactLink } from '../values/link.ts';
import {
  type ConfigUpdate,
  type ProposalFacts,
  type PublishedBundle,
  carriesGuardMarks,
  contentDiffSectionOf,
  keepProposalCurrent,
  linkIn,
  markPullRequest,
  readProposalFacts,
  showChange,
  updateDeploymentConfig,
  vetoReason,
  vetoedExports
} from './proposal.ts';
import { type Octokit, type PullSummary, PullRequestError } from '../github/pull-request.ts';
import { leftAfterExport, refuseBeforeExport } from './preflight.ts';
import { checkPatchable, readSetting } from '../values/values-file.ts';
import { linkKind, refuseBranch, settingChanges } from './reconcile.ts';
import { type ProductionGuard, guardProduction } from './production-guard.ts';
import { type ExportPlan, type ExportResult, ExportFailedError, runExport } from './export.ts';
import { formatBytes } from '../action/format.ts';
import { InputError } from '../action/inputs.ts';
import { platformClient } from '../action/platform-inputs.ts';
import { ARCHIVE_PATH_NEEDED, type PublishInputs, readPublishInputs } from './inputs.ts';
import { type Validity, checkValidity, renewalPlan } from './renewal.ts';
import { Cancellation, CancelledError, readInputs, stepWait, uniqueTempPath } from '../action/runtime.ts';
import { type DownloadedSite, writeFailureSummary, writeHostedSummary, writeLeftSummary, writePublishSummary } from './summary.ts';
import { Deadline } from '../action/deadline.ts';
import { type Comparison, DeploymentFailedError, LOG_LINES_SHOWN, type Publication, waitForPublication } from './publication.ts';
import { durableUrl, jobIdFromDurableUrl } from '../storage/durable-url.ts';
import { checkKeepArchivePath, namesFolder, readArchive } from '../storage/kept-archive.ts';
import { basename } from 'node:path';
import { checkLinkMargin, type ShortLink } from '../storage/link-margin.ts';
import { checkAsPod } from '../storage/pod-check.ts';
import { ContentGateError, compareWithProduction, contentDiffSection, judgeContent, readArchiveFile } from './content-diff.ts';
import type { EntryReader } from '../bundle/unpack.ts';
import type { ContentDiff } from '../content/gate.ts';
import { type AutoMergeResult, keepProductionAlive } from './auto-merge.ts';

/** What the run found (read once, before anything is exported). */
interface CurrentConfig {
  /** What GitHub holds: the repository, the base's file, the pull requests from the proposal branch. */
  facts: ProposalFacts;
  /** The link in the base's file: what production serves. */
  deployedLink?: string;
  /** The base's staticExport.enabled is not false: production serves the bundle, so its link is guarded. */
  deployedEnabled: boolean;
  /** The link to judge and renew: the open pull request's, when one proposes a link, else the base's. */
  link?: string;
  /** The open pull request, when one changes what is deployed. */
  pending?: { number: number; url: string };
  /** The export the open pull request proposes: it passed the gate when it was proposed. */
  proposedJobId?: string;
  /** Exports whose pull request a person closed without merging. */
  vetoes: Map<string, PullSummary>;
}

/** What the run does, decided from the inputs and the facts alone. */
type RunPlan =
  /** Nothing is due: the link stays valid long enough, or is a URL that never expires. */
  | { kind: 'leave'; validity: Validity }
  /** The export is one a person said no to. */
  | { kind: 'vetoed'; reason: string }
  /** `notes`: why, for the log (a link due for renewal, the job a renewal takes). */
  | { kind: 'export'; plan: ExportPlan; notes: string[] }
  /** bundle-url-template: propose the URL where the team hosts this export's kept archive. */
  | { kind: 'hosted'; jobId: string };

/** What the run did, reported once: outputs, the guard, the summary; and what auto-merge did after it. */
type Outcome = Applied & { autoMerged?: AutoMergeResult };

type Applied =
  | { kind: 'left'; validity: Validity; heading: 'valid' | 'hosted' | 'vetoed'; rebuilt?: ConfigUpdate }
  | {
      kind: 'exported';
      exported: ExportResult;
      site?: DownloadedSite;
      docsCommit?: { sha: string; branch: string };
      shortLink?: ShortLink;
      contentDiff?: ContentDiff;
      contentDiffText?: string;
      config?: ConfigUpdate;
    }
  | {
      kind: 'hosted';
      exported: ExportResult;
      archive: { path: string; sha256: string; bytes: number };
      sha256Checked: boolean;
      contentDiff?: ContentDiff;
      contentDiffText?: string;
      config: ConfigUpdate;
    };

/** What a test runs in place of the runner's: GitHub's second (see githubClient), shrunk so its waits take no real time. */
export interface RunOptions {
  githubSecondMs?: number;
}

export async function run(cancellation = new Cancellation(), options: RunOptions = {}): Promise<void> {
  const inputs = readInputs(readPublishInputs);
  if (!inputs) return;
  const deadline = new Deadline(inputs.timeoutMs);
  const client = platformClient(inputs, cancellation, { deadline, projectId: inputs.projectId });
  const octokit = inputs.config
    ? githubClient(inputs.config.token, { deadline, requestTimeoutMs: inputs.requestTimeoutMs, signal: cancellation.signal, log: (line) => core.info(line), secondMs: options.githubSecondMs })
    : undefined;
  let plan: RunPlan | undefined;
  const progress: Progress = { outputs: {} };
  cancellation.note = 'The step stopped before an export job was started.';
  try {
    // Read. What can fail without an export fails first: a download-path that holds files, a values
    // file that is missing or malformed, a token that cannot read it, a branch this action must not move.
    if (inputs.download) await checkDownloadPath(inputs.download.given, inputs.download.path);
    if (inputs.keepArchive) await checkKeepArchivePath(PublishInput.KeepArchive, inputs.keepArchive.given, inputs.keepArchive.path);
    const current = inputs.config && octokit ? await readCurrent(octokit, inputs) : undefined;
    // Checks over the facts, before anything is exported: each throws what to fix.
    if (current) checkFacts(current, inputs);
    // Plan.
    plan = planRun(inputs, current, Date.now());
    // Apply.
    const applied =
      plan.kind === 'leave' || plan.kind === 'vetoed'
        ? await leave(plan, octokit, inputs, current)
        : plan.kind === 'hosted'
          ? await proposeHostedUrl(client, octokit!, inputs, current!, plan.jobId, deadline, cancellation, progress)
          : await exportAndPropose(client, octokit, inputs, current, plan, deadline, cancellation, progress, options.githubSecondMs);
    // auto-merge: renewals. A renewal of production's export merges itself, apart from a content pull request.
    const autoMerged = inputs.config?.autoMergeRenewals && !inputs.config.dryRun && octokit && current ? await mergeRenewals(client, octokit, inputs, wroteNothing(applied) ? current.facts : undefined) : undefined;
    // Report.
    await report({ ...applied, autoMerged }, inputs, current, progress.outputs, octokit);
  } catch (error) {
    if (error instanceof CancelledError || cancellation.signal.aborted) return;
    await reportFailure(error, inputs, plan?.kind === 'export' ? plan.plan : undefined, progress, client);
  } finally {
    client.dispose();
  }
}

/** What the apply step got to: for the report, of a success or of a failure. */
interface Progress {
  /** The docs commit the platform published before the export. */
  docsCommit?: string;
  /** How long the wait for that publication took: the step's timeout counts it too. */
  publicationMs?: number;
  jobId?: string;
  exported?: ExportResult;
  contentDiff?: ContentDiff;
  /** Outputs of the steps taken (the download's, the content diff's): written by the report, with the rest. */
  outputs: Record<string, string>;
}

/**
 * Reads what is deployed (the values file on the base: a missing or malformed one fails before any
 * export) and what is proposed (the pull requests from the proposal branch). A renewal judges the link
 * the open pull request proposes, when there is one: renewing the base's older export would push a
 * newer, unmerged one out of review. The deployed link is judged on its own, by the guard.
 */
async function readCurrent(octokit: Octokit, inputs: PublishInputs): Promise<CurrentConfig> {
  const target = inputs.config!;
  const facts = await readProposalFacts(octokit, target);
  const { base, open: proposed } = facts;
  // A file this action cannot edit (malformed, the block behind an alias) fails here, before any
  // export: the edit itself is tried with a placeholder link.
  checkPatchable(target.path, base.text, target.key, inputs.version);
  const baseLink = linkIn(target, base.text);
  if (baseLink) maskLink(baseLink);
  const proposedLink = linkIn(target, proposed?.text);
  if (proposedLink) maskLink(proposedLink);
  const pending = proposed && proposesChange(target, base.text, proposed.text) ? { number: proposed.number, url: proposed.url } : undefined;
  const vetoes = vetoedExports(facts, baseLink && jobIdFromLink(baseLink));
  const found = { facts, deployedLink: baseLink, deployedEnabled: readSetting(target.path, base.text, target.key, 'enabled') !== false, pending, vetoes };
  if (!proposed || !proposedLink || proposedLink === baseLink) return { ...found, link: baseLink };
  if (inputs.plan === 'auto' || inputs.minValidityMs !== undefined) {
    core.info(`Pull request #${proposed.number} proposes ${jobIdFromLink(proposedLink) ?? redactLink(proposedLink)}, not yet merged: judging and renewing that link; the one on ${base.branch} is judged by the guard.`);
  }
  return { ...found, link: proposedLink, proposedJobId: pending ? jobIdFromLink(proposedLink) : undefined };
}

/**
 * The checks over the facts that need no export, in one place: the inputs against what GitHub holds
 * (pr-branch on the base, a token that cannot push, the block under another key than config-key),
 * then a branch this action must not move.
 */
function checkFacts(current: CurrentConfig, inputs: PublishInputs): void {
  const { base, prBranch, repository } = current.facts;
  refuseBeforeExport({ target: { ...inputs.config!, prBranch }, base: { branch: base.branch, text: base.text, permissions: repository.permissions } });
  const refused = refuseBranch(current.facts, inputs.config!);
  if (refused) throw new PullRequestError(refused);
}

/** True when merging the pull request's file would change production's settings (a file it cannot read counts as a change). */
function proposesChange(target: { path: string; key: string }, deployed: string, proposed: string | undefined): boolean {
  if (proposed === undefined) return false;
  try {
    return settingChanges(target.path, target.key, deployed, proposed).length > 0;
  } catch {
    return true;
  }
}

/** The plan, from the inputs and the facts alone: no request, no log line. */
function planRun(inputs: PublishInputs, current: CurrentConfig | undefined, now: number): RunPlan {
  const link = current?.link;
  if (current && link && inputs.plan === 'auto' && linkKind(link).kind === 'hosted') {
    // A URL without an expiry of its own is the team's choice: no renewal replaces it.
    const holder = current.pending ? `Pull request #${current.pending.number}` : current.facts.base.branch;
    return { kind: 'leave', validity: { due: false, hosted: true, reason: `${holder} holds ${redactLink(link)}, a URL without an expiry of its own: it is never renewed, so this run changes nothing.` } };
  }
  const notes: string[] = [];
  if (current && inputs.minValidityMs !== undefined) {
    const validity = checkValidity(link, inputs.minValidityMs, now);
    if (!validity.due) return { kind: 'leave', validity };
    notes.push(validity.reason);
  }
  if (inputs.durable) {
    const jobId = hostedJobId(inputs, link);
    return vetoed(current, jobId) ?? { kind: 'hosted', jobId };
  }
  let plan: ExportPlan;
  if (inputs.plan !== 'auto') plan = inputs.plan;
  else {
    const renewal = renewalPlan(link, inputs.request);
    if ('impossible' in renewal) throw new InputError(PublishInput.Domain, renewal.impossible);
    const { note, ...renewing } = renewal;
    notes.push(note);
    plan = renewing;
  }
  return vetoed(current, 'reuse' in plan ? plan.reuse : undefined) ?? { kind: 'export', plan, notes };
}

/**
 * A person's no to an export stands however it would come back: its platform link again, or its kept
 * archive at a hosted URL (the same export, so the same veto).
 */
function vetoed(current: CurrentConfig | undefined, jobId: string | undefined): RunPlan | undefined {
  const veto = jobId === undefined ? undefined : current?.vetoes.get(jobId);
  return jobId && veto ? { kind: 'vetoed', reason: vetoReason(jobId, veto) } : undefined;
}

/** The export whose kept archive a hosted-URL run proposes: the job-id given, or for auto, the one the current link names. */
function hostedJobId(inputs: PublishInputs, link: string | undefined): string {
  const hosted = inputs.durable!;
  const plan = inputs.plan;
  const jobId = plan === 'auto' ? link && (jobIdFromDurableUrl(hosted.template, link) ?? jobIdFromLink(link)) : 'reuse' in plan ? plan.reuse : undefined;
  if (!jobId) throw new InputError(PublishInput.JobId, 'auto found no export job id in the link in config-path. Give the job-id output of the step that exported and kept the archive.');
  if (!hosted.archive) throw new InputError(PublishInput.ArchivePath, ARCHIVE_PATH_NEEDED);
  return jobId;
}

/**
 * Nothing to export or propose. The open pull request still stays mergeable: when the base moved
 * under it, its own settings are re-applied on the base's current file.
 */
async function leave(
  plan: { kind: 'leave'; validity: Validity } | { kind: 'vetoed'; reason: string },
  octokit: Octokit | undefined,
  inputs: PublishInputs,
  current: CurrentConfig | undefined
): Promise<Applied> {
  const validity = plan.kind === 'vetoed' ? { due: false, reason: plan.reason } : plan.validity;
  if (plan.kind === 'vetoed') core.notice(plan.reason);
  else core.info(validity.reason);
  const rebuilt = current && octokit ? await keepProposalCurrent(octokit, inputs.config!, current.facts) : undefined;
  if (rebuilt?.kept) core.notice(rebuilt.kept);
  else if (rebuilt) core.info(`The base moved under pull request #${rebuilt.number}: rebuilt it on ${rebuilt.baseBranch}'s current file, its settings and people's changes kept (${rebuilt.url}).`);
  return { kind: 'left', validity, heading: plan.kind === 'vetoed' ? 'vetoed' : validity.hosted ? 'hosted' : 'valid', rebuilt };
}

/** Export (or reuse an export), check and compare its bundle, and propose its link. */
async function exportAndPropose(
  client: ApiClient,
  octokit: Octokit | undefined,
  inputs: PublishInputs,
  current: CurrentConfig | undefined,
  plan: { plan: ExportPlan; notes: string[] },
  deadline: Deadline,
  cancellation: Cancellation,
  progress: Progress,
  githubSecondMs?: number
): Promise<Applied> {
  for (const note of plan.notes) core.info(note);
  // On a push, the platform is still publishing it: wait, or the export holds the docs before it.
  let published: Publication | undefined;
  if (inputs.publication) {
    cancellation.note = 'The step stopped while waiting for the platform to publish; no export job was started.';
    const waitStarted = Date.now();
    published = await waitForPublication(client, {
      ...inputs.publication,
      deadline,
      ...stepWait(cancellation, inputs.limits),
      compare: inputs.publication.github && compareOnGitHub(inputs.publication.github, inputs.requestTimeoutMs, deadline, cancellation, githubSecondMs)
    });
    progress.docsCommit = published.sha;
    progress.publicationMs = Date.now() - waitStarted;
  }
  let exported = await runExport(client, plan.plan, {
    // What is left of the step's timeout after the wait for the deployment.
    timeoutMs: deadline.remaining(),
    ...stepWait(cancellation, inputs.limits),
    onJob: (id) => {
      progress.jobId = id;
      cancellation.jobGoesOn(`The export job ${id} goes on on the server; a later run can pick it up with job-id: ${id}.`, { [Output.JobId]: id });
      const unnamed = unnamedJobs(client, id);
      if (unnamed) core.warning(unnamed);
    }
  });
  exported = { ...exported, unnamedJobs: unnamedJobs(client, exported.job.jobId) };
  progress.exported = exported;
  maskLink(exported.bundle.bundleUrl);
  const jobId = exported.job.jobId;
  core.info(`Bundle ready: ${exported.job.pageCount === undefined ? '' : `${exported.job.pageCount} pages, `}link valid until ${exported.bundle.expiresAt}${published ? `, holding ${published.sha.slice(0, 7)} from ${published.branch}` : ''}.`);
  // Download before proposing the link: a bundle that fails its checks must not reach the deployment.
  // With config-path it is also compared with production's, unless it is the export production serves,
  // or the one the open pull request proposes: that one passed the gate when it was proposed.
  const proposedAlready = current !== undefined && current.proposedJobId === jobId;
  const compare = current !== undefined && !proposedAlready && (current.deployedLink === undefined || jobIdFromLink(current.deployedLink) !== jobId);
  let site: DownloadedSite | undefined;
  let contentDiff: ContentDiff | undefined;
  if (inputs.download || inputs.keepArchive || compare) ({ exported, site, contentDiff } = await download(client, exported, inputs, cancellation, deadline, progress.outputs, compare ? current : undefined));
  progress.exported = exported;
  progress.contentDiff = contentDiff;
  let contentDiffText: string | undefined;
  if (current) ({ contentDiff, contentDiffText } = await judgeUnlessProposed(current, jobId, inputs, progress, async () => contentDiff ?? { kind: 'renewal', jobId }));
  // A link that expires before the review is likely done: say so where the reviewer looks.
  const shortLink = inputs.config && inputs.linkMarginMs !== undefined ? checkLinkMargin(exported.bundle.expiresAt, inputs.linkMarginMs) : undefined;
  // Said once where a person looks (the summary, and the body for the reviewer); an annotation too
  // would sit right above the summary and say it twice. The log keeps a plain line.
  if (shortLink) core.info(`⚠️ ${shortLink.message}`);
  const docsCommit = published && { sha: published.sha, branch: published.branch };
  // Only a completed export with a bundle reaches this point: a failed one changes no file.
  const config =
    current && octokit
      ? await proposeConfig(octokit, inputs, current, exported, {
          createdAtOf: (id) => exportCreatedAt(client, id),
          // Minutes went by on the platform: the base may have moved since it was read.
          refresh: exported.started || published !== undefined,
          published: {
            renewal: !exported.started && current.link !== undefined && jobIdFromLink(current.link) === jobId,
            shortLink: shortLink?.note,
            docsCommit,
            contentDiff,
            contentDiffText
          }
        })
      : undefined;
  return { kind: 'exported', exported, site, docsCommit, shortLink, contentDiff, contentDiffText, config };
}

/**
 * bundle-url-template: the export was done and kept by an earlier step, and the archive uploaded to
 * the team's storage. Check that the URL serves that archive to anyone, as a pod would fetch it,
 * then propose it. Nothing is sent to the platform but, with an api-key, one status request for when
 * the export was made (the order rule).
 */
async function proposeHostedUrl(
  client: ApiClient,
  octokit: Octokit,
  inputs: PublishInputs,
  current: CurrentConfig,
  jobId: string,
  deadline: Deadline,
  cancellation: Cancellation,
  progress: Progress
): Promise<Applied> {
  const hosted = inputs.durable!;
  const archive = { path: hosted.archive!.path, ...(await readArchive(PublishInput.ArchivePath, hosted.archive!.path)) };
  const url = durableUrl(hosted.template, jobId);
  // A signed template (an Azure SAS, a presigned URL of the team's) is masked and expires like the platform's links.
  maskLink(url);
  const expiresAt = linkExpiry(url)?.toISOString() ?? 'never';
  core.info(`Checking ${redactLink(url)} as a pod would fetch it (a GET without credentials)…`);
  const check = await checkAsPod(url, {
    expectedBytes: archive.bytes,
    sha256: hosted.checkSha256 ? archive.sha256 : undefined,
    deadline,
    signal: cancellation.signal,
    log: (line) => core.info(line),
    requestTimeoutMs: inputs.requestTimeoutMs
  });
  core.info(`${redactLink(url)} answers 200 to anyone: ${formatBytes(check.bytes)} of ${check.kind}${check.sha256Checked ? ', the same SHA-256 as the kept archive' : ''}.`);
  // With an api-key the platform says when the export was made, so the order rule can compare it with
  // an open proposal; without one, a proposal of another export is left alone (see proposal.ts).
  const now = new Date().toISOString();
  const job = inputs.apiKey ? await getExport(client, jobId) : { jobId, status: 'completed' as const, progress: 100, pageCount: 0, createdAt: now, updatedAt: now };
  const exported: ExportResult = { job, bundle: { jobId, bundleUrl: url, sizeBytes: archive.bytes, expiresAt }, started: false, waitedMs: 0 };
  progress.jobId = jobId;
  progress.exported = exported;
  // The kept archive is the new export: compared with production's before the URL is proposed.
  const deployedLink = current.deployedLink;
  const deployedJobId = deployedLink && (jobIdFromDurableUrl(hosted.template, deployedLink) ?? jobIdFromLink(deployedLink));
  const { contentDiff, contentDiffText } = await judgeUnlessProposed(current, jobId, inputs, progress, async () =>
    deployedJobId === jobId
      ? { kind: 'renewal', jobId }
      : (
          await compareWithProduction(
            { deployedLink, deployedJobId, domain: inputs.domain, freshLink: freshLinks(client, inputs), deadline, signal: cancellation.signal },
            (reader) => readArchiveFile(archive.path, reader(), cancellation.signal)
          )
        ).diff
  );
  const config = await proposeConfig(octokit, inputs, current, exported, {
    createdAtOf: inputs.apiKey ? (id) => exportCreatedAt(client, id) : undefined,
    published: { hosted: { sha256: archive.sha256, sha256Checked: check.sha256Checked }, contentDiff, contentDiffText }
  });
  return { kind: 'hosted', exported, archive, sha256Checked: check.sha256Checked, contentDiff, contentDiffText, config };
}

/**
 * The content gate, unless the export is the one the open pull request proposes: that one passed the
 * gate when it was proposed (a loss a person accepted stays accepted), so it is neither compared nor
 * judged again, and the body keeps the content diff it shows.
 */
async function judgeUnlessProposed(
  current: CurrentConfig,
  jobId: string,
  inputs: PublishInputs,
  progress: Progress,
  compare: () => Promise<ContentDiff>
): Promise<{ contentDiff?: ContentDiff; contentDiffText?: string }> {
  if (current.proposedJobId === jobId) {
    core.info(`Export ${jobId} is the one pull request #${current.pending!.number} proposes: it passed the content gate then, so it is not downloaded or judged again.`);
    return { contentDiffText: contentDiffSectionOf(current.facts.open?.body ?? '') };
  }
  const contentDiff = await compare();
  progress.contentDiff = contentDiff;
  await judgeContent(contentDiff, inputs.contentGate, jobId, progress.outputs);
  return { contentDiff };
}

async function proposeConfig(
  octokit: Octokit,
  inputs: PublishInputs,
  current: CurrentConfig,
  exported: ExportResult,
  extra: {
    createdAtOf?: (jobId: string) => Promise<string | undefined>;
    refresh?: boolean;
    published: Partial<Pick<PublishedBundle, 'renewal' | 'shortLink' | 'hosted' | 'docsCommit' | 'contentDiff' | 'contentDiffText'>>;
  }
): Promise<ConfigUpdate> {
  const target = inputs.config!;
  const where = `${target.path} in ${target.repo.owner}/${target.repo.repo}`;
  core.info(`${target.dryRun ? 'Dry run: computing' : 'Proposing'} the change to ${where}…`);
  const update = await updateDeploymentConfig(
    octokit,
    target,
    { domain: inputs.domain, job: exported.job, bundle: exported.bundle, version: inputs.version, ...extra.published },
    { facts: current.facts, refresh: extra.refresh, createdAtOf: extra.createdAtOf, warn: (line) => core.warning(line) }
  );
  if (update.kept) core.notice(update.kept);
  for (const change of update.changes) {
    const [before, after] = showChange(change);
    core.info(`  ${change.key}: ${before} → ${after}`);
  }
  if (!update.changed) core.info(`${where} on ${update.baseBranch} already holds these values: no pull request needed.`);
  else if (target.dryRun) core.info(`Dry run: ${update.changes.length === 1 ? 'one setting' : `${update.changes.length} settings`} would change; nothing was written.`);
  else if (update.kept && update.operation !== 'none') core.info(`The base moved under pull request #${update.number}: rebuilt it on ${update.baseBranch}'s current file, what it proposes unchanged (${update.url}).`);
  else if (update.kept) core.info(update.number === undefined ? 'No pull request was opened.' : `Pull request #${update.number} was left as it is: ${update.url}`);
  else if (update.operation === 'none') core.info(`Pull request #${update.number} is already current: ${update.url}`);
  else core.info(`Pull request #${update.number} ${update.operation}: ${update.url}`);
  return update;
}

/**
 * The guard on production's link, said where a person looks: on the pull request production waits on
 * (its first line and a label, read back first for whether GitHub can merge it), and by the caller in
 * the log and the summary. A pull request that still carries the marks of an earlier run loses them
 * once production is safe. Marking is best effort: a refusal is a warning, the run's work stands.
 */
async function guardProductionLink(
  octokit: Octokit | undefined,
  inputs: PublishInputs,
  current: CurrentConfig,
  found: { deployedLink: string | undefined; baseBranch: string; pending: { number?: number; url?: string } | undefined }
): Promise<ProductionGuard> {
  const target = inputs.config!;
  const { pending } = found;
  const guard = (mergeable?: boolean) =>
    guardProduction({
      deployedLink: found.deployedLink,
      enabled: current.deployedEnabled,
      pending: pending && { ...pending, mergeable },
      path: target.path,
      baseBranch: found.baseBranch,
      marginMs: inputs.linkMarginMs,
      failWhen: inputs.failWhenProductionExpires,
      event: inputs.event,
      dryRun: target.dryRun,
      now: Date.now()
    });
  const first = guard();
  const open = current.facts.open;
  const marked = open && carriesGuardMarks(open) ? open.number : undefined;
  const number = first.level !== 'ok' ? pending?.number : marked;
  if (!octokit || number === undefined) return first;
  try {
    return await markPullRequest(octokit, target, number, (mergeable) => (number === pending?.number ? guard(mergeable) : guard()));
  } catch (error) {
    if (!(error instanceof PullRequestError)) throw error;
    core.warning(`Could not mark pull request #${number} with the time production's link has left: ${error.message}`);
    return first;
  }
}

/** The one report of a run that did not fail: its outputs, the guard on production's link, the summary. */
async function report(outcome: Outcome, inputs: PublishInputs, current: CurrentConfig | undefined, stepOutputs: Record<string, string>, octokit: Octokit | undefined): Promise<void> {
  const outputs: Partial<Record<string, string>> = { ...stepOutputs };
  const config = outcome.kind === 'left' ? outcome.rebuilt : outcome.config;
  if (outcome.kind === 'left') {
    const { validity } = outcome;
    outputs[Output.Skipped] = 'true';
    outputs[Output.SkipReason] = validity.reason;
    if (validity.hosted) outputs[Output.ExpiresAt] = 'never';
    if (validity.expiresAt) outputs[Output.ExpiresAt] = validity.expiresAt.toISOString();
  } else {
    Object.assign(outputs, exportOutputs(outcome.exported, outcome.kind === 'hosted'));
    if (outcome.kind === 'exported' && outcome.docsCommit) outputs[Output.DocsCommit] = outcome.docsCommit.sha;
    if (outcome.kind === 'hosted') {
      outputs[Output.ArchivePath] = outcome.archive.path;
      outputs[Output.ArchiveSha256] = outcome.archive.sha256;
    }
  }
  // The pull request: the one this run wrote, or, when it left things as they are, the one that waits.
  const proposed = config ? (config.pending && config.number !== undefined ? { number: config.number, url: config.url! } : undefined) : current?.pending;
  // A renewal the step merged itself no longer waits.
  const pending = proposed && proposed.number === outcome.autoMerged?.merged?.number ? undefined : proposed;
  if (current) {
    outputs[Output.ConfigChanged] = String(config ? config.changed : current.pending !== undefined);
    outputs[Output.PullRequestOperation] = config?.operation ?? 'none';
    const named = config?.number !== undefined ? { number: config.number, url: config.url! } : current.pending;
    if (named) {
      outputs[Output.PullRequestNumber] = String(named.number);
      outputs[Output.PullRequestUrl] = named.url;
    }
  }
  const baseBranch = config?.baseBranch ?? current?.facts.base.branch;
  // A renewal the step merged itself is what production serves now.
  const deployedLink = outcome.autoMerged?.deployedLink ?? (config ? config.deployedLink : current?.deployedLink);
  // A dry run writes nothing, so production would wait on the open pull request, or on the one it would open.
  const waitedOn = inputs.config?.dryRun ? (current?.pending ?? (config?.changed && !config.kept ? {} : undefined)) : pending;
  const guard = current && baseBranch ? await guardProductionLink(octokit, inputs, current, { deployedLink, baseBranch, pending: waitedOn }) : undefined;
  if (guard) {
    const kind = deployedLink ? linkKind(deployedLink) : undefined;
    outputs[Output.DeployedExpiresAt] = guard.expiresAt ? guard.expiresAt.toISOString() : kind?.kind === 'hosted' ? 'never' : '';
  }
  for (const [name, value] of Object.entries(outputs)) if (value !== undefined) core.setOutput(name, value);
  if (guard?.level === 'warn') core.warning(guard.message!);
  // A refusal does not fail the step by itself: the guard judges production's link.
  if (outcome.autoMerged?.refused) core.warning(outcome.autoMerged.refused.message);
  await writeSummary(outcome, inputs, current, guard, pending);
  if (guard?.level === 'fail') core.setFailed(guard.message!);
}

async function writeSummary(outcome: Outcome, inputs: PublishInputs, current: CurrentConfig | undefined, guard: ProductionGuard | undefined, pending: { number: number; url: string } | undefined): Promise<void> {
  const target = inputs.config;
  if (outcome.kind === 'left') {
    await writeLeftSummary(outcome.validity, outcome.heading, target!, inputs.domain, { baseBranch: current!.facts.base.branch, pending, guard: guard!, rebuilt: outcome.rebuilt !== undefined && outcome.rebuilt.operation !== 'none' });
    return;
  }
  const configSummary = outcome.config && target ? { target, update: outcome.config } : undefined;
  const diff = outcome.contentDiffText ?? contentDiffSection(outcome.contentDiff, outcome.config?.deployedLink);
  if (outcome.kind === 'hosted') {
    const { exported, archive } = outcome;
    await writeHostedSummary(exported.bundle.bundleUrl, exported.bundle.expiresAt, archive, outcome.sha256Checked, configSummary!, guard, diff);
    return;
  }
  await writePublishSummary(outcome.exported, inputs.domain, configSummary, outcome.shortLink, outcome.site, outcome.docsCommit, guard, diff);
}

/** The outputs that describe the export and its link; a hosted URL has no status or page count of its own here. */
function exportOutputs({ job, bundle }: ExportResult, hosted = false): Record<string, string> {
  return {
    [Output.JobId]: job.jobId,
    ...(hosted ? {} : { [Output.Status]: job.status, ...(job.pageCount === undefined ? {} : { [Output.PageCount]: String(job.pageCount) }) }),
    [Output.BundleUrl]: bundle.bundleUrl,
    [Output.ExpiresAt]: bundle.expiresAt === 'never' ? 'never' : new Date(bundle.expiresAt).toISOString(),
    [Output.SizeBytes]: String(bundle.sizeBytes)
  };
}

/** The one report of a failed run: what the step got to (the export's outputs), what failed and what to do. */
async function reportFailure(error: unknown, inputs: PublishInputs, plan: ExportPlan | undefined, progress: Progress, client: ApiClient): Promise<void> {
  const { jobId, exported } = progress;
  const failedJob = error instanceof ExportFailedError ? error.job : exportTimeout(error)?.last;
  const outputs: Record<string, string> = { ...progress.outputs, ...(exported ? exportOutputs(exported, inputs.durable !== undefined) : jobId ? { [Output.JobId]: jobId } : {}) };
  if (failedJob) outputs[Output.Status] = failedJob.status;
  if (progress.docsCommit) outputs[Output.DocsCommit] = progress.docsCommit;
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
  const said = explainPublishError(error, inputs, plan, jobId ?? exported?.job.jobId, progress.publicationMs);
  // After an export, say how to go on without exporting again, and what branch the run left behind.
  const branchLeft = error instanceof PullRequestError ? error.branchLeft : undefined;
  const message = exported ? leftAfterExport(said, { jobId: exported.job.jobId, branchLeft, repo: inputs.config?.repo }) : said;
  core.setFailed(message);
  const deploymentLog = error instanceof DeploymentFailedError ? error.deployment.logs.slice(-LOG_LINES_SHOWN) : undefined;
  if (deploymentLog?.length) core.info(`The deployment's last ${deploymentLog.length} log lines:\n${deploymentLog.map((line) => `  ${line}`).join('\n')}`);
  await writeFailureSummary({
    domain: inputs.domain,
    jobId: jobId ?? exported?.job.jobId,
    job: failedJob,
    message,
    exported: exported !== undefined,
    configured: inputs.config !== undefined,
    deploymentLog,
    unnamedJobs: jobId ? unnamedJobs(client, jobId) : undefined,
    jobGoesOn: exportTimeout(error) !== undefined,
    contentDiff: error instanceof ContentGateError ? contentDiffSection(progress.contentDiff) : undefined
  });
}

/** GitHub's compare of two commits of the pushed repository; a failure is the reason there is no answer. */
function compareOnGitHub(github: { token: string; repo: { owner: string; repo: string } }, requestTimeoutMs: number, deadline: Deadline, cancellation: Cancellation, secondMs?: number) {
  const octokit = githubClient(github.token, { deadline, requestTimeoutMs, signal: cancellation.signal, log: (line) => core.info(line), secondMs });
  return async (base: string, head: string): Promise<Comparison | string> => {
    try {
      const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ ...github.repo, basehead: `${base}...${head}` });
      return { status: data.status, aheadBy: data.ahead_by, behindBy: data.behind_by };
    } catch (error) {
      if (cancellation.signal.aborted) throw error;
      return `GitHub's compare in ${github.repo.owner}/${github.repo.repo} failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  };
}

/** What to say of the jobs a resent start may have left running, when the start was resent. */
function unnamedJobs(client: ApiClient, followed: string): string | undefined {
  const count = client.resentStarts;
  if (count === 0) return undefined;
  const jobs = count === 1 ? 'one other export job' : `${count} other export jobs`;
  return (
    `This step follows export job ${followed}. Its start was sent ${count + 1} times because answers were lost, so the platform may also run ${jobs} ` +
    `whose id${count === 1 ? '' : 's'} never arrived (the API cannot list them). ${count === 1 ? 'It costs' : 'They cost'} nothing but time, and nothing uses ${count === 1 ? 'it' : 'them'}.`
  );
}

/** `compareWith`: compare the site with production's export as both stream. Its outputs go to `outputs`, for the report. */
async function download(
  client: ApiClient,
  exported: ExportResult,
  inputs: PublishInputs,
  cancellation: Cancellation,
  deadline: Deadline,
  outputs: Record<string, string>,
  compareWith?: CurrentConfig
): Promise<{ exported: ExportResult; site?: DownloadedSite; contentDiff?: ContentDiff }> {
  const target = inputs.download;
  // The new bundle is unpacked only where download-path asks for the files, or where keep-archive
  // keeps the archive (a folder of its own, removed afterwards: the kept archive passes every check a
  // download-path would). A download only to compare writes nothing and leaves the home page to the gate.
  const writeFiles = target !== undefined || inputs.keepArchive !== undefined;
  const directory = target?.path ?? uniqueTempPath('static-export-check');
  const download = (reader?: () => EntryReader) =>
    downloadBundle({
      bundle: exported.bundle,
      directory,
      renew: () => generateBundle(client, exported.job.jobId),
      log: (line) => core.info(line),
      shownAs: target?.given ?? (writeFiles ? 'a temporary folder (checked, then removed)' : 'checked and compared, not unpacked'),
      deadline,
      signal: cancellation.signal,
      keepArchive: inputs.keepArchive && { input: PublishInput.KeepArchive, path: inputs.keepArchive.path, folder: namesFolder(inputs.keepArchive.given) },
      requireHomePage: writeFiles,
      writeFiles,
      reader
    });
  let downloaded: DownloadedBundle;
  let contentDiff: ContentDiff | undefined;
  try {
    // With production's export to compare, both download at once and their pages are read as they stream.
    if (compareWith) {
      const request = { deployedLink: compareWith.deployedLink, domain: inputs.domain, freshLink: freshLinks(client, inputs), deadline, signal: cancellation.signal };
      ({ proposed: downloaded, diff: contentDiff } = await compareWithProduction(request, download));
    } else downloaded = await download();
  } finally {
    if (!target) await rm(directory, { recursive: true, force: true });
  }
  outputs[Output.BundleSha256] = downloaded.sha256;
  if (target) {
    outputs[Output.BundlePath] = downloaded.path;
    outputs[Output.BundleFiles] = String(downloaded.files);
  }
  const kept = downloaded.kept && { path: inputs.keepArchive!.given, bytes: downloaded.kept.bytes, sha256: downloaded.kept.sha256 };
  const site = (target || kept) && { path: target?.given, kept, files: downloaded.files, unpackedBytes: downloaded.unpackedBytes, archiveBytes: downloaded.bytes, sha256: downloaded.sha256 };
  if (downloaded.kept) {
    outputs[Output.ArchivePath] = downloaded.kept.path;
    outputs[Output.ArchiveSha256] = downloaded.kept.sha256;
    outputs[Output.ArchiveSha256Path] = downloaded.kept.sha256Path;
    outputs[Output.ArchiveName] = basename(downloaded.kept.path);
    outputs[Output.ArchiveContentType] = downloaded.kept.contentType;
    const keptAt = namesFolder(inputs.keepArchive!.given) ? `${inputs.keepArchive!.given}${basename(downloaded.kept.path)}` : inputs.keepArchive!.given;
    core.info(`Kept the archive as served (${formatBytes(downloaded.kept.bytes)}, ${downloaded.kept.contentType}) at ${keptAt}, its SHA-256 in ${keptAt}.sha256.`);
  }
  if (!downloaded.renewed) return { exported, site, contentDiff };
  // The link expired on the way and was renewed: the outputs and the pull request carry the new one.
  const renewed = { ...exported, bundle: downloaded.bundle as typeof exported.bundle };
  maskLink(renewed.bundle.bundleUrl);
  return { exported: renewed, site, contentDiff };
}

/** Fresh links for production's export when its own link no longer works; none without an api-key. */
function freshLinks(client: ApiClient, inputs: PublishInputs): ((jobId: string) => Promise<Bundle>) | undefined {
  return inputs.apiKey ? (jobId) => generateBundle(client, jobId) : undefined;
}

/** auto-merge: renewals, after the run's own proposal (auto-merge.ts). */
function mergeRenewals(client: ApiClient, octokit: Octokit, inputs: PublishInputs, unchanged?: ProposalFacts): Promise<AutoMergeResult | undefined> {
  return keepProductionAlive(octokit, inputs.config!, {
    now: Date.now(),
    dueWithinMs: inputs.minValidityMs ?? inputs.linkMarginMs ?? RENEW_PRODUCTION_WITHIN_MS,
    freshLink: inputs.apiKey
      ? async (jobId) => {
          const job = await getExport(client, jobId);
          const bundle = await generateBundle(client, jobId);
          maskLink(bundle.bundleUrl);
          return { job, bundle };
        }
      : undefined,
    domain: inputs.domain,
    info: (line) => core.info(line),
    warn: (line) => core.warning(line)
  }, unchanged);
}

/** True when the run left things as they were, at once (no export to wait on, no write): what it read still holds. */
function wroteNothing(applied: Applied): boolean {
  return applied.kind === 'left' && (applied.rebuilt === undefined || applied.rebuilt.operation === 'none');
}

/** Production's link is renewed apart from a content pull request this long before it expires, when neither min-validity nor link-margin says. */
const RENEW_PRODUCTION_WITHIN_MS = 72 * 60 * 60 * 1000;

/** The platform's createdAt of an export, to order proposals; undefined when the job is gone. */
async function exportCreatedAt(client: ApiClient, jobId: string): Promise<string | undefined> {
  try {
    return (await getExport(client, jobId)).createdAt;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    // A job of the platform's earlier API, where only the new one answers: its age cannot be read.
    if (error instanceof StaticExportMovedError) return undefined;
    throw error;
  }
}

/** Masks a link before anything can print it: the runner then hides it in every later log line. */
function maskLink(link: string): void {
  for (const secret of linkSecrets(link)) core.setSecret(secret);
}

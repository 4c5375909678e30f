// The publish action: start a static export (or reuse a finished one), wait for it, generate the
// bundle link, and, when config-path is set, propose the deployment's configuration change as one
// pull request. Reports outputs and a job summary.
import { explainPublishError, exportTimeout } from './errors.ts';
import { rm } from 'node:fs/promises';
import * as core from '@actions/core';
import { githubClient } from '../github/client.ts';
import { type Bundle, generateBundle, getExport } from '../platform/static-export.ts';
import { ApiError, type ApiClient } from '../platform/transport.ts';
import { type DownloadedBundle, checkDownloadPath, downloadBundle } from '../bundle/download.ts';
import { PublishInput, PublishOutput as Output } from '../action/constants.ts';
import { jobIdFromLink, linkExpiry, linkSecrets, redactLink } from '../values/link.ts';
import { type ConfigUpdate, type ProposalContext, type PublishedBundle, linkIn, readConfigFile, showChange, updateDeploymentConfig } from './proposal.ts';
import { type BaseFile, type Octokit, readOpenProposal } from '../github/pull-request.ts';
import { checkPatchable } from '../values/values-file.ts';
import { type DeployedGuard, guardDeployed, linkKind, settingChanges } from './reconcile.ts';
import { type ExportPlan, type ExportResult, ExportFailedError, runExport } from './export.ts';
import { formatBytes } from '../action/format.ts';
import { InputError } from '../action/inputs.ts';
import { platformClient } from '../action/platform-inputs.ts';
import { ARCHIVE_PATH_NEEDED, type PublishInputs, readPublishInputs } from './inputs.ts';
import { type Validity, checkValidity, renewalPlan } from './renewal.ts';
import { Cancellation, CancelledError, readInputs, stepWait, uniqueTempPath } from '../action/runtime.ts';
import { type DownloadedSite, writeFailureSummary, writeHostedSummary, writePublishSummary, writeSkipSummary } from './summary.ts';
import { Deadline } from '../action/deadline.ts';
import { type Comparison, DeploymentFailedError, LOG_LINES_SHOWN, type Publication, waitForPublication } from './publication.ts';
import { durableUrl, jobIdFromDurableUrl } from '../storage/durable-url.ts';
import { checkKeepArchivePath, readArchive } from '../storage/kept-archive.ts';
import { checkLinkMargin } from '../storage/link-margin.ts';
import { checkAsPod } from '../storage/pod-check.ts';
import { ContentGateError, contentDiffSection, diffWithProduction, judgeContent, unpackArchiveFile } from './content-diff.ts';
import type { ContentDiff } from '../content/gate.ts';

/** What a test runs in place of the runner's: GitHub's second (see githubClient), shrunk so its waits take no real time. */
export interface RunOptions {
  githubSecondMs?: number;
}

export async function run(cancellation = new Cancellation(), options: RunOptions = {}): Promise<void> {
  const inputs = readInputs(readPublishInputs);
  if (!inputs) return;
  const deadline = new Deadline(inputs.timeoutMs);
  const client = platformClient(inputs, cancellation, { deadline });
  const octokit = inputs.config
    ? githubClient(inputs.config.token, { deadline, requestTimeoutMs: inputs.requestTimeoutMs, signal: cancellation.signal, log: (line) => core.info(line), secondMs: options.githubSecondMs })
    : undefined;
  let plan: ExportPlan | undefined;
  let jobId: string | undefined;
  let exported: ExportResult | undefined;
  let contentDiff: ContentDiff | undefined;
  cancellation.note = 'The step stopped before an export job was started.';
  try {
    // What can fail without an export fails first: a download-path that holds files, a values file
    // that is missing or malformed, a token that cannot read it. A renewal starts from its link.
    if (inputs.download) await checkDownloadPath(inputs.download.given, inputs.download.path);
    if (inputs.keepArchive) await checkKeepArchivePath(PublishInput.KeepArchive, inputs.keepArchive.given, inputs.keepArchive.path);
    const current = inputs.config && octokit ? await readCurrent(octokit, inputs) : undefined;
    const currentLink = current?.link;
    if (current && currentLink && inputs.plan === 'auto' && linkKind(currentLink).kind === 'hosted') {
      // A URL without an expiry of its own is the team's choice: no renewal replaces it.
      await reportSkip(current, { due: false, hosted: true, reason: `${proposedOrDeployed(current)} holds ${redactLink(currentLink)}, a URL without an expiry of its own: it is never renewed, so this run changes nothing.` }, inputs);
      return;
    }
    if (current && inputs.minValidityMs !== undefined) {
      const validity = checkValidity(currentLink, inputs.minValidityMs, Date.now());
      core.info(validity.reason);
      if (!validity.due) {
        await reportSkip(current, validity, inputs);
        return;
      }
    }
    if (inputs.durable && octokit) {
      await proposeHostedUrl(client, octokit, inputs, current!, deadline, cancellation, (diff) => (contentDiff = diff));
      return;
    }
    plan = exportPlan(inputs, currentLink);
    // On a push, the platform is still publishing it: wait, or the export holds the docs before it.
    let published: Publication | undefined;
    if (inputs.publication) {
      cancellation.note = 'The step stopped while waiting for the platform to publish; no export job was started.';
      published = await waitForPublication(client, {
        ...inputs.publication,
        deadline,
        ...stepWait(cancellation, inputs.limits),
        compare: inputs.publication.github && compareOnGitHub(inputs.publication.github, inputs.requestTimeoutMs, deadline, cancellation)
      });
      core.setOutput(Output.DocsCommit, published.sha);
    }
    exported = await runExport(client, plan, {
      // What is left of the step's timeout after the wait for the deployment.
      timeoutMs: deadline.remaining(),
      ...stepWait(cancellation, inputs.limits),
      onJob: (id) => {
        jobId = id;
        cancellation.jobGoesOn(`The export job ${id} goes on on the server; a later run can pick it up with job-id: ${id}.`, { [Output.JobId]: id });
        const unnamed = unnamedJobs(client, id);
        if (unnamed) core.warning(unnamed);
      }
    });
    exported = { ...exported, unnamedJobs: unnamedJobs(client, exported.job.jobId) };
    setExportOutputs(exported);
    core.info(`Bundle ready: ${exported.job.pageCount} pages, link valid until ${exported.bundle.expiresAt}${published ? `, holding ${published.sha.slice(0, 7)} from ${published.branch}` : ''}.`);
    // Download before proposing the link: a bundle that fails its checks must not reach the deployment.
    // With config-path it is also compared with production's, unless it is the export production serves.
    const compare = current !== undefined && (current.deployedLink === undefined || jobIdFromLink(current.deployedLink) !== exported.job.jobId);
    let site: DownloadedSite | undefined;
    if (inputs.download || inputs.keepArchive || compare) ({ exported, site, contentDiff } = await download(client, exported, inputs, cancellation, deadline, compare ? current : undefined));
    if (current) {
      contentDiff ??= { kind: 'renewal', jobId: exported.job.jobId };
      await judgeContent(contentDiff, inputs.contentGate, exported.job.jobId);
    }
    // A link that expires before the review is likely done: say so where the reviewer looks.
    const shortLink = inputs.config && inputs.linkMarginMs !== undefined ? checkLinkMargin(exported.bundle.expiresAt, inputs.linkMarginMs) : undefined;
    // Said once where a person looks (the summary, and the body for the reviewer); an annotation too
    // would sit right above the summary and say it twice. The log keeps a plain line.
    if (shortLink) core.info(`⚠️ ${shortLink.message}`);
    // Only a completed export with a bundle reaches this point: a failed one changes no file.
    const renewal = !exported.started && currentLink !== undefined && jobIdFromLink(currentLink) === exported.job.jobId;
    const docsCommit = published && { sha: published.sha, branch: published.branch };
    const config =
      inputs.config && octokit && current
        ? await proposeConfig(octokit, inputs, exported, {
            base: current.base,
            createdAtOf: (jobId) => exportCreatedAt(client, jobId),
            renewal,
            shortLink: shortLink?.note,
            docsCommit,
            contentDiff
          })
        : undefined;
    const guard = config ? guardProduction(inputs, config.baseBranch, config.deployedLink, config.pending ? config : undefined) : undefined;
    await writePublishSummary(exported, inputs.domain, config && inputs.config ? { target: inputs.config, update: config } : undefined, shortLink, site, docsCommit, guard, contentDiffSection(contentDiff, config?.deployedLink));
    if (guard?.level === 'fail') core.setFailed(guard.message!);
  } catch (error) {
    if (error instanceof CancelledError || cancellation.signal.aborted) return;
    if (jobId) core.setOutput(Output.JobId, jobId);
    const failedJob = error instanceof ExportFailedError ? error.job : exportTimeout(error)?.last;
    if (failedJob) core.setOutput(Output.Status, failedJob.status);
    const message = explainPublishError(error, inputs, plan, jobId);
    core.setFailed(message);
    const deploymentLog = error instanceof DeploymentFailedError ? error.deployment.logs.slice(-LOG_LINES_SHOWN) : undefined;
    if (deploymentLog?.length) core.info(`The deployment's last ${deploymentLog.length} log lines:\n${deploymentLog.map((line) => `  ${line}`).join('\n')}`);
    await writeFailureSummary({
      domain: inputs.domain,
      jobId,
      job: failedJob,
      message,
      exported: exported !== undefined,
      configured: inputs.config !== undefined,
      deploymentLog,
      unnamedJobs: jobId ? unnamedJobs(client, jobId) : undefined,
      jobGoesOn: exportTimeout(error) !== undefined,
      contentDiff: error instanceof ContentGateError ? contentDiffSection(contentDiff) : undefined
    });
  } finally {
    client.dispose();
  }
}

/** GitHub's compare of two commits of the pushed repository; a failure is the reason there is no answer. */
function compareOnGitHub(github: { token: string; repo: { owner: string; repo: string } }, requestTimeoutMs: number, deadline: Deadline, cancellation: Cancellation) {
  const octokit = githubClient(github.token, { deadline, requestTimeoutMs, signal: cancellation.signal, log: (line) => core.info(line) });
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

/** `compareWith`: compare the site with production's export, while it is unpacked. */
async function download(
  client: ApiClient,
  exported: ExportResult,
  inputs: PublishInputs,
  cancellation: Cancellation,
  deadline: Deadline,
  compareWith?: CurrentConfig
): Promise<{ exported: ExportResult; site?: DownloadedSite; contentDiff?: ContentDiff }> {
  const target = inputs.download;
  // keep-archive alone still unpacks, into a folder of its own that goes afterwards: the kept archive
  // passes every check a download-path would. A download only to compare leaves the home page to the gate.
  const directory = target?.path ?? uniqueTempPath('static-export-check');
  let downloaded: DownloadedBundle;
  let contentDiff: ContentDiff | undefined;
  try {
    downloaded = await downloadBundle({
      bundle: exported.bundle,
      directory,
      renew: () => generateBundle(client, exported.job.jobId),
      log: (line) => core.info(line),
      shownAs: target?.given ?? 'a temporary folder (checked, then removed)',
      deadline,
      signal: cancellation.signal,
      keepArchive: inputs.keepArchive && { input: PublishInput.KeepArchive, path: inputs.keepArchive.path },
      requireHomePage: target !== undefined || inputs.keepArchive !== undefined
    });
    if (compareWith) contentDiff = await diffWithProduction({ deployedLink: compareWith.deployedLink, proposedRoot: downloaded.path, freshLink: freshLinks(client, inputs), deadline, signal: cancellation.signal });
  } finally {
    if (!target) await rm(directory, { recursive: true, force: true });
  }
  core.setOutput(Output.BundleSha256, downloaded.sha256);
  if (target) {
    core.setOutput(Output.BundlePath, downloaded.path);
    core.setOutput(Output.BundleFiles, String(downloaded.files));
  }
  const kept = downloaded.kept && { path: inputs.keepArchive!.given, bytes: downloaded.kept.bytes, sha256: downloaded.kept.sha256 };
  const site = (target || kept) && { path: target?.given, kept, files: downloaded.files, unpackedBytes: downloaded.unpackedBytes, archiveBytes: downloaded.bytes, sha256: downloaded.sha256 };
  if (downloaded.kept) {
    core.setOutput(Output.ArchivePath, downloaded.kept.path);
    core.setOutput(Output.ArchiveSha256, downloaded.kept.sha256);
    core.setOutput(Output.ArchiveSha256Path, downloaded.kept.sha256Path);
    core.info(`Kept the archive as served (${formatBytes(downloaded.kept.bytes)}) at ${inputs.keepArchive!.given}, its SHA-256 in ${inputs.keepArchive!.given}.sha256.`);
  }
  if (!downloaded.renewed) return { exported, site, contentDiff };
  // The link expired on the way and was renewed: the outputs and the pull request carry the new one.
  const renewed = { ...exported, bundle: downloaded.bundle as typeof exported.bundle };
  setExportOutputs(renewed);
  return { exported: renewed, site, contentDiff };
}

/** Fresh links for production's export when its own link no longer works; none without an api-key. */
function freshLinks(client: ApiClient, inputs: PublishInputs): ((jobId: string) => Promise<Bundle>) | undefined {
  return inputs.apiKey ? (jobId) => generateBundle(client, jobId) : undefined;
}

interface CurrentConfig {
  /** The values file on the base branch: what is deployed. */
  base: BaseFile & { text: string };
  /** The link in the base's file: what production serves. */
  deployedLink?: string;
  /** The link to judge and renew: the open pull request's, when one proposes a link, else the base's. */
  link?: string;
  /** The open pull request, when one changes what is deployed. */
  pending?: { number: number; url: string };
}

/**
 * Reads what is deployed (the values file on the base: a missing or malformed one fails before any
 * export) and what is proposed (the open pull request). A renewal judges the link the pull request
 * proposes, when there is one: renewing the base's older export would push a newer, unmerged one out
 * of review. The deployed link is judged on its own, by the guard.
 */
async function readCurrent(octokit: Octokit, inputs: PublishInputs): Promise<CurrentConfig> {
  const target = inputs.config!;
  const base = await readConfigFile(octokit, target);
  // A file this action cannot edit (malformed, the block behind an alias) fails here, before any
  // export: the edit itself is tried with a placeholder link.
  checkPatchable(target.path, base.text, target.key, inputs.version);
  const baseLink = linkIn(target, base.text);
  if (baseLink) maskLink(baseLink);
  const proposed = await readOpenProposal(octokit, target.repo, target.prBranch, base, target.path);
  const proposedLink = linkIn(target, proposed?.text);
  if (proposedLink) maskLink(proposedLink);
  const pending = proposed && proposesChange(target, base.text, proposed.text) ? { number: proposed.number, url: proposed.url } : undefined;
  if (!proposed || !proposedLink || proposedLink === baseLink) return { base, deployedLink: baseLink, link: baseLink, pending };
  if (inputs.plan === 'auto' || inputs.minValidityMs !== undefined) {
    core.info(`Pull request #${proposed.number} proposes ${jobIdFromLink(proposedLink) ?? redactLink(proposedLink)}, not yet merged: judging and renewing that link; the one on ${base.branch} is judged by the guard.`);
  }
  return { base, deployedLink: baseLink, link: proposedLink, pending };
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

function proposedOrDeployed(current: CurrentConfig): string {
  return current.pending ? `Pull request #${current.pending.number}` : `${current.base.branch}`;
}

/** The guard on the link production serves, with its outputs and its annotation. */
function guardProduction(inputs: PublishInputs, baseBranch: string, deployedLink: string | undefined, pending: { number?: number; url?: string } | undefined): DeployedGuard {
  const target = inputs.config!;
  const guard = guardDeployed({ deployedLink, pending, path: target.path, baseBranch, marginMs: inputs.linkMarginMs, now: Date.now() });
  const kind = deployedLink ? linkKind(deployedLink) : undefined;
  core.setOutput(Output.DeployedExpiresAt, guard.expiresAt ? guard.expiresAt.toISOString() : kind?.kind === 'hosted' ? 'never' : '');
  if (guard.level === 'warn') core.warning(guard.message!);
  return guard;
}

/** The platform's createdAt of an export, to order proposals; undefined when the job is gone. */
async function exportCreatedAt(client: ApiClient, jobId: string): Promise<string | undefined> {
  try {
    return (await getExport(client, jobId)).createdAt;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** The export to run: as the inputs say, or for job-id: auto, the job the current link names. */
function exportPlan(inputs: PublishInputs, currentLink: string | undefined): ExportPlan {
  if (inputs.plan !== 'auto') return inputs.plan;
  const plan = renewalPlan(currentLink, inputs.request);
  if ('impossible' in plan) throw new InputError(PublishInput.Domain, plan.impossible);
  core.info(plan.note);
  return plan;
}

async function reportSkip(current: CurrentConfig, validity: Validity, inputs: PublishInputs): Promise<void> {
  core.setOutput(Output.Skipped, 'true');
  core.setOutput(Output.SkipReason, validity.reason);
  if (validity.hosted) core.setOutput(Output.ExpiresAt, 'never');
  if (validity.expiresAt) core.setOutput(Output.ExpiresAt, validity.expiresAt.toISOString());
  core.setOutput(Output.ConfigChanged, String(current.pending !== undefined));
  core.setOutput(Output.PullRequestOperation, 'none');
  // A run that leaves the pull request as it is still names it.
  if (current.pending) {
    core.setOutput(Output.PullRequestNumber, String(current.pending.number));
    core.setOutput(Output.PullRequestUrl, current.pending.url);
  }
  const guard = guardProduction(inputs, current.base.branch, current.deployedLink, current.pending);
  await writeSkipSummary(validity, inputs.config!, inputs.domain, { baseBranch: current.base.branch, pending: current.pending, guard });
  if (guard.level === 'fail') core.setFailed(guard.message!);
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
  deadline: Deadline,
  cancellation: Cancellation,
  onDiff: (diff: ContentDiff) => void
): Promise<void> {
  const currentLink = current.link;
  const hosted = inputs.durable!;
  const plan = inputs.plan;
  const jobId =
    plan === 'auto' ? (currentLink && (jobIdFromDurableUrl(hosted.template, currentLink) ?? jobIdFromLink(currentLink))) : 'reuse' in plan ? plan.reuse : undefined;
  if (!jobId) throw new InputError(PublishInput.JobId, 'auto found no export job id in the link in config-path. Give the job-id output of the step that exported and kept the archive.');
  if (!hosted.archive) throw new InputError(PublishInput.ArchivePath, ARCHIVE_PATH_NEEDED);
  const archive = await readArchive(PublishInput.ArchivePath, hosted.archive.path);
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
  core.info(`${redactLink(url)} answers 200 to anyone: ${formatBytes(check.bytes)} of gzip${check.sha256Checked ? ', the same SHA-256 as the kept archive' : ''}.`);
  // With an api-key the platform says when the export was made, so the order rule can compare it with
  // an open proposal; without one, a proposal of another export is left alone (see proposal.ts).
  const now = new Date().toISOString();
  const job = inputs.apiKey ? await getExport(client, jobId) : { jobId, status: 'completed' as const, progress: 100, pageCount: 0, createdAt: now, updatedAt: now };
  const exported: ExportResult = {
    job,
    bundle: { jobId, bundleUrl: url, sizeBytes: archive.bytes, expiresAt },
    started: false,
    waitedMs: 0
  };
  core.setOutput(Output.JobId, jobId);
  core.setOutput(Output.BundleUrl, url);
  core.setOutput(Output.ExpiresAt, expiresAt);
  core.setOutput(Output.SizeBytes, String(archive.bytes));
  core.setOutput(Output.ArchivePath, hosted.archive.path);
  core.setOutput(Output.ArchiveSha256, archive.sha256);
  // The kept archive is the new export: compared with production's before the URL is proposed.
  const deployedLink = current.deployedLink;
  const deployedJobId = deployedLink && (jobIdFromDurableUrl(hosted.template, deployedLink) ?? jobIdFromLink(deployedLink));
  const contentDiff: ContentDiff =
    deployedJobId === jobId
      ? { kind: 'renewal', jobId }
      : await unpackArchiveFile(hosted.archive.path, cancellation.signal, (root) =>
          diffWithProduction({ deployedLink, deployedJobId, proposedRoot: root, freshLink: freshLinks(client, inputs), deadline, signal: cancellation.signal })
        );
  onDiff(contentDiff);
  await judgeContent(contentDiff, inputs.contentGate, jobId);
  const update = await proposeConfig(octokit, inputs, exported, {
    base: current.base,
    createdAtOf: inputs.apiKey ? (id) => exportCreatedAt(client, id) : undefined,
    hosted: { sha256: archive.sha256, sha256Checked: check.sha256Checked },
    contentDiff
  });
  const guard = guardProduction(inputs, update.baseBranch, update.deployedLink, update.pending ? update : undefined);
  await writeHostedSummary(url, expiresAt, archive, check.sha256Checked, { target: inputs.config!, update }, guard, contentDiffSection(contentDiff, update.deployedLink));
  if (guard.level === 'fail') core.setFailed(guard.message!);
}

async function proposeConfig(
  octokit: Octokit,
  inputs: PublishInputs,
  exported: ExportResult,
  extra: Pick<ProposalContext, 'base' | 'createdAtOf'> & Partial<Pick<PublishedBundle, 'renewal' | 'shortLink' | 'hosted' | 'docsCommit' | 'contentDiff'>>
): Promise<ConfigUpdate> {
  const { renewal, shortLink, hosted, docsCommit, contentDiff } = extra;
  const target = inputs.config!;
  const where = `${target.path} in ${target.repo.owner}/${target.repo.repo}`;
  core.info(`${target.dryRun ? 'Dry run: computing' : 'Proposing'} the change to ${where}…`);
  const update = await updateDeploymentConfig(octokit, target, {
    domain: inputs.domain,
    job: exported.job,
    bundle: exported.bundle,
    version: inputs.version,
    renewal,
    shortLink,
    hosted,
    docsCommit,
    contentDiff
  }, { base: extra.base, createdAtOf: extra.createdAtOf, warn: (line) => core.warning(line) });
  if (update.kept) core.notice(update.kept);
  core.setOutput(Output.ConfigChanged, String(update.changed));
  core.setOutput(Output.PullRequestOperation, update.operation);
  if (update.number !== undefined) core.setOutput(Output.PullRequestNumber, String(update.number));
  if (update.url !== undefined) core.setOutput(Output.PullRequestUrl, update.url);
  for (const change of update.changes) {
    const [before, after] = showChange(change);
    core.info(`  ${change.key}: ${before} → ${after}`);
  }
  if (!update.changed) core.info(`${where} on ${update.baseBranch} already holds these values: no pull request needed.`);
  else if (target.dryRun) core.info(`Dry run: ${update.changes.length} setting(s) would change; nothing was written.`);
  else if (update.operation === 'none') core.info(`Pull request #${update.number} is already current: ${update.url}`);
  else core.info(`Pull request #${update.number} ${update.operation}: ${update.url}`);
  return update;
}

/** Masks a link before anything can print it: the runner then hides it in every later log line. */
function maskLink(link: string): void {
  for (const secret of linkSecrets(link)) core.setSecret(secret);
}

function setExportOutputs({ job, bundle }: ExportResult): void {
  maskLink(bundle.bundleUrl);
  core.setOutput(Output.JobId, job.jobId);
  core.setOutput(Output.Status, job.status);
  core.setOutput(Output.PageCount, String(job.pageCount));
  core.setOutput(Output.BundleUrl, bundle.bundleUrl);
  core.setOutput(Output.ExpiresAt, new Date(bundle.expiresAt).toISOString());
  core.setOutput(Output.SizeBytes, String(bundle.sizeBytes));
}


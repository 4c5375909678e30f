// The export path: wait for the push's publication (on a push), export or reuse an export, download
// and check its bundle (compared with production's), pass the content gate, and propose its link.
import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import * as core from '../action/core.ts';
import { githubClient } from '../github/client.ts';
import type { Octokit } from '../github/pull-request.ts';
import { generateBundle } from '../platform/static-export.ts';
import type { ApiClient } from '../platform/transport.ts';
import { type DownloadedBundle, downloadBundle } from '../bundle/download.ts';
import type { EntryReader } from '../bundle/unpack.ts';
import { PublishInput, PublishOutput as Output } from '../action/constants.ts';
import type { Deadline } from '../action/deadline.ts';
import { formatBytes } from '../action/format.ts';
import { type Cancellation, stepWait, uniqueTempPath } from '../action/runtime.ts';
import { checkLinkMargin } from '../storage/link-margin.ts';
import { namesFolder } from '../storage/kept-archive.ts';
import type { ContentDiff } from '../content/gate.ts';
import { jobIdFromLink } from '../values/link.ts';
import { compareWithProduction } from './content-diff.ts';
import { type ExportPlan, type ExportResult, runExport } from './export.ts';
import { type Facts, maskLink } from './facts.ts';
import type { PublishInputs } from './inputs.ts';
import type { Applied, Progress } from './outcome.ts';
import { exportCreatedAt, freshLinks, judgeUnlessProposed, proposeConfig } from './propose-link.ts';
import { type Comparison, type Publication, waitForPublication } from './publication.ts';
import type { DownloadedSite } from './summary.ts';

/** What the export path runs with. */
export interface ExportContext {
  client: ApiClient;
  octokit?: Octokit;
  inputs: PublishInputs;
  facts?: Facts;
  deadline: Deadline;
  cancellation: Cancellation;
  progress: Progress;
  githubSecondMs?: number;
}

/** Export (or reuse an export), check and compare its bundle, and propose its link. */
export async function exportAndPropose(context: ExportContext, plan: { plan: ExportPlan; notes: string[] }): Promise<Applied> {
  const { client, octokit, inputs, facts, deadline, cancellation, progress } = context;
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
      compare: inputs.publication.github && compareOnGitHub(inputs.publication.github, inputs.requestTimeoutMs, deadline, cancellation, context.githubSecondMs)
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
  const proposedAlready = facts !== undefined && facts.proposedJobId === jobId;
  const compare = facts !== undefined && !proposedAlready && (facts.deployedLink === undefined || jobIdFromLink(facts.deployedLink) !== jobId);
  let site: DownloadedSite | undefined;
  let contentDiff: ContentDiff | undefined;
  if (inputs.download || inputs.keepArchive || compare) ({ exported, site, contentDiff } = await download(context, exported, compare ? facts : undefined));
  progress.exported = exported;
  progress.contentDiff = contentDiff;
  let contentDiffText: string | undefined;
  if (facts) ({ contentDiff, contentDiffText } = await judgeUnlessProposed(facts, jobId, inputs, progress, async () => contentDiff ?? { kind: 'renewal', jobId }));
  const renewal = facts !== undefined && !exported.started && facts.link !== undefined && jobIdFromLink(facts.link) === jobId;
  // A link that expires before the review is likely done: the report warns, and the body tells the
  // reviewer. Not while production stays switched off (enabled: false on the base, which a renewal
  // keeps): no pod fetches the link, so its lifetime holds no review back.
  const fetched = !facts || facts.deployedEnabled || !renewal || facts.pending !== undefined;
  const shortLink = inputs.config && inputs.linkMarginMs !== undefined && fetched ? checkLinkMargin(exported.bundle.expiresAt, inputs.linkMarginMs) : undefined;
  const docsCommit = published && { sha: published.sha, branch: published.branch };
  // Only a completed export with a bundle reaches this point: a failed one changes no file.
  const config =
    facts && octokit
      ? await proposeConfig(octokit, inputs, facts, exported, progress, {
          createdAtOf: (id) => exportCreatedAt(client, id),
          // Minutes went by on the platform: the base may have moved since it was read.
          refresh: exported.started || published !== undefined,
          published: {
            renewal,
            shortLink: shortLink?.note,
            docsCommit,
            contentDiff,
            contentDiffText
          }
        })
      : undefined;
  return { kind: 'exported', exported, site, docsCommit, shortLink, contentDiff, contentDiffText, config };
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
export function unnamedJobs(client: ApiClient, followed: string): string | undefined {
  const count = client.resentStarts;
  if (count === 0) return undefined;
  const jobs = count === 1 ? 'one other export job' : `${count} other export jobs`;
  return (
    `This step follows export job ${followed}. Its start was sent ${count + 1} times because answers were lost, so the platform may also run ${jobs} ` +
    `whose id${count === 1 ? '' : 's'} never arrived (the API cannot list them). ${count === 1 ? 'It costs' : 'They cost'} nothing but time, and nothing uses ${count === 1 ? 'it' : 'them'}.`
  );
}

/** `compareWith`: compare the site with production's export as both stream. Its outputs go to the progress, for the report. */
async function download(context: ExportContext, exported: ExportResult, compareWith?: Facts): Promise<{ exported: ExportResult; site?: DownloadedSite; contentDiff?: ContentDiff }> {
  const { client, inputs, cancellation, deadline } = context;
  const outputs = context.progress.outputs;
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

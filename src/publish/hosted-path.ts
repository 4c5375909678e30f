// The hosted path (bundle-url-template): the export was done and kept by an earlier step, and the
// archive uploaded to the team's storage. Check that the URL serves that archive to anyone, as a pod
// would fetch it, then propose it. Nothing is sent to the platform but, with an api-key, one status
// request for when the export was made (the order rule).
import * as core from '../action/core.ts';
import { getExport } from '../platform/static-export.ts';
import type { ApiClient } from '../platform/transport.ts';
import type { Octokit } from '../github/pull-request.ts';
import { PublishInput } from '../action/constants.ts';
import type { Deadline } from '../action/deadline.ts';
import { formatBytes } from '../action/format.ts';
import type { Cancellation } from '../action/runtime.ts';
import { durableUrl, jobIdFromDurableUrl } from '../storage/durable-url.ts';
import { readArchive } from '../storage/kept-archive.ts';
import { checkAsPod } from '../storage/pod-check.ts';
import { jobIdFromLink, linkExpiry, redactLink } from '../values/link.ts';
import { compareWithProduction, readArchiveFile } from './content-diff.ts';
import type { ExportResult } from './export.ts';
import { type Facts, maskLink } from './facts.ts';
import type { PublishInputs } from './inputs.ts';
import type { Applied, Progress } from './outcome.ts';
import { exportCreatedAt, freshLinks, judgeUnlessProposed, proposeConfig } from './propose-link.ts';

export interface HostedContext {
  client: ApiClient;
  octokit: Octokit;
  inputs: PublishInputs;
  facts: Facts;
  deadline: Deadline;
  cancellation: Cancellation;
  progress: Progress;
}

export async function proposeHostedUrl({ client, octokit, inputs, facts, deadline, cancellation, progress }: HostedContext, jobId: string): Promise<Applied> {
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
  const deployedLink = facts.deployedLink;
  const deployedJobId = deployedLink && (jobIdFromDurableUrl(hosted.template, deployedLink) ?? jobIdFromLink(deployedLink));
  const { contentDiff, contentDiffText } = await judgeUnlessProposed(facts, jobId, inputs, progress, async () =>
    deployedJobId === jobId
      ? { kind: 'renewal', jobId, hosted: true }
      : (
          await compareWithProduction(
            { deployedLink, deployedJobId, domain: inputs.domain, freshLink: freshLinks(client, inputs), deadline, signal: cancellation.signal },
            (reader) => readArchiveFile(archive.path, reader(), cancellation.signal)
          )
        ).diff
  );
  const config = await proposeConfig(octokit, inputs, facts, exported, progress, {
    createdAtOf: inputs.apiKey ? (id) => exportCreatedAt(client, id) : undefined,
    published: { hosted: { sha256: archive.sha256, sha256Checked: check.sha256Checked }, contentDiff, contentDiffText }
  });
  return { kind: 'hosted', exported, archive, sha256Checked: check.sha256Checked, contentDiff, contentDiffText, config };
}

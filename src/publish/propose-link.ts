// What the export path and the hosted path share once they hold an export: the content gate (unless
// the open pull request proposes that export already), and the proposal of its link in the values file.
import * as core from '../action/core.ts';
import { StaticExportMovedError, generateBundle, getExport, type Bundle } from '../platform/static-export.ts';
import { ApiError, type ApiClient } from '../platform/transport.ts';
import type { Octokit } from '../github/pull-request.ts';
import type { ContentDiff } from '../content/gate.ts';
import { judgeContent } from './content-diff.ts';
import type { ExportResult } from './export.ts';
import type { Facts } from './facts.ts';
import type { PublishInputs } from './inputs.ts';
import type { Progress } from './outcome.ts';
import { type ConfigUpdate, updateDeploymentConfig } from './proposal.ts';
import type { PublishedBundle } from './proposal-types.ts';
import { contentDiffSectionOf, showChange } from './pull-request-body.ts';

/**
 * The content gate, unless the export is the one the open pull request proposes: that one passed the
 * gate when it was proposed (a loss a person accepted stays accepted), so it is neither compared nor
 * judged again, and the body keeps the content diff it shows.
 */
export async function judgeUnlessProposed(
  facts: Facts,
  jobId: string,
  inputs: PublishInputs,
  progress: Progress,
  compare: () => Promise<ContentDiff>
): Promise<{ contentDiff?: ContentDiff; contentDiffText?: string }> {
  if (facts.proposedJobId === jobId) {
    core.info(`Export ${jobId} is the one pull request #${facts.pending!.number} proposes: it passed the content gate then, so it is not downloaded or judged again.`);
    return { contentDiffText: contentDiffSectionOf(facts.proposal.open?.body ?? '') };
  }
  const contentDiff = await compare();
  progress.contentDiff = contentDiff;
  await judgeContent(contentDiff, inputs.contentGate, jobId, progress.outputs);
  return { contentDiff };
}

/** Proposes the export's link; the pull request it wrote is recorded in `progress`, so a later failure still names it. */
export async function proposeConfig(
  octokit: Octokit,
  inputs: PublishInputs,
  facts: Facts,
  exported: ExportResult,
  progress: Progress,
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
    { facts: facts.proposal, refresh: extra.refresh, createdAtOf: extra.createdAtOf, warn: (line) => core.warning(line) }
  );
  progress.config = update;
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

/** Fresh links for production's export when its own link no longer works; none without an api-key. */
export function freshLinks(client: ApiClient, inputs: PublishInputs): ((jobId: string) => Promise<Bundle>) | undefined {
  return inputs.apiKey ? (jobId) => generateBundle(client, jobId) : undefined;
}

/** The platform's createdAt of an export, to order proposals; undefined when the job is gone. */
export async function exportCreatedAt(client: ApiClient, jobId: string): Promise<string | undefined> {
  try {
    return (await getExport(client, jobId)).createdAt;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    // A job of the platform's earlier API, where only the new one answers: its age cannot be read.
    if (error instanceof StaticExportMovedError) return undefined;
    throw error;
  }
}

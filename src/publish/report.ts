// The report's parts that are more than outputs: the guard on production's link (judged, and marked
// on the pull request production waits on), the outcome of a failure (what failed and what to do),
// and the job summary, written from the outcome alone.
import * as core from '../action/core.ts';
import type { ApiClient } from '../platform/transport.ts';
import { PullRequestError } from '../github/errors.ts';
import type { Octokit } from '../github/pull-request.ts';
import { explainPublishError, exportTimeout } from './errors.ts';
import { ExportFailedError, type ExportPlan } from './export.ts';
import { unnamedJobs } from './export-path.ts';
import { ContentGateError, contentDiffSection } from './content-diff.ts';
import type { Facts } from './facts.ts';
import type { PublishInputs } from './inputs.ts';
import type { Outcome, Progress } from './outcome.ts';
import { leftAfterExport } from './preflight.ts';
import { type ProductionGuard, guardProduction } from './production-guard.ts';
import { carriesGuardMarks, markPullRequest } from './proposal.ts';
import { DeploymentFailedError, LOG_LINES_SHOWN } from './publication.ts';
import { withPullLinks, writeFailureSummary, writeHostedSummary, writeLeftSummary, writePublishSummary } from './summary.ts';
import type { AutoMergeResult } from './auto-merge.ts';

/**
 * The guard on production's link, said where a person looks: on the pull request production waits on
 * (its first line and a label, read back first for whether GitHub can merge it), and by the caller in
 * the log and the summary. A pull request that still carries the marks of an earlier run loses them
 * once production is safe. Marking is best effort: a refusal is a warning, the run's work stands.
 */
export async function guardProductionLink(
  octokit: Octokit | undefined,
  inputs: PublishInputs,
  facts: Facts,
  found: { deployedLink: string | undefined; baseBranch: string; pending: { number?: number; url?: string; renewal?: boolean; blocked?: string } | undefined }
): Promise<ProductionGuard> {
  const target = inputs.config!;
  const { pending } = found;
  const guard = (mergeable?: boolean) =>
    guardProduction({
      deployedLink: found.deployedLink,
      enabled: facts.deployedEnabled,
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
  // The marks go on the pull request whose merge saves production (first.labelled: a renewal), and
  // come off the open one that carries them from an earlier run once it is not that one.
  const marked = first.level !== 'ok' && first.labelled ? pending?.number : undefined;
  const open = facts.proposal.open;
  const unmark = open && open.number !== marked && carriesGuardMarks(open) ? open.number : undefined;
  if (!octokit) return first;
  let result = first;
  for (const number of [marked, unmark]) {
    if (number === undefined) continue;
    try {
      const judged = await markPullRequest(octokit, target, number, (mergeable) => (number === marked ? guard(mergeable) : { ...first, firstLine: undefined, labelled: false }));
      if (number === marked) result = judged;
    } catch (error) {
      if (!(error instanceof PullRequestError)) throw error;
      core.warning(`Could not mark pull request #${number} with the time production's link has left: ${error.message}`);
    }
  }
  return result;
}

/** The summary of a run that did not fail, from its outcome, then what it did for production's renewal. */
export async function writeDoneSummary(outcome: Extract<Outcome, { kind: 'done' }>, inputs: PublishInputs): Promise<void> {
  await writeRunSummary(outcome, inputs);
  const lines = renewalLines(outcome.autoMerged);
  if (lines.length > 0 && core.variable('GITHUB_STEP_SUMMARY')) await core.summary().addHeading("Production's renewal", 3).addRaw(lines.map((line) => `<p>${withPullLinks(line)}</p>`).join('\n'), true).write();
}

/** What a run did to production's renewal besides its own proposal, a sentence each: closed, opened beside content, left to GitHub's auto-merge. */
function renewalLines(autoMerged: AutoMergeResult | undefined): string[] {
  if (!autoMerged) return [];
  const { closed, written, armed } = autoMerged;
  return [
    ...(closed ? [`${closed.dryRun ? 'Would close' : 'Closed'} renewal pull request #${closed.number} (${closed.url}): ${closed.why}`] : []),
    ...(written?.number !== undefined && written.url ? [`Renewal pull request #${written.number} (${written.url}) ${written.operation}: a fresh link for the export production serves, beside the content pull request, no page changes.`] : []),
    ...(armed ? [armed.message] : [])
  ];
}

async function writeRunSummary(outcome: Extract<Outcome, { kind: 'done' }>, inputs: PublishInputs): Promise<void> {
  const { applied, configured, autoMerged } = outcome;
  const target = inputs.config;
  const merged = autoMerged?.merged;
  if (applied.kind === 'left') {
    const rebuilt = [applied.rebuilt, autoMerged?.rebuilt].some((update) => update !== undefined && !update.kept && update.operation !== 'none');
    await writeLeftSummary(applied.validity, applied.heading, target!, inputs.domain, {
      baseBranch: configured!.baseBranch,
      pending: configured!.pending,
      guard: configured!.guard,
      rebuilt,
      merged: merged && { number: merged.number, url: merged.url, jobId: merged.jobId }
    });
    return;
  }
  const mergedHere = merged !== undefined && merged.number === applied.config?.number;
  const configSummary = applied.config && target ? { target, update: applied.config, merged: mergedHere, mergedApart: merged && !mergedHere ? merged : undefined } : undefined;
  // "What readers see after the merge" only where there is a merge to come: a base that already holds
  // the link gets no pull request, and the summary says so instead.
  const diff = applied.config?.changed === false ? undefined : (applied.contentDiffText ?? contentDiffSection(applied.contentDiff, applied.config?.deployedLink, 'summary'));
  if (applied.kind === 'hosted') {
    const { exported, archive } = applied;
    await writeHostedSummary(exported.bundle.bundleUrl, exported.bundle.expiresAt, archive, applied.sha256Checked, configSummary!, configured?.guard, diff);
    return;
  }
  await writePublishSummary(applied.exported, inputs.domain, configSummary, applied.shortLink, applied.site, applied.docsCommit, configured?.guard, diff);
}

/** The outcome of a failed run: what the step got to, what failed and what to do. */
export function failedOutcome(error: unknown, inputs: PublishInputs, plan: ExportPlan | undefined, progress: Progress, client: ApiClient): Extract<Outcome, { kind: 'failed' }> & { details: FailureDetails } {
  const { jobId, exported } = progress;
  const failedJob = error instanceof ExportFailedError ? error.job : exportTimeout(error)?.last;
  // The pull request the run wrote before a later part failed: it exists, so the outputs name it.
  const config = progress.config;
  const proposal = config?.number !== undefined && config.url !== undefined && !inputs.config?.dryRun ? { number: config.number, url: config.url, operation: config.operation } : undefined;
  // It holds this run's export unless it was left proposing another one (a newer export, a person's change).
  const holds = proposal !== undefined && exported !== undefined && !config!.kept;
  const said = explainPublishError(error, inputs, plan, holds ? undefined : (jobId ?? exported?.job.jobId), progress.publicationMs);
  // After an export, say how to go on without exporting again, and what branch the run left behind.
  const branchLeft = error instanceof PullRequestError ? error.branchLeft : undefined;
  const message = holds
    ? heldBy(said, proposal, exported.job.jobId)
    : exported
      ? leftAfterExport(said, { jobId: exported.job.jobId, branchLeft, repo: inputs.config?.repo })
      : said;
  const deploymentLog = error instanceof DeploymentFailedError ? error.deployment.logs.slice(-LOG_LINES_SHOWN) : undefined;
  return {
    kind: 'failed',
    message,
    failedJob,
    progress,
    proposal,
    hostedRun: inputs.durable !== undefined,
    details: {
      deploymentLog,
      unnamedJobs: jobId ? unnamedJobs(client, jobId) : undefined,
      jobGoesOn: exportTimeout(error) !== undefined,
      contentDiff: error instanceof ContentGateError ? contentDiffSection(progress.contentDiff, undefined, 'summary') : undefined
    }
  };
}

/** A failure after the pull request was written: the export is proposed already, so nothing is exported or proposed again. */
function heldBy(said: string, proposal: { number: number; url: string }, jobId: string): string {
  const first = /[.!?]$/.test(said) ? said : `${said}.`;
  return `${first} Pull request #${proposal.number} (${proposal.url}) already holds this run's export ${jobId}, so nothing needs exporting again: the re-run finishes what came after it, or merge it yourself.`;
}

/** What the failure summary shows beside the outcome. */
export interface FailureDetails {
  deploymentLog?: string[];
  unnamedJobs?: string;
  jobGoesOn: boolean;
  contentDiff?: string;
}

export async function writeFailedSummary(outcome: Extract<Outcome, { kind: 'failed' }>, details: FailureDetails, inputs: PublishInputs): Promise<void> {
  const { progress } = outcome;
  await writeFailureSummary({
    domain: inputs.domain,
    jobId: progress.jobId ?? progress.exported?.job.jobId,
    job: outcome.failedJob,
    message: outcome.message,
    exported: progress.exported !== undefined,
    configured: inputs.config !== undefined,
    proposal: outcome.proposal,
    deploymentLog: details.deploymentLog,
    unnamedJobs: details.unnamedJobs,
    jobGoesOn: details.jobGoesOn,
    contentDiff: details.contentDiff
  });
}

// What a run did, as one value built from what happened (not from what it planned), and the step's
// outputs as a pure function of it: the export, the pull request this run wrote or that waits, the one
// it merged, and, when a later part failed, what the earlier parts had already done.
import { PublishOutput as Output } from '../action/constants.ts';
import type { ExportJob } from '../platform/static-export.ts';
import type { ShortLink } from '../storage/link-margin.ts';
import type { ContentDiff } from '../content/gate.ts';
import type { AutoMergeResult } from './auto-merge.ts';
import type { ExportResult } from './export.ts';
import type { ProductionGuard } from './production-guard.ts';
import type { ConfigUpdate } from './proposal.ts';
import { linkKind } from './reconcile.ts';
import type { Validity } from './renewal.ts';
import type { DownloadedSite } from './summary.ts';

export interface PullRef {
  number: number;
  url: string;
}

/** What the apply step did: left things as they are, exported and proposed, or proposed a hosted URL. */
export type Applied =
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

/** What the run has got to so far, step by step: what a failure still reports. */
export interface Progress {
  /** The docs commit the platform published before the export. */
  docsCommit?: string;
  /** How long the wait for that publication took: the step's timeout counts it too. */
  publicationMs?: number;
  jobId?: string;
  exported?: ExportResult;
  contentDiff?: ContentDiff;
  /** What the proposal step returned: the pull request this run wrote, or would write in a dry run. */
  config?: ConfigUpdate;
  /** The pull request auto-merge merged into the base: a later failure still names it. */
  merged?: PullRef;
  /** Outputs of the steps taken (the download's, the content diff's). */
  outputs: Record<string, string>;
}

/** With config-path: the values file's side of a run that did not fail. */
export interface Configured {
  baseBranch: string;
  dryRun: boolean;
  /** The open pull request that changes what is deployed, as the run found it. */
  foundPending?: PullRef;
  /** What production serves after the run (a renewal the step merged is what it serves now). */
  deployedLink?: string;
  /** The pull request that waits after the run; undefined when none does (or the step merged it). */
  pending?: PullRef;
  guard: ProductionGuard;
}

export type Outcome =
  | { kind: 'done'; applied: Applied; autoMerged?: AutoMergeResult; configured?: Configured; hostedRun: boolean; stepOutputs: Record<string, string> }
  | {
      kind: 'failed';
      /** What failed and what to do, said once. */
      message: string;
      /** The export job as it ended, when it failed or timed out. */
      failedJob?: ExportJob;
      progress: Progress;
      hostedRun: boolean;
      /** The pull request that holds this run's export when a later part failed. */
      proposal?: PullRef & { operation: ConfigUpdate['operation'] };
    };

/** The step's outputs, from the outcome alone. */
export function outputsOf(outcome: Outcome): Record<string, string> {
  return outcome.kind === 'failed' ? failedOutputs(outcome) : doneOutputs(outcome);
}

function doneOutputs(outcome: Extract<Outcome, { kind: 'done' }>): Record<string, string> {
  const { applied, autoMerged, configured } = outcome;
  const outputs: Record<string, string> = { ...outcome.stepOutputs };
  const config = configOf(applied);
  if (applied.kind === 'left') {
    const { validity } = applied;
    // A renewal of production the step merged or opened is work done: a later step rolls it out, or a person merges it.
    if (!autoMerged?.merged && !autoMerged?.written) {
      outputs[Output.Skipped] = 'true';
      outputs[Output.SkipReason] = validity.reason;
    }
    if (validity.hosted) outputs[Output.ExpiresAt] = 'never';
    if (validity.expiresAt) outputs[Output.ExpiresAt] = validity.expiresAt.toISOString();
  } else {
    Object.assign(outputs, exportOutputs(applied.exported, outcome.hostedRun));
    if (applied.kind === 'exported' && applied.docsCommit) outputs[Output.DocsCommit] = applied.docsCommit.sha;
    if (applied.kind === 'hosted') {
      outputs[Output.ArchivePath] = applied.archive.path;
      outputs[Output.ArchiveSha256] = applied.archive.sha256;
    }
  }
  if (!configured) return outputs;
  // A run that left things as they are proposes nothing new, even when it rebuilt the pull request on a moved base.
  outputs[Output.ConfigChanged] = String(configChanged(applied.kind === 'left' ? undefined : config, autoMerged, configured.dryRun));
  // The pull request: the one this run wrote (its own proposal, else production's renewal), the content pull request auto-merge rebuilt, or the one that waits.
  const rebuilt = autoMerged?.rebuilt?.number !== undefined ? autoMerged.rebuilt : undefined;
  // A renewal opened and merged in the same run no longer waits: the content pull request rebuilt after it is the one named.
  const renewalWaits = autoMerged?.written && !autoMerged.merged ? autoMerged.written : undefined;
  const proposed = applied.kind !== 'left' && config?.number !== undefined && config.operation !== 'none' ? config : renewalWaits;
  const written = proposed ?? (config?.number !== undefined ? config : rebuilt);
  outputs[Output.PullRequestOperation] = proposed?.operation ?? (config && config.operation !== 'none' ? config.operation : (rebuilt?.operation ?? config?.operation ?? 'none'));
  const named = written ? { number: written.number!, url: written.url! } : configured.foundPending;
  if (named) {
    outputs[Output.PullRequestNumber] = String(named.number);
    outputs[Output.PullRequestUrl] = named.url;
  }
  // A pull request the step merged into the base: what a later step rolls out.
  outputs[Output.Merged] = String(autoMerged?.merged !== undefined);
  if (autoMerged?.merged) {
    outputs[Output.MergedPullRequestNumber] = String(autoMerged.merged.number);
    outputs[Output.MergedPullRequestUrl] = autoMerged.merged.url;
  }
  const { guard, deployedLink } = configured;
  outputs[Output.DeployedExpiresAt] = guard.expiresAt ? guard.expiresAt.toISOString() : deployedLink && linkKind(deployedLink).kind === 'hosted' ? 'never' : '';
  return outputs;
}

/**
 * True when this run changed the configuration: it wrote new settings to the pull request (a dry
 * run: would write them), or merged a renewal into the base. Rebuilding a pull request on a moved
 * base, or leaving it as it is, changes nothing it proposes.
 */
export function configChanged(config: ConfigUpdate | undefined, autoMerged: AutoMergeResult | undefined, dryRun: boolean): boolean {
  if (autoMerged?.merged || autoMerged?.written) return true;
  if (!config || !config.changed || config.kept) return false;
  return dryRun || config.operation !== 'none';
}

/** The proposal the apply step made: the export's, or the rebuild of a run that left things as they are. */
export function configOf(applied: Applied): ConfigUpdate | undefined {
  return applied.kind === 'left' ? applied.rebuilt : applied.config;
}

function failedOutputs(outcome: Extract<Outcome, { kind: 'failed' }>): Record<string, string> {
  const { progress, failedJob, proposal } = outcome;
  const { jobId, exported } = progress;
  const outputs: Record<string, string> = { ...progress.outputs, ...(exported ? exportOutputs(exported, outcome.hostedRun) : jobId ? { [Output.JobId]: jobId } : {}) };
  if (failedJob) outputs[Output.Status] = failedJob.status;
  if (progress.docsCommit) outputs[Output.DocsCommit] = progress.docsCommit;
  if (proposal) {
    outputs[Output.PullRequestNumber] = String(proposal.number);
    outputs[Output.PullRequestUrl] = proposal.url;
    outputs[Output.PullRequestOperation] = proposal.operation;
  }
  if (progress.merged) {
    outputs[Output.Merged] = 'true';
    outputs[Output.MergedPullRequestNumber] = String(progress.merged.number);
    outputs[Output.MergedPullRequestUrl] = progress.merged.url;
  }
  return outputs;
}

/** The outputs that describe the export and its link; a hosted URL has no status or page count of its own here. */
function exportOutputs({ job, bundle }: ExportResult, hosted: boolean): Record<string, string> {
  return {
    [Output.JobId]: job.jobId,
    ...(hosted ? {} : { [Output.Status]: job.status, ...(job.pageCount === undefined ? {} : { [Output.PageCount]: String(job.pageCount) }) }),
    [Output.BundleUrl]: bundle.bundleUrl,
    [Output.ExpiresAt]: bundle.expiresAt === 'never' ? 'never' : new Date(bundle.expiresAt).toISOString(),
    [Output.SizeBytes]: String(bundle.sizeBytes)
  };
}

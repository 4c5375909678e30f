// The one reconcile of the three publish actions (the root's export on a push, renew/'s nightly
// renewal, host/'s URL the team hosts; each entry in src/entry/ names its kind), as reconcilers: read the facts once (facts.ts), plan from them in a pure function (plan.ts), apply the
// plan (export-path.ts, hosted-path.ts, leave.ts; then auto-merge.ts), build one Outcome from what
// happened (outcome.ts), and report it once. This is the only place that sets outputs or fails the
// step. See ../../docs and STYLE.md's "read, plan, apply".
import * as core from '../action/core.ts';
import { githubClient } from '../github/client.ts';
import type { Octokit } from '../github/pull-request.ts';
import { generateBundle, getExport } from '../platform/static-export.ts';
import type { ApiClient } from '../platform/transport.ts';
import { Deadline } from '../action/deadline.ts';
import { platformClient } from '../action/platform-inputs.ts';
import { Cancellation, CancelledError, readInputs } from '../action/runtime.ts';
import { type AutoMergeResult, type RenewalState, keepProductionAlive } from './auto-merge.ts';
import { reconcileRenewal } from './production-renewal.ts';
import { exportAndPropose } from './export-path.ts';
import { type Facts, maskLink, readFacts } from './facts.ts';
import { proposeHostedUrl } from './hosted-path.ts';
import { type PublishInputs, readPublishInputs } from './inputs.ts';
import { leave } from './leave.ts';
import { type Applied, type Configured, type Outcome, type Progress, configOf, outputsOf } from './outcome.ts';
import { type RunPlan, planRun } from './plan.ts';
import { type RunKind, outputsOfKind } from './run-kind.ts';
import { type FailureDetails, failedOutcome, guardProductionLink, writeDoneSummary, writeFailedSummary } from './report.ts';

/** What a test runs in place of the runner's: GitHub's second (see githubClient), shrunk so its waits take no real time. */
export interface RunOptions {
  githubSecondMs?: number;
  /** Which action runs (its entry in src/entry/ says): the root's export by default. */
  kind?: RunKind;
  /** The poll and request knobs in place of their constants (platform-inputs.ts): a test's short beat. */
  knobs?: Partial<Pick<PublishInputs, 'limits' | 'requestTimeoutMs'>>;
}

export async function run(cancellation = new Cancellation(), options: RunOptions = {}): Promise<void> {
  const given = readInputs(() => ({ ...readPublishInputs(options.kind ?? 'export'), ...options.knobs }));
  if (!given) return;
  let inputs = given;
  const deadline = new Deadline(inputs.timeoutMs);
  const client = platformClient(inputs, cancellation, { deadline, projectId: inputs.projectId });
  const octokit = inputs.config
    ? githubClient(inputs.config.token, { deadline, requestTimeoutMs: inputs.requestTimeoutMs, signal: cancellation.signal, log: (line) => core.info(line), secondMs: options.githubSecondMs })
    : undefined;
  let plan: RunPlan | undefined;
  const progress: Progress = { outputs: {} };
  cancellation.note = 'The step stopped before an export job was started.';
  try {
    // Read. What can fail without an export fails first (facts.ts).
    let facts = await readFacts(inputs, octokit);
    // Production's renewal, on a branch of its own: every run closes a stale one before anything is planned.
    const renewal = facts && octokit ? await reconcileRenewal(octokit, given.config!, facts.proposal, (line) => core.info(line)) : undefined;
    // renew/ with no content pull request waiting: production's renewal is the run's own proposal.
    if (inputs.kind === 'renew' && facts && renewal && !facts.pending) {
      inputs = { ...inputs, config: renewal.target };
      facts = await readFacts(inputs, octokit, renewal.facts);
    }
    // Plan.
    plan = planRun(inputs, facts, Date.now());
    // Apply.
    const context = { client, octokit, inputs, facts, deadline, cancellation, progress, githubSecondMs: options.githubSecondMs };
    const applied =
      plan.kind === 'leave' || plan.kind === 'vetoed'
        ? await leave(plan, octokit, inputs, facts, progress)
        : plan.kind === 'hosted'
          ? await proposeHostedUrl({ ...context, octokit: octokit!, facts: facts! }, plan.jobId)
          : await exportAndPropose(context, plan);
    // Production's renewal: renew/ opens and renews it when production's link is due; with auto-merge: renewals it merges.
    const state = renewal && { ...renewal, facts: wroteNothing(applied) ? renewal.facts : undefined };
    const autoMerged = state && octokit && facts ? await keepRenewal(client, octokit, given, state, progress) : undefined;
    // Report.
    await report(await concluded(applied, autoMerged, inputs, facts, octokit, progress, inputs !== given), inputs);
  } catch (error) {
    if (error instanceof CancelledError || cancellation.signal.aborted) return;
    const failed = failedOutcome(error, inputs, plan?.kind === 'export' ? plan.plan : undefined, progress, client);
    await report(failed, inputs, failed.details);
  } finally {
    client.dispose();
  }
}

/**
 * The outcome of a run that did not fail: what it applied and merged, and the guard on production's
 * link after it. `onRenewalBranch`: the run's own proposal was production's renewal (renew/ with no
 * content pull request waiting).
 */
async function concluded(
  applied: Applied,
  autoMerged: AutoMergeResult | undefined,
  inputs: PublishInputs,
  facts: Facts | undefined,
  octokit: Octokit | undefined,
  progress: Progress,
  onRenewalBranch: boolean
): Promise<Outcome> {
  const done = { kind: 'done' as const, applied, autoMerged, hostedRun: inputs.durable !== undefined, stepOutputs: progress.outputs };
  if (!facts) return done;
  const config = configOf(applied);
  // The pull request: the one this run wrote, or, when it left things as they are, the one that waits.
  const proposed = config ? (config.pending && config.number !== undefined ? { number: config.number, url: config.url! } : undefined) : facts.pending;
  // A renewal the step merged itself no longer waits.
  const pending = proposed && proposed.number === autoMerged?.merged?.number ? undefined : proposed;
  const baseBranch = config?.baseBranch ?? facts.proposal.base.branch;
  // A renewal the step merged itself is what production serves now.
  const deployedLink = autoMerged?.deployedLink ?? (config ? config.deployedLink : facts.deployedLink);
  // A dry run writes nothing, so production would wait on the open pull request, or on the one it would open.
  const found = inputs.config?.dryRun ? (facts.pending ?? (config?.changed && !config.kept ? {} : undefined)) : pending;
  // Production waits on its renewal when one is open, never on content (a content pull request is named only as what waits beside it).
  const renewal = autoMerged?.waiting;
  const waitedOn = renewal ? { ...renewal, renewal: true } : found && { ...found, renewal: onRenewalBranch };
  const guard = await guardProductionLink(octokit, inputs, facts, { deployedLink, baseBranch, pending: waitedOn });
  const configured: Configured = { baseBranch, dryRun: inputs.config!.dryRun, foundPending: facts.pending, deployedLink, pending, guard };
  return { ...done, configured };
}

/** The one report: outputs from the outcome, then what a person reads (annotations, the summary), then the step's verdict. */
async function report(outcome: Outcome, inputs: PublishInputs, details?: FailureDetails): Promise<void> {
  // Each action passes on only the outputs its action.yml declares.
  for (const [name, value] of Object.entries(outputsOfKind(inputs.kind, outputsOf(outcome)))) core.setOutput(name, value);
  if (outcome.kind === 'failed') {
    core.setFailed(outcome.message);
    const log = details?.deploymentLog;
    if (log?.length) core.info(`The deployment's last ${log.length} log lines:\n${log.map((line) => `  ${line}`).join('\n')}`);
    await writeFailedSummary(outcome, details ?? { jobGoesOn: false }, inputs);
    return;
  }
  const guard = outcome.configured?.guard;
  // A link that may not outlive the review: an annotation, as docs/behaviour.md promises.
  if (outcome.applied.kind === 'exported' && outcome.applied.shortLink) core.warning(outcome.applied.shortLink.message);
  if (guard?.level === 'warn') core.warning(guard.message!);
  // A refusal does not fail the step by itself: the guard judges production's link.
  if (outcome.autoMerged?.refused) core.warning(outcome.autoMerged.refused.message);
  // Armed, but its checks wait for a person: as good as refused until someone approves them.
  if (outcome.autoMerged?.armed?.held) core.warning(outcome.autoMerged.armed.message);
  await writeDoneSummary(outcome, inputs);
  if (guard?.level === 'fail') core.setFailed(guard.message!);
}

/** Production's renewal, after the run's own proposal (auto-merge.ts). `inputs`: as given, with the content proposal's target. */
function keepRenewal(client: ApiClient, octokit: Octokit, inputs: PublishInputs, renewal: RenewalState, progress: Progress): Promise<AutoMergeResult> {
  const merge = inputs.config!.autoMergeRenewals === true;
  return keepProductionAlive(
    octokit,
    inputs.config!,
    renewal,
    {
      open: inputs.kind === 'renew' || merge,
      merge,
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
      warn: (line) => core.warning(line),
      // Recorded as it happens: a failure after the merge still reports it, for the roll-out.
      onMerged: (merged) => (progress.merged = merged)
    }
  );
}

/** True when the run left things as they were, at once (no export to wait on, no write): what it read still holds. */
function wroteNothing(applied: Applied): boolean {
  return applied.kind === 'left' && (applied.rebuilt === undefined || applied.rebuilt.operation === 'none');
}

/** Production's link is renewed apart from a content pull request this long before it expires, when renew-within does not say. */
const RENEW_PRODUCTION_WITHIN_MS = 72 * 60 * 60 * 1000;

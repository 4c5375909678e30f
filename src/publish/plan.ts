// Plan: what the run does, from the inputs, the facts and the time alone. No request, no log line:
// a plan is data, shown and tested without a network.
import { PublishInput } from '../action/constants.ts';
import { InputError } from '../action/inputs.ts';
import { jobIdFromLink, redactLink } from '../values/link.ts';
import { jobIdFromDurableUrl } from '../storage/durable-url.ts';
import type { ExportPlan } from './export.ts';
import type { Facts } from './facts.ts';
import { ARCHIVE_PATH_NEEDED, type PublishInputs } from './inputs.ts';
import { vetoReason } from './proposal-facts.ts';
import { linkKind } from './reconcile.ts';
import { type Validity, checkValidity, renewalPlan } from './renewal.ts';

export type RunPlan =
  /** Nothing is due: the link stays valid long enough, or is a URL that never expires. */
  | { kind: 'leave'; validity: Validity }
  /** The export is one a person said no to. */
  | { kind: 'vetoed'; reason: string }
  /** `notes`: why, for the log (a link due for renewal, the job a renewal takes). */
  | { kind: 'export'; plan: ExportPlan; notes: string[] }
  /** bundle-url-template: propose the URL where the team hosts this export's kept archive. */
  | { kind: 'hosted'; jobId: string };

export function planRun(inputs: PublishInputs, facts: Facts | undefined, now: number): RunPlan {
  const link = facts?.link;
  if (facts && link && inputs.plan === 'auto' && linkKind(link).kind === 'hosted') {
    // A URL without an expiry of its own is the team's choice: no renewal replaces it.
    const holder = facts.pending ? `Pull request #${facts.pending.number}` : facts.proposal.base.branch;
    return { kind: 'leave', validity: { due: false, hosted: true, reason: `${holder} holds ${redactLink(link)}, a URL without an expiry of its own: it is never renewed, so this run changes nothing.` } };
  }
  const notes: string[] = [];
  if (facts && inputs.minValidityMs !== undefined) {
    const validity = checkValidity(link, inputs.minValidityMs, now);
    if (!validity.due) return { kind: 'leave', validity };
    notes.push(validity.reason);
  }
  if (inputs.durable) {
    const jobId = hostedJobId(inputs, link);
    return vetoed(facts, jobId) ?? { kind: 'hosted', jobId };
  }
  let plan: ExportPlan;
  if (inputs.plan !== 'auto') plan = inputs.plan;
  else {
    const renewal = renewalPlan(link, inputs.request);
    if ('impossible' in renewal) throw new InputError(PublishInput.ConfigPath, renewal.impossible);
    const { note, ...renewing } = renewal;
    notes.push(note);
    plan = renewing;
  }
  return vetoed(facts, 'reuse' in plan ? plan.reuse : undefined) ?? { kind: 'export', plan, notes };
}

/**
 * A person's no to an export stands however it would come back: its platform link again, or its kept
 * archive at a hosted URL (the same export, so the same veto).
 */
function vetoed(facts: Facts | undefined, jobId: string | undefined): RunPlan | undefined {
  const veto = jobId === undefined ? undefined : facts?.vetoes.get(jobId);
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

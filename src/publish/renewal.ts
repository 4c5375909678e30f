// Renewing the link already in the deployment's configuration (renew/): is it due (renew-within),
// and which export does it come from? The export behind a link stays reusable; only the link
// expires, so a renewal generates a fresh link for the same job instead of rendering the site again.
import type { ExportRequest } from '../platform/static-export.ts';
import { jobIdFromLink, linkExpiry } from '../values/link.ts';
import { formatDuration } from '../action/format.ts';

export interface Validity {
  /** True when the link must be renewed now. */
  due: boolean;
  /** When the current link expires, when it says. */
  expiresAt?: Date;
  /** One line for the log and the outputs. */
  reason: string;
  /** True when the link is a URL without an expiry of its own (one the team hosts): it is never renewed. */
  hosted?: boolean;
}

/**
 * A signed link whose expiry cannot be read is due: better a fresh link than a deployment that
 * cannot fetch. (A URL with neither a signature nor an expiry never reaches here: it is never renewed.)
 */
export function checkValidity(link: string | undefined, minValidityMs: number, now = Date.now()): Validity {
  if (!link) return { due: true, reason: 'The configuration holds no bundle link yet.' };
  const expiresAt = linkExpiry(link);
  if (!expiresAt) return { due: true, reason: 'The current link does not say when it expires, so it is renewed.' };
  const left = expiresAt.getTime() - now;
  const wanted = formatDuration(minValidityMs);
  if (left >= minValidityMs) {
    return { due: false, expiresAt, reason: `The current link stays valid for ${formatDuration(left)}, at least renew-within (${wanted}): nothing to do.` };
  }
  const when = left > 0 ? `expires in ${formatDuration(left)}` : `expired ${formatDuration(-left)} ago`;
  return { due: true, expiresAt, reason: `The current link ${when}, less than renew-within (${wanted}): renewing it.` };
}

export type RenewalPlan =
  | { reuse: string; fallback?: ExportRequest; renewal: true; note: string }
  | { start: ExportRequest; note: string }
  | { impossible: string };

/**
 * renew/. The platform's links name their job in the path (`…/se_…/bundle.tar.gz`): reuse
 * that job, and fall back to a new export of `domain` when the link names none or the job is gone.
 */
export function renewalPlan(link: string | undefined, request: ExportRequest | undefined): RenewalPlan {
  const jobId = link ? jobIdFromLink(link) : undefined;
  if (jobId) return { reuse: jobId, fallback: request, renewal: true, note: `The current link comes from export job ${jobId}: generating a fresh link for it.` };
  const why = link ? 'The current link names no export job' : 'The configuration holds no bundle link yet';
  if (!request) return { impossible: `${why}, so there is nothing to renew: renew/ exports nothing. Run the root action (an export) once to propose a first link, then renew/ keeps it fresh.` };
  return { start: request, note: `${why}: starting a new export of ${request.domain} instead.` };
}

// The guard on production's link. While a pull request waits to be merged, production keeps the link
// on the base branch; once that expires, every pod that restarts cannot fetch the site, whatever the
// pull request proposes. Pure: from one run's facts, what to say, where a person looks (the log, the
// summary, the pull request's first line and a label), and whether this run's step fails.
import { formatCount, formatDuration, formatUtc } from '../action/format.ts';
import { linkLifetime } from '../values/link.ts';
import { linkKind } from './reconcile.ts';

/** fail-when-production-expires: which runs fail when production's link is about to expire. */
export const FAIL_WHEN = ['auto', 'always', 'never'] as const;
export type FailWhen = (typeof FAIL_WHEN)[number];

/** Marks, in pull request lists, the pull request production's link waits on. */
export const EXPIRING_LABEL = 'production-link-expiring';

/** The most a run waits before failing: two days, so that a nightly run fails at least once with a day still left. */
export const FAIL_WITHIN_MS = 48 * 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A link whose lifetime cannot be read is taken to live as long as S3 lets a presigned link live. */
const LONGEST_LINK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The events whose failed run reaches someone who can act under `auto`: GitHub notifies a scheduled
 * workflow's owner, and a manual run's failure is seen by the person who started it. A push or a pull
 * request's run tells its author, who usually cannot merge an infrastructure pull request.
 */
const OWNER_EVENTS = ['schedule', 'workflow_dispatch'];

export interface ProductionFacts {
  /** The link in the base's file: what production serves. */
  deployedLink: string | undefined;
  /** staticExport.enabled on the base; false: production serves no bundle, so there is nothing to guard. */
  enabled: boolean;
  /**
   * The open pull request production waits on; `mergeable` false when GitHub says it conflicts with the
   * base. Without a number: the one a dry run would open. `renewal`: it renews production's link and
   * changes no page; false: it holds new content, which is never what production's life waits on, so
   * it is named only as what waits beside (and it carries no mark). `blocked`: why the renewal cannot
   * merge itself, in a few words.
   */
  pending?: { number?: number; url?: string; mergeable?: boolean; renewal?: boolean; blocked?: string };
  path: string;
  baseBranch: string;
  /** link-margin; undefined: off. */
  marginMs: number | undefined;
  failWhen: FailWhen;
  /** GITHUB_EVENT_NAME; undefined outside a workflow (local-action, a terminal), where the person who runs it reads the failure. */
  event: string | undefined;
  dryRun: boolean;
  now: number;
}

export interface ProductionGuard {
  level: 'ok' | 'warn' | 'fail';
  /** Inside the fail window: production is about to lose its site, whether or not this run fails for it. */
  urgent: boolean;
  /** When the deployed link expires; undefined when it does not say or never expires. */
  expiresAt?: Date;
  /** For the log: what is at risk and what to do, the pull request with its address. Set unless ok. */
  message?: string;
  /** The same for the summary, the pull request as a Markdown link. */
  markdown?: string;
  /** The pull request's first line, while production waits on it; undefined: none. */
  firstLine?: string;
  /** The pull request carries EXPIRING_LABEL exactly when this is true. */
  labelled: boolean;
}

/**
 * When to speak and when to fail, from the link's own lifetime: within its last two days, but never
 * in its first day (its first half, for a link of two days or less), so that a one-day link is not
 * flagged the moment it is made. link-margin widens the warning, within the same bounds.
 */
export function guardWindows(deployedLink: string, marginMs: number | undefined): { failWithinMs: number; warnWithinMs: number } {
  const lifetime = linkLifetime(deployedLink) ?? LONGEST_LINK_MS;
  const latest = lifetime - Math.min(lifetime / 2, DAY_MS);
  const failWithinMs = Math.min(FAIL_WITHIN_MS, latest);
  const warnWithinMs = marginMs === undefined ? failWithinMs : Math.max(failWithinMs, Math.min(marginMs, latest));
  return { failWithinMs, warnWithinMs };
}

export function guardProduction(facts: ProductionFacts): ProductionGuard {
  const { deployedLink, pending, now } = facts;
  const kind = deployedLink ? linkKind(deployedLink) : undefined;
  if (kind?.kind !== 'expires') return { level: 'ok', urgent: false, labelled: false };
  const expiresAt = kind.at;
  if (!facts.enabled || !pending) return { level: 'ok', urgent: false, expiresAt, labelled: false };
  const { failWithinMs, warnWithinMs } = guardWindows(deployedLink!, facts.marginMs);
  const leftMs = expiresAt.getTime() - now;
  if (leftMs >= warnWithinMs) return { level: 'ok', urgent: false, expiresAt, labelled: false };
  const urgent = leftMs < failWithinMs;
  const fails = urgent && mayFail(facts);
  const at = formatUtc(expiresAt.toISOString());
  const when = leftMs > 0 ? `expires at ${at}, in ${formatDuration(leftMs)}` : `expired at ${at}, ${formatDuration(-leftMs)} ago`;
  const deadline = leftMs > 0 ? 'before then' : 'now';
  const consequence = `${leftMs > 0 ? 'after that' : 'until then'}, every pod that restarts cannot fetch the site.`;
  const content = pending.renewal === false;
  const say = (pull: string) => {
    const why = urgent && !fails ? ` ${whyNoFailure(facts)}` : '';
    const head = `Production's link in ${facts.path} on ${facts.baseBranch} ${when}`;
    if (content) {
      return (
        `${head}: ${consequence[0]!.toUpperCase()}${consequence.slice(1)} No renewal pull request is open: the nightly renew/ step opens one (a fresh link for the export production serves, no page changes) once the link is within renew-within. ` +
        `Run it now (Actions → its workflow → Run workflow); ${pull}, which holds new content, waits for its review as it is.${why}`
      );
    }
    const what =
      pending.mergeable === false
        ? `${pull[0]!.toUpperCase()}${pull.slice(1)} cannot be merged as it is: it conflicts with ${facts.baseBranch}. Resolve the conflict on its branch (GitHub's "Resolve conflicts"), then merge it and roll it out ${deadline}`
        : `Merge ${pull} and roll it out ${deadline}`;
    const blocked = pending.blocked ? ` It cannot merge itself: ${pending.blocked}.` : '';
    return `${head}. ${what}: ${consequence}${blocked}${why}`;
  };
  const noun = pending.renewal ? 'renewal pull request' : 'pull request';
  const named = (link: (number: number, url: string) => string) =>
    pending.number === undefined ? `the ${noun} this dry run would open` : link(pending.number, pending.url ?? '');
  return {
    level: fails ? 'fail' : 'warn',
    urgent,
    expiresAt,
    message: say(named((number, url) => `${noun} #${number} (${url})`)),
    markdown: say(named((number, url) => `[${noun} #${number}](${url})`)),
    // Only the pull request whose merge saves production carries the marks: a renewal, never content.
    firstLine: content ? undefined : firstLine(leftMs, at, urgent, facts.baseBranch, pending.mergeable),
    labelled: !content
  };
}

/** Only a run whose owner hears of it and can act fails; a dry run reports. */
function mayFail({ failWhen, event, dryRun }: ProductionFacts): boolean {
  if (dryRun || failWhen === 'never') return false;
  return failWhen === 'always' || !event || OWNER_EVENTS.includes(event);
}

function whyNoFailure({ failWhen, event, dryRun }: ProductionFacts): string {
  if (dryRun) return 'A dry run reports this and does not fail.';
  if (failWhen === 'never') return 'This step does not fail for it.';
  return `This ${event} run only warns: the nightly renew/ run, scheduled or manual, fails for it.`;
}

/**
 * The pull request's first line. The time left is rounded (days above two, hours below), so a run
 * that changes nothing else rewrites the body at most once an hour, and a nightly one once a night.
 */
function firstLine(leftMs: number, at: string, urgent: boolean, baseBranch: string, mergeable: boolean | undefined): string {
  const when = leftMs > 0 ? `expires in ${roughly(leftMs)}` : `expired ${roughly(-leftMs)} ago`;
  const todo =
    mergeable === false
      ? `this pull request cannot be merged as it is (it conflicts with ${baseBranch}): resolve the conflict, then merge it and roll it out.`
      : leftMs > 0
        ? 'merge and roll out this pull request before then; after that, pods that restart cannot fetch the site.'
        : 'merge and roll out this pull request now; until then, pods that restart cannot fetch the site.';
  return `${urgent ? '🛑' : '⚠️'} **Production's link ${when}** (${at}): ${todo}`;
}

function roughly(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  if (hours >= 48) return formatCount(Math.floor(hours / 24), 'day');
  return hours >= 1 ? formatCount(hours, 'hour') : 'less than an hour';
}

/** How a first line of the guard begins: a body that starts so carries one. */
const FIRST_LINE = /^(?:🛑|⚠️) \*\*Production's link [^\n]*\n*/u;

/** The guard's first line, if the body carries one. */
export function firstLineOf(body: string): string | undefined {
  return FIRST_LINE.exec(body)?.[0].trimEnd();
}

/** `body` with `line` as its first line (none: without one), and the rest as it was. */
export function withFirstLine(body: string, line: string | undefined): string {
  const rest = body.replace(FIRST_LINE, '');
  return line === undefined ? rest : `${line}\n\n${rest}`;
}

/** How the urgent line of a renewal that could not merge itself begins (auto-merge.ts writes it). */
export const URGENT_MARK = '**🚨 Urgent:';
const URGENT_LINE = /^\*\*🚨 Urgent:[^\n]*\n*/u;

/**
 * `body` with `line` as its urgent line: under the guard's first line when it has one (report() writes
 * that one after), replacing the last urgent line, so neither mark stacks up run after run.
 */
export function withUrgentLine(body: string, line: string): string {
  return withFirstLine(`${line}\n\n${withoutMarkLines(body)}`, firstLineOf(body));
}

/** `body` without the guard's first line and the urgent line under it. */
export function withoutMarkLines(body: string): string {
  return withFirstLine(body, undefined).replace(URGENT_LINE, '');
}

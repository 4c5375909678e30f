// The reconciling step of every run with config-path. A team runs several workflows against one
// values file for months (pushes, a nightly renewal, a hosted URL) while people review, commit to the
// pull request and click "Update branch". So no run writes the file from the inputs alone: it reads
// what is deployed (the base's file), what is proposed (the open pull request's file, people's lines
// included) and what it exported, and plans the one file the pull request should hold. Pure: no
// requests, so the whole loop can be driven on a fake clock.
import { diff3Merge } from 'node-diff3';
import { linkExpiry, linkSecrets } from '../values/link.ts';
import { ConfigFileError, type SettingChange, patchValuesFile, readSetting } from '../values/values-file.ts';
import { formatDuration, formatUtc } from '../action/format.ts';

/** The static export settings a run may change, as a file holds them (undefined: not set). */
export interface Settings {
  enabled: unknown;
  bundleUrl: unknown;
  version: unknown;
}

const SETTING_NAMES = ['enabled', 'bundleUrl', 'version'] as const;

export function settingsIn(path: string, text: string, key: string): Settings {
  const [enabled, bundleUrl, version] = SETTING_NAMES.map((name) => readSetting(path, text, key, name));
  return { enabled, bundleUrl, version };
}

/** What this run offers: a link, and the settings it sets itself. */
export interface Offer {
  bundleUrl: string;
  /** Set enabled: true (a run that exports new content). A renewal leaves enabled as the proposal has it. */
  enable: boolean;
  /** Set only when the run's version input is; otherwise the proposal's version stays. */
  version?: string;
}

/** The open pull request, as far as the plan needs it. */
export interface Proposed {
  number: number;
  text: string | undefined;
  /** The file where the branch left the base. */
  mergeBaseText: string | undefined;
  byPeople: { sha: string; subject: string }[];
  /** The file as this action's newest commit on the branch left it, when people committed after it. */
  lastProposedText?: string;
}

export type Plan =
  /** Write `text` to the pull request; `changes` are what merging changes in production. */
  | { kind: 'propose'; text: string; changes: SettingChange[] }
  /** Leave the open pull request as it is, for `reason`. */
  | { kind: 'keep'; reason: string }
  /** Production already holds this: no pull request is needed. */
  | { kind: 'current' };

export interface PlanInput {
  path: string;
  key: string;
  branch: string;
  /** The file on the base branch: what is deployed. */
  deployed: string;
  proposal?: Proposed;
  offer: Offer;
}

export function planProposal({ path, key, branch, deployed, proposal, offer }: PlanInput): Plan {
  let start = deployed;
  if (proposal?.text !== undefined) {
    const changedBy = peopleChangedSettings(path, key, proposal);
    if (changedBy) {
      return {
        kind: 'keep',
        reason: `${changedBy} changed the static export settings on ${branch} (pull request #${proposal.number}); this run leaves them as they are. Merge or close the pull request, or revert that change on the branch, and the next run proposes again.`
      };
    }
    // The base moved since the branch left it (another pull request merged into the file): take both.
    const merged = proposal.mergeBaseText === deployed ? proposal.text : mergeLines(proposal.text, proposal.mergeBaseText ?? '', deployed);
    if (merged === undefined) {
      return {
        kind: 'keep',
        reason: `${path} changed on the base in the same lines as on ${branch} (pull request #${proposal.number}), so the two cannot be joined without a person. Click "Update branch" on the pull request and resolve the conflict; the next run goes on from there.`
      };
    }
    start = merged;
  }
  let patched;
  try {
    patched = patchValuesFile(path, start, key, { bundleUrl: offer.bundleUrl, enable: offer.enable, ...(offer.version !== undefined ? { version: offer.version } : {}) });
  } catch (error) {
    // The base's file was checked before the export: what fails here is the pull request's.
    if (!(error instanceof ConfigFileError) || start === deployed) throw error;
    return { kind: 'keep', reason: `The file on ${branch} (pull request #${proposal!.number}) cannot be edited: ${error.message}. Fix it on the branch, or close the pull request; the next run proposes again.` };
  }
  if (patched.text === deployed) return { kind: 'current' };
  return { kind: 'propose', text: patched.text, changes: settingChanges(path, key, deployed, patched.text) };
}

/** Who changed the settings after this action's last commit on the branch, or undefined when no one did. */
function peopleChangedSettings(path: string, key: string, proposal: Proposed): string | undefined {
  if (proposal.lastProposedText === undefined || proposal.text === undefined || proposal.byPeople.length === 0) return undefined;
  let now: Settings;
  let ours: Settings;
  try {
    now = settingsIn(path, proposal.text, key);
    ours = settingsIn(path, proposal.lastProposedText, key);
  } catch {
    return 'A commit on the branch';
  }
  if (SETTING_NAMES.every((name) => now[name] === ours[name])) return undefined;
  const last = proposal.byPeople[proposal.byPeople.length - 1]!;
  return `A commit of a person (${last.sha.slice(0, 7)} "${last.subject}")`;
}

/** What merging changes in production: each setting whose value differs between the two files. */
export function settingChanges(path: string, key: string, deployed: string, proposed: string): SettingChange[] {
  const before = settingsIn(path, deployed, key);
  const after = settingsIn(path, proposed, key);
  return SETTING_NAMES.filter((name) => before[name] !== after[name]).map((name) => ({ key: `${key}.${name}`, before: before[name], after: after[name] }));
}

const LINES = /(?<=\n)/;

/** A line-by-line three-way merge, as git merges a file; undefined when both sides changed the same lines. */
export function mergeLines(ours: string, base: string, theirs: string): string | undefined {
  if (ours === base) return theirs;
  if (theirs === base || theirs === ours) return ours;
  const regions = diff3Merge(ours.split(LINES), base.split(LINES), theirs.split(LINES), { excludeFalseConflicts: true });
  return regions.some((region) => region.conflict) ? undefined : regions.flatMap((region) => region.ok ?? []).join('');
}

/** How a link lives: a presigned link expires; a URL without a signature or an expiry of its own never does. */
export type LinkKind = { kind: 'expires'; at: Date } | { kind: 'signed' } | { kind: 'hosted' };

export function linkKind(link: string): LinkKind {
  const at = linkExpiry(link);
  if (at) return { kind: 'expires', at };
  // A signature without a readable expiry may expire at any time: renewed like one that says when.
  return linkSecrets(link).length > 0 ? { kind: 'signed' } : { kind: 'hosted' };
}

/**
 * Under this, a deployed link with a merge pending fails the step: a failed run notifies the team, a
 * warning does not. Two days, so that a nightly schedule fails at least once with a day still left.
 */
export const FAIL_WITHIN_MS = 48 * 60 * 60 * 1000;

export interface DeployedGuard {
  level: 'ok' | 'warn' | 'fail';
  /** When the deployed link expires; undefined when it does not say or never expires. */
  expiresAt?: Date;
  /** What is at risk and what to do, naming the pull request; set with warn and fail. */
  message?: string;
}

/**
 * The deployed link, judged by every run with config-path. While a pull request waits to be merged,
 * production keeps the link on the base: when that one expires, every pod that restarts cannot fetch
 * the site, whatever the pull request proposes.
 */
export function guardDeployed(input: {
  deployedLink: string | undefined;
  /** The open pull request whose merge production needs; undefined when none waits. */
  pending?: { number?: number; url?: string };
  path: string;
  baseBranch: string;
  marginMs: number | undefined;
  now: number;
}): DeployedGuard {
  const { deployedLink, pending, now } = input;
  const kind = deployedLink ? linkKind(deployedLink) : undefined;
  if (kind?.kind !== 'expires') return { level: 'ok' };
  const expiresAt = kind.at;
  const leftMs = expiresAt.getTime() - now;
  const risky = leftMs < FAIL_WITHIN_MS;
  if (!pending || (!risky && (input.marginMs === undefined || leftMs >= input.marginMs))) return { level: 'ok', expiresAt };
  const pull = pending.number !== undefined ? `pull request #${pending.number}${pending.url ? ` (${pending.url})` : ''}` : 'the open pull request';
  const when = leftMs > 0 ? `expires at ${formatUtc(expiresAt.toISOString())}, in ${formatDuration(leftMs)}` : `expired at ${formatUtc(expiresAt.toISOString())}, ${formatDuration(-leftMs)} ago`;
  const message =
    `Production's link in ${input.path} on ${input.baseBranch} ${when}. Merge ${pull} and roll it out ${leftMs > 0 ? 'before then' : 'now'}: ` +
    `${leftMs > 0 ? 'after that' : 'until then'}, every pod that restarts cannot fetch the site.`;
  return { level: risky ? 'fail' : 'warn', expiresAt, message };
}

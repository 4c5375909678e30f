// The reconciling step of every run with config-path. A team runs several workflows against one
// values file for months (pushes, a nightly renewal, a hosted URL) while people review, commit to the
// pull request and click "Update branch". So no run writes the file from the inputs alone: it reads
// what is deployed (the base's file), what is proposed (the open pull request's file, people's lines
// included) and what it exported, and plans the one file the pull request should hold. Pure: no
// requests, so the whole loop can be driven on a fake clock.
import { diff3Merge } from 'node-diff3';
import { linkExpiry, linkSecrets } from '../values/link.ts';
import { ConfigFileError, type SettingChange, patchValuesFile, readSetting } from '../values/values-file.ts';
import type { ConfigTarget, ProposalFacts } from './proposal-types.ts';

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
  /** `merge`: a commit with two parents, such as "Update branch". */
  byPeople: { sha: string; subject: string; merge?: boolean }[];
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
    const changedBy = peopleChangedSettings(path, key, proposal, deployed);
    if (changedBy) {
      return {
        kind: 'keep',
        reason: `${changedBy} changed the static export settings on ${branch} (pull request #${proposal.number}); this run leaves them as they are. Merge or close the pull request, or revert that change on the branch, and the next run proposes again.`
      };
    }
    // The base moved since the branch left it: people's changes on the branch, re-applied to the base's file.
    const merged = proposal.mergeBaseText === deployed ? proposal.text : reapply(path, key, proposal.text, proposal.mergeBaseText, deployed);
    if (merged === undefined) {
      return {
        kind: 'keep',
        reason: `A person's change to ${path} on ${branch} (pull request #${proposal.number}) and a change on the base touch the same lines, so this run cannot keep both. Resolve it on the branch (GitHub's "Resolve conflicts", or a merge of the base on your machine); the next run goes on from there.`
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

/**
 * Who changed the settings after this action's last commit on the branch, or undefined when no one
 * did. A value that equals the base's, on a branch where someone clicked "Update branch", came in with
 * the base: the base's lines beside the action's are not a decision on the branch, and are re-applied over.
 */
function peopleChangedSettings(path: string, key: string, proposal: Proposed, deployed: string): string | undefined {
  if (proposal.lastProposedText === undefined || proposal.text === undefined || proposal.byPeople.length === 0) return undefined;
  let now: Settings;
  let ours: Settings;
  let base: Settings | undefined;
  try {
    now = settingsIn(path, proposal.text, key);
    ours = settingsIn(path, proposal.lastProposedText, key);
    base = proposal.byPeople.some((commit) => commit.merge) ? settingsIn(path, deployed, key) : undefined;
  } catch {
    return 'A commit on the branch';
  }
  if (SETTING_NAMES.every((name) => now[name] === ours[name] || (base !== undefined && now[name] === base[name]))) return undefined;
  const last = proposal.byPeople[proposal.byPeople.length - 1]!;
  return `A commit of a person (${last.sha.slice(0, 7)} "${last.subject}")`;
}

/** What merging changes in production: each setting whose value differs between the two files. */
export function settingChanges(path: string, key: string, deployed: string, proposed: string): SettingChange[] {
  const before = settingsIn(path, deployed, key);
  const after = settingsIn(path, proposed, key);
  return SETTING_NAMES.filter((name) => before[name] !== after[name]).map((name) => ({ key: `${key}.${name}`, before: before[name], after: after[name] }));
}

/**
 * The branch's file rebuilt on the base's current file: the action's own settings (as the branch holds
 * them) are set on both sides first, so a change on the base next to or on those lines never meets
 * them; what is merged line by line is only people's lines against people's lines. Undefined when
 * those touch the same lines.
 */
export function reapply(path: string, key: string, branchText: string, mergeBaseText: string | undefined, deployed: string): string | undefined {
  let ancestor: string;
  let theirs: string;
  try {
    const settings = settingsIn(path, branchText, key);
    if (typeof settings.bundleUrl !== 'string') return mergeLines(branchText, mergeBaseText ?? '', deployed);
    const ours = (text: string) => withSettings(path, key, text, settings as Settings & { bundleUrl: string });
    ancestor = mergeBaseText === undefined ? '' : ours(mergeBaseText);
    theirs = ours(deployed);
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    return mergeLines(branchText, mergeBaseText ?? '', deployed);
  }
  return mergeLines(branchText, ancestor, theirs);
}

/**
 * `text` holding the settings this action set: bundleUrl, enabled when true, version when set. An
 * enabled the action did not set (false) stays as each side has it, so a person's change on the base wins.
 */
function withSettings(path: string, key: string, text: string, settings: Settings & { bundleUrl: string }): string {
  return patchValuesFile(path, text, key, { bundleUrl: settings.bundleUrl, enable: settings.enabled === true, ...(typeof settings.version === 'string' ? { version: settings.version } : {}) }).text;
}

/**
 * A branch this run must not move, said before any export: one the action did not create (it has
 * never had a pull request, and its commits beyond the base do not start with the action's), one
 * whose open pull request a person opened from their own commits, or one whose pull request goes to
 * another base.
 */
export function refuseBranch(
  facts: Pick<ProposalFacts, 'prBranch' | 'pulls' | 'open' | 'unopened'> & { base: { branch: string } },
  target: Pick<ConfigTarget, 'repo' | 'path'>
): string | undefined {
  const where = `${target.repo.owner}/${target.repo.repo}`;
  const { prBranch } = facts;
  const elsewhere = facts.pulls.find((pull) => pull.state === 'open' && pull.base !== facts.base.branch);
  if (elsewhere) {
    return (
      `Branch ${prBranch} in ${where} is the head of pull request #${elsewhere.number} (${elsewhere.url}) into ${elsewhere.base}, and this run proposes into ${facts.base.branch}: ` +
      `a proposal belongs to one base, so this run leaves that pull request alone. Close that pull request, or retarget it to ${facts.base.branch}.`
    );
  }
  const history = facts.open ?? facts.unopened ?? undefined;
  if (!history || history.startsWithOurs) return undefined;
  // An open pull request this action opened stays its own, whatever people did to the branch since.
  if (facts.open && (facts.open.ahead === 0 || openedByThisAction(facts.open.body))) return undefined;
  const first = 'byPeople' in history ? history.byPeople[0] : undefined;
  const whose = history.ahead === 0 ? 'it holds no commit of this action' : `its first commit${first ? ` (${first.sha.slice(0, 7)} "${first.subject}")` : ''} is not this action's`;
  const pull = facts.open ? `, and pull request #${facts.open.number} from it was not opened by this action` : '';
  return (
    `Branch ${prBranch} in ${where} was not created by this action: ${whose}${pull}. This run never moves a branch that holds a person's work, and stopped before exporting. ` +
    `Rename or delete that branch (its work stays in the pull request or a branch of your own), then run again.`
  );
}

/** How every body this action writes begins its footer: a pull request with it was opened by this action. */
export const OPENED_BY_THIS_ACTION = '<sub>Opened by the static export action.';

function openedByThisAction(body: string): boolean {
  return body.includes(OPENED_BY_THIS_ACTION);
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

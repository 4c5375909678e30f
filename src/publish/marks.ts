// The one writer of a pull request's marks: the guard's first line, the urgent line of a renewal that
// could not merge itself, and the expiring label. It reads the pull request right before it writes,
// and writes nothing on a pull request that is no longer open, or whose branch no longer holds the
// head the run judged (a push may have put new content there: "merge this renewal" would then be a
// lie). The body is written only over the copy just read (a precondition, read back on a lost answer).
import type { Repo } from '../github/repository.ts';
import { PullChangedError, type PullState, addLabels, readPullState, removeLabel, updatePull } from '../github/pull-edits.ts';
import type { Octokit } from '../github/pull-request.ts';
import { EXPIRING_LABEL, withFirstLine, withUrgentLine } from './production-guard.ts';
import { editRegion, regionOf } from './body.ts';

export interface Marks {
  /** The guard's first line; null: none; undefined: as it is. */
  firstLine?: string | null;
  /** The urgent line under it; undefined: as it is. */
  urgentLine?: string;
  /** The expiring label on or off; undefined: as it is. */
  labelled?: boolean;
}

/** `overtaken`: the body was written, but the answer shows a head moved since the read: another writer's body may be lost under it. */
export type MarksWritten = { kind: 'written' | 'unchanged' | 'overtaken'; pull: PullState } | { kind: 'skipped'; reason: string; pull?: PullState };

// The head each pull request had when this run judged it (read it, or wrote it), per client: one client per run.
const judgedHeads = new WeakMap<Octokit, Map<number, string>>();

/** Notes the head of pull request `number` as this run judged it. */
export function rememberJudged(octokit: Octokit, number: number, head: string | undefined): void {
  if (head === undefined) return;
  const heads = judgedHeads.get(octokit) ?? new Map<number, string>();
  heads.set(number, head);
  judgedHeads.set(octokit, heads);
}

export function judgedHeadOf(octokit: Octokit, number: number): string | undefined {
  return judgedHeads.get(octokit)?.get(number);
}

/**
 * Reads pull request `number`, decides its marks from what it holds now, and writes only what
 * changes. `judgedHead`: the head the decision is about (undefined: any).
 */
export async function writeMarks(
  octokit: Octokit,
  repo: Repo,
  number: number,
  judgedHead: string | undefined,
  decide: (pull: PullState) => Marks,
  options: { dryRun?: boolean } = {}
): Promise<MarksWritten> {
  const pull = await readPullState(octokit, repo, number);
  if (pull.state !== 'open') return { kind: 'skipped', reason: `pull request #${number} is ${pull.merged ? 'merged' : 'closed'}`, pull };
  if (judgedHead !== undefined && pull.headSha !== judgedHead) {
    return { kind: 'skipped', reason: `pull request #${number}'s branch moved to ${pull.headSha.slice(0, 7)} since this run judged ${judgedHead.slice(0, 7)}`, pull };
  }
  const marks = decide(pull);
  if (options.dryRun) return { kind: 'unchanged', pull };
  // The marks head the action's region (body.ts); a body without a mark to change is left byte for byte.
  const marked = (region: string) => {
    let text = region;
    if (marks.urgentLine !== undefined) text = withUrgentLine(text, marks.urgentLine);
    if (marks.firstLine !== undefined) text = withFirstLine(text, marks.firstLine ?? undefined);
    return text;
  };
  const region = regionOf(pull.body);
  const body = marked(region) === region ? pull.body : editRegion(pull, marked);
  let written = false;
  if (body !== pull.body) {
    try {
      const after = await updatePull(octokit, repo, number, { body }, { body: pull.body });
      written = true;
      if (after.headSha !== pull.headSha) return { kind: 'overtaken', pull };
    } catch (error) {
      // Someone wrote the body between the read and the write: theirs stands, and the next run marks it.
      if (error instanceof PullChangedError) return { kind: 'skipped', reason: error.message, pull };
      throw error;
    }
  }
  const labelled = pull.labels.includes(EXPIRING_LABEL);
  if (marks.labelled === true && !labelled) await addLabels(octokit, repo, number, [EXPIRING_LABEL]);
  if (marks.labelled === false && labelled) await removeLabel(octokit, repo, number, EXPIRING_LABEL);
  return { kind: written || marks.labelled !== undefined && marks.labelled !== labelled ? 'written' : 'unchanged', pull };
}

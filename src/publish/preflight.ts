// What a run can know before it exports, judged before it exports: an export costs minutes and the
// platform's quota, and a run that can only fail after it wastes both. Pure: each check takes the
// facts the run has already read (the inputs, the base's file, GitHub's answer about the
// repository) and sends nothing. And when a run fails after its export all the same, what it says
// lets a person go on without exporting again.
import { PublishInput as Input } from '../action/constants.ts';
import { InputError } from '../action/inputs.ts';
import type { RepositoryPermissions, Repo } from '../github/repository.ts';
import { allBlockPaths, blockPaths } from '../values/values-file.ts';

/** The pull request's branch is the branch it would merge into: the run could only write to the base itself. */
export function prBranchIsBase(prBranch: string, baseBranch: string, baseGiven: boolean): InputError | undefined {
  if (prBranch !== baseBranch) return undefined;
  const base = baseGiven ? `base-branch (${baseBranch})` : `the repository's default branch, which the pull request merges into (no base-branch is set)`;
  return new InputError(
    Input.PrBranch,
    `'${prBranch}' is ${base}: a pull request needs a branch of its own. Name another base-branch. Nothing was exported.`
  );
}

/**
 * The settings' block is not where config-key points, but a block of the same name is elsewhere in
 * the file (an umbrella chart's `mintlify.staticExport`): the run would add a new block the chart
 * never reads. A file with no such block at all is a first run, and gets the block where config-key says.
 */
export function misplacedBlock(path: string, text: string, key: string): InputError | undefined {
  const found = blockPaths(path, text, key.split('.').at(-1)!);
  if (found.length === 0 || found.includes(key)) return undefined;
  const places = found.map((place) => `"${place}"`).join(', ');
  const given = key === 'staticExport' ? `${key} (the default)` : key;
  const fix = found.length === 1 ? `set config-key: ${found[0]}` : 'set config-key to the one your chart reads';
  return new InputError(
    Input.ConfigKey,
    `is ${given}, but ${path} has no ${key} block: it holds ${places} instead. A run would add a ${key} block that the chart never reads. To edit the block the chart reads, ${fix}. ` +
      `(If the chart does read ${key}, add it to the file once as an empty block, and runs fill it.) Nothing was exported.`
  );
}

/**
 * config-key names no block in the file, but one path there is a near miss of it: the same path in
 * another case (`staticexport` for `staticExport`), or one or two letters apart (`docs.staticExprt`
 * for `docs.staticExport`). YAML and JSON keys are case-sensitive, so the run would add a block the
 * chart never reads beside the one it does.
 */
export function nearMissKey(path: string, text: string, key: string): InputError | undefined {
  const paths = allBlockPaths(path, text);
  if (paths.includes(key)) return undefined;
  const depth = key.split('.').length;
  const near = paths.filter((place) => place.split('.').length === depth && (place.toLowerCase() === key.toLowerCase() || (key.length >= MIN_TYPO_LENGTH && editDistance(place, key) <= 2)));
  if (near.length === 0) return undefined;
  const how = (place: string) => (place.toLowerCase() === key.toLowerCase() ? 'differs from it only in case' : 'is one or two letters away from it');
  const found = near.length === 1 ? `"${near[0]}", which ${how(near[0]!)}` : near.map((place) => `"${place}"`).join(', ');
  const fix = near.length === 1 ? `set config-key: ${near[0]}` : 'set config-key to the one your chart reads';
  return new InputError(
    Input.ConfigKey,
    `is ${key}, but ${path} has no ${key} block: it holds ${found}. Keys are case-sensitive, so a run would add a ${key} block that the chart never reads. To edit the block the chart reads, ${fix}. ` +
      `(If the chart does read ${key}, add it to the file once as an empty block, and runs fill it.) Nothing was exported.`
  );
}

/** Keys shorter than this are compared by case only: two letters make most short words another word. */
const MIN_TYPO_LENGTH = 6;

/** Edits (insert, delete, change, swap two neighbours) between two strings. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i]![j] = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i]![j] = Math.min(rows[i]![j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * GitHub's answer says the token can read the repository but not push to it. GitHub states a role
 * only to a person's token; to an installation token (the workflow's GITHUB_TOKEN, an App's) it
 * states nothing, or, in older answers, all false, which says nothing either.
 */
export function cannotWrite(repo: Repo, permissions: RepositoryPermissions | undefined): InputError | undefined {
  if (permissions?.pull !== true || permissions.push !== false) return undefined;
  return new InputError(
    Input.GithubToken,
    `can read ${repo.owner}/${repo.repo} but not write to it: GitHub says its role there has no push access. ` +
      `The action pushes a branch and opens a pull request in ${repo.owner}/${repo.repo}: give a token of a person or app with write access to it ` +
      '(or leave github-token out, and give the workflow permissions: { contents: write, pull-requests: write } when the file is in its own repository). Nothing was exported.'
  );
}

export interface BaseFacts {
  /** The inputs that name the file and the branches. */
  target: { repo: Repo; path: string; key: string; prBranch: string; baseBranch?: string; dryRun: boolean };
  /** The base's file as read, the branch it was read on, and what GitHub said of the token there. */
  base: { branch: string; text: string; permissions?: RepositoryPermissions };
}

/**
 * Throws the first refusal the base's facts call for; called once the base's file is read, before any
 * export. A dry run writes nothing, so it may read with a token that cannot write.
 */
export function refuseBeforeExport({ target, base }: BaseFacts): void {
  const refusal =
    prBranchIsBase(target.prBranch, base.branch, target.baseBranch !== undefined) ??
    (target.dryRun ? undefined : cannotWrite(target.repo, base.permissions)) ??
    misplacedBlock(target.path, base.text, target.key) ??
    nearMissKey(target.path, base.text, target.key);
  if (refusal) throw refusal;
}

export interface LeftAfterExport {
  /** The export job, complete: a re-run with it as job-id proposes it without exporting again. */
  jobId: string;
  /** The branch the run pushed when no pull request came to show it. */
  branchLeft?: string;
  repo?: Repo;
}

/**
 * A failure after the export, told with what it leaves and how to go on from it: the job to re-run
 * with, and the branch no pull request shows. `said`: the failure's own message, which may name the
 * job already (GitHub's 5xx, the step's deadline): it is not said twice.
 */
export function leftAfterExport(said: string, { jobId, branchLeft, repo }: LeftAfterExport): string {
  const parts = [/[.!?]$/.test(said) ? said : `${said}.`];
  if (!said.includes(`job-id: ${jobId}`)) parts.push(`The export job ${jobId} is done: once the cause is fixed, re-run with job-id: ${jobId} to propose it without exporting again.`);
  if (branchLeft) {
    const where = repo ? ` in ${repo.owner}/${repo.repo}` : '';
    parts.push(`Branch ${branchLeft}${where} holds this run's change, but no pull request shows it: the re-run opens the pull request from it, or delete the branch to drop the change.`);
  }
  return parts.length === 1 ? said : parts.join(' ');
}

// GitHub's compare of two commits (GET /repos/{owner}/{repo}/compare/{base}...{head}), for the GitHub
// emulator: how far `head` is ahead of and behind `base`, from the commits the repository holds.
import type { Repository } from './github-state.ts';

export interface Comparison {
  status: 'identical' | 'ahead' | 'behind' | 'diverged';
  ahead_by: number;
  behind_by: number;
  total_commits: number;
  merge_base_sha: string | undefined;
}

/** Every commit reachable from `sha` through parents, `sha` included. */
function history(repo: Repository, sha: string): Set<string> {
  const seen = new Set<string>();
  const queue = [sha];
  while (queue.length > 0) {
    const current = queue.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    queue.push(...(repo.commits.get(current)?.parents ?? []));
  }
  return seen;
}

/** Compares two commits the repository holds, as GitHub's compare does. */
export function compareCommits(repo: Repository, base: string, head: string): Comparison {
  const fromBase = history(repo, base);
  const fromHead = history(repo, head);
  const aheadBy = [...fromHead].filter((sha) => !fromBase.has(sha)).length;
  const behindBy = [...fromBase].filter((sha) => !fromHead.has(sha)).length;
  const status = aheadBy === 0 && behindBy === 0 ? 'identical' : behindBy === 0 ? 'ahead' : aheadBy === 0 ? 'behind' : 'diverged';
  // The newest commit both reach: walk from head, first one base also reaches.
  let mergeBase: string | undefined;
  for (const sha of fromHead) {
    if (fromBase.has(sha)) {
      mergeBase = sha;
      break;
    }
  }
  return { status, ahead_by: aheadBy, behind_by: behindBy, total_commits: aheadBy, merge_base_sha: mergeBase };
}

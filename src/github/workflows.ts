// What the repository's own workflows run on, read from `.github/workflows` at a ref: a merge queue's
// required checks report only from a workflow triggered by `merge_group`
// (github.blog/changelog/2022-08-18-merge-group-webhook-event-and-github-actions-workflow-trigger;
// emulator/recorded/github.json facts.merge-queue-needs-merge-group), so a queue without one never
// merges anything. Read with contents: read, which the step has.
import type { Octokit } from './client.ts';
import { httpFailure } from './errors.ts';
import { type Repo, readFileAt } from './repository.ts';

/** True when a workflow names merge_group, false when none does (or there are none), undefined when it cannot be read. */
export async function runsOnMergeGroup(octokit: Octokit, repo: Repo, ref: string): Promise<boolean | undefined> {
  let entries: unknown;
  try {
    ({ data: entries } = await octokit.rest.repos.getContent({ ...repo, path: '.github/workflows', ref }));
  } catch (error) {
    return httpFailure(error)?.status === 404 ? false : undefined;
  }
  if (!Array.isArray(entries)) return undefined;
  try {
    for (const entry of entries as { type?: string; name?: string; path?: string }[]) {
      if (entry.type !== 'file' || !entry.path || !/\.ya?ml$/.test(entry.name ?? '')) continue;
      if (/\bmerge_group\b/.test((await readFileAt(octokit, repo, entry.path, ref)) ?? '')) return true;
    }
  } catch {
    return undefined;
  }
  return false;
}

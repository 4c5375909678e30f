// The GitHub emulator's required checks and what waits on them: the check runs a pull request's
// workflows report on its head, held for approval when GITHUB_TOKEN opened or pushed it, run on the
// emulator's clock (Date.now()) or ended by a control call; GitHub's auto-merge, which merges the
// moment the last requirement is met; and a merge queue at its simplest. The state (github-state.ts)
// tells this model of every push and every pull request opened; nothing here speaks HTTP.
import { ApiError, type EmulatedPull, type GitHubState, type Repository, type RepoChange } from './github-state.ts';

/**
 * One required check's run on a commit. `waiting` (conclusion action_required): the workflow waits
 * for a person to approve it and reports nothing until then; `queued`: it runs, and completes at
 * `completesAt` on the clock, or when a control call ends it.
 */
export interface CheckRun {
  id: number;
  sha: string;
  context: string;
  /** pull_request: the pull request's own run; merge_group: the run on the merge queue's group. */
  event: 'pull_request' | 'merge_group';
  pull: number;
  /** The token that opened or pushed the pull request (`person` for a person), whose event started it. */
  triggeredBy: string;
  status: 'waiting' | 'queued' | 'completed';
  conclusion: 'success' | 'failure' | 'action_required' | null;
  createdAt: number;
  completesAt?: number;
  completedAt?: number;
}

/** Which runs a control call ends. */
export interface CheckFilter {
  pull?: number;
  sha?: string;
  context?: string;
  event?: CheckRun['event'];
  conclusion?: 'success' | 'failure';
}

export class GitHubChecks {
  private readonly state: GitHubState;
  private readonly runs = new Map<Repository, CheckRun[]>();
  private nextId = 1;

  constructor(state: GitHubState) {
    this.state = state;
    state.listeners.push((repo, change) => this.changed(repo, change));
  }

  /** Copies of a repository's check runs, oldest first. */
  list(repo: Repository): CheckRun[] {
    return (this.runs.get(repo) ?? []).map((run) => ({ ...run }));
  }

  /**
   * A pull request opened, or its branch pushed (`synchronize`): its workflows start on the new head.
   * Held for approval when GITHUB_TOKEN did it, since 2026-06-11 (recorded/github.json
   * facts.github-token-pull-request-runs-need-approval: github.blog/changelog/2026-06-11-bot-created-pull-requests-can-run-workflows-if-approved).
   */
  private changed(repo: Repository, change: RepoChange): void {
    if (change.kind === 'opened') {
      this.start(repo, change.pull, change.by);
      return;
    }
    for (const pull of repo.pulls) if (pull.state === 'open' && pull.head === change.push.branch) this.start(repo, pull, change.push.by);
  }

  private start(repo: Repository, pull: EmulatedPull, by: string): void {
    const rules = repo.rules.get(pull.base);
    const sha = repo.branches.get(pull.head);
    if (!rules?.requiredStatusChecks || !sha) return;
    const runs = this.runsOf(repo);
    const held = by === this.state.policy.token;
    const now = Date.now();
    for (const context of rules.requiredStatusChecks) {
      if (runs.some((run) => run.sha === sha && run.context === context && run.event === 'pull_request')) continue;
      const run: CheckRun = { id: this.nextId++, sha, context, event: 'pull_request', pull: pull.number, triggeredBy: by, status: held ? 'waiting' : 'queued', conclusion: held ? 'action_required' : null, createdAt: now };
      if (!held && rules.checkRunMs !== undefined) run.completesAt = now + rules.checkRunMs;
      runs.push(run);
    }
  }

  private runsOf(repo: Repository): CheckRun[] {
    let runs = this.runs.get(repo);
    if (!runs) this.runs.set(repo, (runs = []));
    return runs;
  }

  /** A person clicks "Approve workflows to run" on the pull request: its held runs on the head start now. */
  approveWorkflows(repo: Repository, number: number): number {
    const pull = repo.pulls.find((candidate) => candidate.number === number);
    if (!pull) throw new Error(`emulator: no pull request #${number}`);
    const rules = repo.rules.get(pull.base);
    const head = repo.branches.get(pull.head);
    const now = Date.now();
    let approved = 0;
    for (const run of this.runsOf(repo)) {
      if (run.pull !== number || run.sha !== head || run.status !== 'waiting') continue;
      run.status = 'queued';
      run.conclusion = null;
      if (rules?.checkRunMs !== undefined) run.completesAt = now + rules.checkRunMs;
      approved += 1;
    }
    return approved;
  }

  /** Ends the running (queued) runs that match, now; held runs are not running and stay held. Returns how many. */
  complete(repo: Repository, filter: CheckFilter): number {
    const matching = this.runsOf(repo).filter(
      (run) =>
        run.status === 'queued' &&
        (filter.pull === undefined || run.pull === filter.pull) &&
        (filter.sha === undefined || run.sha === filter.sha) &&
        (filter.context === undefined || run.context === filter.context) &&
        (filter.event === undefined || run.event === filter.event)
    );
    const now = Date.now();
    for (const run of matching) this.finish(repo, run, filter.conclusion ?? 'success', now);
    this.settle(repo, now);
    return matching.length;
  }

  /**
   * The clock: every run due by `now` completes at its own time, in order, and what waited on it
   * (auto-merge, the queue) acts at that moment. Called before every request and control call, so a
   * merge that auto-merge made at 10:00 is there before a person's act at 11:00.
   */
  tick(now = Date.now()): void {
    for (;;) {
      let next: { repo: Repository; run: CheckRun } | undefined;
      for (const [repo, runs] of this.runs) {
        for (const run of runs) {
          if (run.status !== 'queued' || run.completesAt === undefined || run.completesAt > now) continue;
          if (!next || run.completesAt < (next.run.completesAt as number)) next = { repo, run };
        }
      }
      if (!next) return;
      const at = next.run.completesAt as number;
      this.finish(next.repo, next.run, next.repo.rules.get(this.baseOf(next.repo, next.run))?.checkConclusion ?? 'success', at);
      this.settle(next.repo, at);
    }
  }

  private baseOf(repo: Repository, run: CheckRun): string {
    return repo.pulls.find((pull) => pull.number === run.pull)?.base ?? repo.defaultBranch;
  }

  private finish(repo: Repository, run: CheckRun, conclusion: 'success' | 'failure', at: number): void {
    run.status = 'completed';
    run.conclusion = conclusion;
    run.completedAt = at;
    if (conclusion === 'success' && run.event === 'pull_request') repo.passedChecks.add(`${run.sha} ${run.context}`);
    if (run.event !== 'merge_group') return;
    const pull = repo.pulls.find((candidate) => candidate.number === run.pull);
    if (!pull?.queuedAt) return;
    if (conclusion === 'failure') {
      // A failing group removes the pull request from the queue, and its auto-merge with it.
      pull.queuedAt = undefined;
      pull.autoMerge = undefined;
      return;
    }
    const group = this.runsOf(repo).filter((other) => other.event === 'merge_group' && other.pull === pull.number && other.sha === run.sha);
    if (group.every((other) => other.conclusion === 'success')) this.mergeFromQueue(repo, pull, at);
  }

  /**
   * Auto-merge acts on every armed pull request whose requirements are met, at `at`: it merges (never
   * past a missing review or check: the bypass list does not count), or with a merge queue required it
   * queues the pull request and the group's checks start (if the repository's CI runs on merge_group).
   */
  settle(repo: Repository, at = Date.now()): void {
    for (const pull of repo.pulls) {
      if (pull.state !== 'open' || !pull.autoMerge || pull.queuedAt || !this.state.requirementsMet(repo, pull)) continue;
      const rules = repo.rules.get(pull.base);
      if (rules?.mergeQueue) {
        this.enqueue(repo, pull, at);
        continue;
      }
      const { enabledBy, mergeMethod, commitTitle, commitMessage } = pull.autoMerge;
      try {
        this.state.mergePull(repo, String(pull.number), mergeMethod, enabledBy, { auto: true, at, title: commitTitle, message: commitMessage });
      } catch (error) {
        // A conflict, say: auto-merge stays armed, as on GitHub, until the pull request can merge.
        if (!(error instanceof ApiError)) throw error;
      }
    }
  }

  private enqueue(repo: Repository, pull: EmulatedPull, at: number): void {
    const rules = repo.rules.get(pull.base);
    pull.queuedAt = new Date(at).toISOString();
    if (!rules?.mergeQueue?.mergeGroupCi) return; // no workflow runs on merge_group: nothing reports, it waits
    // The group's commit is the pull request's head on top of the base; the emulator names it by both.
    const group = `${repo.branches.get(pull.base)}+${repo.branches.get(pull.head)}`;
    for (const context of rules.requiredStatusChecks ?? []) {
      const run: CheckRun = { id: this.nextId++, sha: group, context, event: 'merge_group', pull: pull.number, triggeredBy: 'merge-queue', status: 'queued', conclusion: null, createdAt: at };
      if (rules.checkRunMs !== undefined) run.completesAt = at + rules.checkRunMs;
      this.runsOf(repo).push(run);
    }
    if ((rules.requiredStatusChecks ?? []).length === 0) this.mergeFromQueue(repo, pull, at);
  }

  private mergeFromQueue(repo: Repository, pull: EmulatedPull, at: number): void {
    const method = pull.autoMerge?.mergeMethod ?? 'merge';
    const enabledBy = pull.autoMerge?.enabledBy ?? '';
    try {
      this.state.mergePull(repo, String(pull.number), method, enabledBy, { auto: true, viaQueue: true, at });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      pull.queuedAt = undefined; // GitHub removes a pull request the queue cannot merge
    }
  }
}

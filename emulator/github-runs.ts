// The required checks' runs as GitHub's REST API lists them (`GET /repos/{o}/{r}/actions/runs`,
// docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-repository): one workflow per
// required context, named by it. A run GITHUB_TOKEN's pull request started waits for approval, and
// GitHub lists it as status completed, conclusion action_required (UltraBob/ddev-drupal-code-quality#53:
// "maintenance-check event=pull_request completed/action_required"), so a caller can say why the
// check never passes. The stored REST description (openapi/github/) does not hold this operation, so
// the contract check does not see these answers.
import type { CheckRun } from './github-checks.ts';
import { repositoryJson, userJson } from './github-json.ts';
import { type Repository, fullNameOf, sha1 } from './github-state.ts';

/** GitHub's status and conclusion of a workflow run, from the emulator's run. */
export function runStatus(run: CheckRun): { status: string; conclusion: string | null } {
  if (run.status === 'waiting') return { status: 'completed', conclusion: 'action_required' };
  return { status: run.status, conclusion: run.conclusion };
}

function workflowRunJson(url: string, repo: Repository, run: CheckRun, actor: string): Record<string, unknown> {
  const api = `${url}/repos/${fullNameOf(repo)}/actions/runs/${run.id}`;
  const pull = repo.pulls.find((candidate) => candidate.number === run.pull);
  const workflowId = Number.parseInt(sha1(`workflow:${run.context}`).slice(0, 8), 16);
  const created = new Date(run.createdAt).toISOString();
  return {
    id: run.id,
    name: run.context,
    node_id: `WFR_${sha1(`${fullNameOf(repo)}:${run.id}`).slice(0, 12)}`,
    head_branch: run.event === 'merge_group' ? `gh-readonly-queue/${pull?.base ?? repo.defaultBranch}/pr-${run.pull}` : (pull?.head ?? null),
    head_sha: run.sha,
    path: `.github/workflows/${run.context}.yml`,
    display_title: pull?.title ?? run.context,
    run_number: run.id,
    run_attempt: 1,
    event: run.event,
    ...runStatus(run),
    workflow_id: workflowId,
    url: api,
    html_url: `${url}/${fullNameOf(repo)}/actions/runs/${run.id}`,
    pull_requests: pull && run.event === 'pull_request' ? [{ id: pull.number, number: pull.number, url: `${url}/repos/${fullNameOf(repo)}/pulls/${pull.number}`, head: { ref: pull.head, sha: run.sha }, base: { ref: pull.base, sha: repo.branches.get(pull.base) ?? '' } }] : [],
    created_at: created,
    updated_at: run.completedAt !== undefined ? new Date(run.completedAt).toISOString() : created,
    run_started_at: created,
    actor: userJson(url, actor),
    triggering_actor: userJson(url, actor),
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    check_suite_url: `${url}/repos/${fullNameOf(repo)}/check-suites/${run.id}`,
    artifacts_url: `${api}/artifacts`,
    cancel_url: `${api}/cancel`,
    rerun_url: `${api}/rerun`,
    workflow_url: `${url}/repos/${fullNameOf(repo)}/actions/workflows/${workflowId}`,
    head_commit: null,
    repository: repositoryJson(url, repo),
    head_repository: repositoryJson(url, repo)
  };
}

/**
 * The list, newest first, filtered as GitHub filters it: `head_sha`, `event`, `branch` (the head
 * branch) and `status` (a status or a conclusion: `action_required` finds the held runs).
 */
export function listWorkflowRuns(url: string, repo: Repository, runs: CheckRun[], query: URLSearchParams, loginOf: (token: string) => string): { total_count: number; workflow_runs: unknown[] } {
  const wanted = runs
    .map((run) => ({ run, json: workflowRunJson(url, repo, run, loginOf(run.triggeredBy)) }))
    .filter(({ run, json }) => {
      const { status, conclusion } = runStatus(run);
      const asked = query.get('status');
      return (
        (!query.get('head_sha') || run.sha === query.get('head_sha')) &&
        (!query.get('event') || run.event === query.get('event')) &&
        (!query.get('branch') || json['head_branch'] === query.get('branch')) &&
        (!asked || status === asked || conclusion === asked)
      );
    })
    .reverse()
    .map(({ json }) => json);
  return { total_count: wanted.length, workflow_runs: wanted };
}

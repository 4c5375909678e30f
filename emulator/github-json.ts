// The fields GitHub sends on every object of a kind (a user, a repository, a pull request, a commit,
// a file), which the action does not read today but the real service always sends: its own REST
// description (openapi/github/, checked by contract-check.ts) requires them. The routes in github.ts
// build what the emulated state decides (shas, states, labels) and spread these beside it, so the
// day the action reads one of them, the emulator already answers as GitHub does.
import { type EmulatedPull, type Repository, type StoredCommit, fullNameOf, sha1 } from './github-state.ts';

/** The installation of the app whose token the action uses, as GitHub shows it: `<slug>[bot]`. */
export const BOT_LOGIN = 'github-actions[bot]';
const EPOCH = '2024-01-02T03:04:05Z';

function numericId(text: string): number {
  return Number.parseInt(sha1(text).slice(0, 8), 16);
}

/** A user (the simple-user schema): an account's links by its login. */
export function userJson(url: string, login: string): Record<string, unknown> {
  const api = `${url}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id: numericId(`user:${login}`),
    node_id: `U_${sha1(login).slice(0, 12)}`,
    avatar_url: `${url}/avatars/${encodeURIComponent(login)}`,
    gravatar_id: '',
    url: api,
    html_url: `${url}/${encodeURIComponent(login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: login.endsWith('[bot]') ? 'Bot' : 'User',
    site_admin: false
  };
}

/** A repository as pull requests and the repository API show it: its many link templates and counters. */
export function repositoryJson(url: string, repo: Repository): Record<string, unknown> {
  const full = fullNameOf(repo);
  const api = `${url}/repos/${full}`;
  const templates = Object.fromEntries(
    (
      [
        ['archive_url', '/{archive_format}{/ref}'],
        ['assignees_url', '/assignees{/user}'],
        ['blobs_url', '/git/blobs{/sha}'],
        ['branches_url', '/branches{/branch}'],
        ['collaborators_url', '/collaborators{/collaborator}'],
        ['comments_url', '/comments{/number}'],
        ['commits_url', '/commits{/sha}'],
        ['compare_url', '/compare/{base}...{head}'],
        ['contents_url', '/contents/{+path}'],
        ['contributors_url', '/contributors'],
        ['deployments_url', '/deployments'],
        ['downloads_url', '/downloads'],
        ['events_url', '/events'],
        ['forks_url', '/forks'],
        ['git_commits_url', '/git/commits{/sha}'],
        ['git_refs_url', '/git/refs{/sha}'],
        ['git_tags_url', '/git/tags{/sha}'],
        ['hooks_url', '/hooks'],
        ['issue_comment_url', '/issues/comments{/number}'],
        ['issue_events_url', '/issues/events{/number}'],
        ['issues_url', '/issues{/number}'],
        ['keys_url', '/keys{/key_id}'],
        ['labels_url', '/labels{/name}'],
        ['languages_url', '/languages'],
        ['merges_url', '/merges'],
        ['milestones_url', '/milestones{/number}'],
        ['notifications_url', '/notifications{?since,all,participating}'],
        ['pulls_url', '/pulls{/number}'],
        ['releases_url', '/releases{/id}'],
        ['stargazers_url', '/stargazers'],
        ['statuses_url', '/statuses/{sha}'],
        ['subscribers_url', '/subscribers'],
        ['subscription_url', '/subscription'],
        ['tags_url', '/tags'],
        ['teams_url', '/teams'],
        ['trees_url', '/git/trees{/sha}']
      ] as const
    ).map(([name, rest]) => [name, `${api}${rest}`])
  );
  const host = new URL(url).host;
  return {
    id: numericId(full),
    // As GitHubState.nodeId: the id GraphQL's updateRefs takes.
    node_id: `R_${sha1(full).slice(0, 16)}`,
    name: repo.name,
    full_name: full,
    owner: userJson(url, repo.owner),
    private: false,
    html_url: `${url}/${full}`,
    description: null,
    fork: false,
    url: api,
    ...templates,
    git_url: `git://${host}/${full}.git`,
    ssh_url: `git@${host}:${full}.git`,
    clone_url: `${url}/${full}.git`,
    svn_url: `${url}/${full}`,
    homepage: null,
    language: null,
    size: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    forks_count: 0,
    forks: 0,
    open_issues_count: repo.pulls.filter((pull) => pull.state === 'open').length,
    open_issues: repo.pulls.filter((pull) => pull.state === 'open').length,
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    mirror_url: null,
    license: null,
    default_branch: repo.defaultBranch,
    pushed_at: EPOCH,
    created_at: EPOCH,
    updated_at: EPOCH
  };
}

/** What the repository API adds to a repository (full-repository). */
export const FULL_REPOSITORY_EXTRAS = { network_count: 0, subscribers_count: 0 };

/** A pull request's links and the fields the emulator does not model (milestone, assignee, counters). */
export function pullRequestExtras(url: string, repo: Repository, pull: EmulatedPull): Record<string, unknown> {
  const api = `${url}/repos/${fullNameOf(repo)}`;
  const self = `${api}/pulls/${pull.number}`;
  const head = repo.branches.get(pull.head) ?? '';
  return {
    diff_url: `${pull.html_url}.diff`,
    patch_url: `${pull.html_url}.patch`,
    issue_url: `${api}/issues/${pull.number}`,
    commits_url: `${self}/commits`,
    review_comments_url: `${self}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${pull.number}/comments`,
    statuses_url: `${api}/statuses/${head}`,
    locked: false,
    user: userJson(url, BOT_LOGIN),
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    milestone: null,
    created_at: EPOCH,
    updated_at: pull.closedAt ?? EPOCH,
    merge_commit_sha: null,
    author_association: 'NONE',
    auto_merge: null,
    active_lock_reason: null,
    _links: {
      self: { href: self },
      html: { href: pull.html_url },
      issue: { href: `${api}/issues/${pull.number}` },
      comments: { href: `${api}/issues/${pull.number}/comments` },
      review_comments: { href: `${self}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${self}/commits` },
      statuses: { href: `${api}/statuses/${head}` }
    }
  };
}

/** What a single pull request (get, create, update) adds to the list's: counters and mergeability. */
export function fullPullRequestExtras(url: string, pull: EmulatedPull): Record<string, unknown> {
  return {
    comments: 0,
    review_comments: 0,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 1,
    maintainer_can_modify: false,
    // GitHub computes mergeability in the background: null until it has.
    mergeable: pull.state === 'open' ? true : null,
    mergeable_state: pull.state === 'open' ? 'clean' : 'unknown',
    merged_by: pull.merged ? userJson(url, pull.mergedBy === 'person' ? 'octocat' : BOT_LOGIN) : null
  };
}

/** A label's own address. */
export function labelExtras(url: string, repo: Repository, name: string): Record<string, unknown> {
  return { node_id: `LA_${sha1(name).slice(0, 12)}`, url: `${url}/repos/${fullNameOf(repo)}/labels/${encodeURIComponent(name)}` };
}

/** What the commits API (and compare, and a branch) adds to a git commit: its links, and the GitHub accounts of its author and committer. */
export function restCommitExtras(url: string, repo: Repository, commit: StoredCommit): Record<string, unknown> {
  return {
    node_id: `C_${commit.sha.slice(0, 12)}`,
    comments_url: `${url}/repos/${fullNameOf(repo)}/commits/${commit.sha}/comments`,
    // A commit by no GitHub account (an emulated person) shows null here, as GitHub does.
    author: null,
    committer: null
  };
}

/** A file as the contents API and compare show it: its links. */
export function fileLinks(url: string, repo: Repository, ref: string, path: string, sha: string | null): Record<string, unknown> {
  const self = `${url}/repos/${fullNameOf(repo)}/contents/${path}?ref=${ref}`;
  const html = `${url}/${fullNameOf(repo)}/blob/${ref}/${path}`;
  return { git_url: sha ? `${url}/repos/${fullNameOf(repo)}/git/blobs/${sha}` : null, download_url: `${url}/${fullNameOf(repo)}/raw/${ref}/${path}`, _links: { self, git: sha ? `${url}/repos/${fullNameOf(repo)}/git/blobs/${sha}` : null, html } };
}

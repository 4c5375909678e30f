// A page of this action's docs as a full link a person can click from a log, the job summary or a
// pull request: at the version the runner runs, so the section it names is the one that applies.

import { variables } from './environment.ts';

type RunnerEnv = Partial<Record<'GITHUB_SERVER_URL' | 'GITHUB_ACTION_REPOSITORY' | 'GITHUB_ACTION_REF' | 'GITHUB_REPOSITORY' | 'GITHUB_SHA', string>>;

/**
 * `page` (such as docs/hosting.md) and its section's anchor. The runner names the action's repository
 * and ref (GITHUB_ACTION_REPOSITORY, GITHUB_ACTION_REF); for `uses: ./` it leaves them empty, and the
 * action is the workflow's own repository at its commit. Outside a runner, the path alone.
 */
export function docsLink(page: string, anchor: string, env: RunnerEnv = variables()): string {
  const server = env.GITHUB_SERVER_URL || 'https://github.com';
  const [repository, ref] = env.GITHUB_ACTION_REPOSITORY ? [env.GITHUB_ACTION_REPOSITORY, env.GITHUB_ACTION_REF] : [env.GITHUB_REPOSITORY, env.GITHUB_SHA];
  if (!repository) return `${page}#${anchor} in this action's repository`;
  return `${server}/${repository}/blob/${ref || 'HEAD'}/${page}#${anchor}`;
}

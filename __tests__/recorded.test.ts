// GitHub's refusals come from the recorded answers (emulator/recorded/github.json), each with where
// it was seen: the emulator sends those words, so what the action matches is GitHub's own text.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { readFileSync } from 'node:fs';
import { DEFAULT_API_KEY, startPlatformEmulator } from '../emulator/platform.ts';
import { RECORDED_GITHUB, githubSays } from '../emulator/recorded.ts';

const RECORDED_PLATFORM = JSON.parse(readFileSync('emulator/recorded/platform.json', 'utf8')) as {
  answers: Record<string, { status: number; message: string; file?: string; pointer?: string; source: string }>;
};

const TOKEN = 'ghs_emulator_token';
let github: GitHubEmulator;

beforeAll(async () => {
  github = await startGitHubEmulator();
});
afterAll(() => github.close());

async function merge(repo: string, number: number, sha?: string): Promise<{ status: number; message: string }> {
  const response = await fetch(`${github.url}/repos/${repo}/pulls/${number}/merge`, {
    method: 'PUT',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ merge_method: 'merge', ...(sha ? { sha } : {}) })
  });
  return { status: response.status, message: ((await response.json()) as { message: string }).message };
}

async function openPull(repo: string): Promise<number> {
  github.createRepo(repo, { 'values.yaml': 'a: 1\n' });
  github.commitOnBranch(repo, 'renew', { 'values.yaml': 'a: 2\n' }, 'Renew');
  const response = await fetch(`${github.url}/repos/${repo}/pulls`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Renew', head: 'renew', base: 'main' })
  });
  return ((await response.json()) as { number: number }).number;
}

describe('recorded answers', () => {
  it('every answer and fact says where it was seen', () => {
    const entries = [...Object.values(RECORDED_GITHUB.answers), ...Object.values(RECORDED_GITHUB.facts)];
    expect(entries.length).toBeGreaterThanOrEqual(10);
    for (const entry of entries) expect(entry.source).toMatch(/https:\/\/\S+/);
  });

  it("holds GitHub's transient merge refusals, marked transient", () => {
    expect(RECORDED_GITHUB.answers['merge.base-branch-modified']).toMatchObject({ status: 405, transient: true, message: 'Base branch was modified. Review and try the merge again.' });
    expect(RECORDED_GITHUB.answers['merge.not-mergeable-while-computing']).toMatchObject({ status: 405, transient: true });
  });

  it("the emulator refuses a merge with GitHub's recorded words: a review required, a status check, a moved head", async () => {
    const reviewed = await openPull('acme/reviewed');
    github.protectBranch('acme/reviewed', 'main', { requiredApprovingReviews: 1 });
    expect(await merge('acme/reviewed', reviewed)).toEqual({ status: 405, message: 'At least 1 approving review is required by reviewers with write access.' });

    const checked = await openPull('acme/checked');
    github.protectBranch('acme/checked', 'main', { requiredStatusChecks: ['ci/test'] });
    expect(await merge('acme/checked', checked)).toEqual({ status: 405, message: githubSays('merge.required-status-check-expected', { context: 'ci/test' }) });
    expect(githubSays('merge.required-status-check-expected', { context: 'ci/test' })).toBe('Required status check "ci/test" is expected.');

    const moved = await openPull('acme/moved');
    expect(await merge('acme/moved', moved, '0'.repeat(40))).toEqual({ status: 409, message: RECORDED_GITHUB.answers['merge.head-branch-modified']?.message });
  });
});

describe("the platform's recorded words", () => {
  it('each is what its source file says, at the place it names', () => {
    for (const [id, answer] of Object.entries(RECORDED_PLATFORM.answers)) {
      expect([id, answer.source]).toEqual([id, expect.stringMatching(/mintlify\/docs/)]);
      if (!answer.file || !answer.pointer) continue;
      const doc = JSON.parse(readFileSync(`openapi/${answer.file}`, 'utf8')) as Record<string, unknown>;
      const said = answer.pointer
        .split('/')
        .slice(1)
        .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      expect([id, said]).toEqual([id, answer.message]);
    }
  });

  it("the emulator answers a missing agent job and bad feedback parameters in the platform's words", async () => {
    const platform = await startPlatformEmulator();
    try {
      const get = (path: string) => fetch(`${platform.url}${path}`, { headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
      const missing = await get('/v2/agent/proj_1/job/no-such-job');
      expect([missing.status, ((await missing.json()) as { error: string }).error]).toEqual([404, RECORDED_PLATFORM.answers['agent.get.not-found']?.message]);
      const bad = await get('/v1/analytics/proj_1/feedback/by-page?dateFrom=yesterday');
      expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([400, RECORDED_PLATFORM.answers['analytics.bad-query']?.message]);
    } finally {
      await platform.close();
    }
  });
});

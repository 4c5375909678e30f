// The GitHub emulator answers per token, as GitHub does: GET /repos/{owner}/{repo} states a person's
// token's role in `permissions` and tells an installation token nothing; a write the token may not
// make is refused in GitHub's words for its kind; a token GitHub does not know gets 401.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';

let github: GitHubEmulator;
beforeAll(async () => {
  github = await startGitHubEmulator({ tokens: { ghp_reader: { kind: 'user', write: false }, ghp_writer: { kind: 'user', write: true }, ghs_other_app: { kind: 'installation', write: false } } });
  github.createRepo('acme/deploy', { 'deploy/values.yaml': 'staticExport: {}\n' });
});
afterAll(() => github.close());

async function call(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${github.url}/repos/acme/deploy${path}`, { method, headers: { authorization: `token ${token}` }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('GET /repos/{owner}/{repo}, per token', () => {
  it("states a person's token's role and tells an installation token nothing", async () => {
    expect((await call('ghp_reader', 'GET', '')).json.permissions).toEqual({ admin: false, maintain: false, push: false, triage: false, pull: true });
    expect((await call('ghp_writer', 'GET', '')).json.permissions).toMatchObject({ push: true, pull: true });
    const installation = await call('ghs_emulator_token', 'GET', '');
    expect(installation.status).toBe(200);
    expect(installation.json).not.toHaveProperty('permissions');
    expect((await call('ghs_other_app', 'GET', '')).json).not.toHaveProperty('permissions');
    expect((await call('ghp_unknown', 'GET', '')).status).toBe(401);
  });

  it('refuses the writes a token may not make, in the words GitHub uses for its kind', async () => {
    const main = github.branchHead('acme/deploy', 'main');
    const create = { ref: 'refs/heads/static-export/x', sha: main };
    expect(await call('ghp_reader', 'POST', '/git/refs', create)).toMatchObject({ status: 403, json: { message: 'Resource not accessible by personal access token' } });
    expect(await call('ghs_other_app', 'POST', '/git/refs', create)).toMatchObject({ status: 403, json: { message: 'Resource not accessible by integration' } });
    expect((await call('ghp_writer', 'POST', '/git/refs', create)).status).toBe(201);
  });
});

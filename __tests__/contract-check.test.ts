// The check of every emulator exchange against the real APIs' descriptions (emulator/contract-check.ts,
// on for the whole suite): it names the operation and the field when an answer lacks what the
// description requires, and lets a complete answer through; and the platform contract the action
// names (src/platform/contract.ts) is a description the repository holds.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { type GitHubEmulator, startGitHubEmulator } from '../emulator/github.ts';
import { operationsOf, problemsOf } from '../emulator/contract-check.ts';

const TOKEN = 'ghs_emulator_token';
let github: GitHubEmulator;

beforeAll(async () => {
  github = await startGitHubEmulator();
  github.createRepo('acme/deploy', { 'deploy/values.yaml': 'staticExport:\n  enabled: true\n' });
});
afterAll(() => github.close());

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${github.url}${path}`, {
    method,
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body)
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('the contract check', () => {
  it('names the operation and the field an answer lacks, and passes the whole answer', async () => {
    const head = github.commitOnBranch('acme/deploy', 'static-export/values', { 'deploy/values.yaml': 'staticExport:\n  enabled: false\n' }, 'Propose');
    expect(head).toMatch(/^[0-9a-f]{40}$/);
    const created = await call('POST', '/repos/acme/deploy/pulls', { title: 'Renew', head: 'static-export/values', base: 'main', body: 'x' });
    expect(created.status).toBe(201);
    await call('POST', `/repos/acme/deploy/issues/${created.json.number}/labels`, { labels: ['deploy'] });
    const path = `/repos/acme/deploy/pulls/${created.json.number}`;
    const { status, json } = await call('GET', path);
    const exchange = { method: 'GET', path, requestBody: '', status, answer: json };
    const described = operationsOf('github');
    expect(problemsOf(described, exchange)).toEqual([]);

    const { _links: _dropped, ...withoutLinks } = json;
    const labels = (json.labels as Record<string, unknown>[]).map(({ node_id: _nodeId, ...label }) => label);
    expect(problemsOf(described, { ...exchange, answer: { ...withoutLinks, labels } })).toEqual([
      'answered GET /repos/{owner}/{repo}/pulls/{pull_number} (pulls/get) 200 with a body its description does not allow: (the body) lacks _links; /labels/0 lacks node_id'
    ]);
  });

  it('checks what the action sends: a pull request without its base is refused by the description', () => {
    const problems = problemsOf(operationsOf('github'), { method: 'POST', path: '/repos/acme/deploy/pulls', requestBody: JSON.stringify({ title: 'x', head: 'b' }), status: 422, answer: undefined });
    expect(problems).toEqual(['received POST /repos/{owner}/{repo}/pulls (pulls/create) with a request body its description does not allow: (the body) lacks base']);
  });

  it("checks the platform's answers by its own files, under their server's path", () => {
    const path = '/v1/static-export/jobs/se_0123456789abcdef';
    const job = { jobId: 'se_0123456789abcdef', status: 'running', progress: 40, pageCount: 120, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:10Z' };
    const platform = operationsOf('platform');
    expect(problemsOf(platform, { method: 'GET', path, requestBody: '', status: 200, answer: job })).toEqual([]);
    const { status: _status, ...noStatus } = job;
    expect(problemsOf(platform, { method: 'GET', path, requestBody: '', status: 200, answer: noStatus })).toEqual([
      expect.stringMatching(/^answered GET \/v1\/static-export\/jobs\/\{jobId\} \(getStaticExportJob\) 200 with a body its description does not allow: \(the body\) lacks status$/)
    ]);
  });

  it("checks a request's query by the parameters the description declares", () => {
    const path = (query: string) => `/v1/analytics/proj_1/feedback/by-page?${query}`;
    const platform = operationsOf('platform');
    expect(problemsOf(platform, { method: 'GET', path: path('limit=100&source=agent'), requestBody: '', status: 400, answer: undefined })).toEqual([]);
    expect(problemsOf(platform, { method: 'GET', path: path('limit=500'), requestBody: '', status: 400, answer: undefined })).toEqual([
      'received GET /v1/analytics/{projectId}/feedback/by-page (get /v1/analytics/{projectId}/feedback/by-page) with the query parameter limit=500, which its description does not allow: the value must be <= 100'
    ]);
  });

  it('lets through what no description holds (a download, the control routes)', () => {
    expect(problemsOf(operationsOf('platform'), { method: 'GET', path: '/bundles/se_1/bundle.tar.gz', requestBody: '', status: 200, answer: undefined })).toEqual([]);
  });
});

describe('the contract the action names', () => {
  it("names, in src/platform/contract.ts, descriptions the repository holds (info.title and info.version)", () => {
    // contract.ts names three; static-export-shapes.ts names the two shapes of static export (the
    // next one adds what tells it apart after its title and version).
    const named = ['src/platform/contract.ts', 'src/platform/static-export-shapes.ts'].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^(?:const [A-Z_]+ = |\s+contract: )'(Mintlify [^',]+? \d+\.\d+\.\d+)[^']*',?;?$/gm)].map((match) => match[1])
    );
    const held = readdirSync('openapi/platform')
      .filter((file) => file.endsWith('.json'))
      .map((file) => {
        const { info } = JSON.parse(readFileSync(`openapi/platform/${file}`, 'utf8')) as { info: { title: string; version: string } };
        return `${info.title} ${info.version}`;
      });
    expect(named.length).toBeGreaterThanOrEqual(5);
    for (const name of named) expect(held).toContain(name);
  });
});

// The platform's API may change under the action (static export is a private beta): a 404 or 405 on
// a route of the contract the action speaks says so and names the contract, while a 404 the contract
// declares (no such job) keeps its own meaning. Unit tests of the reading, and runs of the real
// publish action in this process against the platform emulator answering as a moved API would.
import { describe, expect, it } from '@jest/globals';
import { routeMissing } from '../src/platform/static-export.ts';
import { apiDrift } from '../src/platform/contract.ts';
import { explainError } from '../src/action/explain.ts';
import { ApiError } from '../src/platform/transport.ts';
import { useEmulators } from './emulators.ts';
import { runInProcess } from './in-process.ts';

describe('apiDrift', () => {
  it.each([
    ['POST', '/v1/static-export/jobs', 404, 'Mintlify Static Export API 1.0.0'],
    ['POST', '/v1/static-export/jobs', 405, 'Mintlify Static Export API 1.0.0'],
    ['GET', '/v1/static-export/jobs/se_0123456789abcdef', 405, 'Mintlify Static Export API 1.0.0'],
    ['GET', '/v1/project/update-status/st_1', 404, 'Mintlify External API 1.0.0'],
    ['POST', '/v2/agent/proj_1/job', 405, 'Mintlify Admin API 2.0.0'],
    ['GET', '/v1/analytics/proj_1/feedback/by-page', 404, 'Mintlify Analytics Export API 1.0.0']
  ])('%s %s answering %i says the platform API may have changed, naming %s', (method, path, status, contract) => {
    expect(apiDrift(method, path, status)).toBe(
      `${method} ${path} answered ${status}, which the contract this action speaks (${contract}) does not declare for that route: the platform's API may have changed` +
        `${status === 404 && path.includes('/analytics/') ? ', unless project-id names no project this key can see' : ''}. ` +
        "Update the action to a release that speaks the platform's current API, or report it to the action's maintainers with the request id."
    );
  });

  it.each([
    ['GET', '/v1/static-export/jobs/se_0123456789abcdef', 404],
    ['POST', '/v1/static-export/jobs/se_0123456789abcdef/bundle', 404],
    ['GET', '/v2/agent/proj_1/job/job_1', 404],
    ['POST', '/v1/static-export/jobs', 400],
    ['POST', '/v1/static-export/jobs', 500],
    ['GET', '/v1/somewhere/else', 404]
  ])('leaves %s %s answering %i to its own meaning (a declared 404, another status, a route outside the contract)', (method, path, status) => {
    expect(apiDrift(method, path, status)).toBeUndefined();
  });

  it("says a 404 on a route that takes the user's project id may also be a wrong project-id", () => {
    expect(apiDrift('POST', '/v1/project/update/proj_1', 404)).toContain("the platform's API may have changed, unless project-id names no project this key can see.");
  });

  it('comes before the hints of a status: the job hint of a 404 never reads for a start', () => {
    const error = new ApiError({ method: 'POST', path: '/v1/static-export/jobs', status: 404, serverMessage: 'Not Found', requestId: 'req_1', message: 'm' });
    expect(explainError(error, { apiUrl: 'https://api.mintlify.com', doing: 'exporting docs.example.com', hints: { 404: 'there is no export job (404).' } })).toBe(
      `Exporting docs.example.com failed: ${apiDrift('POST', '/v1/static-export/jobs', 404)} The server said: "Not Found". (request id req_1)`
    );
  });
});

describe('routeMissing: a route that is gone, told apart from a job that is gone', () => {
  const answered = (status: number, serverMessage?: string) => new ApiError({ method: 'GET', path: '/v1/static-export/jobs/se_0123456789abcdef', status, serverMessage, message: 'm' });
  it.each([
    [404, 'No job exists with the provided ID.', true, false],
    [404, 'Job not found', true, false],
    [404, 'Not found', true, true],
    [404, 'Cannot GET /v1/static-export/jobs/se_0123456789abcdef', true, true],
    [404, undefined, true, true],
    [405, 'Method Not Allowed', true, true],
    [404, 'Job not found', false, true],
    [500, 'Not found', true, false]
  ])('%i "%s" on a route that declares its 404: %s → the route is missing: %s', (status, message, declares404, missing) => {
    expect(routeMissing(answered(status, message), declares404)).toBe(missing);
  });
});

describe('a run against a platform whose API moved', () => {
  const { platform, publish, inputs } = useEmulators({ platform: { profile: { queuedMs: 20, runMs: 100 } }, reset: true });
  const exportDocs = (extra: Record<string, string> = {}) => runInProcess(publish, inputs(extra));

  it('a start answered 404 is read as the platform having moved to its project-scoped routes: without project-id, refused before any project-scoped start, naming the API keys page', async () => {
    platform.addFault({ route: 'start', kind: '404' });
    const run = await exportDocs();
    expect(run.code).toBe(1);
    expect(run.log).toContain(
      "::error::Input 'project-id': is required to export: the platform's static export API has moved to project-scoped routes (POST /v1/static-export/jobs is gone), which name the project. Nothing was exported. Copy your project id from the API keys page of the dashboard (https://app.mintlify.com/settings/organization/api-keys)"
    );
    expect(platform.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/static-export/jobs']);
  });

  it('a start answered 404 on both shapes\' routes says the API may have changed, naming the next contract, and is not retried', async () => {
    platform.addFault({ route: 'start', kind: '404' });
    const run = await exportDocs({ 'project-id': 'proj_1', 'wait-for-deployment': 'false' });
    expect(run.code).toBe(1);
    expect(run.log).toContain(
      "::error::Exporting docs.example.com failed: POST /v1/static-export/proj_1/jobs answered 404, which the contract this action speaks (Mintlify Static Export API 1.0.0, project-scoped (mintlify/docs decfe56)) does not declare for that route: the platform's API may have changed, unless project-id names no project this key can see."
    );
    expect(platform.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/static-export/jobs', 'POST /v1/static-export/proj_1/jobs']);
  });

  it('a generate answered 405 says the same', async () => {
    platform.addFault({ route: 'bundle', kind: '405' });
    const run = await exportDocs();
    expect(run.code).toBe(1);
    expect(run.log).toMatch(/::error::Exporting docs\.example\.com failed: POST \/v1\/static-export\/jobs\/se_\w+\/bundle answered 405, which the contract this action speaks \(Mintlify Static Export API 1\.0\.0\) does not declare/);
  });

  it('a job the platform does not know keeps its own meaning (the contract declares that 404)', async () => {
    const run = await exportDocs({ 'job-id': 'se_0000000000000000' });
    expect(run.code).toBe(1);
    expect(run.log).toContain('::error::Reusing export job se_0000000000000000 failed: there is no export job se_0000000000000000 (404)');
    expect(run.log).not.toContain('may have changed');
  });
});

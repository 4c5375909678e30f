// The step's outputs as a pure function of what the run did (outcome.ts): no network, no runner.
import { describe, expect, it } from '@jest/globals';
import { type Configured, type Outcome, outputsOf } from '../src/publish/outcome.ts';
import type { ConfigUpdate } from '../src/publish/proposal.ts';
import type { ExportResult } from '../src/publish/export.ts';

const NOW = Date.parse('2026-11-20T08:00:00Z');
const at = (hours: number) => new Date(NOW + hours * 3_600_000).toISOString();
const exported: ExportResult = {
  job: { jobId: 'se_1111111111111111', status: 'completed', progress: 100, pageCount: 120, createdAt: at(-1), updatedAt: at(0) },
  bundle: { jobId: 'se_1111111111111111', bundleUrl: 'https://storage.invalid/se_1111111111111111/bundle.tar.gz?X-Amz-Expires=604800', sizeBytes: 4096, expiresAt: at(168) },
  started: true,
  waitedMs: 1000
};
const pull = (number: number) => ({ number, url: `https://github.invalid/acme/deploy/pull/${number}` });
const update = (over: Partial<ConfigUpdate>): ConfigUpdate => ({ changed: true, operation: 'created', ...pull(1), changes: [], baseBranch: 'main', pending: true, ...over });
const configured = (over: Partial<Configured> = {}): Configured => ({ baseBranch: 'main', dryRun: false, guard: { level: 'ok', urgent: false, labelled: false, expiresAt: new Date(at(40)) }, ...over });
const left = { kind: 'left' as const, validity: { due: false, expiresAt: new Date(at(150)), reason: 'The current link stays valid for 6d 6h, at least renew-within (3d 0h): nothing to do.' }, heading: 'valid' as const };
const done = (over: Partial<Extract<Outcome, { kind: 'done' }>>): Outcome => ({ kind: 'done', applied: left, hostedRun: false, stepOutputs: {}, configured: configured(), ...over });

describe('outputsOf', () => {
  it('a nightly that changed nothing while a pull request waits: skipped, config-changed false, the waiting pull request named', () => {
    expect(outputsOf(done({ configured: configured({ foundPending: pull(1), pending: pull(1) }) }))).toEqual({
      skipped: 'true',
      'skip-reason': left.validity.reason,
      'expires-at': at(150).replace(/\.\d+Z$/, '.000Z'),
      'config-changed': 'false',
      'pull-request-operation': 'none',
      'pull-request-number': '1',
      'pull-request-url': pull(1).url,
      merged: 'false',
      'deployed-expires-at': at(40)
    });
  });

  it("production's renewal merged apart from a content pull request: the merge named, not skipped, the content pull request rebuilt", () => {
    const outputs = outputsOf(
      done({
        autoMerged: { merged: { ...pull(2), method: 'squash', jobId: 'se_2222222222222222' }, rebuilt: update({ operation: 'updated' }), deployedLink: 'https://storage.invalid/x' },
        configured: configured({ foundPending: pull(1), pending: pull(1) })
      })
    );
    expect(outputs).toMatchObject({ merged: 'true', 'merged-pull-request-number': '2', 'merged-pull-request-url': pull(2).url, 'pull-request-number': '1', 'pull-request-operation': 'updated', 'config-changed': 'true' });
    expect(outputs.skipped).toBeUndefined();
    expect(outputs['skip-reason']).toBeUndefined();
  });

  it('an export proposed: config-changed true for a write, false for a rebuild that kept the pull request, true for a dry run that would write', () => {
    const exportedWith = (config: ConfigUpdate, dryRun = false) => outputsOf(done({ applied: { kind: 'exported', exported, config }, configured: configured({ dryRun }) }));
    expect(exportedWith(update({}))).toMatchObject({ 'config-changed': 'true', 'pull-request-operation': 'created', 'pull-request-number': '1', 'job-id': exported.job.jobId, status: 'completed', 'page-count': '120' });
    expect(exportedWith(update({ operation: 'updated', kept: 'A newer export is proposed.' }))['config-changed']).toBe('false');
    expect(exportedWith(update({ changed: false, operation: 'none', number: undefined, url: undefined }))).toMatchObject({ 'config-changed': 'false', 'pull-request-operation': 'none' });
    expect(exportedWith(update({ operation: 'none', number: undefined, url: undefined }), true)).toMatchObject({ 'config-changed': 'true', 'pull-request-operation': 'none' });
  });

  it('a run without config-path sets no output of the pull request', () => {
    const outputs = outputsOf(done({ applied: { kind: 'exported', exported }, configured: undefined }));
    expect(Object.keys(outputs).sort()).toEqual(['bundle-url', 'expires-at', 'job-id', 'page-count', 'size-bytes', 'status']);
  });

  it('a failure after the pull request was written still names it, beside the export', () => {
    const outputs = outputsOf({ kind: 'failed', message: 'GitHub answered 502.', progress: { exported, outputs: { 'bundle-sha256': 'ab' } }, hostedRun: false, proposal: { ...pull(3), operation: 'created' } });
    expect(outputs).toMatchObject({ 'pull-request-number': '3', 'pull-request-url': pull(3).url, 'pull-request-operation': 'created', 'job-id': exported.job.jobId, 'bundle-sha256': 'ab' });
    expect(outputs.merged).toBeUndefined();
    // A merge done before the failure (the guard's marks failed after it) is still named, for the roll-out.
    const after = outputsOf({ kind: 'failed', message: 'GitHub answered 502.', progress: { outputs: {}, merged: pull(2) }, hostedRun: false, proposal: { ...pull(1), operation: 'updated' } });
    expect(after).toMatchObject({ merged: 'true', 'merged-pull-request-number': '2', 'merged-pull-request-url': pull(2).url, 'pull-request-number': '1' });
  });
});

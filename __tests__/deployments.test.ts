// The emulator's deployments, on a fake clock: one at a time, each publishing the branch head as it
// stands when it starts; what is published is what the last successful one took.
import { describe, expect, it } from '@jest/globals';
import { Deployments, fakeSha } from '../emulator/deployments.ts';

describe('emulated deployments', () => {
  it('run one at a time and publish the head as it stands when each starts', () => {
    let now = 1_000;
    const deployments = new Deployments(() => now, { branch: 'docs', deployMs: 100 });
    const initial = deployments.published().sha;
    const a = fakeSha('a');
    deployments.push('docs', a); // the GitHub app's deployment starts at once
    const ours = deployments.trigger('p'); // queued behind it
    expect(deployments.view(ours)).toMatchObject({ status: 'queued' });
    now += 50;
    const b = fakeSha('b');
    deployments.push('docs', b); // lands while the first runs; a third deployment queues
    expect(deployments.published().sha).toBe(initial);
    now += 50; // the first ends with a; ours starts and takes b, the head now
    expect(deployments.published().sha).toBe(a);
    expect(deployments.view(ours)).toMatchObject({ status: 'in_progress', commit: { sha: b, ref: 'docs' } });
    now += 100;
    expect(deployments.view(ours)).toMatchObject({ status: 'success', commit: { sha: b } });
    expect(deployments.published().sha).toBe(b);
  });

  it('a failed deployment publishes nothing; pushes to other branches deploy nothing', () => {
    let now = 0;
    const deployments = new Deployments(() => now, { branch: 'docs', deployMs: 10 });
    const initial = deployments.published().sha;
    deployments.push('feature', fakeSha('f'));
    deployments.arm('failure', 1);
    const failed = deployments.trigger('p');
    now += 10;
    expect(deployments.view(failed)).toMatchObject({ status: 'failure', summary: 'Build failed: 1 broken link', commit: { ref: 'docs', sha: initial } });
    expect((deployments.view(failed)!.logs as string[]).length).toBeGreaterThan(10);
    expect(deployments.published().sha).toBe(initial);
    const next = deployments.trigger('p');
    now += 10;
    expect(deployments.view(next)).toMatchObject({ status: 'success' });
    expect(deployments.view('dep_unknown')).toBeUndefined();
  });

  it('answers an unknown word while running, and a success without commit, when armed', () => {
    let now = 0;
    const deployments = new Deployments(() => now, { deployMs: 10 });
    deployments.arm('unknown-status', 1);
    const odd = deployments.trigger('p');
    now += 5;
    expect(deployments.view(odd)).toMatchObject({ status: 'building' });
    deployments.arm('missing-commit', 1);
    const bare = deployments.trigger('p');
    now += 100;
    expect(deployments.view(bare)).toMatchObject({ status: 'success' });
    expect(deployments.view(bare)).not.toHaveProperty('commit');
  });
});

// The pure rules behind "the action owns exactly its lines, and every person's decision stands":
// re-applying the action's settings on the base's current file, the branches a run refuses, and the
// exports a person closed. No network: the facts are written out as a run would read them.
import { describe, expect, it } from '@jest/globals';
import { contentDiffSectionOf } from '../src/publish/pull-request-body.ts';
import { exportOfBody, vetoedExports } from '../src/publish/proposal-facts.ts';
import { mergeLines, planProposal, reapply, refuseBranch } from '../src/publish/reconcile.ts';
import type { BranchHistory, OpenProposal, PullSummary } from '../src/github/pull-request.ts';

const PATH = 'deploy/values.yaml';
const KEY = 'staticExport';
const OLD = 'https://bundles.invalid/se_old/bundle.tar.gz?X-Amz-Signature=aa';
const NEW = 'https://bundles.invalid/se_new/bundle.tar.gz?X-Amz-Signature=bb';
const PASTED = 'https://bundles.invalid/se_old/bundle.tar.gz?X-Amz-Signature=cc';
const file = (enabled: boolean, link: string, extra = '') => `replicaCount: 2\nstaticExport:\n  enabled: ${enabled}\n  bundleUrl: "${link}"\nresources: {}\n${extra}`;

describe('re-applying the pull request on the base as it is now', () => {
  it('enabled: false committed on the base beside the link is no conflict: the branch keeps its settings and the person\'s line', () => {
    const mergeBase = file(true, OLD);
    const branch = file(true, NEW, '# reviewed\n');
    const base = file(false, OLD);
    expect(mergeLines(branch, mergeBase, base)).toBeUndefined(); // what a line merge makes of it
    expect(reapply(PATH, KEY, branch, mergeBase, base)).toBe(file(true, NEW, '# reviewed\n'));
  });

  it('a link pasted on the base by hand is no conflict: the proposal\'s link stands', () => {
    expect(reapply(PATH, KEY, file(true, NEW), file(false, OLD), file(false, PASTED))).toBe(file(true, NEW));
  });

  it('an enabled the action did not set follows the base', () => {
    expect(reapply(PATH, KEY, file(false, NEW), file(false, OLD), file(true, OLD))).toBe(file(true, NEW));
  });

  it('a setting that came in with "Update branch" is the base\'s, not a decision on the branch: the action\'s value is re-applied', () => {
    const proposal = {
      number: 1,
      text: file(false, NEW),
      mergeBaseText: file(false, OLD),
      lastProposedText: file(true, NEW),
      byPeople: [{ sha: 'd'.repeat(40), subject: "Merge branch 'main'", merge: true }]
    };
    const plan = planProposal({ path: PATH, key: KEY, branch: 'b', deployed: file(false, OLD), proposal, offer: { bundleUrl: NEW, enable: true } });
    expect(plan).toMatchObject({ kind: 'propose', text: file(true, NEW) });
    // The same change in a person's own commit stands.
    const own = planProposal({ path: PATH, key: KEY, branch: 'b', deployed: file(false, OLD), proposal: { ...proposal, byPeople: [{ sha: 'd'.repeat(40), subject: 'Keep it off', merge: false }] }, offer: { bundleUrl: NEW, enable: true } });
    expect(own.kind).toBe('keep');
  });

  it('people\'s lines against people\'s lines on the same spot are still a conflict for a person', () => {
    expect(reapply(PATH, KEY, file(true, NEW).replace('replicaCount: 2', 'replicaCount: 3'), file(true, OLD), file(true, OLD).replace('replicaCount: 2', 'replicaCount: 4'))).toBeUndefined();
  });
});

const history = (over: Partial<BranchHistory> = {}): BranchHistory => ({
  headSha: 'h'.repeat(40),
  text: undefined,
  mergeBaseText: undefined,
  mergeBaseSha: 'b'.repeat(40),
  linear: true,
  byPeople: [],
  startsWithOurs: true,
  ahead: 1,
  otherFiles: [],
  ...over
});
const pull = (over: Partial<PullSummary>): PullSummary => ({ number: 1, url: 'https://github.invalid/acme/deploy/pull/1', title: 't', body: '', labels: [], base: 'main', headSha: 'h'.repeat(40), state: 'open', merged: false, ...over });
const target = { repo: { owner: 'acme', repo: 'deploy' }, path: PATH };
const base = { branch: 'main', sha: 'b'.repeat(40), text: '' };

describe('branches a run never moves', () => {
  it('a branch with a person\'s commit and no pull request, named', () => {
    const facts = { base, prBranch: 'feature/tls', pulls: [], unopened: history({ startsWithOurs: false, byPeople: [{ sha: 'c'.repeat(40), subject: 'TLS', merge: false }] }) };
    expect(refuseBranch(facts, target)).toMatch(/^Branch feature\/tls in acme\/deploy was not created by this action: its first commit \(ccccccc "TLS"\) is not this action's\./);
  });

  it('a branch at the base with no commit at all, and no pull request', () => {
    expect(refuseBranch({ base, prBranch: 'x', pulls: [], unopened: history({ startsWithOurs: false, ahead: 0 }) }, target)).toContain('it holds no commit of this action');
  });

  it('a branch whose open pull request goes to another base', () => {
    expect(refuseBranch({ base, prBranch: 'x', pulls: [pull({ base: 'production', number: 7 })] }, target)).toContain('is the head of pull request #7');
  });

  it('none of: an absent branch, another run\'s branch, or this action\'s open pull request with people\'s commits first', () => {
    const ours = { ...pull({}), ...history({ startsWithOurs: false, byPeople: [{ sha: 'c'.repeat(40), subject: 'Merge main', merge: true }] }), body: '<sub>Opened by the static export action. It keeps…</sub>' } as OpenProposal;
    expect([
      refuseBranch({ base, prBranch: 'x', pulls: [], unopened: null }, target),
      refuseBranch({ base, prBranch: 'x', pulls: [], unopened: history() }, target),
      refuseBranch({ base, prBranch: 'x', pulls: [pull({})], open: ours }, target)
    ]).toEqual([undefined, undefined, undefined]);
  });
});

describe('a pull request closed without merging', () => {
  const body = (jobId: string) => `A new static export is ready.\n\n| Export job | \`${jobId}\` |\n|---|---|\n`;

  it('vetoes its export on its base; a merged one, another base\'s, and production\'s own export do not', () => {
    // The export each proposed is read from the values file at its head (readProposalFacts), never from its body.
    const pulls = [
      pull({ number: 5, state: 'closed', body: body('se_named_in_the_body_only') }),
      pull({ number: 4, state: 'closed', body: 'Not this one: the pricing page is wrong.', proposedJobId: 'se_closed' }),
      pull({ number: 3, state: 'closed', merged: true, proposedJobId: 'se_merged' }),
      pull({ number: 2, state: 'closed', base: 'production', proposedJobId: 'se_elsewhere' }),
      pull({ number: 1, state: 'closed', proposedJobId: 'se_deployed' })
    ];
    expect([...vetoedExports({ pulls, base }, 'se_deployed').entries()].map(([jobId, closed]) => [jobId, closed.number])).toEqual([['se_closed', 4]]);
  });

  it('the export and the content diff are read back from a body this action wrote', () => {
    const written = `Intro.\n\n### What readers see after the merge\n\n| added | removed |\n|---:|---:|\n| 0 | 5 |\n\n| Export job | \`se_1\` |\n|---|---|\n`;
    expect(exportOfBody(written)).toBe('se_1');
    expect(contentDiffSectionOf(written)).toBe('### What readers see after the merge\n\n| added | removed |\n|---:|---:|\n| 0 | 5 |');
  });
});

// What auto-merge: renewals may merge: only a new link for the export the base already serves, with
// nothing else changed in the file or on the branch. A pure function, tested without GitHub.
import { describe, expect, it } from '@jest/globals';
import { isRenewal, renewalBranch } from '../src/publish/auto-merge.ts';

const target = { path: 'deploy/values.yaml', key: 'staticExport' };
const link = (jobId: string, date: string) => `https://bundles.example.invalid/${jobId}/bundle.tar.gz?X-Amz-Date=${date}&X-Amz-Expires=604800&X-Amz-Signature=abc`;
const file = (bundleUrl: string, extra = '') => `# values\nstaticExport:\n  enabled: true\n  bundleUrl: "${bundleUrl}"\n${extra}`;
const deployed = file(link('se_1111111111111111', '20261120T000000Z'));
const branch = (text: string | undefined, people = 0, otherFiles = 0) => ({
  text,
  byPeople: Array.from({ length: people }, (_, i) => ({ sha: `${i}`.padStart(40, '0'), subject: 'note', merge: false })),
  otherFiles: Array.from({ length: otherFiles }, () => ({ path: 'README.md', text: 'x\n' }))
});

describe('isRenewal', () => {
  it('is a fresh link of the export production serves, and nothing else', () => {
    expect(isRenewal(target, deployed, branch(file(link('se_1111111111111111', '20261126T000000Z'))))).toBe(true);
  });

  it.each([
    ['another export', branch(file(link('se_2222222222222222', '20261126T000000Z')))],
    ['the same link', branch(deployed)],
    ['a line besides the link', branch(file(link('se_1111111111111111', '20261126T000000Z'), '# a note\n'))],
    ['enabled turned off', branch(file(link('se_1111111111111111', '20261126T000000Z')).replace('enabled: true', 'enabled: false'))],
    ["a person's commit", branch(file(link('se_1111111111111111', '20261126T000000Z')), 1)],
    ['another file changed', branch(file(link('se_1111111111111111', '20261126T000000Z')), 0, 1)],
    ['no file', branch(undefined)],
    ['a URL the team hosts, of the same export', branch(file('https://bundles.example.invalid/se_1111111111111111/bundle.tar.gz'))],
    ['the same export in another bucket', branch(file(link('se_1111111111111111', '20261126T000000Z').replace('bundles.example.invalid', 'other.example.invalid')))]
  ])('is not %s', (_, proposed) => {
    expect(isRenewal(target, deployed, proposed)).toBe(false);
  });

  it('names the branch of production\'s own renewal after the proposal branch', () => {
    expect(renewalBranch('static-export/deploy-values.yaml')).toBe('static-export/deploy-values.yaml-renewal');
  });
});

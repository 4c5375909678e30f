// What the body and auto-merge say of production must hold for the production there is: one that
// serves no bundle (enabled: false) is never merged into by itself nor said to break, and with links
// that live an hour the one bold deadline is the new link's, which dies first. Through the built
// bundle (dist/index.js, or PUBLISH_BUNDLE to check another build, such as main's).
import { describe, expect, it } from '@jest/globals';
import { runAction } from '../emulator/runner.ts';
import { linkExpiry } from '../src/values/link.ts';
import { readSetting } from '../src/values/values-file.ts';
import { formatUtc } from '../src/action/format.ts';
import { BRANCH, DOMAIN, HOUR, PATH, annotations, productionRepo, useEmulators } from './emulators.ts';
import { finishedExport } from './finished-export.ts';
import { bundleOfStep } from './in-process.ts';

const BUNDLE = process.env.PUBLISH_BUNDLE ?? 'dist/index.js';
const emulators = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 } } });
const { platform, github, proposing, env } = emulators;

const values = (enabled: boolean) => (bundleUrl: string) => `replicaCount: 2\n\nstaticExport:\n  enabled: ${enabled}\n  bundleUrl: "${bundleUrl}"\n`;

/** A repository whose base holds a week-long link of an export, `leftHours` to live. */
const production = (leftHours: number, enabled: boolean) => productionRepo(emulators, 'served', { leftHours, values: values(enabled) });

const run = (repo: string, inputs: Record<string, string>, event = 'schedule') => runAction(inputs['renew-within'] ? bundleOfStep(inputs) : BUNDLE, proposing(inputs), env(repo, event));

describe('production that serves no bundle', () => {
  it('auto-merge: renewals merges nothing into a base whose block has enabled: false, and nothing speaks of pods that cannot fetch the site', async () => {
    platform.linkTtlSeconds = 7 * 24 * 3600;
    const { repo, link } = await production(40, false);
    const nightly = await run(repo, { 'renew-within': '72h', 'auto-merge': 'renewals' });
    expect(annotations(nightly, 'error')).toEqual([]);
    expect(annotations(nightly, 'warning')).toEqual([]);
    expect(nightly.code).toBe(0);
    // The renewal is proposed for review, and left open: production's file is as it was.
    const [pull] = github.pulls(repo);
    expect(pull).toMatchObject({ state: 'open', merged: false });
    expect(readSetting(PATH, github.fileAt(repo, 'main', PATH)!, 'staticExport', 'bundleUrl')).toBe(link);
    expect(nightly.log).toContain('has enabled: false: production serves no bundle, so auto-merge: renewals merges nothing.');
    expect(pull!.body).not.toMatch(/cannot fetch the site|Merge and roll out before/);
    expect(pull!.body).toContain('`staticExport.enabled` is false on the base: production serves no bundle');
  }, 60_000);
});

describe('links that live an hour', () => {
  it("the body's one bold deadline is the new link's expiry, before production's", async () => {
    const { repo, link } = await production(72, true);
    platform.linkTtlSeconds = 3600;
    try {
      const { jobId } = await finishedExport(platform, DOMAIN);
      const push = await run(repo, { 'job-id': jobId }, 'push');
      expect(annotations(push, 'error')).toEqual([]);
      const [pull] = github.pulls(repo);
      const newLink = readSetting(PATH, github.fileAt(repo, BRANCH, PATH)!, 'staticExport', 'bundleUrl') as string;
      const newExpiry = linkExpiry(newLink)!;
      expect(newExpiry.getTime() - Date.now()).toBeLessThan(2 * HOUR);
      const bold = pull!.body.match(/\*\*Merge and roll out before [^*]+\*\*/g);
      expect(bold).toEqual([`**Merge and roll out before ${formatUtc(newExpiry.toISOString())}**`]);
      expect(pull!.body).toContain(`when the new link expires (before production's, at ${formatUtc(linkExpiry(link)!.toISOString())})`);
    } finally {
      platform.linkTtlSeconds = 7 * 24 * 3600;
    }
  }, 60_000);
});

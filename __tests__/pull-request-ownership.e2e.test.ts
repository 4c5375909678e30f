// The pull request is not the action's database, and not only the action's page. What a pull request
// proposed (and so what a person said no to) is read from the values file at its head; the action
// writes only its fenced region of the body, and the title while the title is its own. Each run goes
// through the built bundle (dist/index.js, or PUBLISH_BUNDLE to check another build, such as main's).
import { describe, expect, it } from '@jest/globals';
import { runAction } from '../emulator/runner.ts';
import { jobIdFromLink } from '../src/values/link.ts';
import { readSetting } from '../src/values/values-file.ts';
import { BRANCH, DOMAIN, PATH, errors, productionRepo, useEmulators } from './emulators.ts';
import { finishedExport } from './finished-export.ts';

const BUNDLE = process.env.PUBLISH_BUNDLE ?? 'dist/index.js';
const emulators = useEmulators({ platform: { profile: { queuedMs: 0, runMs: 0 }, linkTtlSeconds: 7 * 24 * 3600 } });
const { platform, github, proposing, env } = emulators;

const production = async () => (await productionRepo(emulators, 'ownership')).repo;

/** The README's push workflow, proposing export `jobId`. */
const push = (repo: string, jobId: string) =>
  runAction(BUNDLE, proposing({ 'job-id': jobId }), env(repo, 'push'));
const proposedJob = (repo: string) => jobIdFromLink(readSetting(PATH, github.fileAt(repo, BRANCH, PATH)!, 'staticExport', 'bundleUrl') as string);

describe('what a pull request proposes comes from its file, not its body', () => {
  it('a person who replaces the body with their reason and closes the pull request has vetoed that export', async () => {
    const repo = await production();
    const { jobId } = await finishedExport(platform, DOMAIN);
    const first = await push(repo, jobId);
    expect(first.outputs['pull-request-operation']).toBe('created');
    github.editPull(repo, 1, { body: 'Not this one: the pricing page is wrong. Wait for the fix.' });
    github.closePull(repo, 1);
    // The same export again (a re-run of the push workflow): the person's no stands.
    const again = await push(repo, jobId);
    expect(errors(again)).toEqual([]);
    expect(again.code).toBe(0);
    expect(github.pulls(repo)).toHaveLength(1);
    expect(again.outputs['pull-request-operation']).toBe('none');
    expect(again.log).toContain(`::notice::Export ${jobId} was proposed in pull request #1`);
    expect(again.log).toContain('which a person closed without merging: that stands');
    // A newer export opens a new pull request, which names the closed one and its export from its file.
    const { jobId: newer } = await finishedExport(platform, DOMAIN);
    const next = await push(repo, newer);
    expect(next.outputs['pull-request-operation']).toBe('created');
    expect(github.pull(repo, 2)!.body).toContain(`Pull request #1, which proposed export \`${jobId}\`, was closed without merging`);
  }, 60_000);
});

describe("a person's title and lines stand", () => {
  it('a retitled pull request ("[HOLD until launch] …") and a line added to its body are kept by the next run, which updates its own region', async () => {
    const repo = await production();
    const { jobId } = await finishedExport(platform, DOMAIN);
    expect((await push(repo, jobId)).outputs['pull-request-operation']).toBe('created');
    const title = '[HOLD until launch] Static export: new bundle for docs.example.com';
    const line = 'Ops: hold this until the launch on Monday; @docs-team owns the go-ahead.';
    github.editPull(repo, 1, { title, body: `${github.pull(repo, 1)!.body}\n\n${line}` });
    const { jobId: newer } = await finishedExport(platform, DOMAIN);
    const next = await push(repo, newer);
    expect(errors(next)).toEqual([]);
    expect(next.outputs['pull-request-operation']).toBe('updated');
    const pull = github.pull(repo, 1)!;
    expect(pull.title).toBe(title);
    expect(pull.body).toContain(line);
    expect(pull.body.match(new RegExp(line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g'))).toHaveLength(1);
    // The action's own part names the new export, once.
    expect(pull.body).toContain(`| Export job | \`${newer}\` |`);
    expect(pull.body).not.toContain(`\`${jobId}\` |`);
    expect(proposedJob(repo)).toBe(newer);
  }, 60_000);
});

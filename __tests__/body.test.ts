// The action's region of a pull request's body and its title (body.ts), and how bodies of older
// versions (no markers) are taken over.
import { describe, expect, it } from '@jest/globals';
import { REGION_END, REGION_START, editRegion, regionOf, titleFor, withRegion } from '../src/publish/body.ts';

const FOOTER = '<sub>Opened by the static export action. It keeps this one pull request current: later runs update it rather than open another.</sub>';
const TITLE = 'Static export: new bundle for docs.example.com';

describe('the action owns a fenced region', () => {
  it("writes its region and keeps a person's text above and below it", () => {
    const first = withRegion(undefined, `A new static export.\n\n${FOOTER}`, TITLE);
    expect(first.startsWith(`${REGION_START}\nA new static export.`)).toBe(true);
    expect(first.endsWith(REGION_END)).toBe(true);
    const edited = `Context from ops.\n\n${first}\n\nHold until Monday.`;
    const next = withRegion(edited, `Another export.\n\n${FOOTER}`, TITLE);
    expect(next).toBe(`Context from ops.\n\n${withRegion(undefined, `Another export.\n\n${FOOTER}`, TITLE)}\n\nHold until Monday.`);
    expect(regionOf(next)).toBe(`Another export.\n\n${FOOTER}`);
  });

  it('takes over a body of an older version: its text to the footer becomes the region, a person\'s lines after it stay', () => {
    const legacy = `🛑 **Production's link expires in 20 hours** (…): merge…\n\nA new static export.\n\n${FOOTER}\n\nA reviewer's note.`;
    expect(regionOf(legacy)).toBe(`🛑 **Production's link expires in 20 hours** (…): merge…\n\nA new static export.\n\n${FOOTER}`);
    const migrated = withRegion(legacy, `Another export.\n\n${FOOTER}`, TITLE);
    expect(migrated).toBe(`${withRegion(undefined, `Another export.\n\n${FOOTER}`, TITLE)}\n\nA reviewer's note.`);
  });

  it("keeps a body a person wrote whole (no footer of the action's) under the region", () => {
    const theirs = 'We hold this release: legal review pending.';
    expect(regionOf(theirs)).toBe('');
    expect(withRegion(theirs, 'Ours.', TITLE)).toBe(`${withRegion(undefined, 'Ours.', TITLE)}\n\n${theirs}`);
  });

  it('changes its marks in place, and nothing outside the region', () => {
    const body = `Above.\n\n${withRegion(undefined, 'Ours.', TITLE)}\n\nBelow.`;
    const marked = editRegion({ title: TITLE, body }, (region) => `🛑 Urgent.\n\n${region}`);
    expect(marked).toBe(`Above.\n\n${withRegion(undefined, '🛑 Urgent.\n\nOurs.', TITLE)}\n\nBelow.`);
  });
});

describe('the title is the action\'s until a person changes it', () => {
  it('replaces its own title, keeps a person\'s', () => {
    const body = withRegion(undefined, 'Ours.', TITLE);
    expect(titleFor(undefined, 'Static export: renew the bundle link')).toBe('Static export: renew the bundle link');
    expect(titleFor({ title: TITLE, body }, 'Static export: renew the bundle link')).toBe('Static export: renew the bundle link');
    expect(titleFor({ title: `[HOLD until launch] ${TITLE}`, body }, 'Static export: renew the bundle link')).toBe(`[HOLD until launch] ${TITLE}`);
  });

  it('on a body of an older version, its default titles and the configured pr-title are its own', () => {
    const legacy = `Ours.\n\n${FOOTER}`;
    expect(titleFor({ title: TITLE, body: legacy }, 'Static export: renew the bundle link')).toBe('Static export: renew the bundle link');
    expect(titleFor({ title: 'Docs bundle', body: legacy }, 'Docs bundle (renewed)', 'Docs bundle')).toBe('Docs bundle (renewed)');
    expect(titleFor({ title: 'Hold: launch', body: legacy }, TITLE)).toBe('Hold: launch');
  });

  it('a title with "-->" in it is noted without ending the comment early', () => {
    const title = 'Static export --> production';
    const body = withRegion(undefined, 'Ours.', title);
    expect(body).not.toContain('--> -->');
    expect(titleFor({ title, body }, 'next')).toBe('next');
  });
});

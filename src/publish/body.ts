// The part of a pull request's body and the title that belong to the action. A person may write in
// the body and retitle the pull request, and what they write stands: the action owns only the region
// between two marker comments (invisible on GitHub), and the title until a person changes it. The
// region ends with the title the action last set, so a later run tells a person's title from its own.
//
// Bodies written before the markers (by older versions) hold the action's text up to its footer: that
// part becomes the region, and whatever follows the footer (a person's lines) is kept below it. A body
// without the footer is a person's own text: kept whole, under the region.
import { OPENED_BY_THIS_ACTION } from './reconcile.ts';

export const REGION_START = '<!-- static-export:start -->';
export const REGION_END = '<!-- static-export:end -->';
const TITLE_MARK = /^<!-- static-export:title (".*") -->$/m;

/** Titles older versions set by default: theirs until a person changes them. */
const LEGACY_TITLE = /^Static export: (new bundle|renew the bundle link|host the bundle)( for \S+)?$/;

interface Split {
  before: string;
  /** The action's region, without its markers and title mark. */
  region: string;
  after: string;
  /** The title the action last set, when the region says. */
  title?: string;
}

function split(body: string): Split {
  const start = body.indexOf(REGION_START);
  const end = body.indexOf(REGION_END, start + REGION_START.length);
  if (start >= 0 && end > start) {
    let region = body.slice(start + REGION_START.length, end);
    const mark = TITLE_MARK.exec(region);
    let title: string | undefined;
    if (mark) {
      try {
        title = JSON.parse(mark[1]!) as string;
      } catch {
        title = undefined;
      }
      region = region.replace(TITLE_MARK, '');
    }
    return { before: body.slice(0, start), region: region.trim(), after: body.slice(end + REGION_END.length), title };
  }
  // Written before the markers: the action's text runs to the end of its footer's line.
  const footer = body.indexOf(OPENED_BY_THIS_ACTION);
  if (footer < 0) return { before: '', region: '', after: body };
  const lineEnd = body.indexOf('\n', footer);
  return lineEnd < 0 ? { before: '', region: body.trim(), after: '' } : { before: '', region: body.slice(0, lineEnd).trim(), after: body.slice(lineEnd) };
}

/** The action's own text in a body (its marks first, when it carries them); empty when it holds none. */
export function regionOf(body: string): string {
  return split(body).region;
}

/** `body` with the action's region set to `region`, and `title` noted as the action's; a person's text around it stays. */
export function withRegion(body: string | undefined, region: string, title: string | undefined): string {
  const parts = split(body ?? '');
  const note = title === undefined ? '' : `<!-- static-export:title ${JSON.stringify(title).replace(/-->/g, '--\\u003e')} -->\n`;
  const fenced = `${REGION_START}\n${region.trim()}\n${note}${REGION_END}`;
  const after = parts.after.trim() === '' ? '' : `\n\n${parts.after.replace(/^\n+/, '')}`;
  return `${parts.before}${fenced}${after}`;
}

/** `body` with its region changed by `edit` (the marks' writer), in the region's own place; the title's owner stays as it was. */
export function editRegion(pull: { title: string; body: string }, edit: (region: string) => string): string {
  const parts = split(pull.body);
  const noted = parts.title ?? (LEGACY_TITLE.test(pull.title) ? pull.title : undefined);
  return withRegion(pull.body, edit(parts.region), noted);
}

/**
 * The title to set: the action's `wanted` while the title is the action's (the one it last set, or,
 * on a body of an older version, one of its default titles, or the configured `pr-title`); a person's stands.
 */
export function titleFor(current: { title: string; body: string } | undefined, wanted: string, configured?: string): string {
  if (!current) return wanted;
  const noted = split(current.body).title;
  const ours = noted !== undefined ? current.title === noted : LEGACY_TITLE.test(current.title) || current.title === configured;
  return ours ? wanted : current.title;
}

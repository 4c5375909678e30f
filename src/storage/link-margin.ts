// Whether the platform's link lasts long enough for the configuration pull request to be reviewed,
// merged and rolled out. A pod that restarts after the link expired cannot fetch its site.
import { formatDuration, formatUtc } from '../action/format.ts';
import { docsLink } from '../action/docs-link.ts';

export interface ShortLink {
  /** How long the link stays valid from now (ms; negative when already expired). */
  leftMs: number;
  marginMs: number;
  /** For the log and the job summary: says how long is left. */
  message: string;
  /** For the pull request: the same without the time left, so an unchanged link keeps an unchanged body. */
  note: string;
}

/** Undefined when the link lasts at least `marginMs`. `guide`: where the way out is explained. */
export function checkLinkMargin(expiresAt: string, marginMs: number, now = Date.now(), guide = docsLink('docs/hosting.md', 'links-that-outlive-the-review')): ShortLink | undefined {
  const leftMs = new Date(expiresAt).getTime() - now;
  if (leftMs >= marginMs) return undefined;
  const what = (left: string) => `The platform's link expires at ${formatUtc(expiresAt)}${left}, sooner than ${formatDuration(marginMs)} from now, the time a review and a rollout may take. `;
  const advice =
    'If the pull request is merged or rolled out after that, pods that start then cannot fetch the site. ' +
    `Host the bundle yourself (keep-archive, then host/; see ${guide}), or roll out at once with helm upgrade --set staticExport.bundleUrl=… from the bundle-url output.`;
  return { leftMs, marginMs, message: what(`, in ${formatDuration(Math.max(0, leftMs))}`) + advice, note: what('') + advice };
}

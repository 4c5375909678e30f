// Markdown as GitHub shows a pull request body or a job summary: GitHub-flavoured Markdown by
// `marked` (GFM: tables, autolinks; raw HTML passes, as in a job summary) under GitHub's own
// stylesheet (`github-markdown-css`). `npm run try` writes its pages with it, and the rendering test
// (__tests__/github-screen.ts) looks at them in a browser.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Marked } from 'marked';
import { escapeHtml } from '../src/action/format.ts';

const require = createRequire(import.meta.url);

/** GitHub's light stylesheet for rendered Markdown. */
export const GITHUB_STYLESHEET = readFileSync(require.resolve('github-markdown-css/github-markdown-light.css'), 'utf8');

/**
 * The HTML GitHub makes of `markdown`. `breaks`: a pull request body turns a single line break into
 * a break; a job summary does not.
 */
export function renderGitHubMarkdown(markdown: string, options: { breaks: boolean }): string {
  return new Marked({ gfm: true, breaks: options.breaks, async: false }).parse(markdown) as string;
}

/** A page that shows `markdown` as GitHub would, at `width` px of text, for a browser to open. */
export function githubPage(title: string, markdown: string, options: { breaks: boolean; width?: number; padding?: number }): string {
  const width = options.width ?? 780;
  const padding = options.padding ?? 16;
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>` +
    GITHUB_STYLESHEET +
    `body { margin: 0; background: #fff; } .markdown-body { box-sizing: content-box; width: ${width}px; padding: ${padding}px; }` +
    '</style></head><body><article class="markdown-body">' +
    renderGitHubMarkdown(markdown, options) +
    '</article></body></html>'
  );
}

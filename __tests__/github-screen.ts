// Shows Markdown as GitHub shows a pull request body or a job summary, and looks at it as a person
// would: the page scripts/github-markdown.ts makes (GitHub-flavoured Markdown by `marked`, GitHub's
// own stylesheet), Mermaid fences drawn by Mermaid's own package, in Debian's Chromium driven by
// playwright-core (no browser download).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../scripts/chromium.ts';
import { githubPage } from '../scripts/github-markdown.ts';

/**
 * The width GitHub gives the text of a pull request body on a 1280 px window (the conversation column
 * less the avatar, the comment's border and its 16 px padding): about 780 px. The job summary's column
 * on the same window is a little wider, so a screen that fits here fits there too.
 */
export const CONTENT_WIDTH = 780;
/** The comment's own padding around the text, as on GitHub (screenshots include it). */
const PADDING = 16;

/** Where the screenshots go: a gitignored folder a developer can open. */
export const SCREENS_DIR = join(process.cwd(), 'screens');

const require = createRequire(import.meta.url);
const MERMAID = require.resolve('mermaid/dist/mermaid.min.js');
/** The reader's checks, run in the page (browser code, kept apart from the Node code's types). */
const INSPECT = fileURLToPath(new URL('github-screen.browser.js', import.meta.url));

export interface Screen {
  /** What a person would object to; empty when the screen reads well. */
  problems: string[];
  /** The PNG written for it. */
  path: string;
}

export interface GitHubScreen {
  /**
   * Renders `markdown` as GitHub would (`breaks`: a pull request body turns a single line break into a
   * break, a job summary does not), saves a screenshot as screens/`name`.png (or `png`), and lists what
   * a person would object to.
   */
  show(name: string, markdown: string, options: { breaks: boolean; png?: string }): Promise<Screen>;
  /**
   * Where, on the screen last shown, the innermost element whose text contains `text` lies: its top and
   * bottom in px below the top of the screenshot (the comment's padding included); undefined when no
   * element holds it. What a reader sees without scrolling is what lies above the window's height.
   */
  whereIs(text: string): Promise<{ top: number; bottom: number } | undefined>;
  close(): Promise<void>;
}

/** Starts Chromium with a fresh profile and one page at a 1280 px window. */
export async function openGitHubScreen(): Promise<GitHubScreen> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 }
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // Nothing on the page may come from the network: a stray fetch would make the screen depend on it.
  await page.route('**/*', (route) => route.abort());
  mkdirSync(SCREENS_DIR, { recursive: true });
  return {
    async show(name, markdown, options) {
      await page.setContent(githubPage(name, markdown, { breaks: options.breaks, width: CONTENT_WIDTH, padding: PADDING }));
      if (/```mermaid/.test(markdown)) await page.addScriptTag({ path: MERMAID });
      await page.addScriptTag({ path: INSPECT });
      const problems = (await page.evaluate('inspectScreen()')) as string[];
      const path = options.png ?? join(SCREENS_DIR, `${name}.png`);
      await page.locator('article').screenshot({ path });
      return { problems, path };
    },
    async whereIs(text) {
      return (await page.evaluate(`whereIs(${JSON.stringify(text)})`)) as { top: number; bottom: number } | undefined;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    }
  };
}

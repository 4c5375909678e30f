// What a reader sees of a page: the text of its title and body, line by line, read by a streaming
// HTML parser as the page's bytes come out of the archive. Scripts, styles and attributes are left
// out, so a build id, a hashed asset name or a data blob that every static build rewrites never
// makes a page look changed. The text is hashed line by line; the lines themselves are kept only
// up to a cap, for an excerpt, so a page of any size costs a hash.
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { Parser } from 'htmlparser2';

/** Elements whose content a reader never reads as text. */
const UNSEEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'canvas']);
/** Elements that start a line of their own, so an excerpt reads as the page does. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'td', 'th', 'tr', 'ul', 'title', 'body'
]);
/** Characters of text a page keeps for its excerpt; past it, only the hash goes on. */
const KEPT_TEXT_CHARS = 64 * 1024;

export interface PageText {
  /** SHA-256 of the visible text, base64: equal for two pages a reader cannot tell apart. */
  hash: string;
  /** The visible text, one line per block; undefined when the page had more than the cap. */
  lines: string[] | undefined;
  /** Characters in `lines`. */
  chars: number;
  /** The page only sends the reader elsewhere (`<meta http-equiv="refresh">`): a redirect stub. */
  redirect: boolean;
}

/** Reads one page as its bytes arrive: write() each chunk, then end(). */
export class PageTextReader {
  private readonly decoder = new StringDecoder('utf8');
  private readonly hash = createHash('sha256');
  private readonly parser: Parser;
  private lines: string[] | undefined = [];
  private chars = 0;
  private line = '';
  private redirect = false;

  constructor() {
    let unseen = 0;
    let inHead = false;
    let inTitle = false;
    this.parser = new Parser(
      {
        onopentag: (name, attributes) => {
          if (name === 'head') inHead = true;
          if (name === 'title') inTitle = true;
          if (name === 'meta' && attributes['http-equiv']?.toLowerCase() === 'refresh') this.redirect = true;
          if (UNSEEN.has(name)) unseen++;
          if (BLOCKS.has(name)) this.endLine();
        },
        ontext: (text) => {
          if (unseen === 0 && (!inHead || inTitle)) this.line += text;
        },
        onclosetag: (name) => {
          if (name === 'head') inHead = false;
          if (name === 'title') inTitle = false;
          if (UNSEEN.has(name) && unseen > 0) unseen--;
          if (BLOCKS.has(name)) this.endLine();
        }
      },
      { decodeEntities: true }
    );
  }

  write(chunk: Buffer): void {
    this.parser.write(this.decoder.write(chunk));
  }

  end(): PageText {
    this.parser.end(this.decoder.end());
    this.endLine();
    return { hash: this.hash.digest('base64'), lines: this.lines, chars: this.chars, redirect: this.redirect };
  }

  private endLine(): void {
    const text = this.line.replace(/\s+/g, ' ').trim();
    this.line = '';
    if (text === '') return;
    this.hash.update(`${text}\n`);
    if (this.lines === undefined) return;
    this.chars += text.length;
    if (this.chars > KEPT_TEXT_CHARS) this.lines = undefined;
    else this.lines.push(text);
  }
}

/** The visible text of a page held whole in memory. */
export function pageText(html: string | Buffer): PageText {
  const reader = new PageTextReader();
  reader.write(Buffer.isBuffer(html) ? html : Buffer.from(html));
  return reader.end();
}

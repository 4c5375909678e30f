// What a reader sees of a page: the text of its title and body, line by line, read by a streaming
// HTML parser. Scripts, styles and attributes are left out, so a build id, a hashed asset name or a
// data blob that every static build rewrites never makes a page look changed.
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { WritableStream } from 'htmlparser2/WritableStream';

/** Elements whose content a reader never reads as text. */
const UNSEEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'canvas']);
/** Elements that start a line of their own, so an excerpt reads as the page does. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'td', 'th', 'tr', 'ul', 'title', 'body'
]);

/** The page's visible text, one line per block, whitespace collapsed, empty lines dropped. */
export async function readPageText(file: string, signal?: AbortSignal): Promise<string[]> {
  const lines: string[] = [];
  let line = '';
  let unseen = 0;
  let inHead = false;
  let inTitle = false;
  const endLine = () => {
    const text = line.replace(/\s+/g, ' ').trim();
    if (text !== '') lines.push(text);
    line = '';
  };
  const parser = new WritableStream(
    {
      onopentag(name) {
        if (name === 'head') inHead = true;
        if (name === 'title') inTitle = true;
        if (UNSEEN.has(name)) unseen++;
        if (BLOCKS.has(name)) endLine();
      },
      ontext(text) {
        if (unseen === 0 && (!inHead || inTitle)) line += text;
      },
      onclosetag(name) {
        if (name === 'head') inHead = false;
        if (name === 'title') inTitle = false;
        if (UNSEEN.has(name) && unseen > 0) unseen--;
        if (BLOCKS.has(name)) endLine();
      }
    },
    { decodeEntities: true }
  );
  await pipeline(createReadStream(file, { highWaterMark: 64 * 1024 }), parser, { signal });
  endLine();
  return lines;
}

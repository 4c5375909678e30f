// The bundle the emulator serves: a real archive of a small exported site, so clients can unpack it.
import { gzipSync } from 'node:zlib';

export interface SiteFile {
  path: string;
  content: string | Buffer;
}

// Only tar.gz for now; a 'zip' entry would add its own builder here.
export type BundleFormat = 'tar.gz';

export interface BundleFormatInfo {
  fileName: string;
  contentType: string;
  build: (files: SiteFile[]) => Buffer;
}

export const bundleFormats: Record<BundleFormat, BundleFormatInfo> = {
  'tar.gz': { fileName: 'bundle.tar.gz', contentType: 'application/gzip', build: (files) => buildSiteArchive(files) }
};

// A fixed modification time keeps the archive, and so sizeBytes, the same from run to run.
const ARCHIVE_MTIME_SECONDS = Math.floor(Date.parse('2026-01-01T00:00:00Z') / 1000);
const BLOCK = 512;

// Writes `value` as a NUL-terminated octal field of `length` bytes, as ustar expects.
function writeOctal(header: Buffer, offset: number, length: number, value: number): void {
  header.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'ascii');
}

// Splits a long path into ustar's prefix (155 bytes) and name (100 bytes) at a slash.
function splitPath(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  const cut = path.lastIndexOf('/', 155);
  if (cut > 0 && Buffer.byteLength(path.slice(cut + 1)) <= 100) {
    return { prefix: path.slice(0, cut), name: path.slice(cut + 1) };
  }
  throw new Error(`Path too long for a ustar archive: ${path}`);
}

function tarHeader(path: string, size: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const { prefix, name } = splitPath(path);
  header.write(name, 0, 100, 'utf8');
  writeOctal(header, 100, 8, 0o644); // mode
  writeOctal(header, 108, 8, 0); // uid
  writeOctal(header, 116, 8, 0); // gid
  writeOctal(header, 124, 12, size);
  writeOctal(header, 136, 12, ARCHIVE_MTIME_SECONDS);
  header.write('0', 156, 1, 'ascii'); // typeflag: regular file
  header.write('ustar\0', 257, 6, 'ascii');
  header.write('00', 263, 2, 'ascii');
  header.write('root', 265, 32, 'ascii'); // uname
  header.write('root', 297, 32, 'ascii'); // gname
  header.write(prefix, 345, 155, 'utf8');
  // The checksum is computed with its own field read as eight spaces.
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return header;
}

export function buildTar(files: SiteFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
    parts.push(tarHeader(file.path, content.length), content);
    const padding = (BLOCK - (content.length % BLOCK)) % BLOCK;
    if (padding > 0) parts.push(Buffer.alloc(padding));
  }
  parts.push(Buffer.alloc(BLOCK * 2)); // two empty blocks end the archive
  return Buffer.concat(parts);
}

// A gzip'd tar of the given files (the default site when none are given).
export function buildSiteArchive(files: SiteFile[] = defaultSiteFiles('docs.example.com', 120)): Buffer {
  return gzipSync(buildTar(files));
}

function page(domain: string, title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title} - ${domain}</title>
  <link rel="stylesheet" href="/_next/static/css/app.css">
  <script src="/_next/static/chunks/main.js" defer></script>
</head>
<body>
  <nav><a href="/index.html">Home</a> <a href="/guides/getting-started.html">Getting started</a> <a href="/api-reference/introduction.html">API reference</a></nav>
  <main>
${body}
  </main>
</body>
</html>
`;
}

// The files of a small exported site; static exports link pages by their `.html` names.
export function defaultSiteFiles(domain: string, pageCount: number): SiteFile[] {
  const pages = ['index.html', 'guides/getting-started.html', 'api-reference/introduction.html'];
  const sitemap = pages.map((path) => `  <url><loc>https://${domain}/${path}</loc></url>`).join('\n');
  return [
    {
      path: 'index.html',
      content: page(domain, 'Introduction', `    <h1>Welcome to the ${domain} docs</h1>\n    <p>Static export of ${pageCount} pages.</p>`)
    },
    {
      path: 'guides/getting-started.html',
      content: page(domain, 'Getting started', '    <h1>Getting started</h1>\n    <p>Install the CLI, then run <code>docs dev</code>.</p>')
    },
    {
      path: 'api-reference/introduction.html',
      content: page(domain, 'API reference', '    <h1>API reference</h1>\n    <p>Every request takes a bearer token.</p>')
    },
    {
      path: '_next/static/css/app.css',
      content: 'body{margin:0;font-family:system-ui,sans-serif}nav{display:flex;gap:1rem;padding:1rem}main{max-width:48rem;margin:0 auto}\n'
    },
    {
      path: '_next/static/chunks/main.js',
      content: 'document.addEventListener("DOMContentLoaded",function(){document.documentElement.dataset.ready="true"});\n'
    },
    {
      path: 'sitemap.xml',
      content: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${sitemap}\n</urlset>\n`
    }
  ];
}

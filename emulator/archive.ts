// The bundle the emulator serves: a real archive of a small exported site, so clients can unpack it.
// The writers are raw on purpose: they write what they are given, `../` and links out included, so
// tests can build the hostile archives that well-behaved libraries refuse to create.
import { createHash } from 'node:crypto';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

export interface SiteFile {
  path: string;
  content: string | Buffer;
}

export type EntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'character-device' | 'block-device' | 'fifo';

/** A file, or any other kind of archive entry; `linkpath` is a link's target. */
export interface ArchiveEntry {
  path: string;
  content?: string | Buffer;
  type?: EntryType;
  linkpath?: string;
  mode?: number;
}

export type BundleFormat = 'tar.gz' | 'zip';

export interface BundleFormatInfo {
  fileName: string;
  contentType: string;
  build: (files: SiteFile[]) => Buffer;
}

export const bundleFormats: Record<BundleFormat, BundleFormatInfo> = {
  'tar.gz': { fileName: 'bundle.tar.gz', contentType: 'application/gzip', build: (files) => buildSiteArchive(files) },
  zip: { fileName: 'bundle.zip', contentType: 'application/zip', build: (files) => buildZip(files) }
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

const TAR_TYPE_FLAGS: Record<EntryType, string> = {
  file: '0',
  hardlink: '1',
  symlink: '2',
  'character-device': '3',
  'block-device': '4',
  directory: '5',
  fifo: '6'
};

function tarHeader(entry: ArchiveEntry, size: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const type = entry.type ?? 'file';
  const { prefix, name } = splitPath(entry.path);
  header.write(name, 0, 100, 'utf8');
  writeOctal(header, 100, 8, entry.mode ?? (type === 'directory' ? 0o755 : 0o644));
  writeOctal(header, 108, 8, 0); // uid
  writeOctal(header, 116, 8, 0); // gid
  writeOctal(header, 124, 12, size);
  writeOctal(header, 136, 12, ARCHIVE_MTIME_SECONDS);
  header.write(TAR_TYPE_FLAGS[type], 156, 1, 'ascii');
  if (entry.linkpath !== undefined) header.write(entry.linkpath, 157, 100, 'utf8');
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

const contentOf = (entry: ArchiveEntry): Buffer =>
  typeof entry.content === 'string' ? Buffer.from(entry.content, 'utf8') : (entry.content ?? Buffer.alloc(0));

/** One entry's header, content and padding: a stream of these, then `TAR_END`, is a tar. */
export function tarEntryBlocks(entry: ArchiveEntry): Buffer[] {
  const content = contentOf(entry);
  const padding = (BLOCK - (content.length % BLOCK)) % BLOCK;
  return padding > 0 ? [tarHeader(entry, content.length), content, Buffer.alloc(padding)] : [tarHeader(entry, content.length), content];
}

/** Two empty blocks end a tar. */
export const TAR_END = Buffer.alloc(BLOCK * 2);

export function buildTar(entries: ArchiveEntry[]): Buffer {
  return Buffer.concat([...entries.flatMap(tarEntryBlocks), TAR_END]);
}

// MS-DOS date and time of ARCHIVE_MTIME_SECONDS (2026-01-01 00:00:00), as zip headers hold them.
const ZIP_DOS_TIME = 0;
const ZIP_DOS_DATE = ((2026 - 1980) << 9) | (1 << 5) | 1;
const ZIP_UNIX_TYPES: Partial<Record<EntryType, number>> = {
  file: 0o100000,
  directory: 0o040000,
  symlink: 0o120000,
  'character-device': 0o020000,
  'block-device': 0o060000,
  fifo: 0o010000
};

/**
 * A zip made on "Unix" (so the mode, and with it the entry type, sits in the top 16 bits of the
 * external attributes), names in UTF-8, deflated where that makes the entry smaller. No zip64:
 * the emulator's archives stay far below 4 GiB.
 */
export function buildZip(entries: ArchiveEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    const unixType = ZIP_UNIX_TYPES[type];
    if (unixType === undefined) throw new Error(`A zip cannot hold a ${type} entry: ${entry.path}`);
    const name = Buffer.from(type === 'directory' && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path, 'utf8');
    const content = type === 'symlink' ? Buffer.from(entry.linkpath ?? '', 'utf8') : contentOf(entry);
    const deflated = deflateRawSync(content);
    const method = deflated.length < content.length ? 8 : 0;
    const data = method === 8 ? deflated : content;
    const crc = crc32(content);
    const mode = unixType | (entry.mode ?? (type === 'directory' ? 0o755 : type === 'symlink' ? 0o777 : 0o644));

    // The local header and the central directory share a run of fields, at offset 4 and 6.
    const shared = (header: Buffer, at: number): Buffer => {
      header.writeUInt16LE(20, at); // version needed: 2.0
      header.writeUInt16LE(0x0800, at + 2); // names are UTF-8
      header.writeUInt16LE(method, at + 4);
      header.writeUInt16LE(ZIP_DOS_TIME, at + 6);
      header.writeUInt16LE(ZIP_DOS_DATE, at + 8);
      header.writeUInt32LE(crc, at + 10);
      header.writeUInt32LE(data.length, at + 14);
      header.writeUInt32LE(content.length, at + 18);
      header.writeUInt16LE(name.length, at + 22);
      return header; // extra field, comment, disk number and internal attributes stay 0
    };
    const local = shared(Buffer.alloc(30), 4);
    local.writeUInt32LE(0x04034b50, 0);
    locals.push(local, name, data);

    const central = shared(Buffer.alloc(46), 6);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directorySize = centrals.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

// A gzip'd tar of the given files (the default site when none are given).
function buildSiteArchive(files: SiteFile[] = defaultSiteFiles('docs.example.com', 120)): Buffer {
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

/**
 * The small fixed site the emulator served before its sites changed between exports (three pages, a
 * stylesheet, a script and a sitemap), for a test that compares an export with those files:
 * `profile: { site: THREE_PAGE_SITE }`.
 */
export const THREE_PAGE_SITE = 'three-pages';

// The files of a small exported site; static exports link pages by their `.html` names.
/** `commit`: the published commit the export holds, shown on the home page so a test can read it. */
export function defaultSiteFiles(domain: string, pageCount: number, commit?: string): SiteFile[] {
  const pages = ['index.html', 'guides/getting-started.html', 'api-reference/introduction.html'];
  const sitemap = pages.map((path) => `  <url><loc>https://${domain}/${path}</loc></url>`).join('\n');
  return [
    {
      path: 'index.html',
      content: page(domain, 'Introduction', `    <h1>Welcome to the ${domain} docs</h1>\n    <p>Static export of ${pageCount} pages.</p>${commit ? `\n    <p>Published from commit ${commit}.</p>` : ''}`)
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

/**
 * A generated site whose content a test controls from one export to the next: which pages it has,
 * which of them a reader sees edited, and a build id that every page carries where readers do not
 * look (a script, asset names, an attribute, a timestamp), as static builds do.
 */
export interface SiteSpec {
  /** Page files (`guides/intro.html`), or a count: `index.html` and `pages/page-0001.html`… */
  pages: string[] | number;
  /** Text added to a page's body, by file: an edit a reader sees. */
  edits?: Record<string, string>;
  /** Carried by every page; the emulator gives each export its own when unset. */
  buildId?: string;
  /** Bytes of data every page embeds that no reader sees (static builds inline a JSON blob), to reach a size. */
  padBytes?: number;
  /** The published commit the export holds, in a comment on the home page (a test reads it; a reader does not). */
  commit?: string;
}

/** `index.html` and `count - 1` pages under pages/. */
export function pageFiles(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? 'index.html' : `pages/page-${String(i).padStart(4, '0')}.html`));
}

export function siteFiles(domain: string, spec: SiteSpec): SiteFile[] {
  const buildId = spec.buildId ?? 'build-0';
  const pages = typeof spec.pages === 'number' ? pageFiles(spec.pages) : spec.pages;
  const asset = (name: string) => `/_next/static/${buildId}/${name}-${createHash('sha256').update(buildId + name).digest('hex').slice(0, 8)}`;
  const files: SiteFile[] = pages.map((path, i) => {
    // Named by the page a reader reaches, so `guides/auth.html` and `guides/auth/index.html` read alike.
    const name = path.replace(/\.html$/, '').replace(/(^|\/)index$/, '').split('/').pop() || 'home';
    const edit = spec.edits?.[path];
    const pad = spec.padBytes ? filler(`${buildId}/${path}`, spec.padBytes) : '';
    const commit = spec.commit && path === 'index.html' ? `\n  <!-- Published from commit ${spec.commit} -->` : '';
    return {
      path,
      content: `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="generated-at" content="${new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()}-${buildId}">
  <title>${name} - ${domain}</title>
  <link rel="stylesheet" href="${asset('app')}.css">
  <script src="${asset('main')}.js" defer></script>
</head>
<body data-build-id="${buildId}">${commit}
  <nav><a href="/index.html">Home</a> <a href="${asset('page')}">Assets</a></nav>
  <main>
    <h1>${name}</h1>
    <p>This page explains ${name} for readers of ${domain}.</p>
    <p>Every request takes a bearer token &amp; returns JSON.</p>${edit ? `\n    <p>${edit}</p>` : ''}
  </main>
  <script id="__NEXT_DATA__" type="application/json">{"buildId":"${buildId}","page":"/${path}","pad":"${pad}"}</script>
</body>
</html>
`
    };
  });
  files.push({ path: `_next/static/${buildId}/app.css`, content: 'body{margin:0}\n' });
  return files;
}

/** Bytes that do not compress, from a seed: the same site gives the same archive. */
function filler(seed: string, bytes: number): string {
  const parts: string[] = [];
  let block = createHash('sha256').update(seed).digest();
  for (let length = 0; length < bytes; length += 64) {
    block = createHash('sha256').update(block).digest();
    parts.push(createHash('sha512').update(block).digest('base64').slice(0, 64));
  }
  return parts.join('').slice(0, bytes);
}

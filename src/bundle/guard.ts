// The rules every entry of a bundle must pass before anything is written, the same for tar and zip:
// a path that stays inside the directory, a kind of entry a static site can hold, links that point
// inside, and limits on files and bytes that stop a decompression bomb at the header that crosses them.
import { formatBytes } from '../action/format.ts';

/** 5 GiB unpacked: far above any documentation site, far below a runner's disk. */
const DEFAULT_MAX_BYTES = 5 * 1024 ** 3;
/** Files, folders and links together. */
const DEFAULT_MAX_FILES = 200_000;

export interface UnpackLimits {
  /** Total bytes of the files, as unpacked. */
  maxBytes: number;
  /** Entries of every kind: files, folders, links. */
  maxFiles: number;
}

export const DEFAULT_LIMITS: UnpackLimits = { maxBytes: DEFAULT_MAX_BYTES, maxFiles: DEFAULT_MAX_FILES };

/**
 * What went wrong, for callers that branch on it:
 * `http` the storage refused (see `status`), `network` no complete answer, `truncated` fewer bytes
 * than promised, `size` more bytes, or another size than `sizeBytes`, `format` not a gzip'd tar or
 * a zip, or damaged, `unsafe` an entry that could write outside the directory, `limit` too many
 * files or bytes, `content` no index.html, `directory` the target directory cannot be used,
 * `write` the file system refused a write.
 */
export type BundleErrorKind = 'http' | 'network' | 'truncated' | 'size' | 'format' | 'unsafe' | 'limit' | 'content' | 'directory' | 'write' | 'timeout';

export class BundleError extends Error {
  readonly kind: BundleErrorKind;
  /** Worth another try: a network fault, a 5xx/429 from the storage, a download cut short. */
  readonly transient: boolean;
  /** The storage's HTTP status, for `http`. */
  readonly status?: number;
  /** The storage's error code and message (S3's `<Code>`, `<Message>`), e.g. AccessDenied, Request has expired. */
  readonly storageCode?: string;
  readonly storageMessage?: string;
  /** True when the storage said the link has expired. */
  readonly expired: boolean;
  readonly retryAfterMs?: number;

  constructor(
    kind: BundleErrorKind,
    message: string,
    init: { transient?: boolean; status?: number; storageCode?: string; storageMessage?: string; expired?: boolean; retryAfterMs?: number; cause?: unknown } = {}
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'BundleError';
    this.kind = kind;
    this.transient = init.transient ?? false;
    this.status = init.status;
    this.storageCode = init.storageCode;
    this.storageMessage = init.storageMessage;
    this.expired = init.expired ?? false;
    this.retryAfterMs = init.retryAfterMs;
  }
}

export type EntryKind = 'file' | 'directory' | 'symlink' | 'hardlink';

export interface EntryHeader {
  /** The path as the archive names it. */
  path: string;
  /** The archive's own word for the type, for messages: File, SymbolicLink, CharacterDevice, … */
  type: string;
  /** Undefined for a kind a static site has no use for (devices, FIFOs, sockets, …). */
  kind: EntryKind | undefined;
  /** Bytes of content, as unpacked. */
  size: number;
  /** A link's target: relative to the link's folder (symlink) or to the root (hard link). */
  linkpath?: string;
}

const TAMPERED =
  'A bundle made by the platform never holds such an entry, so the archive was refused and nothing was unpacked. Generate the bundle again; if it happens again, report it to the platform with the job id.';

export class EntryGuard {
  /** Entries of every kind admitted so far. */
  entries = 0;
  /** Regular files (hard links included). */
  files = 0;
  /** Bytes of file content. */
  bytes = 0;
  /** Symbolic links, by path relative to the root: checked once every entry is in. */
  readonly symlinks: string[] = [];
  /** Each link's target as the archive gives it, by the link's key (`nameKey`). */
  private readonly linkTargets = new Map<string, string>();
  private readonly limits: UnpackLimits;
  /** By the name as a case-insensitive, normalising file system sees it (see `nameKey`). */
  private readonly kinds = new Map<string, EntryKind>();
  /** The spelling the archive used first for each key, for messages. */
  private readonly spellings = new Map<string, string>();
  /** Folders no entry names but an entry's path implies (`a/b/c.html` makes `a` and `a/b`): by key, that entry. */
  private readonly impliedBy = new Map<string, string>();

  constructor(limits: UnpackLimits) {
    this.limits = limits;
  }

  /** The kind of entry the archive put at a path (relative to the root), if any. */
  kindAt(path: string): EntryKind | undefined {
    return this.kinds.get(nameKey(path));
  }

  /**
   * Checks an entry and returns its path relative to the root (slash-separated, normalized), or
   * undefined for an entry that names the root folder itself. Throws BundleError.
   */
  admit(header: EntryHeader): string | undefined {
    const { kind } = header;
    if (kind === undefined) {
      const what = /device/i.test(header.type) ? 'a device file' : /fifo/i.test(header.type) ? 'a FIFO (named pipe)' : `an entry of type ${header.type}`;
      throw new BundleError('unsafe', `The bundle holds ${what} at '${header.path}'. ${TAMPERED}`);
    }
    const parts = this.pathParts(header.path, 'path', header.path);
    this.entries += 1;
    this.admitCount(this.entries);
    if (parts.length === 0) {
      if (kind === 'directory') return undefined;
      throw new BundleError('unsafe', `The bundle holds a ${kind} named '${header.path}' in place of its root folder. ${TAMPERED}`);
    }
    const path = parts.join('/');
    const key = nameKey(path);
    this.checkAncestors(parts, header.path, path);
    const seen = this.kinds.get(key);
    const spelled = this.spellings.get(key);
    const implied = this.impliedBy.get(key);
    if (implied !== undefined && kind !== 'directory') {
      // A link over a folder that holds files would lead the folder's later entries elsewhere.
      throw new BundleError(
        'unsafe',
        `The bundle holds a ${kind === 'symlink' ? 'link' : kind === 'hardlink' ? 'hard link' : kind} '${path}' where its earlier entry '${implied}' needs a folder '${spelled}'${kind === 'symlink' ? ': the link would lead that folder\'s entries elsewhere' : ''}. ${TAMPERED}`
      );
    }
    if (seen !== undefined && spelled !== path && implied === undefined) {
      // macOS and Windows runners (and many servers) see one name where the archive has two.
      throw new BundleError(
        'unsafe',
        `The bundle holds '${spelled}' and '${path}', which differ only in letter case or Unicode form: on a case-insensitive file system (macOS, Windows) they are one ${seen === 'directory' && kind === 'directory' ? 'folder' : 'file'}, and one would silently replace the other. ${TAMPERED}`
      );
    }
    if (seen !== undefined && !(seen === 'directory' && kind === 'directory')) {
      throw new BundleError('unsafe', `The bundle holds '${path}' twice (as a ${seen}, then as a ${kind}). ${TAMPERED}`);
    }

    if (kind === 'file') {
      this.bytes += header.size;
      if (this.bytes > this.limits.maxBytes) {
        throw new BundleError(
          'limit',
          `The bundle unpacks to more than ${formatBytes(this.limits.maxBytes)} (reached at '${path}'), the most this action unpacks. It may be a decompression bomb; nothing was kept.`
        );
      }
      this.files += 1;
    } else if (kind === 'symlink') {
      this.checkSymlink(parts, header);
      this.symlinks.push(path);
      this.linkTargets.set(key, header.linkpath!);
    } else if (kind === 'hardlink') {
      const target = this.pathParts(header.linkpath ?? '', 'target', header.path).join('/');
      if (this.kinds.get(nameKey(target)) !== 'file') {
        throw new BundleError('unsafe', `The bundle holds a hard link '${path}' to '${header.linkpath}', which is not a file earlier in the bundle. ${TAMPERED}`);
      }
      this.files += 1;
    }
    this.kinds.set(key, kind);
    this.spellings.set(key, path);
    this.impliedBy.delete(key);
    return path;
  }

  /** Refuses an archive that holds, or announces, more entries than the limit. */
  admitCount(entries: number): void {
    if (entries <= this.limits.maxFiles) return;
    throw new BundleError(
      'limit',
      `The bundle holds more than ${this.limits.maxFiles.toLocaleString('en-US')} files and folders, the most this action unpacks. It may be a decompression bomb; nothing was kept.`
    );
  }

  /** A hard link's target as a path relative to the root (the entry was admitted already). */
  hardlinkTarget(linkpath: string): string {
    return this.pathParts(linkpath, 'target', linkpath).join('/');
  }

  /**
   * Whether a link leads to an entry of the archive, through any other links, without leaving the
   * root: what a realpath on disk would say, for an archive that is only read, never written.
   */
  linkResolvesInside(link: string): boolean {
    const steps = link.split('/');
    const at: string[] = [];
    for (let hops = 0; steps.length > 0; ) {
      const step = steps.shift()!;
      if (step === '' || step === '.') continue;
      if (step === '..') {
        if (at.length === 0) return false;
        at.pop();
        continue;
      }
      at.push(step);
      const key = nameKey(at.join('/'));
      const kind = this.kinds.get(key);
      if (kind === undefined) return false;
      if (kind !== 'symlink') continue;
      // As the kernel does, a chain of links longer than 40 is a loop.
      if (++hops > 40) return false;
      at.pop();
      steps.unshift(...this.linkTargets.get(key)!.replaceAll('\\', '/').split('/'));
    }
    return true;
  }

  /** Where an index.html sits below the root, if one does: a hint when the root has none. */
  nestedIndex(): string | undefined {
    let best: string | undefined;
    for (const [key, kind] of this.kinds) {
      const path = this.spellings.get(key) ?? key;
      if (kind !== 'directory' && key.endsWith('/index.html') && (best === undefined || path.split('/').length < best.split('/').length)) best = path;
    }
    return best;
  }

  // A path's parts with `.` and empty parts dropped; refuses absolute paths and any `..`.
  private pathParts(raw: string, field: 'path' | 'target', entry: string): string[] {
    // A backslash separates folders on Windows, so `..\` climbs there: read it as a slash everywhere.
    const path = raw.replaceAll('\\', '/');
    const subject = field === 'path' ? `an entry '${raw}'` : `a link '${entry}' to '${raw}'`;
    if (path === '' && field === 'target') throw new BundleError('unsafe', `The bundle holds a link '${entry}' with no target. ${TAMPERED}`);
    if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
      throw new BundleError('unsafe', `The bundle holds ${subject} with an absolute path, which would be written outside the directory. ${TAMPERED}`);
    }
    const parts = path.split('/').filter((part) => part !== '' && part !== '.');
    if (parts.includes('..')) {
      throw new BundleError('unsafe', `The bundle holds ${subject} whose path climbs with '..', which could land outside the directory. ${TAMPERED}`);
    }
    // On Windows, `a:b` names a stream of the file `a`, and these characters are not allowed in names.
    if (process.platform === 'win32' && parts.some((part) => /[<>:"|?*]/.test(part))) {
      throw new BundleError('unsafe', `The bundle holds ${subject} with a character Windows does not allow in a name (one of < > : " | ? *). Unpack it on a Linux or macOS runner.`);
    }
    return parts;
  }

  // Writing below a link, or below a file, would follow the link or fail halfway. The folders the
  // path implies are recorded, so no link or file is admitted in their place later.
  private checkAncestors(parts: string[], raw: string, path: string): void {
    for (let i = 1; i < parts.length; i++) {
      const ancestor = parts.slice(0, i).join('/');
      // Compared as the file system compares: `X/L` is a link, so `x/l/…` goes through it too.
      const key = nameKey(ancestor);
      const kind = this.kinds.get(key);
      if (kind !== undefined && kind !== 'directory') {
        throw new BundleError('unsafe', `The bundle holds an entry '${raw}' below '${ancestor}', which it holds as a ${kind}: writing it would go through the link. ${TAMPERED}`);
      }
      if (kind === undefined) {
        this.kinds.set(key, 'directory');
        this.spellings.set(key, ancestor);
        this.impliedBy.set(key, path);
      }
    }
  }

  // A symbolic link's target is read from the link's folder; each step must stay inside, and must
  // not pass through another link of the bundle (whose own target could lead elsewhere).
  private checkSymlink(parts: string[], header: EntryHeader): void {
    const target = (header.linkpath ?? '').replaceAll('\\', '/');
    const refuse = (why: string) => new BundleError('unsafe', `The bundle holds a link '${header.path}' to '${header.linkpath}', which ${why}. ${TAMPERED}`);
    if (target === '') throw refuse('is empty');
    if (target.startsWith('/') || /^[A-Za-z]:/.test(target)) throw refuse('is an absolute path, outside the directory');
    const at = parts.slice(0, -1);
    const steps = target.split('/').filter((part) => part !== '' && part !== '.');
    steps.forEach((step, i) => {
      if (step === '..') {
        if (at.length === 0) throw refuse('points outside the directory');
        at.pop();
        return;
      }
      at.push(step);
      if (i < steps.length - 1 && this.kinds.get(nameKey(at.join('/'))) === 'symlink') throw refuse(`goes through another link ('${at.join('/')}')`);
    });
  }
}

/**
 * A path as a case-insensitive, Unicode-normalising file system compares it (APFS, NTFS): each part
 * in NFC, case-folded, and without the trailing dots and spaces Windows drops. The guard compares
 * every name this way on every platform, since the runner may be a Mac or a Windows machine.
 */
export function nameKey(path: string): string {
  return path
    .split('/')
    .map((part) => part.normalize('NFC').toLowerCase().replace(/[. ]+$/, '') || part)
    .join('/');
}

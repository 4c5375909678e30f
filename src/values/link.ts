// Reads what can be read from a presigned bundle link without fetching it, and shows it safely.
import { createHash } from 'node:crypto';
import { JOB_ID } from '../platform/static-export.ts';

/** When a presigned link stops working; `undefined` when the link does not say, or says it badly. */
export function linkExpiry(link: string): Date | undefined {
  const url = parseUrl(link);
  if (url === undefined) return undefined;
  const params = url.searchParams;
  // S3 accepts these names in any letter case; Google's V4 signing mirrors S3's.
  const lower = new Map([...params].map(([name, value]) => [name.toLowerCase(), value]));

  for (const vendor of ['amz', 'goog']) {
    const signedAt = lower.get(`x-${vendor}-date`);
    const lifetime = lower.get(`x-${vendor}-expires`);
    if (signedAt === undefined && lifetime === undefined) continue;
    const start = signingDate(signedAt);
    if (start === undefined || lifetime === undefined || !/^\d+$/.test(lifetime)) return undefined;
    return new Date(start.getTime() + Number(lifetime) * 1000);
  }

  const sasExpiry = params.get('se'); // Azure shared access signature
  if (sasExpiry !== null) return isoDate(sasExpiry);

  const expires = params.get('Expires'); // CloudFront canned policy, S3 signature version 2
  if (expires !== null) return /^\d+$/.test(expires) ? new Date(Number(expires) * 1000) : undefined;

  return undefined;
}

/**
 * How long a presigned link was made to live, from its signing time to its expiry (S3's and Google's
 * V4 `X-…-Expires`, an Azure SAS with a start `st`); `undefined` when the link does not say.
 */
export function linkLifetime(link: string): number | undefined {
  const url = parseUrl(link);
  if (url === undefined) return undefined;
  const lower = new Map([...url.searchParams].map(([name, value]) => [name.toLowerCase(), value]));
  for (const vendor of ['amz', 'goog']) {
    const lifetime = lower.get(`x-${vendor}-expires`);
    if (lifetime !== undefined) return /^\d+$/.test(lifetime) ? Number(lifetime) * 1000 : undefined;
  }
  const start = url.searchParams.get('st');
  const end = url.searchParams.get('se');
  if (start === null || end === null) return undefined;
  const [from, to] = [isoDate(start), isoDate(end)];
  return from && to && to > from ? to.getTime() - from.getTime() : undefined;
}

/** The static export job id that the link's path names, if any: `se_…` (today's API) or 24 hex digits (its next one). */
export function jobIdFromLink(link: string): string | undefined {
  return pathSegments(parseUrl(link)).find(isJobId);
}

/** The link for humans and logs: no query values (they hold the signature), and a short path. */
export function redactLink(link: string): string {
  const url = parseUrl(link);
  if (url === undefined) return '(not a valid link)';
  const segments = pathSegments(url);
  const last = segments.length - 1;
  let path = url.pathname;
  if (segments.length > 3) {
    // Keep the first and last segments, and the job id, which says which export this is.
    const kept = segments.map((segment, i) => (i === 0 || i === last || isJobId(segment) ? segment : '…'));
    path = '/' + kept.filter((segment, i) => segment !== '…' || kept[i - 1] !== '…').join('/');
  }
  // `host` leaves out any user name and password.
  return `${url.protocol}//${url.host}${path}${url.search === '' ? '' : '?…'}`;
}

/**
 * The link for a narrow column: redacted as `redactLink` does, in two pieces, the origin and the
 * path, so a page can wrap between them (a whole link in one piece is wider than GitHub's column).
 * A link with no path is one piece.
 */
export function linkPieces(link: string): string[] {
  const shown = redactLink(link);
  const slash = shown.indexOf('/', shown.indexOf('//') + 2);
  return slash < 0 ? [shown] : [shown.slice(0, slash), shown.slice(slash)];
}

function parseUrl(link: string): URL | undefined {
  try {
    return new URL(link);
  } catch {
    return undefined;
  }
}

function pathSegments(url: URL | undefined): string[] {
  return url === undefined ? [] : url.pathname.split('/').filter((segment) => segment !== '');
}

function isJobId(segment: string): boolean {
  return JOB_ID.test(segment);
}

/** `20261121T230102Z`, the signing time of S3 and Google Cloud Storage V4 links. */
function signingDate(text: string | undefined): Date | undefined {
  const parts = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text ?? '');
  return parts === null ? undefined : utcDate(parts.slice(1).map(Number));
}

/** Azure's forms: `2026-11-22`, `2026-11-22T23:01Z`, `2026-11-22T23:01:02Z`, `2026-11-22T23:01:02.5+01:00`. */
function isoDate(text: string): Date | undefined {
  const parts = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.exec(text);
  if (parts === null) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] = parts;
  const local = utcDate([year, month, day, hour, minute, second].map(Number));
  if (local === undefined) return undefined;
  const offset = zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
  return new Date(local.getTime() + Number(`0${fraction}`) * 1000 - offset * 60_000);
}

/** A UTC date from [year, month, day, hour, minute, second], refusing impossible ones such as 31 February. */
function utcDate([year, month, day, hour, minute, second]: number[]): Date | undefined {
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const valid =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return valid ? date : undefined;
}

/**
 * A short mark that tells two links apart when their shown forms are the same (a renewal changes
 * only the signature): 8 hex digits of the link's SHA-256, which reveal nothing of the signature.
 */
export function linkFingerprint(link: string): string {
  return createHash('sha256').update(link).digest('hex').slice(0, 8);
}

const SECRET_PARAMS = /signature|credential|security-token|token|^sig$|^policy$|^key-pair-id$/i;

/** The link to show a person: whole, to copy, when it grants nothing (a URL the team hosts); else redacted. */
export function shownWhole(link: string): string {
  return linkSecrets(link).length === 0 && parseUrl(link) !== undefined ? link : redactLink(link);
}

/**
 * What the runner must mask so that a log never shows what grants access: each signature,
 * credential or token in the link's query, as sent and decoded (a log may print either), and then
 * the whole link.
 */
export function linkSecrets(link: string): string[] {
  const secrets = new Set<string>();
  const url = parseUrl(link);
  for (const part of url ? url.search.slice(1).split('&') : []) {
    const [name = '', raw = ''] = part.split('=');
    if (!SECRET_PARAMS.test(decodeURIComponent(name)) || raw === '') continue;
    secrets.add(raw);
    try {
      secrets.add(decodeURIComponent(raw));
    } catch {
      // a malformed escape: the raw form is masked
    }
  }
  // A link without any (a URL the team hosts) grants nothing, and stays readable in the log.
  if (secrets.size > 0) secrets.add(link);
  return [...secrets].filter((secret) => secret.length >= 8);
}

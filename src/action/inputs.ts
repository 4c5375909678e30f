// Parsing of action inputs: each parser takes the raw text and the input's name, and throws an
// InputError that names the input and says how to fix it, so nothing is sent on bad input.
import { isLoopbackHost } from './network.ts';

export class InputError extends Error {
  readonly input: string;
  constructor(input: string, message: string) {
    super(`Input '${input}': ${message}`);
    this.name = 'InputError';
    this.input = input;
  }
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `90s`, `15m`, `1h30m`, `2d`, `500ms`, `0s`; a bare number is seconds (`isBareNumber` tells the
 * caller, which says so in a notice). Returns milliseconds. Zero is refused unless `allowZero`: a
 * timeout of 0 would start work and give up on it at once.
 */
export function parseDuration(name: string, raw: string, options: { allowZero?: boolean } = {}): number {
  const text = raw.trim().toLowerCase();
  let total = 0;
  if (isBareNumber(text)) {
    total = Number(text) * 1000;
  } else {
    const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
    let consumed = 0;
    for (let match = part.exec(text); match; match = part.exec(text)) {
      total += Number(match[1]) * DURATION_UNITS[match[2]];
      consumed = part.lastIndex;
    }
    if (text === '' || consumed !== text.length) {
      throw new InputError(name, `'${raw}' is not a duration. Use a number with a unit, such as 90s, 15m, 1h or 1h30m (a bare number is seconds).`);
    }
  }
  if (total <= 0 && !options.allowZero) {
    throw new InputError(name, `'${raw}' is zero: the step would start and give up at once. Give a duration above zero, such as 30s or 15m.`);
  }
  return Math.round(total);
}

/** A duration given without a unit, read as seconds. */
export function isBareNumber(raw: string): boolean {
  return /^\d+(\.\d+)?$/.test(raw.trim());
}

export function parseBoolean(name: string, raw: string): boolean {
  const text = raw.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new InputError(name, `'${raw}' is not a boolean. Use true or false.`);
}

/** One item per line or comma-separated; blanks and repeats dropped (the first of each kept). */
export function parseList(raw: string): string[] {
  const items = raw
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return [...new Set(items)];
}

export function parsePositiveInteger(name: string, raw: string, max?: number): number {
  const text = raw.trim();
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || (max !== undefined && value > max)) {
    const range = max === undefined ? 'a whole number of at least 1' : `a whole number from 1 to ${max}`;
    throw new InputError(name, `'${raw}' is not ${range}.`);
  }
  return value;
}

export interface Hostname {
  hostname: string;
  /** Set when the value was a URL reduced to its hostname, so the caller can say so. */
  reducedFrom?: string;
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * The platform wants a bare hostname. A URL such as `https://docs.example.com/` is reduced to its
 * hostname (people paste the address bar); one with a path, port or query is refused, because the
 * export would silently cover a different site than the user meant.
 */
export function parseHostname(name: string, raw: string): Hostname {
  const text = raw.trim();
  const fix = 'Give the hostname only, for example docs.example.com.';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new InputError(name, `'${raw}' is not a valid URL or hostname. ${fix}`);
    }
    if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.port || url.username) {
      throw new InputError(name, `'${raw}' has a path, port or query; the export covers a whole domain. ${fix}`);
    }
    return { hostname: checkHostname(name, url.hostname, raw, fix), reducedFrom: text };
  }
  if (/[/:?#@\s]/.test(text)) {
    throw new InputError(name, `'${raw}' is not a hostname. ${fix}`);
  }
  return { hostname: checkHostname(name, text.replace(/\.$/, '').toLowerCase(), raw, fix) };
}

function checkHostname(name: string, hostname: string, raw: string, fix: string): string {
  if (!HOSTNAME.test(hostname)) throw new InputError(name, `'${raw}' is not a hostname. ${fix}`);
  return hostname;
}

export interface BaseUrl {
  url: string;
  /** Set when a trailing /v1 (the OpenAPI files' `servers` entry) was dropped, so the caller can say so. */
  droppedVersion?: boolean;
}

/** Plain http may only reach this machine (an emulator) or a `.test` name (never on the internet). */
export function isLocalHost(hostname: string): boolean {
  return isLoopbackHost(hostname) || hostname.endsWith('.test');
}

/**
 * The API's base URL, without a trailing slash. `https://api.mintlify.com/v1`, pasted from the
 * OpenAPI files, is taken as the host (the paths carry /v1 and /v2 themselves). Plain `http:` is
 * refused but for loopback: the key would cross the network in clear text.
 */
export function parseBaseUrl(name: string, raw: string): BaseUrl {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError(name, `'${raw}' is not a URL. Use the API's base URL, such as https://api.mintlify.com.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError(name, `'${raw}' must start with https:// (or http:// for a local emulator).`);
  }
  if (url.protocol === 'http:' && !isLocalHost(url.hostname)) {
    throw new InputError(name, `'${raw}' is plain http to another host: the API key would cross the network unencrypted. Use https://${url.host}${url.pathname === '/' ? '' : url.pathname}.`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new InputError(name, `'${raw}' has a user, query or fragment. Give the base URL only, such as https://api.mintlify.com.`);
  }
  const base = url.toString().replace(/\/+$/, '');
  if (/\/v1$/.test(base)) return { url: base.slice(0, -'/v1'.length), droppedVersion: true };
  return { url: base };
}

/** `owner/name` of a GitHub repository. */
export function parseRepository(name: string, raw: string): { owner: string; repo: string } {
  const match = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(raw.trim());
  if (!match) throw new InputError(name, `'${raw}' is not a repository. Use owner/name, for example acme/deploy.`);
  return { owner: match[1], repo: match[2] };
}

// Parsing of action inputs: each parser takes the raw text and the input's name, and throws an
// InputError that names the input and says how to fix it, so nothing is sent on bad input.

export class InputError extends Error {
  readonly input: string;
  constructor(input: string, message: string) {
    super(`Input '${input}': ${message}`);
    this.name = 'InputError';
    this.input = input;
  }
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `15m`, `1h30m`, `2d`, `500ms`; a bare number is seconds. Returns milliseconds. */
export function parseDuration(name: string, raw: string): number {
  const text = raw.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(text); match; match = part.exec(text)) {
    total += Number(match[1]) * DURATION_UNITS[match[2]];
    consumed = part.lastIndex;
  }
  if (text === '' || consumed !== text.length || total <= 0) {
    throw new InputError(name, `'${raw}' is not a duration. Use a number with a unit, such as 90s, 15m, 1h or 1h30m.`);
  }
  return Math.round(total);
}

export function parseBoolean(name: string, raw: string): boolean {
  const text = raw.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new InputError(name, `'${raw}' is not a boolean. Use true or false.`);
}

/** One item per line or comma-separated; blanks dropped. */
export function parseList(raw: string): string[] {
  return raw
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
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

/** An `https://` or `http://` base URL without a trailing slash. */
export function parseBaseUrl(name: string, raw: string): string {
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
  return url.toString().replace(/\/+$/, '');
}

/** `owner/name` of a GitHub repository. */
export function parseRepository(name: string, raw: string): { owner: string; repo: string } {
  const match = /^([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(raw.trim());
  if (!match) throw new InputError(name, `'${raw}' is not a repository. Use owner/name, for example acme/deploy.`);
  return { owner: match[1], repo: match[2] };
}

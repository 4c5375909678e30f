import { describe, expect, it } from '@jest/globals';
import { checkAdminKey } from '../src/platform/key.ts';
import { InputError, parseBaseUrl, parseBoolean, parseDuration, parseHostname, parseList, parseRepository } from '../src/action/inputs.ts';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['500ms', 500],
    ['45', 45_000],
    [' 1H30M ', 5_400_000]
  ])('reads %s', (text, ms) => {
    expect(parseDuration('timeout', text)).toBe(ms);
  });

  it.each(['', 'soon', '10 minutes', '1h30', '-5m', '0s', '1x'])('refuses %j, naming the input', (text) => {
    expect(() => parseDuration('timeout', text)).toThrow(/^Input 'timeout': .*Use a number with a unit, such as 90s/);
  });
});

describe('parseHostname', () => {
  it('keeps a bare hostname, lower-cased', () => {
    expect(parseHostname('domain', 'Docs.Example.com')).toEqual({ hostname: 'docs.example.com' });
  });

  it('reduces a URL to its hostname and says so', () => {
    expect(parseHostname('domain', 'https://docs.example.com/')).toEqual({ hostname: 'docs.example.com', reducedFrom: 'https://docs.example.com/' });
  });

  it.each(['https://docs.example.com/docs', 'docs.example.com/docs', 'https://docs.example.com:8443', 'docs example.com', 'localhost', 'docs..example.com', 'http://'])(
    'refuses %j with an error that names the input',
    (text) => {
      const error = (() => {
        try {
          parseHostname('domain', text);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toMatch(/^Input 'domain': .*hostname only, for example docs\.example\.com/);
    }
  );
});

describe('other inputs', () => {
  it('splits lists on lines and commas', () => {
    expect(parseList('index\nguides/start, api/intro,,\n')).toEqual(['index', 'guides/start', 'api/intro']);
  });

  it('takes only true or false as a boolean', () => {
    expect(parseBoolean('dry-run', 'TRUE')).toBe(true);
    expect(parseBoolean('dry-run', 'false')).toBe(false);
    expect(() => parseBoolean('dry-run', 'yes')).toThrow("Input 'dry-run': 'yes' is not a boolean");
  });

  it('normalises the API URL and refuses other schemes', () => {
    expect(parseBaseUrl('api-url', 'http://127.0.0.1:4010/')).toBe('http://127.0.0.1:4010');
    expect(() => parseBaseUrl('api-url', 'ftp://x')).toThrow("Input 'api-url'");
    expect(() => parseBaseUrl('api-url', 'api.mintlify.com')).toThrow("Input 'api-url'");
  });

  it('reads owner/name', () => {
    expect(parseRepository('config-repository', 'acme/deploy')).toEqual({ owner: 'acme', repo: 'deploy' });
    expect(() => parseRepository('config-repository', 'acme')).toThrow("Input 'config-repository'");
  });
});

describe('checkAdminKey', () => {
  it('accepts an admin key', () => {
    expect(checkAdminKey('api-key', ' mint_abc123 ')).toBe('mint_abc123');
  });

  it.each([
    ['mint_dsc_abc', /assistant key/],
    ['mint_us_abc', /user key/],
    ['sk_live_abc', /start with mint_/],
    ['', /is empty/]
  ])('refuses %j before any request', (key, message) => {
    expect(() => checkAdminKey('api-key', key)).toThrow(message);
  });
});

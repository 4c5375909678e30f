import { describe, expect, it } from '@jest/globals';
import { checkAdminKey } from '../src/platform/key.ts';
import { InputError, isBareNumber, parseBaseUrl, parseBoolean, parseDuration, parseHostname, parseList, parseRepository } from '../src/action/inputs.ts';

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

  it.each(['', 'soon', '10 minutes', '1h30', '-5m', '1x'])('refuses %j, naming the input', (text) => {
    expect(() => parseDuration('timeout', text)).toThrow(/^Input 'timeout': .*Use a number with a unit, such as 90s/);
  });

  it.each(['0', '0s', '0m', '0h0m', '0.0'])('reads %j as zero: refused where zero cannot mean anything, allowed where it can', (text) => {
    expect(() => parseDuration('timeout', text)).toThrow("Input 'timeout': '" + text + "' is zero: the step would start and give up at once.");
    expect(parseDuration('min-poll-interval', text, { allowZero: true })).toBe(0);
  });

  it('reads any number with any unit, and a bare number as seconds (500 random cases)', () => {
    let seed = Number(process.env.TEST_SEED ?? 77);
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const units = [['ms', 1], ['s', 1000], ['m', 60_000], ['h', 3_600_000], ['d', 86_400_000], ['', 1000]] as const;
    for (let i = 0; i < 500; i++) {
      const [unit, factor] = units[rand(units.length)]!;
      const value = 1 + rand(1000);
      expect({ text: `${value}${unit}`, ms: parseDuration('timeout', `${value}${unit}`) }).toEqual({ text: `${value}${unit}`, ms: value * factor });
      expect(isBareNumber(`${value}${unit}`)).toBe(unit === '');
    }
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
    expect(parseBaseUrl('api-url', 'http://127.0.0.1:4010/')).toEqual({ url: 'http://127.0.0.1:4010' });
    expect(() => parseBaseUrl('api-url', 'ftp://x')).toThrow("Input 'api-url'");
    expect(() => parseBaseUrl('api-url', 'api.mintlify.com')).toThrow("Input 'api-url'");
  });

  it("takes the OpenAPI files' servers entry (/v1) as the host, and says so", () => {
    expect(parseBaseUrl('api-url', 'https://api.mintlify.com/v1')).toEqual({ url: 'https://api.mintlify.com', droppedVersion: true });
    expect(parseBaseUrl('api-url', 'https://api.mintlify.com/v1/')).toEqual({ url: 'https://api.mintlify.com', droppedVersion: true });
    expect(parseBaseUrl('api-url', 'https://proxy.example.com/mintlify')).toEqual({ url: 'https://proxy.example.com/mintlify' });
  });

  it.each(['http://api.mintlify.com', 'http://10.0.0.5:8080', 'http://proxy.example.com/v1'])('refuses plain http to another host: %s', (url) => {
    expect(() => parseBaseUrl('api-url', url)).toThrow(/is plain http to another host: the API key would cross the network unencrypted\. Use https:\/\//);
  });

  it.each(['http://localhost:4010', 'http://127.0.0.1:4010', 'http://[::1]:4010', 'http://platform.test:8080'])('allows plain http on loopback and .test names: %s', (url) => {
    expect(parseBaseUrl('api-url', url).url).toBe(url);
  });

  it('drops repeated list items, keeping the first', () => {
    expect(parseList('guides/a, guides/b\nguides/a\n, guides/c,guides/b')).toEqual(['guides/a', 'guides/b', 'guides/c']);
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

// The edit on 22 real values files from public Helm charts (fixtures/values-real/, copied byte for
// byte; SOURCES.md there names each one's repository, commit and SHA-256), in the places a team puts
// the block: added at the top level, already between two top-level keys, and under an umbrella key
// (created there, or already there and renewed). Each case goes through the real edit and checks
// what a reviewer and Helm would see: only the static export lines differ, and the data read before
// and after differ only in those settings. Positions and quoting are seeded: TEST_SEED picks them,
// and every failure names the file and the seed.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { isMap, isScalar, parseDocument } from 'yaml';
import { ConfigFileError, patchValuesFile, type StaticExportSettings } from '../src/values/values-file.ts';

const DIR = new URL('./fixtures/values-real/', import.meta.url);
const FILES = readdirSync(DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort();
const DUPLICATE_KEY = '06-no-signal__solo__helm__values.yaml';
const SEED = Number(process.env.TEST_SEED ?? 27);

const OLD_LINK =
  'https://static-exports.s3.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261121%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=86400&X-Amz-Signature=aeeed9bbccd4d02e';
const NEW_LINK =
  'https://static-exports.s3.invalid/se_7c4e9b2a1d6f3e80/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261205%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=604800&X-Amz-Signature=5d41402abc4b2a76';

type Style = 'plain' | 'single' | 'double';
type Data = Record<string, unknown>;

/** A generator of its own per file, so one file's cases do not depend on the others'. */
function random(file: string) {
  let state = [...`${SEED}:${file}`].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) % 2 ** 31, 7);
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p
  };
}

function read(name: string): string {
  return readFileSync(new URL(name, DIR), 'utf8');
}

/** The data Helm reads: merge keys applied, aliases resolved. The file must read without error. */
function data(text: string, what: string): Data {
  const doc = parseDocument(text, { merge: true });
  expect({ what, errors: doc.errors.map((error) => error.message) }).toEqual({ what, errors: [] });
  return (doc.toJS({ maxAliasCount: -1 }) ?? {}) as Data;
}

/** The lines that differ, once the lines both texts start and end with are set aside. */
function changedLines(before: string, after: string): { removed: string[]; added: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  return { removed: a.slice(start, a.length - end), added: b.slice(start, b.length - end) };
}

const SETTING_LINE = /^ *(?:staticExport:|mintlify:|enabled: (?:true|false)|bundleUrl: \S.*|version: \S.*)$/;

/** The file's indentation step: how far the first nested line sits in from the key above it. */
function stepOf(text: string): number {
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!/^[\w-]+:\s*$/.test(lines[i])) continue;
    const next = lines.slice(i + 1).find((line) => line.trim() !== '' && !line.trim().startsWith('#'));
    const indent = next ? /^ */.exec(next)![0].length : 0;
    if (next && indent > 0 && !next.trimStart().startsWith('- ')) return indent;
  }
  return 2;
}

function quoted(value: string, style: Style): string {
  if (style === 'single') return `'${value}'`;
  return style === 'double' ? `"${value}"` : value;
}

/** Top-level keys with where their line (and the comments right above it) starts. */
function topLevel(text: string): Array<{ key: string; at: number; blockMap: boolean; anchored: boolean }> {
  const root = parseDocument(text).contents;
  if (!isMap(root)) return [];
  return root.items.flatMap((pair) => {
    if (!isScalar(pair.key) || !pair.key.range) return [];
    let at = text.lastIndexOf('\n', pair.key.range[0] - 1) + 1;
    // Step over the comments right above the key: they belong to it.
    while (at > 0) {
      const previous = text.lastIndexOf('\n', at - 2) + 1;
      if (!text.slice(previous, at).trimStart().startsWith('#')) break;
      at = previous;
    }
    const blockMap = isMap(pair.value) && !pair.value.flow && pair.value.items.length > 0;
    return [{ key: String(pair.key.value), at, blockMap, anchored: isMap(pair.value) && pair.value.anchor !== undefined }];
  });
}

function without(value: Data, key: string): Data {
  const { [key]: _removed, ...rest } = value;
  return rest;
}

interface Case {
  name: string;
  /** The file as the team holds it before the run. */
  before: string;
  configKey: string;
  settings: StaticExportSettings;
  /** The settings block the file should hold after the edit. */
  expected: Data;
  /** Whether the block is created (lines added) or renewed in place. */
  created: boolean;
  /** For a created block: the column its settings go to. */
  column?: number;
  /** For a renewed block: the link's quoting and its trailing comment, both to be kept. */
  style?: Style;
  comment?: string;
}

function settingsFor(rand: ReturnType<typeof random>): StaticExportSettings {
  return { bundleUrl: NEW_LINK, enable: rand.chance(0.8), ...(rand.chance(0.5) ? { version: '2024-07-15' } : {}) };
}

function createdBlock(settings: StaticExportSettings): Data {
  return { ...(settings.enable === false ? {} : { enabled: true }), bundleUrl: NEW_LINK, ...(settings.version ? { version: settings.version } : {}) };
}

/** The four cases of one file, seeded. */
function casesFor(name: string): Case[] {
  const rand = random(name);
  const original = read(name);
  const step = stepOf(original);
  const keys = topLevel(original);
  const cases: Case[] = [];

  const atTop = settingsFor(rand);
  cases.push({ name: 'top level, created', before: original, configKey: 'staticExport', settings: atTop, expected: createdBlock(atTop), created: true, column: step });

  // An umbrella key is a chart's own block, never a shared anchor: a block added to an anchored
  // mapping reaches every alias of it too (enterprise-logs' `image: &image`).
  const umbrellas = keys.filter((key) => key.blockMap && !key.anchored && /^[\w-]+$/.test(key.key));
  if (umbrellas.length > 0) {
    const umbrella = rand.pick(umbrellas).key;
    const children = parseDocument(original).get(umbrella);
    const first = isMap(children) && isScalar(children.items[0].key) ? children.items[0].key.range![0] : 0;
    const column = first - (original.lastIndexOf('\n', first - 1) + 1) + step;
    const settings = settingsFor(rand);
    cases.push({ name: `under the umbrella key "${umbrella}", created`, before: original, configKey: `${umbrella}.staticExport`, settings, expected: createdBlock(settings), created: true, column });
  }

  for (const nested of [false, true]) {
    // Between two top-level keys: before any key but the first, above the comments that head it.
    const at = keys[1 + rand.int(keys.length - 1)].at;
    const style = rand.pick(['plain', 'single', 'double'] as const);
    const enabled = rand.chance(0.5);
    const version = rand.chance(0.5) ? quoted('2024-06-01', rand.pick(['single', 'double'] as const)) : undefined;
    const comment = rand.pick(['', '  # renewed by the static export workflow', ' # keep in sync']);
    const pad = ' '.repeat(nested ? step : 0);
    const inner = pad + ' '.repeat(step);
    const lines = [
      ...(rand.chance(0.5) ? [`${pad}# Static export of the docs site.`] : []),
      `${pad}staticExport:`,
      `${inner}enabled: ${enabled}`,
      `${inner}bundleUrl: ${quoted(OLD_LINK, style)}${comment}`,
      ...(version ? [`${inner}version: ${version}`] : [])
    ];
    if (nested) lines.unshift('mintlify:');
    const before = `${original.slice(0, at)}${lines.join('\n')}\n\n${original.slice(at)}`;
    const settings = settingsFor(rand);
    const expected = {
      enabled: settings.enable === false ? enabled : true,
      bundleUrl: NEW_LINK,
      ...(settings.version ? { version: settings.version } : version ? { version: '2024-06-01' } : {})
    };
    cases.push({
      name: nested ? 'under the umbrella key "mintlify" between two top-level keys, renewed' : 'between two top-level keys, renewed',
      before,
      configKey: nested ? 'mintlify.staticExport' : 'staticExport',
      settings,
      expected,
      created: false,
      style,
      comment
    });
  }
  return cases;
}

function blockOf(value: Data, configKey: string): Data {
  return configKey.split('.').reduce<Data>((parent, key) => (parent?.[key] ?? undefined) as Data, value);
}

/** The data with the settings block taken out (and an umbrella the test added, once empty). */
function withoutBlock(value: Data, configKey: string): Data {
  const [parent, key] = configKey.includes('.') ? configKey.split('.') : [undefined, configKey];
  if (parent === undefined) return without(value, key);
  const rest = without(value[parent] as Data, key);
  return Object.keys(rest).length === 0 ? without(value, parent) : { ...value, [parent]: rest };
}

describe(`the edit on ${FILES.length} real values files (TEST_SEED=${SEED})`, () => {
  it('holds all 22 files of SOURCES.md', () => {
    expect(FILES).toHaveLength(22);
    const sources = read('SOURCES.md');
    for (const name of FILES) expect(sources).toContain(`| \`${name}\` |`);
  });

  const readable = FILES.filter((name) => name !== DUPLICATE_KEY);

  it.each(readable)('%s: only the static export lines change, and only those settings in the data', (name) => {
    const original = data(read(name), `${name} as published`);
    for (const c of casesFor(name)) {
      const what = `${name}, ${c.name} (TEST_SEED=${SEED})`;
      const result = patchValuesFile(name, c.before, c.configKey, c.settings);
      const { removed, added } = changedLines(c.before, result.text);

      // What a reviewer sees: the static export lines and nothing else.
      expect({ what, removed: removed.filter((line) => !SETTING_LINE.test(line)), added: added.filter((line) => line !== '' && !SETTING_LINE.test(line)) }).toEqual({ what, removed: [], added: [] });
      if (c.created) {
        expect({ what, removed }).toEqual({ what, removed: [] });
        // In the file's own indentation; a top-level block set apart by a blank line, a nested one not.
        const settingLines = added.filter((line) => /^ *(?:enabled|bundleUrl|version):/.test(line));
        expect({ what, columns: settingLines.map((line) => /^ */.exec(line)![0].length) }).toEqual({ what, columns: settingLines.map(() => c.column) });
        expect({ what, blank: added.includes('') }).toEqual({ what, blank: !c.configKey.includes('.') });
      } else {
        const link = added.find((line) => line.trimStart().startsWith('bundleUrl:'));
        expect({ what, link }).toEqual({ what, link: expect.stringMatching(/^ +bundleUrl: /) });
        expect({ what, kept: link!.endsWith(`${quoted(NEW_LINK, c.style!)}${c.comment}`) }).toEqual({ what, kept: true });
      }

      // What Helm reads: the same data, the block aside, and the block as asked.
      const after = data(result.text, `${what}: the edited file`);
      expect({ what, block: blockOf(after, c.configKey) }).toEqual({ what, block: c.expected });
      expect({ what, rest: withoutBlock(after, c.configKey) }).toEqual({ what, rest: original });
      if (c.created && !c.configKey.includes('.')) expect({ what, last: Object.keys(after).at(-1) }).toEqual({ what, last: 'staticExport' });
    }
  });

  it('refuses the file with a duplicate key in every placement, naming the key and both lines', () => {
    const original = read(DUPLICATE_KEY);
    expect(() => patchValuesFile(`helm/values.yaml`, original, 'staticExport', { bundleUrl: NEW_LINK })).toThrow(
      'helm/values.yaml:43: not valid YAML: duplicate key "databases" on line 43, first on line 34. Helm would keep only the last one'
    );
    for (const c of casesFor(DUPLICATE_KEY)) {
      const [first, second] = [...c.before.matchAll(/^databases:/gm)].map((match) => c.before.slice(0, match.index).split('\n').length);
      let error: unknown;
      try {
        patchValuesFile('helm/values.yaml', c.before, c.configKey, c.settings);
      } catch (thrown) {
        error = thrown;
      }
      const what = `${c.name} (TEST_SEED=${SEED})`;
      expect({ what, error }).toEqual({ what, error: expect.any(ConfigFileError) });
      expect({ what, message: (error as Error).message }).toEqual({
        what,
        message: expect.stringContaining(`helm/values.yaml:${second}: not valid YAML: duplicate key "databases" on line ${second}, first on line ${first}. `)
      });
      expect((error as Error).message).toMatch(/Keep the one you mean .* then run again$/);
    }
  });
});

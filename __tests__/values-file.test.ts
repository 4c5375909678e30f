import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'yaml';
import { checkPatchable, ConfigFileError, EditFaultError, patchValuesFile, readSetting } from '../src/values/values-file.ts';

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/config/${name}`, import.meta.url), 'utf8');
}

/** Replaces exactly one occurrence, so an expectation cannot silently match nothing or too much. */
function replaceOnce(text: string, from: string, to: string): string {
  expect(text.split(from)).toHaveLength(2);
  return text.replace(from, () => to);
}

function thrown(run: () => unknown): ConfigFileError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    return error as ConfigFileError;
  }
  throw new Error('expected a ConfigFileError');
}

const OLD_URL =
  'https://static-exports.s3.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20991121%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20991121T230102Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
const UMBRELLA_URL =
  'https://static-exports.s3.invalid/se_0a1b2c3d4e5f6a7b/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20991101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20991101T080000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';
const JSON_URL =
  'https://static-exports.s3.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20991121T230102Z&X-Amz-Expires=86400&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
const NEW_URL =
  'https://static-exports.s3.invalid/se_7c4e9b2a1d6f3e80/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261205%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261205T101500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=5d41402abc4b2a76b9719d911017c592ae2f1e7f7e8c2b3d1f0e9a8b7c6d5e4f';

describe('patchValuesFile on a hand-edited values.yaml', () => {
  const original = fixture('values.yaml');

  it('changes only the bundleUrl line, keeping comments, quoting, anchors and layout', () => {
    const result = patchValuesFile('values.yaml', original, 'staticExport', { bundleUrl: NEW_URL });

    expect(result.text).toBe(replaceOnce(original, `bundleUrl: "${OLD_URL}"`, `bundleUrl: "${NEW_URL}"`));
    expect(result.changes).toEqual([{ key: 'staticExport.bundleUrl', before: OLD_URL, after: NEW_URL }]);
  });

  it('reports a setting the block inherits through a merge key as it was, not as unset', () => {
    const text = 'defaults: &defaults\n  enabled: false\nstaticExport:\n  <<: *defaults\n  bundleUrl: "x"\n';
    const result = patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: NEW_URL });
    expect(result.changes).toContainEqual({ key: 'staticExport.enabled', before: false, after: true });
  });

  it('changes the version in place, keeping the comment beside it', () => {
    const result = patchValuesFile('values.yaml', original, 'staticExport', {
      bundleUrl: NEW_URL,
      version: '2024-07-15'
    });

    let expected = replaceOnce(original, OLD_URL, NEW_URL);
    expected = replaceOnce(expected, 'version: "2024-06-01"  # bump with care', 'version: "2024-07-15"  # bump with care');
    expect(result.text).toBe(expected);
    expect(result.changes).toEqual([
      { key: 'staticExport.bundleUrl', before: OLD_URL, after: NEW_URL },
      { key: 'staticExport.version', before: '2024-06-01', after: '2024-07-15' }
    ]);
  });

  it('leaves the file untouched when the values are already there', () => {
    const result = patchValuesFile('values.yaml', original, 'staticExport', { bundleUrl: OLD_URL, version: '2024-06-01' });

    expect(result.text).toBe(original);
    expect(result.changes).toEqual([]);
  });

  it('keeps CRLF line endings', () => {
    const crlf = original.replaceAll('\n', '\r\n');

    const result = patchValuesFile('values.yml', crlf, 'staticExport', { bundleUrl: NEW_URL });

    expect(result.text).toBe(replaceOnce(crlf, OLD_URL, NEW_URL));
  });

  it('adds a missing setting in CRLF with CRLF', () => {
    const crlf = 'staticExport:\r\n  enabled: true\r\n  bundleUrl: "old"\r\nimage:\r\n  tag: "1"\r\n';

    const result = patchValuesFile('values.yaml', crlf, 'staticExport', { bundleUrl: 'old', version: '2024-07-15' });

    expect(result.text).toBe(
      'staticExport:\r\n  enabled: true\r\n  bundleUrl: "old"\r\n  version: "2024-07-15"\r\nimage:\r\n  tag: "1"\r\n'
    );
  });

  it('keeps a plain link plain, an anchor on it, and quotes what plain style would misread', () => {
    const text = 'staticExport:\n  enabled: true\n  bundleUrl: &link https://old.example/b.tar.gz\n  version: 2\nmirror: *link\n';

    const result = patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'https://new.example/b.tar.gz', version: '3' });

    expect(result.text).toBe(
      'staticExport:\n  enabled: true\n  bundleUrl: &link https://new.example/b.tar.gz\n  version: "3"\nmirror: *link\n'
    );
    expect(result.changes.map((change) => change.before)).toEqual(['https://old.example/b.tar.gz', 2]);
  });

  it('writes a block scalar link as one double-quoted line', () => {
    const text = 'staticExport:\n  bundleUrl: >-\n    https://old.example/b.tar.gz\n  enabled: true\n';

    const result = patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'https://new.example/b.tar.gz' });

    expect(result.text).toBe('staticExport:\n  bundleUrl: "https://new.example/b.tar.gz"\n  enabled: true\n');
  });

  it('keeps a file without a final newline without one', () => {
    const text = 'staticExport:\n  enabled: true\n  bundleUrl: "old"';

    expect(patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'new' }).text).toBe(
      'staticExport:\n  enabled: true\n  bundleUrl: "new"'
    );
    expect(patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'old', version: 'v2' }).text).toBe(
      'staticExport:\n  enabled: true\n  bundleUrl: "old"\n  version: "v2"'
    );
  });
});

describe('patchValuesFile on an umbrella chart (mintlify.staticExport, 4-space indentation)', () => {
  const original = fixture('umbrella-values.yaml');

  it('turns the export on and renews the link, keeping single quotes and the comment', () => {
    const result = patchValuesFile('values.yaml', original, 'mintlify.staticExport', { bundleUrl: NEW_URL });

    let expected = replaceOnce(original, 'enabled: false    #', 'enabled: true    #');
    expected = replaceOnce(expected, `'${UMBRELLA_URL}'`, `'${NEW_URL}'`);
    expect(result.text).toBe(expected);
    expect(result.changes).toEqual([
      { key: 'mintlify.staticExport.enabled', before: false, after: true },
      { key: 'mintlify.staticExport.bundleUrl', before: UMBRELLA_URL, after: NEW_URL }
    ]);
  });

  it('adds the version after the last setting, in the block’s indentation', () => {
    const result = patchValuesFile('values.yaml', original, 'mintlify.staticExport', {
      bundleUrl: UMBRELLA_URL,
      version: '2024-07-15'
    });

    let expected = replaceOnce(original, 'enabled: false', 'enabled: true');
    expected = replaceOnce(expected, `'${UMBRELLA_URL}'\n`, `'${UMBRELLA_URL}'\n        version: "2024-07-15"\n`);
    expect(result.text).toBe(expected);
    expect(result.changes.map((change) => change.key)).toEqual([
      'mintlify.staticExport.enabled',
      'mintlify.staticExport.version'
    ]);
  });

  it('creates the block inside an existing parent, after its last entry', () => {
    const withoutBlock = original.replace(/ {4}staticExport:\n(?: {8}.*\n)+/, '');
    expect(withoutBlock).not.toContain('staticExport');

    const result = patchValuesFile('values.yaml', withoutBlock, 'mintlify.staticExport', { bundleUrl: NEW_URL });

    const block = `    staticExport:\n        enabled: true\n        bundleUrl: "${NEW_URL}"\n`;
    expect(result.text).toBe(replaceOnce(withoutBlock, '        tag: 1.42.0\n', `        tag: 1.42.0\n${block}`));
  });
});

describe('patchValuesFile creating the block', () => {
  const original = fixture('values-without-export.yaml');

  it('appends a missing top-level block at the end, set apart by a blank line', () => {
    const result = patchValuesFile('values.yaml', original, 'staticExport', { bundleUrl: NEW_URL, version: '2024-07-15' });

    expect(result.text).toBe(
      `${original}\nstaticExport:\n  enabled: true\n  bundleUrl: "${NEW_URL}"\n  version: "2024-07-15"\n`
    );
    expect(result.changes).toEqual([
      { key: 'staticExport.enabled', before: undefined, after: true },
      { key: 'staticExport.bundleUrl', before: undefined, after: NEW_URL },
      { key: 'staticExport.version', before: undefined, after: '2024-07-15' }
    ]);
  });

  it('creates missing parents too', () => {
    const result = patchValuesFile('values.yaml', original, 'mintlify.staticExport', { bundleUrl: NEW_URL });

    expect(result.text).toBe(
      `${original}\nmintlify:\n  staticExport:\n    enabled: true\n    bundleUrl: "${NEW_URL}"\n`
    );
  });

  it('fills an empty file', () => {
    const result = patchValuesFile('values.yaml', '', 'staticExport', { bundleUrl: NEW_URL });

    expect(result.text).toBe(`staticExport:\n  enabled: true\n  bundleUrl: "${NEW_URL}"\n`);
  });

  it('fills a file that holds only comments', () => {
    const result = patchValuesFile('values.yaml', '# nothing configured yet\n', 'staticExport', { bundleUrl: 'u' });

    expect(result.text).toBe('# nothing configured yet\n\nstaticExport:\n  enabled: true\n  bundleUrl: "u"\n');
  });

  it('fills a key that is there with no value, keeping the comment on its line', () => {
    const text = 'staticExport: # filled in by the export workflow\nimage:\n  tag: "1"\n';

    const result = patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'u' });

    expect(result.text).toBe(
      'staticExport: # filled in by the export workflow\n  enabled: true\n  bundleUrl: "u"\nimage:\n  tag: "1"\n'
    );
  });

  it('replaces an explicit null', () => {
    const text = 'mintlify:\n    staticExport: ~\n    image: {}\n';

    const result = patchValuesFile('values.yaml', text, 'mintlify.staticExport', { bundleUrl: 'u' });

    expect(result.text).toBe('mintlify:\n    staticExport:\n        enabled: true\n        bundleUrl: "u"\n    image: {}\n');
  });

  it('fills a setting that is there with no value', () => {
    const text = 'staticExport:\n  enabled: true\n  bundleUrl:\n';

    const result = patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'u' });

    expect(result.text).toBe('staticExport:\n  enabled: true\n  bundleUrl: "u"\n');
    expect(result.changes).toEqual([{ key: 'staticExport.bundleUrl', before: null, after: 'u' }]);
  });

  it('writes into a flow mapping in flow style', () => {
    const text = 'staticExport: {enabled: true, bundleUrl: old}\n';

    expect(patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'https://x/?a=1,2' }).text).toBe(
      'staticExport: {enabled: true, bundleUrl: "https://x/?a=1,2"}\n'
    );
    expect(patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'old', version: 'v2' }).text).toBe(
      'staticExport: {enabled: true, bundleUrl: old, version: "v2"}\n'
    );
    expect(patchValuesFile('values.yaml', 'staticExport: {}\n', 'staticExport', { bundleUrl: 'u' }).text).toBe(
      'staticExport: {enabled: true, bundleUrl: "u"}\n'
    );
  });
});

describe('where a new block goes: where the document content ends', () => {
  const block = (indent = '  ') => `staticExport:\n${indent}enabled: true\n${indent}bundleUrl: "u"\n`;
  const add = (text: string, key = 'staticExport') => patchValuesFile('values.yaml', text, key, { bundleUrl: 'u' }).text;

  it('before the document end marker ..., not after it where it would start a second document', () => {
    expect(add('a: 1\n...\n')).toBe(`a: 1\n\n${block()}...\n`);
    expect(add('a: 1\n...')).toBe(`a: 1\n\n${block()}...`);
    expect(add('a: 1\r\n...\r\n')).toBe(`a: 1\r\n\r\n${block().replaceAll('\n', '\r\n')}...\r\n`);
  });

  it('keeps what follows the ... marker after it', () => {
    expect(add('a: 1\n...\n# written after the document\n')).toBe(`a: 1\n\n${block()}...\n# written after the document\n`);
  });

  it('in a file shaped like openstack-helm’s: a licence header, ---, anchors and merge keys, commented-out lines, ...', () => {
    const text =
      '# Licensed under the Apache License, Version 2.0\n\n---\nrelease_group: null\nconf: &conf\n  a: 1\nother:\n  <<: *conf\n  b: 2\n' +
      '  # secretObjects:\n  # - data:\n  #   - key: client_id\n...\n';

    expect(add(text)).toBe(text.replace('\n...\n', `\n\n${block()}...\n`));
  });

  it('after comments right below the last entry, and commented-out lines indented under it', () => {
    expect(add('a: []\n# Examples:\n# a:\n# - x\n')).toBe(`a: []\n# Examples:\n# a:\n# - x\n\n${block()}`);
    expect(add('a:\n  b: 1\n\n  # c: 2\n')).toBe(`a:\n  b: 1\n\n  # c: 2\n\n${block()}`);
    expect(add('a: {}\n  # b: 1\n...\n')).toBe(`a: {}\n  # b: 1\n\n${block()}...\n`);
  });

  it('before comments that belong to nothing (set apart at the top level)', () => {
    expect(add('a: 1\n\n# Maintained by the platform team.\n')).toBe(`a: 1\n\n${block()}\n# Maintained by the platform team.\n`);
    expect(add('a: |\n  text\n\n# footer\n...\n')).toBe(`a: |\n  text\n\n${block()}\n# footer\n...\n`);
  });

  it('in a nested mapping: after its last entry, not after the comment that heads the next key', () => {
    const text = 'mintlify:\n    image: x\n    # tag: 1\n\n# -- the next chart\nother: 1\n';

    expect(add(text, 'mintlify.staticExport')).toBe(
      'mintlify:\n    image: x\n    # tag: 1\n    staticExport:\n        enabled: true\n        bundleUrl: "u"\n\n# -- the next chart\nother: 1\n'
    );
  });

  it('in a document with no content yet: before its ... marker', () => {
    expect(add('# nothing yet\n---\n...\n')).toBe(`# nothing yet\n---\n\n${block()}...\n`);
  });

  it('in the file’s own indentation (1 and 3 spaces), after an unindented sequence', () => {
    expect(add('a:\n b: 1\nc:\n- x\n')).toBe(`a:\n b: 1\nc:\n- x\n\n${block(' ')}`);
    expect(add('a:\n   b: 1\n')).toBe(`a:\n   b: 1\n\n${block('   ')}`);
  });
});

describe('patchValuesFile on JSON', () => {
  // Each file, and the indentation of a property inside `staticExport`.
  const files: Array<[file: string, indent: string]> = [
    ['values-2-spaces.json', '    '],
    ['values-4-spaces.json', '        '],
    ['values-tabs.json', '\t\t']
  ];

  it.each(files)('%s: changes only the value', (name) => {
    const original = fixture(name);

    const result = patchValuesFile(name, original, 'staticExport', { bundleUrl: NEW_URL });

    expect(result.text).toBe(replaceOnce(original, JSON_URL, NEW_URL));
    expect(result.changes).toEqual([{ key: 'staticExport.bundleUrl', before: JSON_URL, after: NEW_URL }]);
  });

  it.each(files)('%s: adds the version as one property in the file’s style', (name, indent) => {
    const original = fixture(name);

    const result = patchValuesFile(name, original, 'staticExport', { bundleUrl: JSON_URL, version: '2024-07-15' });

    expect(result.text).toBe(replaceOnce(original, `"${JSON_URL}"\n`, `"${JSON_URL}",\n${indent}"version": "2024-07-15"\n`));
    expect(result.changes).toEqual([{ key: 'staticExport.version', before: undefined, after: '2024-07-15' }]);
  });

  it('leaves the file untouched when the values are already there', () => {
    const original = fixture('values-tabs.json');

    const result = patchValuesFile('values-tabs.json', original, 'staticExport', { bundleUrl: JSON_URL });

    expect(result.text).toBe(original);
    expect(result.changes).toEqual([]);
  });

  it('keeps CRLF line endings', () => {
    const crlf = fixture('values-2-spaces.json').replaceAll('\n', '\r\n');

    const result = patchValuesFile('values.json', crlf, 'staticExport', { bundleUrl: JSON_URL, version: 'v2' });

    expect(result.text).toBe(replaceOnce(crlf, `"${JSON_URL}"\r\n`, `"${JSON_URL}",\r\n    "version": "v2"\r\n`));
  });

  it('creates a missing block and its parents', () => {
    const text = '{\n    "image": {\n        "tag": "1.42.0"\n    }\n}\n';

    const result = patchValuesFile('values.json', text, 'mintlify.staticExport', { bundleUrl: 'u' });

    expect(result.text).toBe(
      '{\n    "image": {\n        "tag": "1.42.0"\n    },\n    "mintlify": {\n        "staticExport": {\n' +
        '            "enabled": true,\n            "bundleUrl": "u"\n        }\n    }\n}\n'
    );
    expect(result.changes.map((change) => change.before)).toEqual([undefined, undefined]);
  });

  it('fills a null block and an empty file', () => {
    expect(patchValuesFile('values.json', '{\n  "staticExport": null\n}\n', 'staticExport', { bundleUrl: 'u' }).text).toBe(
      '{\n  "staticExport": {\n    "enabled": true,\n    "bundleUrl": "u"\n  }\n}\n'
    );
    expect(patchValuesFile('values.json', '', 'staticExport', { bundleUrl: 'u' }).text).toBe(
      '{\n  "staticExport": {\n    "enabled": true,\n    "bundleUrl": "u"\n  }\n}\n'
    );
  });

  it('keeps comments in a JSON file that has them', () => {
    const text = '{\n  // renewed by the export workflow\n  "staticExport": {\n    "enabled": true,\n    "bundleUrl": "old" // link\n  }\n}';

    expect(patchValuesFile('values.json', text, 'staticExport', { bundleUrl: 'new' }).text).toBe(
      replaceOnce(text, '"old"', '"new"')
    );
  });
});

describe('patchValuesFile errors', () => {
  const settings = { bundleUrl: 'u' };

  it('names the line of malformed YAML', () => {
    const text = 'image:\n  tag: "1.42.0"\nstaticExport:\n  enabled: true\n bundleUrl: "x"\n';

    const error = thrown(() => patchValuesFile('deploy/values.yaml', text, 'staticExport', settings));

    expect(error.file).toBe('deploy/values.yaml');
    expect(error.line).toBe(5);
    expect(error.message).toMatch(/^deploy\/values\.yaml:5: not valid YAML: /);
  });

  it('refuses a YAML file with more than one document', () => {
    const error = thrown(() => patchValuesFile('values.yaml', 'a: 1\n---\nb: 2\n', 'staticExport', settings));

    expect(error.message).toBe(
      'values.yaml:2: not valid YAML: a second YAML document starts with the marker --- on line 2. ' +
        'A values file holds one document: delete that marker and keep everything in one mapping, or move what follows it to a file of its own, then run again'
    );
  });

  it('names the line of malformed JSON', () => {
    const text = '{\n  "image": {\n    "tag": "1.42.0"\n  },\n  "staticExport": {\n    "enabled": tru\n  }\n}\n';

    const error = thrown(() => patchValuesFile('values.json', text, 'staticExport', settings));

    expect(error.file).toBe('values.json');
    expect(error.line).toBe(6);
    expect(error.message).toMatch(/^values\.json:6: not valid JSON: /);
  });

  it('names the key and line of a block that is not a mapping', () => {
    const yaml = thrown(() => patchValuesFile('values.yaml', 'image: {}\nstaticExport: "x"\n', 'staticExport', settings));
    expect(yaml.line).toBe(2);
    expect(yaml.message).toBe('values.yaml:2: "staticExport" is a string, not a block of settings. config-key (staticExport) names the block to edit: write "staticExport" as a block of settings, or set config-key to the block that holds bundleUrl.');

    const parent = thrown(() =>
      patchValuesFile('values.yaml', 'a: 1\nb: 2\nmintlify:\n  - x\n', 'mintlify.staticExport', settings)
    );
    expect(parent.message).toBe('values.yaml:3: "mintlify" is a list, not a block of settings. config-key (mintlify.staticExport) names the block to edit: write "mintlify" as a block of settings, or set config-key to the block that holds bundleUrl.');

    const json = thrown(() => patchValuesFile('values.json', '{\n  "staticExport": [1]\n}', 'staticExport', settings));
    expect(json.message).toBe('values.json:2: "staticExport" is a list, not a block of settings. config-key (staticExport) names the block to edit: write "staticExport" as a block of settings, or set config-key to the block that holds bundleUrl.');

    // config-key that names the setting itself: the message names the block it should name.
    const setting = thrown(() => patchValuesFile('values.yaml', 'staticExport:\n  bundleUrl: "x"\n', 'staticExport.bundleUrl', settings));
    expect(setting.message).toBe('values.yaml:2: "staticExport.bundleUrl" is a string, not a block of settings. config-key names the block that holds the settings, not a setting: set config-key to staticExport.');
  });

  it('refuses a setting that holds a mapping', () => {
    const text = 'staticExport:\n  enabled: true\n  bundleUrl:\n    url: x\n';

    const error = thrown(() => patchValuesFile('values.yaml', text, 'staticExport', settings));

    expect(error.message).toBe('values.yaml:3: "staticExport.bundleUrl" is not a single value');
  });

  it('refuses a top level that is not a mapping', () => {
    expect(thrown(() => patchValuesFile('values.yaml', '- a\n', 'staticExport', settings)).line).toBe(1);
    expect(thrown(() => patchValuesFile('values.json', '[]', 'staticExport', settings)).line).toBe(1);
  });

  it('refuses an unsupported extension, saying which are supported', () => {
    const error = thrown(() => patchValuesFile('deploy/values.toml', 'a = 1', 'staticExport', settings));

    expect(error.file).toBe('deploy/values.toml');
    expect(error.line).toBeUndefined();
    expect(error.message).toContain('.yaml, .yml or .json');
  });

  it('refuses a config key with an empty segment', () => {
    expect(thrown(() => patchValuesFile('values.yaml', '', 'mintlify..staticExport', settings)).message).toContain(
      'mintlify..staticExport'
    );
  });
});

describe('"not valid YAML": the key or construct, the lines that matter, and what to do', () => {
  const message = (text: string) => thrown(() => patchValuesFile('values.yaml', text, 'staticExport', { bundleUrl: 'u' })).message;

  it('a duplicate key: its dotted path, both lines, and that Helm keeps the last', () => {
    expect(message('image:\n  tag: 1\ndatabases:\n  a: 1\n  tag: x\ndatabases:\n  b: 2\n')).toBe(
      'values.yaml:6: not valid YAML: duplicate key "databases" on line 6, first on line 3. Helm would keep only the last one and drop the first without a word. ' +
        'Keep the one you mean (move into it what the other holds) and delete the other, then run again'
    );
    expect(message('a:\n  b:\n    c: 1\n    d: 2\n    c: 3\n')).toMatch(/^values\.yaml:5: not valid YAML: duplicate key "a\.b\.c" on line 5, first on line 3\. /);
  });

  it('a second document: where it starts and the marker that ended the first', () => {
    expect(message('a: 1\n...\nb: 2\n')).toBe(
      'values.yaml:3: not valid YAML: a second YAML document starts on line 3, after the document end marker ... on line 2. ' +
        'A values file holds one document: delete that marker and keep everything in one mapping, or move what follows it to a file of its own, then run again'
    );
  });

  it.each([
    ['an unclosed quote: where it opens and that it runs to the end', 'a: 1\nb: "text\nc: 2\n', 'values.yaml:2: not valid YAML: the double-quoted value on line 2 (the value of "b") is never closed: the file ends inside it. Close it with " on line 2'],
    ['an unclosed flow sequence: where it opens and the line it should close before', 'a:\n  b: [1, 2\n  c: 3\n', 'values.yaml:2: not valid YAML: the flow sequence [ opened on line 2 (the value of "a.b") is not closed with ] before line 3. Close it with ]'],
    ['an entry out of line: both keys and their columns', 'a:\n  b: 1\n c: 2\n', 'values.yaml:3: not valid YAML: "c" on line 3 starts at column 2, but "b" above it on line 2 at column 3: the entries of one mapping start at the same column. Indent line 3'],
    ['a key under a value: the key, its value and the line under it', 'image:\n  tag: 1.2\n    pullPolicy: Always\n', 'values.yaml:2: not valid YAML: "image.tag" on line 2 has the value "1.2" and, on line 3, "pullPolicy: Always" indented under it: a key holds either one value or nested entries.'],
    ['a tab as indentation', 'a:\n\tb: 1\n', 'values.yaml:2: not valid YAML: line 2 is indented with a tab, and YAML indents with spaces only. Replace the tab with spaces'],
    ['a line without its colon', 'a: 1\nb\nc: 2\n', 'values.yaml:2: not valid YAML: line 2 holds "b" without the ":" that makes it a key.'],
    ['a bad escape', 'a: "C:\\data"\n', 'values.yaml:1: not valid YAML: the double-quoted value on line 1 holds \\d, which is not a YAML escape.'],
    ['a reserved first character', 'a: @admin\n', 'values.yaml:1: not valid YAML: the value "@admin" on line 1 starts with @, which YAML keeps for itself. Put the value in quotes ("@admin")'],
    ['anything else: the construct and the line before it', 'a: 1\n]\n', 'values.yaml:2: not valid YAML: unexpected flow-seq-end token in YAML stream: "]", at "]" on line 2, after "a: 1" on line 1. Fix the YAML there']
  ])('%s', (_, text, start) => {
    const said = message(text);
    expect(said.startsWith(start)).toBe(true);
    expect(said).toMatch(/then run again$/);
  });
});

describe('what the edit produces is checked, and a fault of the edit is the action’s', () => {
  // YAML 1.1 reads a plain `on` as true; the edit keeps the plain style of the old value.
  const text = '%YAML 1.1\n---\nstaticExport:\n  enabled: true\n  bundleUrl: https://old.example/b.tar.gz\n  version: v1\n';

  it('an edit that does not read back as written is reported as the action’s fault, not the file’s', () => {
    let error: unknown;
    try {
      patchValuesFile('deploy/values.yaml', text, 'staticExport', { bundleUrl: 'https://new.example/b.tar.gz', version: 'on' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(EditFaultError);
    expect((error as Error).message).toBe(
      "deploy/values.yaml: the action's edit of staticExport gave a file it cannot read back (staticExport.version reads back as true, not as written). " +
        "This is a fault of the action, not of your file, and nothing was written. Report it to the action's maintainers with this message and the file; until it is fixed, set staticExport by hand."
    );
  });

  it('checkPatchable makes the same edit with a placeholder link, so the fault shows before any export', () => {
    expect(() => checkPatchable('deploy/values.yaml', text, 'staticExport', 'on')).toThrow(EditFaultError);
    expect(() => checkPatchable('deploy/values.yaml', text, 'staticExport', 'v2')).not.toThrow();
    expect(() => checkPatchable('values.yaml', 'a: 1\na: 2\n', 'staticExport')).toThrow('duplicate key "a" on line 2, first on line 1');
    expect(() => checkPatchable('values.yaml', 'a: 1\n...\n', 'staticExport')).not.toThrow();
  });
});

describe('readSetting', () => {
  it('reads the current link', () => {
    expect(readSetting('values.yaml', fixture('values.yaml'), 'staticExport', 'bundleUrl')).toBe(OLD_URL);
    expect(readSetting('values.yaml', fixture('umbrella-values.yaml'), 'mintlify.staticExport', 'bundleUrl')).toBe(
      UMBRELLA_URL
    );
    expect(readSetting('values.json', fixture('values-tabs.json'), 'staticExport', 'bundleUrl')).toBe(JSON_URL);
    expect(readSetting('values.yaml', fixture('umbrella-values.yaml'), 'mintlify.staticExport', 'enabled')).toBe(false);
  });

  it('is undefined when the setting or its block is absent', () => {
    expect(readSetting('values.yaml', fixture('umbrella-values.yaml'), 'mintlify.staticExport', 'version')).toBeUndefined();
    expect(readSetting('values.yaml', fixture('values-without-export.yaml'), 'staticExport', 'bundleUrl')).toBeUndefined();
    expect(readSetting('values.yaml', '', 'staticExport', 'bundleUrl')).toBeUndefined();
    expect(readSetting('values.json', '{}', 'staticExport', 'bundleUrl')).toBeUndefined();
    expect(readSetting('values.json', '{"staticExport": null}', 'staticExport', 'bundleUrl')).toBeUndefined();
  });

  it('fails like patchValuesFile on a file it cannot read', () => {
    expect(() => readSetting('values.yaml', 'staticExport: x\n', 'staticExport', 'bundleUrl')).toThrow(ConfigFileError);
    expect(() => readSetting('values.json', '{', 'staticExport', 'bundleUrl')).toThrow(ConfigFileError);
  });

  // values-file.ts keeps the last files it parsed: a file read again is the one of its text and name, not the last one read.
  it('reads each text as it is, and names the file it was given, however often the same text was read before', () => {
    const before = fixture('values.yaml');
    const after = patchValuesFile('values.yaml', before, 'staticExport', { bundleUrl: 'https://example.invalid/new.tar.gz' }).text;
    for (let i = 0; i < 3; i++) {
      expect(readSetting('values.yaml', before, 'staticExport', 'bundleUrl')).toBe(OLD_URL);
      expect(readSetting('values.yaml', after, 'staticExport', 'bundleUrl')).toBe('https://example.invalid/new.tar.gz');
    }
    const text = 'staticExport:\n  enabled: true\n';
    expect(readSetting('a/values.yaml', text, 'staticExport', 'enabled')).toBe(true);
    expect(thrown(() => readSetting('b/values.yaml', text, 'staticExport.enabled', 'bundleUrl')).file).toBe('b/values.yaml');
  });
});

describe('what a careful user expects of unusual files', () => {
  it('refuses a block reached through a YAML alias, naming the anchor and how to edit', () => {
    const text = 'defaults: &exportDefaults\n  enabled: true\n  bundleUrl: "https://old"\n\nstaticExport: *exportDefaults\n';
    expect(() => patchValuesFile('deploy/values.yaml', text, 'staticExport', { bundleUrl: 'https://new' })).toThrow(
      'deploy/values.yaml:5: "staticExport" is an alias (*exportDefaults) of the anchor &exportDefaults on line 1, so a change here would change every block that uses that anchor. Write the block out in full under staticExport (in place of *exportDefaults), then run again'
    );
  });

  it.each([
    ['{"staticExport": {"enabled": true, "bundleUrl": "https://old"}}\n', '{"staticExport": {"enabled": true, "bundleUrl": "https://new", "version": "2024-06-01"}}\n'],
    ['{"staticExport":{"enabled":true,"bundleUrl":"https://old"}}', '{"staticExport":{"enabled":true,"bundleUrl":"https://new","version":"2024-06-01"}}']
  ])('keeps a one-line JSON file on one line, in its own spacing: %s', (before, after) => {
    expect(patchValuesFile('values.json', before, 'staticExport', { bundleUrl: 'https://new', version: '2024-06-01' }).text).toBe(after);
  });
});

describe('duplicate keys, found in linear time', () => {
  it("refuses a repeated key where the yaml library's own (quadratic) check does, in 500 random files", () => {
    const seed0 = Number(process.env.TEST_SEED ?? 27);
    let seed = seed0;
    const rand = (n: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const keys = ['a', 'b', '"a"', "'b'", '1', '"1"', 'true', '~', 'x y'];
    let duplicates = 0;
    for (let i = 0; i < 500; i++) {
      const block = (indent: string, depth: number): string[] =>
        Array.from({ length: 1 + rand(4) }, () => {
          const key = keys[rand(keys.length)];
          if (depth < 2 && rand(3) === 0) return [`${indent}${key}:`, ...block(`${indent}  `, depth + 1)].join('\n');
          if (rand(5) === 0) return `${indent}${key}: {${keys[rand(keys.length)]}: 1, ${keys[rand(keys.length)]}: 2}`;
          return `${indent}${key}: v`;
        });
      const text = `${block('', 0).join('\n')}\nstaticExport:\n  bundleUrl: x\n`;
      const libraryRefuses = parseDocument(text).errors.some((error) => error.code === 'DUPLICATE_KEY');
      let refused = false;
      try {
        readSetting('values.yaml', text, 'staticExport', 'bundleUrl');
      } catch (error) {
        refused = error instanceof ConfigFileError && /duplicate key|Map keys must be unique/.test(error.message);
      }
      expect({ seed: seed0, i, text, refused }).toEqual({ seed: seed0, i, text, refused: libraryRefuses });
      if (refused) duplicates += 1;
    }
    // Both verdicts must occur, or the comparison proves nothing.
    expect(duplicates).toBeGreaterThan(50);
    expect(duplicates).toBeLessThan(450);
  });

  it('names the line of the repeated key', () => {
    const error = thrown(() => readSetting('values.yaml', 'a: 1\nstaticExport:\n  bundleUrl: x\na: 2\n', 'staticExport', 'bundleUrl'));
    expect(error.message).toContain('values.yaml:4: not valid YAML: duplicate key "a" on line 4, first on line 1.');
  });
});

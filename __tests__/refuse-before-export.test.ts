// The checks behind refuse-before-export.e2e, pure: which config-key is a near miss of a key path in
// the file. (No action takes a pr-branch any more, so none can be a ref: the branch is named from the file.)
import { describe, expect, it } from '@jest/globals';
import { nearMissKey } from '../src/publish/preflight.ts';

const yaml = 'docs:\n  replicas: 2\n  staticExport:\n    enabled: true\nimage:\n  tag: "1.0"\n';
const json = '{\n  "docs": { "staticExport": { "enabled": true } },\n  "image": { "tag": "1.0" }\n}\n';

describe('nearMissKey', () => {
  it.each([
    ['docs.staticexport', 'docs.staticExport'],
    ['Docs.StaticExport', 'docs.staticExport'],
    ['docs.staticExprt', 'docs.staticExport'],
    ['docs.staticExpotr', 'docs.staticExport'],
    ['docs.staticExpor', 'docs.staticExport'],
    ['doc.staticExporr', 'docs.staticExport']
  ])('%s is a near miss of %s, in YAML and in JSON', (key, found) => {
    expect(nearMissKey('values.yaml', yaml, key)?.message).toContain(`it holds "${found}"`);
    expect(nearMissKey('values.json', json, key)?.message).toContain(`set config-key: ${found}.`);
  });

  it.each([
    ['docs.staticExport', 'the key path itself'],
    ['mintlify.staticExport', 'a first run of a key the file has nothing near'],
    ['docs.stExport', 'three letters off'],
    ['staticExport', 'another depth (misplacedBlock judges that one)'],
    ['imag', 'a short key a letter off a block (image): only its case would count']
  ])('%s passes: %s', (key) => {
    expect(nearMissKey('values.yaml', yaml, key)).toBeUndefined();
  });
});

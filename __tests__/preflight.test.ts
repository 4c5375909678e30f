// The refusals a run makes before it exports (src/publish/preflight.ts), as pure functions over the
// facts a run reads first, and the umbrella-chart check on the 22 real values files of
// fixtures/values-real/ (and the same data as JSON): no false alarm on any of them as they are, and a
// refusal that names the block once the block sits under a parent key.
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from '@jest/globals';
import { inputVariables } from '../emulator/runner.ts';
import { parseDocument } from 'yaml';
import { cannotWrite, leftAfterExport, misplacedBlock, prBranchIsBase, refuseBeforeExport } from '../src/publish/preflight.ts';
import { readPublishInputs } from '../src/publish/inputs.ts';
import { ConfigFileError, blockPaths, patchValuesFile } from '../src/values/values-file.ts';

const REPO = { owner: 'acme', repo: 'deploy' };
const LINK = 'https://bundles.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Expires=604800&X-Amz-Signature=0f1e2d3c';
const DIR = new URL('./fixtures/values-real/', import.meta.url);
const REAL = readdirSync(DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort();
const DUPLICATE_KEY = '06-no-signal__solo__helm__values.yaml';

describe('pr-branch equal to the base', () => {
  it('is refused naming pr-branch, and says which base it is', () => {
    expect(prBranchIsBase('static-export/deploy-values.yaml', 'main', true)).toBeUndefined();
    expect(prBranchIsBase('main', 'main', true)?.message).toMatch(/^Input 'pr-branch': 'main' is base-branch \(main\): a pull request needs a branch of its own\. Name another base-branch/);
    expect(prBranchIsBase('main', 'main', false)?.message).toMatch(/^Input 'pr-branch': 'main' is the repository's default branch, .*\(no base-branch is set\)/);
  });

  describe('with base-branch given, in input parsing', () => {
    const set = (inputs: Record<string, string>) => {
      Object.assign(process.env, inputVariables(inputs));
    };
    afterEach(() => {
      for (const key of Object.keys(process.env)) if (key.startsWith('INPUT_')) delete process.env[key];
    });

    // No action declares pr-branch (issue 41): a step that still passes one gets the branch named from
    // the file, so the three workflows that edit it keep landing on one pull request.
    it('names the branch from the file, whatever pr-branch a step still passes', () => {
      set({ 'api-key': 'mint_test', domain: 'docs.example.com', 'config-path': 'deploy/values.yaml', 'config-repository': 'acme/deploy', 'github-token': 'ghs_x', 'base-branch': 'production', 'pr-branch': 'production' });
      expect(readPublishInputs().config).toMatchObject({ baseBranch: 'production', prBranch: 'static-export/deploy-values.yaml', prBranchDefault: true });
    });
  });
});

describe('a staticExport block under another key (an umbrella chart)', () => {
  const umbrella = ['global:', '  domain: docs.example.com', 'mintlify:', '  image:', '    tag: 1.42.0', '  staticExport:', '    enabled: true', `    bundleUrl: "${LINK}"`, ''].join('\n');

  it('is refused with the default config-key, naming the key path found and config-key', () => {
    const refusal = misplacedBlock('deploy/values.yaml', umbrella, 'staticExport');
    expect(refusal?.message).toBe(
      "Input 'config-key': is staticExport (the default), but deploy/values.yaml has no staticExport block: it holds \"mintlify.staticExport\" instead. " +
        'A run would add a staticExport block that the chart never reads. To edit the block the chart reads, set config-key: mintlify.staticExport. ' +
        '(If the chart does read staticExport, add it to the file once as an empty block, and runs fill it.) Nothing was exported.'
    );
    expect(misplacedBlock('deploy/values.yaml', umbrella, 'mintlify.staticExport')).toBeUndefined();
    // The way out the message gives, when the chart does read the top-level block: an empty one, which the edit fills.
    for (const empty of ['staticExport:\n', 'staticExport: {}\n']) {
      expect(misplacedBlock('deploy/values.yaml', umbrella + empty, 'staticExport')).toBeUndefined();
      expect(patchValuesFile('deploy/values.yaml', umbrella + empty, 'staticExport', { bundleUrl: LINK }).changes.map((change) => change.key)).toEqual(['staticExport.enabled', 'staticExport.bundleUrl']);
    }
  });

  it('catches a config-key that misses the block by a letter', () => {
    expect(misplacedBlock('deploy/values.yaml', umbrella, 'mintlfy.staticExport')?.message).toContain('set config-key: mintlify.staticExport');
  });

  it('leaves alone a file without any such block (a first run adds it) and one that has it where config-key says', () => {
    expect(misplacedBlock('deploy/values.yaml', 'global:\n  domain: docs.example.com\n', 'staticExport')).toBeUndefined();
    expect(misplacedBlock('deploy/values.yaml', '', 'staticExport')).toBeUndefined();
    expect(misplacedBlock('deploy/values.yaml', `staticExport:\n  bundleUrl: "${LINK}"\nother:\n  staticExport: {}\n`, 'staticExport')).toBeUndefined();
    // An empty block is where the settings go: found.
    expect(blockPaths('deploy/values.yaml', 'mintlify:\n  staticExport:\n', 'staticExport')).toEqual(['mintlify.staticExport']);
    // A value that is not a block is not one; config-key's own check names it.
    expect(blockPaths('deploy/values.yaml', 'mintlify:\n  staticExport: true\n', 'staticExport')).toEqual([]);
  });

  it('names every place when there are several, and reads JSON alike', () => {
    const two = JSON.stringify({ docs: { staticExport: { bundleUrl: LINK } }, blog: { mintlify: { staticExport: null } } }, null, 2);
    expect(blockPaths('deploy/values.json', two, 'staticExport')).toEqual(['docs.staticExport', 'blog.mintlify.staticExport']);
    expect(misplacedBlock('deploy/values.json', two, 'staticExport')?.message).toContain('it holds "docs.staticExport", "blog.mintlify.staticExport" instead. A run would add a staticExport block that the chart never reads. To edit the block the chart reads, set config-key to the one your chart reads.');
  });

  describe.each(REAL)('on the real file %s', (name) => {
    const yaml = readFileSync(new URL(name, DIR), 'utf8');
    if (name === DUPLICATE_KEY) {
      it('fails as the edit does: the file is not valid YAML', () => {
        expect(() => misplacedBlock('values.yaml', yaml, 'staticExport')).toThrow(ConfigFileError);
      });
      return;
    }
    const json = JSON.stringify(parseDocument(yaml, { merge: true }).toJS({ maxAliasCount: -1 }) ?? {}, null, 2);
    // The parent of the umbrella block: the file's first top-level key that holds a mapping.
    const root = parseDocument(yaml).toJS({ maxAliasCount: -1 }) as Record<string, unknown> | null;
    const parent = Object.keys(root ?? {}).find((key) => /^[A-Za-z0-9_-]+$/.test(key) && typeof root![key] === 'object' && root![key] !== null && !Array.isArray(root![key])) ?? 'mintlify';

    it.each([
      ['values.yaml', yaml],
      ['values.json', json]
    ])('%s: no false alarm as it is; the block the edit puts under a parent key is found and named', (path, text) => {
      expect(misplacedBlock(path, text, 'staticExport')).toBeUndefined();
      const nested = patchValuesFile(path, text, `${parent}.staticExport`, { bundleUrl: LINK }).text;
      expect(misplacedBlock(path, nested, `${parent}.staticExport`)).toBeUndefined();
      expect(misplacedBlock(path, nested, 'staticExport')?.message).toContain(`set config-key: ${parent}.staticExport.`);
      // Once the top-level block exists too, config-key points at a block: no refusal.
      const both = patchValuesFile(path, nested, 'staticExport', { bundleUrl: LINK }).text;
      expect(misplacedBlock(path, both, 'staticExport')).toBeUndefined();
    });
  });
});

describe("GitHub's answer about write access", () => {
  it("refuses a token whose role has no push, naming github-token; says nothing where GitHub says nothing", () => {
    expect(cannotWrite(REPO, { admin: false, maintain: false, push: false, triage: false, pull: true })?.message).toMatch(
      /^Input 'github-token': can read acme\/deploy but not write to it: GitHub says its role there has no push access\. .*Nothing was exported\.$/
    );
    expect(cannotWrite(REPO, { admin: false, push: true, pull: true })).toBeUndefined();
    // An installation token (GITHUB_TOKEN, an App's) is told no role, or in older answers all false.
    expect(cannotWrite(REPO, undefined)).toBeUndefined();
    expect(cannotWrite(REPO, { admin: false, push: false, pull: false })).toBeUndefined();
  });
});

describe('refuseBeforeExport', () => {
  const target = { repo: REPO, path: 'deploy/values.yaml', key: 'staticExport', prBranch: 'static-export/deploy-values.yaml', dryRun: false };
  const readOnly = { pull: true, push: false };

  it('refuses pr-branch on the default branch once GitHub names it, then a read-only token, then a misplaced block', () => {
    const base = { branch: 'main', text: 'mintlify:\n  staticExport: {}\n', permissions: readOnly };
    expect(() => refuseBeforeExport({ target: { ...target, prBranch: 'main' }, base })).toThrow("Input 'pr-branch': 'main' is the repository's default branch");
    expect(() => refuseBeforeExport({ target, base })).toThrow("Input 'github-token': can read acme/deploy but not write to it");
    expect(() => refuseBeforeExport({ target, base: { ...base, permissions: undefined } })).toThrow("Input 'config-key': is staticExport (the default)");
    expect(() => refuseBeforeExport({ target: { ...target, key: 'mintlify.staticExport' }, base: { ...base, permissions: undefined } })).not.toThrow();
  });

  it('lets a dry run read with a token that cannot write: it writes nothing', () => {
    expect(() => refuseBeforeExport({ target: { ...target, dryRun: true }, base: { branch: 'main', text: '', permissions: readOnly } })).not.toThrow();
  });
});

describe('a failure after the export', () => {
  it('names the job to re-run with, once, and the branch left behind', () => {
    const said = 'Could not open a pull request from static-export/deploy-values.yaml into main in acme/deploy: GitHub Actions may not create pull requests here';
    expect(leftAfterExport(said, { jobId: 'se_7c4e9b2a1d6f3e80', branchLeft: 'static-export/deploy-values.yaml', repo: REPO })).toBe(
      `${said}. The export job se_7c4e9b2a1d6f3e80 is done: once the cause is fixed, re-run with job-id: se_7c4e9b2a1d6f3e80 to propose it without exporting again. ` +
        "Branch static-export/deploy-values.yaml in acme/deploy holds this run's change, but no pull request shows it: the re-run opens the pull request from it, or delete the branch to drop the change."
    );
    // A message that already names the job (GitHub's 5xx, the step's deadline) is not told twice.
    const named = '… in a few minutes, re-run with job-id: se_7c4e9b2a1d6f3e80 to propose this export without exporting again.';
    expect(leftAfterExport(named, { jobId: 'se_7c4e9b2a1d6f3e80' })).toBe(named);
    expect(leftAfterExport(named, { jobId: 'se_7c4e9b2a1d6f3e80', branchLeft: 'b' })).toBe(`${named} Branch b holds this run's change, but no pull request shows it: the re-run opens the pull request from it, or delete the branch to drop the change.`);
  });
});

// The version a user copies: every `uses:` of this repository's actions in the README and docs/ names
// the same tag, the one a release of package.json's version moves (`npm run release` refuses
// otherwise), and every other `uses:` is an action of GitHub's or AWS's, not a stray copy of ours
// under another name (`your-org/static-export-action@v1`).
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { usesLines } from '../scripts/release.ts';

const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const major = `v${version.split('.')[0]}`;
const lines = usesLines();

describe('the uses: lines users copy', () => {
  it("name this action as <owner>/<repo>, at the tag a release of package.json's version moves", () => {
    const ours = lines.filter((line) => line.ours !== undefined);
    expect(ours.length).toBeGreaterThanOrEqual(10);
    expect(ours.filter((line) => line.ours !== major).map((line) => `${line.where} ${line.uses}`)).toEqual([]);
  });

  it("name no other action than this one's, GitHub's and AWS's", () => {
    const others = lines.filter((line) => line.ours === undefined && !/^(actions|aws-actions)\/[\w-]+@v\d+$/.test(line.uses));
    expect(others.map((line) => `${line.where} ${line.uses}`)).toEqual([]);
  });

  it('must all name the tag being released, or npm run release refuses before it tags anything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'release-uses-'));
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x', version: '2.0.0' }));
      writeFileSync(join(dir, 'CHANGELOG.md'), '# Changelog\n\n## [2.0.0] - 2026-12-01\n\n- Something.\n');
      writeFileSync(join(dir, 'README.md'), '```yaml\nsteps:\n  - uses: <owner>/<repo>@v1\n```\n');
      const run = spawnSync(process.execPath, [resolve('scripts/release.ts'), '2.0.0', '--dry-run'], { cwd: dir, encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('README.md:3 uses <owner>/<repo>@v1: this release moves v2. Make every uses: of this action name @v2, commit, and release again.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The release script against a real bare git remote in a temp folder: what it refuses, and that a
// release leaves vX.Y.Z and vX on the remote pointing at the released commit.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const script = resolve('scripts/release.ts');
let root: string;
let work: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function write(file: string, text: string): void {
  writeFileSync(join(work, file), text);
}

function project(version: string, changelogVersions: string[]): void {
  write('package.json', JSON.stringify({ name: 'x', version, private: true, scripts: { build: 'node build.mjs' } }));
  // A build that makes dist/ from src/, as ncc does for the real project.
  write('build.mjs', "import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';\nmkdirSync('dist', { recursive: true });\nwriteFileSync('dist/index.js', readFileSync('src/main.txt', 'utf8').toUpperCase());\n");
  write('CHANGELOG.md', `# Changelog\n\n## [Unreleased]\n\n${changelogVersions.map((v) => `## [${v}] - 2026-11-24\n\n- Something.\n`).join('\n')}`);
}

function commitAll(message: string): void {
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', message);
}

function release(...args: string[]) {
  return spawnSync(process.execPath, [script, ...args], { cwd: work, encoding: 'utf8' });
}

function remoteTag(tag: string): string | undefined {
  const line = git(root + '/remote.git', 'for-each-ref', '--format=%(*objectname) %(objectname)', `refs/tags/${tag}`);
  if (!line) return undefined;
  const [peeled, direct] = line.split(' ');
  return peeled || direct;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'release-test-'));
  git(root, 'init', '-q', '--bare', 'remote.git');
  work = join(root, 'work');
  mkdirSync(join(work, 'src'), { recursive: true });
  git(work, 'init', '-q', '-b', 'main');
  git(work, 'remote', 'add', 'origin', join(root, 'remote.git'));
  git(work, 'config', 'user.email', 'dev@example.com');
  git(work, 'config', 'user.name', 'Dev');
  write('src/main.txt', 'hello');
  project('1.2.0', ['1.2.0']);
  execFileSync('node', ['build.mjs'], { cwd: work });
  commitAll('first');
  git(work, 'push', '-q', '-u', 'origin', 'main');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('npm run release', () => {
  it('tags vX.Y.Z and moves vX on the remote, in one push', () => {
    const first = release('1.2.0');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const head = git(work, 'rev-parse', 'HEAD');
    expect(remoteTag('v1.2.0')).toBe(head);
    expect(remoteTag('v1')).toBe(head);

    write('src/main.txt', 'hello again');
    project('1.3.0', ['1.3.0', '1.2.0']);
    execFileSync('node', ['build.mjs'], { cwd: work });
    commitAll('second');
    git(work, 'push', '-q');
    expect(release('1.3.0').status).toBe(0);
    const next = git(work, 'rev-parse', 'HEAD');
    expect(remoteTag('v1.3.0')).toBe(next);
    expect(remoteTag('v1')).toBe(next);
    expect(remoteTag('v1.2.0')).toBe(head);
  });

  it('with --dry-run checks everything and tags nothing', () => {
    const run = release('1.2.0', '--dry-run');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Dry run: would tag v1.2.0 and move v1');
    expect(remoteTag('v1.2.0')).toBeUndefined();
    expect(git(work, 'tag', '--list')).toBe('');
  });

  it.each([
    ['a version that is not X.Y.Z', () => {}, ['v1.2'], 'Give the version to release as X.Y.Z'],
    ['a package.json of another version', () => {}, ['1.2.1'], 'package.json says version 1.2.0; set it to 1.2.1'],
    ['no CHANGELOG section', () => { project('1.2.0', []); commitAll('no changelog'); git(work, 'push', '-q'); }, ['1.2.0'], 'CHANGELOG.md has no "## [1.2.0]" section'],
    ['uncommitted changes', () => write('src/main.txt', 'edited'), ['1.2.0'], 'uncommitted changes'],
    ['a commit not pushed', () => { write('notes.txt', 'x'); commitAll('local only'); }, ['1.2.0'], 'is not on origin/main: push it first'],
    ['a dist/ that src/ no longer builds', () => { write('src/main.txt', 'changed'); commitAll('src without dist'); git(work, 'push', '-q'); }, ['1.2.0'], 'dist/ is not what src/ builds'],
    ['a tag that exists', () => { git(work, 'tag', 'v1.2.0'); git(work, 'push', '-q', 'origin', 'v1.2.0'); }, ['1.2.0'], 'Tag v1.2.0 already exists']
  ])('refuses %s, saying what to do, and pushes no tag', (_name, arrange, args, message) => {
    arrange();
    const before = git(root + '/remote.git', 'tag', '--list');
    const run = release(...(args as string[]));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(message);
    expect(git(root + '/remote.git', 'tag', '--list')).toBe(before);
    expect(remoteTag('v1')).toBeUndefined();
  });
});

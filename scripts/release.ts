// Release: `npm run release -- X.Y.Z [--dry-run]`. Users pin `@vX` (or `@vX.Y.Z`), and the runner
// runs the committed dist/ as it is, so a release is a tag on a pushed commit whose dist/ is what
// src/ builds. The script checks that first, then tags vX.Y.Z, moves vX to it, and pushes both in
// one atomic push, so the two tags never point at different commits on the remote.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';

class ReleaseError extends Error {}

function git(...args: string[]): string {
  return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new ReleaseError(message);
}

/** A `uses:` line of a workflow in the README or docs/: where it is, and what it names. */
export interface UsesLine {
  where: string;
  uses: string;
  /** For this repository's actions (`<owner>/<repo>[/renew|/host|/agent-job|/feedback]@vN`), the version named. */
  ours?: string;
}

const OUR_USES = /^<owner>\/<repo>(?:\/(?:renew|host|agent-job|feedback))?@(.+)$/;

/** Every `uses:` in the README and the pages of docs/ (the pages users copy workflows from). */
export function usesLines(): UsesLine[] {
  const pages = ['README.md', ...(existsSync('docs') ? readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`) : [])];
  return pages.filter((page) => existsSync(page)).flatMap((page) =>
    readFileSync(page, 'utf8')
      .split('\n')
      .flatMap((line, i) => {
        const uses = /^\s*(?:-\s+)?uses:\s*(\S+)/.exec(line)?.[1];
        return uses === undefined ? [] : [{ where: `${page}:${i + 1}`, uses, ours: OUR_USES.exec(uses)?.[1] }];
      })
  );
}

export function release(argv: string[], log: (line: string) => void = console.log): void {
  const dryRun = argv.includes('--dry-run');
  const version = argv.find((arg) => !arg.startsWith('--'));
  const remote = process.env.RELEASE_REMOTE ?? 'origin';
  check(version !== undefined && /^\d+\.\d+\.\d+$/.test(version), `Give the version to release as X.Y.Z, e.g. npm run release -- 1.2.0 (got ${version ?? 'nothing'}).`);
  const major = `v${version!.split('.')[0]}`;
  const tag = `v${version}`;

  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version?: string };
  check(pkg.version === version, `package.json says version ${pkg.version}; set it to ${version} and commit, then run this again.`);
  const changelog = readFileSync('CHANGELOG.md', 'utf8');
  check(new RegExp(`^## \\[${version!.replaceAll('.', '\\.')}\\]`, 'm').test(changelog), `CHANGELOG.md has no "## [${version}]" section: move the Unreleased notes under it and commit.`);
  // Users copy their `uses:` from the README and docs/: each must name the tag this release moves.
  const stray = usesLines().filter((line) => line.ours !== undefined && line.ours !== major);
  check(stray.length === 0, `${stray.map((line) => `${line.where} uses ${line.uses}`).join('; ')}: this release moves ${major}. Make every uses: of this action name @${major}, commit, and release again.`);
  check(git('status', '--porcelain') === '', 'The work tree has uncommitted changes: commit or stash them, so the tag holds exactly what you tested.');

  const head = git('rev-parse', 'HEAD');
  git('fetch', '--quiet', '--tags', remote);
  const branch = git('rev-parse', '--abbrev-ref', 'HEAD');
  const pushed = spawnSync('git', ['merge-base', '--is-ancestor', head, `${remote}/${branch}`]).status === 0;
  check(pushed, `Commit ${head.slice(0, 7)} is not on ${remote}/${branch}: push it first, so the tag points at a commit everyone can fetch.`);
  check(git('tag', '--list', tag) === '', `Tag ${tag} already exists: a released version never moves. Release the next version instead.`);

  // dist/ must be what src/ builds now (source maps aside: ncc orders their sources differently
  // from one machine to the next, with the same bundle).
  log('Rebuilding dist/ to check that it is current…');
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const stale = git('status', '--porcelain', '--', 'dist', ':(exclude,glob)dist/**/*.map');
  git('checkout', '--', 'dist');
  check(stale === '', `dist/ is not what src/ builds:\n${stale}\nRun npm run build, commit dist/, push, and release again.`);

  if (dryRun) {
    log(`Dry run: would tag ${tag} and move ${major} to ${head.slice(0, 7)}, then push both to ${remote}.`);
    return;
  }
  git('tag', '--annotate', tag, '--message', `Release ${tag}`);
  git('tag', '--force', '--annotate', major, '--message', `Latest ${major} release: ${tag}`);
  // One atomic push: the new tag, and the moved major tag (forced, since it moves on purpose).
  git('push', '--atomic', remote, `refs/tags/${tag}`, `+refs/tags/${major}:refs/tags/${major}`);
  log(`Released ${tag}; ${major} now points at it (${head.slice(0, 7)}). Users of @${major} get it on their next run.`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    release(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof ReleaseError ? error.message : error);
    process.exitCode = 1;
  }
}

// The guard on production's link, as a pure function of one run's facts: which run fails (the one
// whose owner can act), which only warns, when it keeps quiet (enabled: false, no pull request, a link
// far from expiry for its lifetime), what the pull request's first line says, and how rarely it changes.
import { describe, expect, it } from '@jest/globals';
import { type FailWhen, type ProductionFacts, EXPIRING_LABEL, firstLineOf, guardProduction, guardWindows, withFirstLine, withUrgentLine } from '../src/publish/production-guard.ts';
import { linkLifetime } from '../src/values/link.ts';
import { withPullLinks } from '../src/publish/summary.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 27, 3, 17);
const URL = 'http://127.0.0.1:9/acme/deploy/pull/4';

/** A presigned link on a host that never resolves, signed `ageMs` before NOW to live `lifetimeMs`. */
function link(ageMs: number, lifetimeMs: number): string {
  const date = new Date(NOW - ageMs).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  return `https://bundles.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Date=${date}&X-Amz-Expires=${lifetimeMs / 1000}&X-Amz-Signature=0f3c9d1e2a`;
}

/** Facts of a run with production's week-long link `leftMs` from expiry and pull request #4 waiting. */
function facts(leftMs: number, extra: Partial<ProductionFacts> = {}): ProductionFacts {
  return {
    deployedLink: link(7 * DAY - leftMs, 7 * DAY),
    enabled: true,
    pending: { number: 4, url: URL },
    path: 'deploy/values.yaml',
    baseBranch: 'main',
    marginMs: 72 * HOUR,
    failWhen: 'auto',
    event: 'schedule',
    dryRun: false,
    now: NOW,
    ...extra
  };
}

describe('which run fails: the one whose owner can act', () => {
  it.each<[string, string | undefined, FailWhen, 'warn' | 'fail']>([
    ['a scheduled run', 'schedule', 'auto', 'fail'],
    ['a manual run', 'workflow_dispatch', 'auto', 'fail'],
    ['a run outside a workflow', undefined, 'auto', 'fail'],
    ['a push run', 'push', 'auto', 'warn'],
    ['a pull request\'s run', 'pull_request', 'auto', 'warn'],
    ['a push run', 'push', 'always', 'fail'],
    ['a scheduled run', 'schedule', 'never', 'warn']
  ])('%s (%s) with fail-when-production-expires: %s, 20 h left: %s', (_name, event, failWhen, level) => {
    const guard = guardProduction(facts(20 * HOUR, { event, failWhen }));
    expect(guard.level).toBe(level);
    expect(guard.urgent).toBe(true);
    expect(guard.labelled).toBe(true);
    expect(guard.message).toMatch(/^Production's link in deploy\/values\.yaml on main expires at 2026-11-27 23:17 UTC, in 20h 00m\. Merge pull request #4 \(http:\/\/127\.0\.0\.1:9\/acme\/deploy\/pull\/4\) and roll it out before then: after that, every pod that restarts cannot fetch the site\./);
  });

  it('a push run says why it only warns, and who fails instead', () => {
    expect(guardProduction(facts(20 * HOUR, { event: 'push' })).message).toMatch(/ This push run only warns: the nightly renew\/ run, scheduled or manual, fails for it\.$/);
    expect(guardProduction(facts(20 * HOUR, { failWhen: 'never' })).message).toMatch(/ This step does not fail for it\.$/);
  });

  it('a dry run reports and never fails, also for the pull request it would open', () => {
    const guard = guardProduction(facts(20 * HOUR, { dryRun: true, failWhen: 'always', pending: {} }));
    expect(guard.level).toBe('warn');
    expect(guard.message).toContain('Merge the pull request this dry run would open and roll it out before then');
    expect(guard.message).toMatch(/ A dry run reports this and does not fail\.$/);
  });

  it('the summary gets the pull request as a Markdown link', () => {
    expect(guardProduction(facts(20 * HOUR)).markdown).toContain(`Merge [pull request #4](${URL}) and roll it out before then`);
  });
});

describe('nothing to guard', () => {
  it.each([
    ['enabled: false on the base', facts(20 * HOUR, { enabled: false })],
    ['no pull request waits', facts(20 * HOUR, { pending: undefined })],
    ['a URL without an expiry', facts(20 * HOUR, { deployedLink: 'https://bundles.invalid/se_3f9a2c1b8e7d4a06/bundle.tar.gz' })],
    ['4 days left of a week', facts(4 * DAY)],
    ['60 h left with link-margin off', facts(60 * HOUR, { marginMs: undefined })]
  ])('%s: ok, no first line, no label', (_name, given) => {
    const guard = guardProduction(given);
    expect([guard.level, guard.firstLine, guard.labelled, guard.message]).toEqual(['ok', undefined, false, undefined]);
  });
});

describe('the window follows the link\'s lifetime', () => {
  it.each([
    ['a week', 48, 72, 7 * DAY],
    ['72 hours', 48, 48, 72 * HOUR],
    ['two days', 24, 24, 2 * DAY],
    ['a day', 12, 12, DAY],
    ['six hours', 3, 3, 6 * HOUR]
  ])('a link that lives %s fails within %i h and warns within %i h (link-margin 72h)', (_name, failHours, warnHours, lifetime) => {
    expect(guardWindows(link(0, lifetime), 72 * HOUR)).toEqual({ failWithinMs: failHours * HOUR, warnWithinMs: warnHours * HOUR });
  });

  it('a link that does not say how long it lives is taken to live a week (S3\'s longest)', () => {
    expect(guardWindows(`https://cdn.invalid/se_3f9a2c1b8e7d4a06/b.tar.gz?Expires=${(NOW + DAY) / 1000}&Signature=abcdefgh&Key-Pair-Id=K2`, 72 * HOUR)).toEqual({ failWithinMs: 48 * HOUR, warnWithinMs: 72 * HOUR });
  });

  it('one-day links: quiet right after a merge (23 h left), failing a scheduled run with 11 h left', () => {
    const oneDay = (leftMs: number) => facts(leftMs, { deployedLink: link(DAY - leftMs, DAY) });
    expect(guardProduction(oneDay(23 * HOUR)).level).toBe('ok');
    expect(guardProduction(oneDay(11 * HOUR)).level).toBe('fail');
  });

  it('inside link-margin but not yet urgent: a warning, ⚠️ rather than 🛑, the label all the same', () => {
    const guard = guardProduction(facts(60 * HOUR, { event: 'schedule' }));
    expect([guard.level, guard.urgent, guard.labelled]).toEqual(['warn', false, true]);
    expect(guard.firstLine).toBe("⚠️ **Production's link expires in 2 days** (2026-11-29 15:17 UTC): merge and roll out this pull request before then; after that, pods that restart cannot fetch the site.");
  });

  it('reads the lifetime of S3, Google and Azure links, and none from a link that does not say', () => {
    expect(linkLifetime(link(0, 7 * DAY))).toBe(7 * DAY);
    expect(linkLifetime('https://storage.invalid/b/se_3f9a2c1b8e7d4a06.tar.gz?X-Goog-Date=20261127T031700Z&X-Goog-Expires=3600&X-Goog-Signature=ab12cd34ef')).toBe(HOUR);
    expect(linkLifetime('https://acct.blob.invalid/c/se_3f9a2c1b8e7d4a06.tar.gz?st=2026-11-27T00:00Z&se=2026-11-28T00:00Z&sig=abcdefgh')).toBe(DAY);
    expect(linkLifetime('https://acct.blob.invalid/c/b.tar.gz?se=2026-11-28T00:00Z&sig=abcdefgh')).toBeUndefined();
  });
});

describe('the pull request\'s first line', () => {
  it('says how long production has left, rounded to the hour, so a run within the same hour writes nothing', () => {
    const line = (leftMs: number) => guardProduction(facts(leftMs)).firstLine;
    expect(line(20 * HOUR + 50 * 60_000)).toBe("🛑 **Production's link expires in 20 hours** (2026-11-28 00:07 UTC): merge and roll out this pull request before then; after that, pods that restart cannot fetch the site.");
    expect(line(20 * HOUR + 10 * 60_000)!.slice(0, 50)).toBe(line(20 * HOUR + 50 * 60_000)!.slice(0, 50));
    expect(line(19 * HOUR + 59 * 60_000)).toContain('expires in 19 hours');
    expect(line(30 * 60_000)).toContain('expires in less than an hour');
    expect(line(-3.5 * HOUR)).toBe("🛑 **Production's link expired 3 hours ago** (2026-11-26 23:47 UTC): merge and roll out this pull request now; until then, pods that restart cannot fetch the site.");
  });

  it('a pull request that cannot be merged is never told "merge": it is told to resolve the conflict first', () => {
    const guard = guardProduction(facts(20 * HOUR, { pending: { number: 4, url: URL, mergeable: false } }));
    expect(guard.message).not.toMatch(/\bMerge pull request/);
    expect(guard.message).toContain(`Pull request #4 (${URL}) cannot be merged as it is: it conflicts with main. Resolve the conflict on its branch (GitHub's "Resolve conflicts"), then merge it and roll it out before then`);
    expect(guard.firstLine).toContain('this pull request cannot be merged as it is (it conflicts with main): resolve the conflict, then merge it and roll it out.');
  });

  it('is put first, replaced and taken off, leaving the rest of the body as it was', () => {
    const body = 'Renews the static export link.\n\n| Export job | `se_3f9a2c1b8e7d4a06` |';
    const first = guardProduction(facts(20 * HOUR)).firstLine!;
    const marked = withFirstLine(body, first);
    expect(marked).toBe(`${first}\n\n${body}`);
    expect(firstLineOf(marked)).toBe(first);
    const later = guardProduction(facts(5 * HOUR)).firstLine!;
    expect(withFirstLine(marked, later)).toBe(`${later}\n\n${body}`);
    expect(withFirstLine(marked, undefined)).toBe(body);
    expect(withFirstLine(body, undefined)).toBe(body);
    expect(firstLineOf(body)).toBeUndefined();
    expect(EXPIRING_LABEL).toBe('production-link-expiring');
  });

  it("a refused renewal's urgent line sits under the guard's line, each replaced in place run after run", () => {
    const body = 'Renews the static export link.';
    const urgent = (n: number) => `**🚨 Urgent: production's link expires in ${n} hours.** Merge it and roll it out.`;
    const guardLine = guardProduction(facts(20 * HOUR)).firstLine!;
    // A first run: the urgent line, then report() puts the guard's line above it.
    const once = withFirstLine(withUrgentLine(body, urgent(20)), guardLine);
    expect(once).toBe(`${guardLine}\n\n${urgent(20)}\n\n${body}`);
    // The next run replaces both in place: nothing stacks up.
    const later = guardProduction(facts(19 * HOUR)).firstLine!;
    expect(withFirstLine(withUrgentLine(once, urgent(19)), later)).toBe(`${later}\n\n${urgent(19)}\n\n${body}`);
    // A body that is only an urgent line loses it too.
    expect(withUrgentLine(urgent(20), urgent(19))).toBe(`${urgent(19)}\n\n`);
  });
});

describe('links in the summary', () => {
  it('a message the log shows with "pull request #4 (https://…)" is a link to click in the summary, the rest escaped', () => {
    const message = `Export se_3f9a2c1b8e7d4a06 was proposed in pull request #4 (${URL}), which a person closed <without> merging.`;
    expect(withPullLinks(message)).toBe(`Export se_3f9a2c1b8e7d4a06 was proposed in <a href="${URL}">pull request #4</a>, which a person closed &lt;without&gt; merging.`);
    expect(withPullLinks('Pull request #12 (https://github.invalid/acme/deploy/pull/12) cannot be merged as it is')).toBe('<a href="https://github.invalid/acme/deploy/pull/12">Pull request #12</a> cannot be merged as it is');
  });
});

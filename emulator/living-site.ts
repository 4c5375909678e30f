// The site a domain's exports hold when a test sets none: pages named like a docs site's, and each
// export changing a few of them from the one before (pages added, removed and edited), as a team's
// pushes do. So a pull request's content diff has something to show, and the export's page count,
// the pages in its archive and the deployment's count agree.
import type { SiteSpec } from './archive.ts';

/** What each export of a domain changes from the one before. */
export interface SiteChanges {
  added: number;
  removed: number;
  edited: number;
}

/** Two pages in, two out (so the count stays), three edited: a week of a docs team's pushes. */
export const DEFAULT_SITE_CHANGES: SiteChanges = { added: 2, removed: 2, edited: 3 };
/** The same pages in every export: for a test that compares exports and wants no difference. */
export const NO_SITE_CHANGES: SiteChanges = { added: 0, removed: 0, edited: 0 };

const SECTIONS = ['guides', 'api-reference', 'concepts', 'integrations', 'self-hosting', 'changelog'];
const TOPICS = [
  'quickstart', 'authentication', 'webhooks', 'pagination', 'errors', 'rate-limits', 'deployments', 'custom-domains',
  'search', 'analytics', 'versioning', 'navigation', 'components', 'themes', 'redirects', 'sso',
  'environments', 'api-keys', 'exports', 'agents', 'feedback', 'releases', 'migrations', 'troubleshooting'
];

/** The `index`-th page a site ever had: `index.html` first, then `guides/quickstart.html`… */
export function pageName(index: number): string {
  if (index === 0) return 'index.html';
  const section = SECTIONS[(index - 1) % SECTIONS.length]!;
  const topic = TOPICS[Math.floor((index - 1) / SECTIONS.length) % TOPICS.length]!;
  const round = Math.floor((index - 1) / (SECTIONS.length * TOPICS.length));
  return `${section}/${topic}${round > 0 ? `-${round + 1}` : ''}.html`;
}

interface SiteVersion {
  pages: string[];
  edits: Record<string, string>;
  /** The index of the next page a later export adds. */
  nextPage: number;
  version: number;
}

/** Each domain's latest site; every export of it (started or seeded) takes the next version. */
export class LivingSites {
  private readonly sites = new Map<string, SiteVersion>();
  private lastDomain: string | undefined;

  /** The site the next export of `domain` holds: `pageCount` pages the first time, then as `changes` says. */
  next(domain: string, pageCount: number, changes: SiteChanges): SiteSpec {
    const before = this.sites.get(domain);
    const site = before ? advance(before, changes) : firstVersion(pageCount);
    this.sites.set(domain, site);
    this.lastDomain = domain;
    return { pages: [...site.pages], edits: { ...site.edits } };
  }

  /** How many pages the next export will hold, of the domain exported last: what a deployment builds. */
  nextPageCount(pageCount: number, changes: SiteChanges): number {
    const before = this.lastDomain === undefined ? undefined : this.sites.get(this.lastDomain);
    return before ? advance(before, changes).pages.length : pageCount;
  }
}

function firstVersion(pageCount: number): SiteVersion {
  return { pages: Array.from({ length: pageCount }, (_, i) => pageName(i)), edits: {}, nextPage: pageCount, version: 0 };
}

function advance(site: SiteVersion, changes: SiteChanges): SiteVersion {
  const version = site.version + 1;
  // The home page stays: an export without it is refused, and no team removes it in a push.
  const home = site.pages.filter((page) => page === 'index.html');
  const others = site.pages.filter((page) => page !== 'index.html');
  const removed = Math.min(Math.max(0, changes.removed), others.length);
  // The oldest pages go first, so a page is never removed in the export that added it.
  const kept = others.slice(removed);
  const edits = { ...site.edits };
  for (const page of others.slice(0, removed)) delete edits[page];
  const edited = Math.min(Math.max(0, changes.edited), kept.length);
  // Spread the edits over the kept pages, from a different place each version.
  for (let i = 0; i < edited; i++) {
    const page = kept[(version * 7 + i * Math.max(1, Math.floor(kept.length / edited))) % kept.length]!;
    edits[page] = `Revised in export ${version}: the steps on this page now match the current release.`;
  }
  const added = Math.max(0, changes.added);
  const fresh = Array.from({ length: added }, (_, i) => pageName(site.nextPage + i));
  return { pages: [...home, ...kept, ...fresh], edits, nextPage: site.nextPage + added, version };
}

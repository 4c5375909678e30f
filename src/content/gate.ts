// What merging changes for readers, as one value, and the gate that keeps an export that lost most
// of the site out of review. Pure: the comparison is done (compare.ts); here it is only judged.
import type { SiteComparison } from './compare.ts';

export type ContentDiff =
  /** Production's export was read and compared page by page. `readFrom` says how it was fetched. */
  | {
      kind: 'compared';
      deployedLink: string;
      deployedJobId?: string;
      readFrom: string;
      comparison: SiteComparison;
      /** The site's domain, when the run knows it: pages added or changed link to `https://<domain><path>`. */
      domain?: string;
    }
  /**
   * The export production serves, not a page changed: a fresh link for it, or (`hosted`) the URL the
   * team hosts it at, which is no renewal.
   */
  | { kind: 'renewal'; jobId: string; hosted?: boolean }
  /** Nothing is deployed yet. */
  | { kind: 'first'; proposedPages: number }
  /** Production's export could not be read; `reason` says why. */
  | { kind: 'unavailable'; deployedLink: string; reason: string; proposedPages: number };

export interface GateSettings {
  /** The share (0..1) of production's pages an export may lose; undefined: any share. */
  maxPageLoss: number | undefined;
  /** As the user wrote it, for messages. */
  maxPageLossText: string;
  allowMissingHomePage: boolean;
  /** The inputs' names, for messages. */
  inputs: { maxPageLoss: string; allowMissingHomePage: string };
}

/** How many paths a message names before "and N more". */
const NAMED = 5;

export function proposedPages(diff: ContentDiff): number | undefined {
  if (diff.kind === 'compared') return diff.comparison.proposedPages;
  return diff.kind === 'renewal' ? undefined : diff.proposedPages;
}

/** Why the export must not be proposed, or undefined when it may. */
export function refusal(diff: ContentDiff, gate: GateSettings): string | undefined {
  const after = ' Nothing was proposed: the configuration and any open pull request are unchanged, and production keeps its export.';
  const pages = proposedPages(diff);
  if (pages === 0) {
    const had = diff.kind === 'compared' ? `, while production's has ${diff.comparison.deployedPages}` : '';
    return (
      `The new export has no pages at all (no .html file in the bundle${had}).${after} ` +
      'No input accepts an empty export: check domain, version and paths, and that the platform published the docs.'
    );
  }
  if (diff.kind !== 'compared') return undefined;
  const { comparison } = diff;
  if (comparison.removed.includes('/') && !gate.allowMissingHomePage) {
    return (
      `The new export has no home page (/, index.html at the bundle's root), which production's has: readers who open the site would get an error.${after} ` +
      `If the site has no home page on purpose, run again with ${gate.inputs.allowMissingHomePage}: true.`
    );
  }
  const lost = comparison.removed.length;
  const share = comparison.deployedPages === 0 ? 0 : lost / comparison.deployedPages;
  if (gate.maxPageLoss === undefined || share <= gate.maxPageLoss) return undefined;
  const named = comparison.removed.slice(0, NAMED).join(', ') + (lost > NAMED ? ` and ${lost - NAMED} more` : '');
  return (
    `The new export loses ${lost} of production's ${comparison.deployedPages} pages (${percent(share)}), more than ${gate.inputs.maxPageLoss} allows (${gate.maxPageLossText}): ${named}.${after} ` +
    // The share rounded up, as percent() shows it, is the smallest whole-percent setting that accepts this loss.
    `A wrong paths or version input, or a build that published half the docs, looks like this. If the pages went on purpose, run again with ${gate.inputs.maxPageLoss}: ${percent(share)}.`
  );
}

/** 12.5% → "13%"; never rounds a loss down to the threshold it crossed. */
export function percent(share: number): string {
  return `${Math.ceil(share * 100)}%`;
}

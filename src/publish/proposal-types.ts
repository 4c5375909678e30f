// What a proposal is about: where the values file lives and how to propose into it (ConfigTarget), and
// the export whose link it proposes (PublishedBundle), and what GitHub holds for it (ProposalFacts).
// Types only, shared by the proposal, its body and the plan (reconcile.ts), so none of them imports another for a type.
import type { Bundle, ExportJob } from '../platform/static-export.ts';
import type { ContentDiff } from '../content/gate.ts';
import type { BaseFile, Repo, RepositoryFacts } from '../github/repository.ts';
import type { BranchHistory, OpenProposal, PullSummary } from '../github/pull-request.ts';

export interface ConfigTarget {
  repo: Repo;
  path: string;
  /** Dotted path of the static export block, e.g. `staticExport` or `mintlify.staticExport`. */
  key: string;
  /** Undefined: the repository's default branch. */
  baseBranch?: string;
  prBranch: string;
  /** True when pr-branch was left unset: the name then includes the base when it is not the default branch. */
  prBranchDefault?: boolean;
  /** Undefined: a title that says whether this is a new bundle or a renewed link. */
  title?: string;
  labels: string[];
  dryRun: boolean;
  /** auto-merge: renewals. The step merges a renewal of production's export itself (auto-merge.ts). */
  autoMergeRenewals?: boolean;
}

export interface PublishedBundle {
  domain?: string;
  job: ExportJob;
  bundle: Bundle;
  version?: string;
  /** A renewal: the run only renews a link, so it leaves `enabled` as the pull request or the base has it. */
  renewal?: boolean;
  /** Set when the platform's link expires sooner than link-margin: why, and what to do instead. */
  shortLink?: string;
  /** Set when the link is a URL the team hosts (bundle-url-template), checked as a pod would fetch it. */
  hosted?: { sha256: string; sha256Checked: boolean };
  /** The docs commit the run's deployment published (the export holds it or a push published moments later). */
  docsCommit?: { sha: string; branch: string };
  /** What merging changes for readers: the new export compared page by page with production's. */
  contentDiff?: ContentDiff;
  /** The content diff as the open pull request already shows it: a renewal of the proposed export is not compared again. */
  contentDiffText?: string;
  /** The pull request a person closed without merging before this one, named in the new one. */
  closedBefore?: { number: number; jobId?: string };
}

/**
 * What GitHub holds for one proposal, read once before anything is exported: the repository, the
 * values file on the base, and every pull request from the proposal branch (one list: the open one on
 * this base, those open on another, those closed without merging). Without any pull request from it,
 * the branch itself: absent, another run's that is about to open one, or a branch this action did not make.
 */
export interface ProposalFacts {
  /** repos.get's answer (permissions, default branch), for the checks made before an export. */
  repository: RepositoryFacts;
  base: BaseFile & { text: string; tree: string };
  /** The branch this proposal lives on, its default name resolved against the base. */
  prBranch: string;
  pulls: PullSummary[];
  /** The open pull request into this base. */
  open?: OpenProposal;
  /** Only when no pull request was ever opened from the branch: null when it does not exist. */
  unopened?: BranchHistory | null;
}

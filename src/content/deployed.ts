// Production's export, read to compare with a new one: from the link the values file holds while
// it works, else from a fresh link the platform generates for the job the link names (a link
// expires; the job stays), or from the URL the team hosts it at. Reuses the download's checks,
// retries, deadline and cancel; only the home page is left to the content gate to judge. Its pages
// go to the reader as they stream out of the archive: nothing is unpacked.
import type { Bundle } from '../platform/static-export.ts';
import { downloadBundle } from '../bundle/download.ts';
import type { EntryReader } from '../bundle/unpack.ts';
import type { Deadline } from '../action/deadline.ts';
import { formatUtc } from '../action/format.ts';
import { jobIdFromLink, linkExpiry, redactLink } from '../values/link.ts';

export interface DeployedFetch {
  /** The link in the values file on the base branch. */
  deployedLink: string;
  /** The export job the link names, when it names one (a platform link, or a hosted URL with the id in its path). */
  jobId?: string;
  /** A fresh link for a job (the generate operation); undefined without an api-key. */
  freshLink?: (jobId: string) => Promise<Bundle>;
  /** Where a zip waits while it is read (a zip is read by offset); nothing is unpacked there. */
  directory: string;
  /** Reads the pages, afresh on each attempt. */
  reader: () => EntryReader;
  deadline?: Deadline;
  signal?: AbortSignal;
  log: (line: string) => void;
  now?: number;
}

/** Reads production's export through `reader` and says how it was fetched. Throws when it cannot be read. */
export async function fetchDeployed(options: DeployedFetch): Promise<{ readFrom: string }> {
  const { deployedLink, freshLink, log } = options;
  const jobId = options.jobId ?? jobIdFromLink(deployedLink);
  const fresh = freshLink && jobId ? () => freshLink(jobId) : undefined;
  const common = {
    directory: options.directory,
    writeFiles: false,
    reader: options.reader,
    deadline: options.deadline,
    signal: options.signal,
    log,
    shownAs: "production's export, read to compare",
    requireHomePage: false
  };
  const expiry = linkExpiry(deployedLink);
  const expired = expiry !== undefined && expiry.getTime() <= (options.now ?? Date.now());
  if (!expired) {
    try {
      // One retry only: a link that does not answer is replaced by a fresh one rather than waited on.
      const downloaded = await downloadBundle({ ...common, bundle: { jobId: jobId ?? '', bundleUrl: deployedLink, expiresAt: expiry?.toISOString() ?? 'never' }, renew: fresh, retries: 1 });
      return { readFrom: downloaded.renewed ? `a fresh link for export ${jobId} (its deployed link was refused)` : `its deployed link ${redactLink(deployedLink)}` };
    } catch (error) {
      if (!fresh || options.signal?.aborted || options.deadline?.expired()) throw error;
      // The reason is a sentence of its own: quoted whole, not in parentheses, with one period.
      const reason = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
      log(`Production's link did not serve its export, so the run asks the platform for a fresh link to export ${jobId}. ${reason}.`);
    }
  } else if (!fresh) {
    throw new Error(
      `production's link expired at ${formatUtc(expiry.toISOString())}${jobId ? ', and without an api-key no fresh link can be generated for it' : ' and names no export job to generate a fresh link for'}`
    );
  }
  await downloadBundle({ ...common, bundle: await fresh!(), renew: fresh });
  return { readFrom: `a fresh link for export ${jobId}${expired ? ` (its deployed link expired ${formatUtc(expiry!.toISOString())})` : ''}` };
}

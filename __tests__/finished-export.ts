// An export the platform emulator has finished, of a given site, and the fresh link its generate
// operation gives: what a run with job-id proposes, without waiting on a job.
import type { SiteSpec } from '../emulator/archive.ts';
import { DEFAULT_API_KEY, type PlatformEmulator } from '../emulator/platform.ts';

export async function finishedExport(platform: PlatformEmulator, domain: string, site?: SiteSpec): Promise<{ jobId: string; link: string }> {
  platform.profile = { queuedMs: 0, runMs: 0, site };
  const jobId = platform.seedExportJob({ domain });
  const answer = await fetch(`${platform.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
  return { jobId, link: ((await answer.json()) as { bundleUrl: string }).bundleUrl };
}

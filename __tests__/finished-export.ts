// Exports and links on the platform emulator, for tests that run the action: an export the emulator
// has finished (what a run with job-id proposes, without waiting on a job), and a presigned link to
// a job's bundle there, signed when and for as long as a test needs.
import type { SiteSpec } from '../emulator/archive.ts';
import { DEFAULT_API_KEY, type PlatformEmulator } from '../emulator/platform.ts';

export async function finishedExport(platform: PlatformEmulator, domain: string, site?: SiteSpec): Promise<{ jobId: string; link: string }> {
  platform.profile = { queuedMs: 0, runMs: 0, site };
  const jobId = platform.seedExportJob({ domain });
  const answer = await fetch(`${platform.url}/v1/static-export/jobs/${jobId}/bundle`, { method: 'POST', headers: { authorization: `Bearer ${DEFAULT_API_KEY}` } });
  return { jobId, link: ((await answer.json()) as { bundleUrl: string }).bundleUrl };
}

/** A presigned-S3-shaped link to a job's bundle on the platform emulator, signed at `signedAt`, valid `seconds`. */
export function presignedLink(platform: PlatformEmulator, jobId: string, signedAt: number, seconds: number): string {
  const date = new Date(signedAt).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  return `${platform.url}/bundles/${jobId}/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20261121%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=${date}&X-Amz-Expires=${seconds}&X-Amz-SignedHeaders=host&X-Amz-Signature=0f3c9d`;
}

// The URL a team hosts the bundle at, from a template such as
// `https://bundles.internal.example.com/<job-id>/bundle.tar.gz`. Unlike the platform's presigned
// link it never expires, so a configuration that holds it has nothing to renew.
import { JOB_ID_SOURCE } from '../platform/static-export.ts';
import { PublishInput } from '../action/constants.ts';

const JOB_ID_PLACEHOLDER = '<job-id>';
const SAMPLE_JOB_ID = 'se_0123456789abcdef';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const PLAIN_HTTP_INPUT = PublishInput.AllowPlainHttp;

/**
 * What is wrong with a template, in a sentence that says how to fix it; undefined when it is fine.
 * `allowPlainHttp`: the team chose plain http:// (a MinIO or Ceph gateway inside the cluster's network).
 */
export function templateProblem(template: string, allowPlainHttp = false): string | undefined {
  const count = template.split(JOB_ID_PLACEHOLDER).length - 1;
  if (count !== 1) {
    return `'${template}' must contain ${JOB_ID_PLACEHOLDER} exactly once (it has it ${count} times), where the job id goes, for example https://bundles.example.com/${JOB_ID_PLACEHOLDER}/bundle.tar.gz.`;
  }
  let url: URL;
  try {
    url = new URL(durableUrl(template, SAMPLE_JOB_ID));
  } catch {
    return `'${template}' is not a URL. Give the full address the deployment fetches, for example https://bundles.example.com/${JOB_ID_PLACEHOLDER}/bundle.tar.gz.`;
  }
  if (url.username || url.password) return `'${template}' holds a user name or password; the deployment fetches the bundle anonymously, so leave them out.`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && (allowPlainHttp || LOOPBACK.has(url.hostname))) return undefined;
  return url.protocol === 'http:'
    ? `'${template}' is plain http://, which anyone on the path can read and replace: use https://, or, for storage inside the cluster's network (a MinIO or Ceph gateway), set ${PLAIN_HTTP_INPUT}: true.`
    : `'${template}' must start with https:// (or http:// with ${PLAIN_HTTP_INPUT}: true, for storage inside the cluster's network).`;
}

/** The template with the job id filled in. */
export function durableUrl(template: string, jobId: string): string {
  return template.replace(JOB_ID_PLACEHOLDER, jobId);
}

/** The job id a URL made from `template` holds, wherever the placeholder sits (even inside a file name). */
export function jobIdFromDurableUrl(template: string, url: string): string | undefined {
  const [before, after] = template.split(JOB_ID_PLACEHOLDER);
  const pattern = new RegExp(`^${escapeRegExp(before)}(${JOB_ID_SOURCE})${escapeRegExp(after)}$`);
  return pattern.exec(url)?.[1];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

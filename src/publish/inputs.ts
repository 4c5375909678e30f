// The root action's inputs, read and checked in one place before any request is sent, so a typo
// costs a second, not an export.
import { resolve } from 'node:path';
import * as core from '@actions/core';
import { type ExportRequest, JOB_ID } from '../platform/static-export.ts';
import { PublishInput as Input } from '../action/constants.ts';
import type { ConfigTarget } from './proposal-types.ts';
import type { ExportPlan } from './export.ts';
import { InputError, parseBoolean, parseHostname, parseList, parseRepository } from '../action/inputs.ts';
import { type PlatformInputs, readDuration, readPlatformInputs, readPollLimits } from '../action/platform-inputs.ts';
import type { ScheduleLimits } from '../wait/wait.ts';
import { templateProblem } from '../storage/durable-url.ts';
import type { PushedCommit } from './publication.ts';
import type { GateSettings } from '../content/gate.ts';
import { checkWithoutConfig, readConfigInputs } from './config-inputs.ts';
import { FAIL_WHEN, type FailWhen } from './production-guard.ts';

export interface PublishInputs extends PlatformInputs {
  /** What to export; `auto`: the job named by the link in the configuration file (a renewal). */
  plan: ExportPlan | 'auto';
  /** A new export of `domain`, when domain is given: the plan, or the fallback of a renewal. */
  request?: ExportRequest;
  /** Do nothing while the configured link stays valid this long. */
  minValidityMs?: number;
  /** The hostname, when given (it is optional with job-id). */
  domain?: string;
  version?: string;
  timeoutMs: number;
  /** As the user wrote it, for messages. */
  timeoutText: string;
  limits: ScheduleLimits;
  /** Where to unpack the bundle, as given and resolved against the workspace; unset: no download. */
  download?: { given: string; path: string };
  /** Set when config-path is: the configuration pull request to keep current. */
  config?: ConfigTarget & { token: string };
  /** Where to keep the archive as served (must not exist yet). */
  keepArchive?: { given: string; path: string };
  /**
   * bundle-url-template: propose the URL the team hosts instead of the platform's link. Such a run
   * sends nothing to the platform: the export was done and kept by an earlier step (archive).
   */
  durable?: { template: string; archive?: { given: string; path: string }; checkSha256: boolean };
  /** Warn when the platform's link expires sooner than this; undefined: never. */
  linkMarginMs?: number;
  /** As the user wrote it, for messages. */
  linkMarginText: string;
  /** Which runs fail when production's link is about to expire (production-guard.ts). */
  failWhenProductionExpires: FailWhen;
  /** GITHUB_EVENT_NAME; undefined outside a workflow. */
  event?: string;
  /**
   * Set when the step first waits for the platform to publish (wait-for-deployment). `github`: the
   * pushed repository and a token to compare the published commit with the pushed one.
   */
  publication?: { projectId: string; pushed?: PushedCommit; github?: { token: string; repo: { owner: string; repo: string } } };
  /** project-id, when given: the platform's project-scoped static export routes name it. */
  projectId?: string;
  /** With config-path: the content gate (what share of production's pages a new export may lose, and the home page). */
  contentGate: GateSettings;
}

export function readPublishInputs(): PublishInputs {
  const template = core.getInput(Input.BundleUrlTemplate).trim();
  // A run that only proposes a hosted URL sends nothing to the platform, so it needs no key.
  const platform = readPlatformInputs({ keyOptional: true });
  if (platform.apiKey === '' && template === '') {
    throw new InputError(
      Input.ApiKey,
      'is required to export: pass your admin API key from a secret, for example ${{ secrets.DOCS_ADMIN_KEY }}. Only a run with bundle-url-template, which proposes an export kept by an earlier step, goes without it.'
    );
  }
  const jobId = core.getInput(Input.JobId).trim();
  const domainText = core.getInput(Input.Domain);
  const version = core.getInput(Input.Version).trim() || undefined;
  const paths = parseList(core.getInput(Input.Paths));

  let domain: string | undefined;
  if (domainText.trim() !== '') {
    const parsed = parseHostname(Input.Domain, domainText);
    if (parsed.reducedFrom) core.notice(`Input 'domain' was a URL (${parsed.reducedFrom}); exporting its hostname ${parsed.hostname}.`);
    domain = parsed.hostname;
  }
  const request: ExportRequest | undefined = domain ? { domain, ...(version ? { version } : {}), ...(paths.length ? { paths } : {}) } : undefined;
  let plan: ExportPlan | 'auto';
  if (jobId === 'auto') {
    plan = 'auto';
  } else if (jobId !== '') {
    if (!JOB_ID.test(jobId)) {
      throw new InputError(Input.JobId, `'${jobId}' is neither auto nor an export job id. Job ids look like se_3f9a2c1b8e7d4a06, or 6520f3a1c9b1a20012ab34cd on the platform's project-scoped API.`);
    }
    plan = { reuse: jobId };
  } else {
    if (!request && template) {
      throw new InputError(Input.JobId, 'is required with bundle-url-template: give the job-id output of the step that exported and kept the archive (or auto, to take it from the URL in config-path).');
    }
    if (!request) {
      throw new InputError(Input.Domain, 'is required unless job-id is given. Set it to the hostname of your docs, for example docs.example.com.');
    }
    plan = { start: request };
  }
  const minValidityText = core.getInput(Input.MinValidity).trim();
  const minValidityMs = minValidityText ? readDuration(Input.MinValidity, minValidityText, { allowZero: true }) : undefined;
  const config = readConfigInputs();
  if (!config) checkWithoutConfig();
  if (!config && plan === 'auto') {
    throw new InputError(Input.JobId, 'auto takes the job from the link in the configuration file, so it needs config-path. Set config-path, or give a job id.');
  }
  if (!config && minValidityMs !== undefined) {
    throw new InputError(Input.MinValidity, 'reads the current link from the configuration file, so it needs config-path.');
  }

  const durable = template ? readDurableInputs(template, config, plan) : undefined;
  const keepArchive = workspacePath(Input.KeepArchive);
  if (keepArchive) checkArchiveName(keepArchive.given);
  if (!durable && parseBoolean(Input.CheckSha256, core.getInput(Input.CheckSha256) || 'false')) {
    core.notice("check-sha256 is true, but it checks a URL the team hosts, which only bundle-url-template proposes: this run checks the platform's own link by its size instead, so check-sha256 does nothing here.");
  }
  if (durable && keepArchive) {
    throw new InputError(Input.KeepArchive, 'keeps the archive of an export this step runs, but with bundle-url-template the step runs none. Keep the archive in the exporting step, and give its path here as archive-path.');
  }
  const linkMarginText = core.getInput(Input.LinkMargin).trim() || '72h';
  const linkMarginMs = /^(0|off)$/i.test(linkMarginText) ? undefined : readDuration(Input.LinkMargin, linkMarginText);

  const timeoutText = core.getInput(Input.Timeout) || '30m';
  return {
    failWhenProductionExpires: readFailWhen(),
    projectId: core.getInput(Input.ProjectId).trim() || undefined,
    event: process.env.GITHUB_EVENT_NAME || undefined,
    ...platform,
    plan,
    request,
    minValidityMs,
    domain,
    version,
    timeoutMs: readDuration(Input.Timeout, timeoutText),
    timeoutText,
    limits: readPollLimits(),
    download: workspacePath(Input.DownloadPath),
    config,
    keepArchive,
    durable,
    linkMarginMs,
    linkMarginText,
    publication: readPublicationInputs(plan),
    contentGate: readContentGate()
  };
}

/** fail-when-production-expires: auto (the default), always or never. */
function readFailWhen(): FailWhen {
  const text = (core.getInput(Input.FailWhenProductionExpires).trim() || 'auto').toLowerCase();
  if (!(FAIL_WHEN as readonly string[]).includes(text)) {
    throw new InputError(
      Input.FailWhenProductionExpires,
      `'${text}' is not auto, always or never. auto (the default) fails a scheduled or manual run when production's link is about to expire and only warns on a push; always fails any run; never only warns.`
    );
  }
  return text as FailWhen;
}

/** max-page-loss: a share such as 25%; allow-missing-home-page: true or false. */
function readContentGate(): GateSettings {
  const text = core.getInput(Input.MaxPageLoss).trim() || '25%';
  const match = /^(\d{1,3}(?:\.\d+)?)\s*%$/.exec(text);
  const share = match ? Number(match[1]) / 100 : NaN;
  if (!(share >= 0 && share <= 1)) {
    throw new InputError(Input.MaxPageLoss, `'${text}' is not a share of pages from 0% to 100%. Write it as a percentage, for example 25% (the default), or 100% to accept any loss.`);
  }
  return {
    maxPageLoss: share >= 1 ? undefined : share,
    maxPageLossText: text,
    allowMissingHomePage: parseBoolean(Input.AllowMissingHomePage, core.getInput(Input.AllowMissingHomePage) || 'false'),
    inputs: { maxPageLoss: Input.MaxPageLoss, allowMissingHomePage: Input.AllowMissingHomePage }
  };
}

/**
 * wait-for-deployment. `auto` waits only on a push that starts a new export: that is when the
 * platform is still publishing what the export should hold. A renewal or a reused job exports
 * nothing new, and a scheduled or manual run comes long after the last push was published.
 */
function readPublicationInputs(plan: ExportPlan | 'auto'): PublishInputs['publication'] {
  const text = (core.getInput(Input.WaitForDeployment).trim() || 'auto').toLowerCase();
  if (!['auto', 'true', 'false'].includes(text)) {
    throw new InputError(Input.WaitForDeployment, `'${text}' is not auto, true or false. auto (the default) waits for the platform to publish a push before exporting it.`);
  }
  const isPush = process.env.GITHUB_EVENT_NAME === 'push';
  const startsExport = plan !== 'auto' && 'start' in plan;
  if (text === 'false' || (text === 'auto' && !(isPush && startsExport))) return undefined;
  const projectId = core.getInput(Input.ProjectId).trim();
  if (projectId === '') {
    throw new InputError(
      Input.ProjectId,
      `is needed to wait for the platform to publish ${isPush ? 'this push' : 'the docs'} before exporting (wait-for-deployment: ${text}${text === 'auto' ? ', on a push' : ''}); without the wait the export would hold the docs as they were before the push. ` +
        'Add project-id (from the API keys page of the dashboard), or set wait-for-deployment: false to export whatever is published now.'
    );
  }
  if (/[\s/]/.test(projectId)) throw new InputError(Input.ProjectId, `'${projectId}' is not a project id: it has a space or a slash.`);
  const sha = process.env.GITHUB_SHA ?? '';
  const ref = process.env.GITHUB_REF ?? '';
  // Only a push to a branch names a commit the platform should publish; a tag push or another event does not.
  const pushed = isPush && /^[0-9a-f]{40}$/i.test(sha) && ref.startsWith('refs/heads/') ? { sha: sha.toLowerCase(), branch: ref.slice('refs/heads/'.length) } : undefined;
  // The pushed repository is the workflow's own; github-token (by default the workflow's) can read it.
  const token = core.getInput(Input.GithubToken).trim();
  const repository = process.env.GITHUB_REPOSITORY ?? '';
  if (token !== '') core.setSecret(token);
  const github = pushed && token !== '' && /^[^/\s]+\/[^/\s]+$/.test(repository) ? { token, repo: parseRepository('GITHUB_REPOSITORY', repository) } : undefined;
  return { projectId, pushed, github };
}

/** keep-archive keeps one file, named as the archive is: a folder or another extension would mislead the next step. */
function checkArchiveName(given: string): void {
  // A folder keeps the archive under the platform's own name (bundle.tar.gz or export.zip): see kept-archive.ts.
  if (/[\\/]$/.test(given)) return;
  if (!/\.(tar\.gz|tgz|zip)$/i.test(given)) {
    throw new InputError(Input.KeepArchive, `'${given}' does not end in .tar.gz, .tgz or .zip, the archive's own extensions: name it as the archive is, for example ${given.replace(/\.[^./]*$/, '')}.tar.gz (the platform serves a gzip'd tar).`);
  }
}

/** A path input, resolved against the workspace, where the next step (an upload, a deploy) looks for it. */
function workspacePath(input: string): { given: string; path: string } | undefined {
  const given = core.getInput(input).trim();
  if (given === '') return undefined;
  return { given, path: resolve(process.env.GITHUB_WORKSPACE ?? process.cwd(), given) };
}

export const ARCHIVE_PATH_NEEDED =
  'is required with bundle-url-template: give the archive-path output of the step that kept the archive (keep-archive), the file you uploaded to the URL. Its size and SHA-256 are what the URL must serve.';

function readDurableInputs(template: string, config: PublishInputs['config'], plan: ExportPlan | 'auto'): NonNullable<PublishInputs['durable']> {
  const allowPlainHttp = parseBoolean(Input.AllowPlainHttp, core.getInput(Input.AllowPlainHttp) || 'false');
  const problem = templateProblem(template, allowPlainHttp);
  if (problem) throw new InputError(Input.BundleUrlTemplate, problem);
  if (!config) throw new InputError(Input.BundleUrlTemplate, 'proposes the URL in the deployment\'s values file, so it needs config-path.');
  const archive = workspacePath(Input.ArchivePath);
  // A renewal (job-id: auto) may find nothing to propose (a URL that does not expire, a link still
  // valid): it needs the archive only once it proposes, and says so then.
  if (!archive && plan !== 'auto') throw new InputError(Input.ArchivePath, ARCHIVE_PATH_NEEDED);
  return { template, archive, checkSha256: parseBoolean(Input.CheckSha256, core.getInput(Input.CheckSha256) || 'false') };
}

// The inputs of the three publish actions (the root, renew/, host/), read and checked in one place
// before any request is sent, so a typo costs a second, not an export. Each action reads only the
// inputs its action.yml declares (run-kind.ts).
import { resolve } from 'node:path';
import * as core from '../action/core.ts';
import { type ExportRequest, JOB_ID } from '../platform/static-export.ts';
import { PublishInput as Input } from '../action/constants.ts';
import type { ConfigTarget } from './proposal-types.ts';
import type { ExportPlan } from './export.ts';
import { InputError, isBareNumber, parseBoolean, parseDuration, parseHostname, parseList, parseRepository } from '../action/inputs.ts';
import { type PlatformInputs, readPlatformInputs, readPollLimits } from '../action/platform-inputs.ts';
import type { ScheduleLimits } from '../wait/wait.ts';
import { templateProblem } from '../storage/durable-url.ts';
import type { PushedCommit } from './publication.ts';
import type { GateSettings } from '../content/gate.ts';
import { checkWithoutConfig, readConfigInputs } from './config-inputs.ts';
import type { FailWhen } from './production-guard.ts';
import { RUN_KINDS, type RunKind } from './run-kind.ts';

export interface PublishInputs extends PlatformInputs {
  /** Which action runs: the root (export), renew/ or host/. */
  kind: RunKind;
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

/** An input of this kind of run, or '' for one its action does not declare (another action's). */
export type InputReader = (name: string) => string;

function inputReader(kind: RunKind): InputReader {
  const declared = RUN_KINDS[kind].inputs;
  return (name) => (declared.has(name) ? core.getInput(name) : '');
}

/**
 * How soon before it expires a link is renewed, and production's link is flagged while a pull
 * request waits: renew/'s renew-within, and this default for the two actions that do not renew.
 */
export const RENEW_WITHIN_DEFAULT = '72h';

/** Reads and checks the inputs of one kind of run (the action's entry names it: run-kind.ts). */
export function readPublishInputs(kind: RunKind = 'export'): PublishInputs {
  const get = inputReader(kind);
  const template = get(Input.BundleUrlTemplate).trim();
  // A run that only proposes a hosted URL sends nothing to the platform, so it needs no key.
  const platform = readPlatformInputs({ keyOptional: kind === 'host' });
  const jobId = get(Input.JobId).trim();
  const domainText = get(Input.Domain);
  const version = get(Input.Version).trim() || undefined;
  const paths = parseList(get(Input.Paths));

  let domain: string | undefined;
  if (domainText.trim() !== '') {
    const parsed = parseHostname(Input.Domain, domainText);
    if (parsed.reducedFrom) core.notice(`Input 'domain' was a URL (${parsed.reducedFrom}); exporting its hostname ${parsed.hostname}.`);
    domain = parsed.hostname;
  }
  const request: ExportRequest | undefined = domain ? { domain, ...(version ? { version } : {}), ...(paths.length ? { paths } : {}) } : undefined;
  let plan: ExportPlan | 'auto';
  if (kind === 'renew') {
    plan = 'auto';
  } else if (jobId !== '') {
    if (!JOB_ID.test(jobId)) {
      const renew = jobId === 'auto' ? ' To renew the link in the values file, use <owner>/<repo>/renew@v1.' : '';
      throw new InputError(Input.JobId, `'${jobId}' is not an export job id. Job ids look like se_3f9a2c1b8e7d4a06, or 6520f3a1c9b1a20012ab34cd on the platform's project-scoped API.${renew}`);
    }
    plan = { reuse: jobId };
  } else {
    if (kind === 'host') {
      throw new InputError(Input.JobId, 'is required: give the job-id output of the step that exported and kept the archive (keep-archive).');
    }
    if (!request) {
      throw new InputError(Input.Domain, 'is required unless job-id is given. Set it to the hostname of your docs, for example docs.example.com.');
    }
    plan = { start: request };
  }
  // renew/'s one time input: renew a link due within it, and flag production's link by it.
  const renewWithinText = get(Input.RenewWithin).trim() || RENEW_WITHIN_DEFAULT;
  const renewWithinMs = readDurationText(Input.RenewWithin, renewWithinText);
  const config = readConfigInputs(get);
  if (!config) checkWithoutConfig(get);
  if (!config && kind !== 'export') {
    throw new InputError(Input.ConfigPath, `is required: ${RUN_KINDS[kind].action} proposes a change to the deployment's values file. Give its path, for example deploy/values.yaml.`);
  }

  const durable = kind === 'host' ? readDurableInputs(get, template) : undefined;
  const keepArchive = workspacePath(get, Input.KeepArchive);
  if (keepArchive) checkArchiveName(keepArchive.given);

  const timeoutText = get(Input.Timeout) || '30m';
  return {
    kind,
    // A push only warns for production's link (its author usually cannot merge); the nightly fails for it.
    failWhenProductionExpires: 'auto',
    projectId: get(Input.ProjectId).trim() || undefined,
    event: core.variable('GITHUB_EVENT_NAME') || undefined,
    ...platform,
    plan,
    request,
    minValidityMs: kind === 'renew' ? renewWithinMs : undefined,
    domain,
    version,
    timeoutMs: readDurationText(Input.Timeout, timeoutText),
    timeoutText,
    limits: readPollLimits(),
    download: workspacePath(get, Input.DownloadPath),
    config,
    keepArchive,
    durable,
    linkMarginMs: renewWithinMs,
    linkMarginText: renewWithinText,
    publication: readPublicationInputs(get, plan),
    contentGate: readContentGate(get)
  };
}

/** A duration as given (a default when empty); a bare number is read as seconds, and the log says so. */
function readDurationText(name: string, text: string): number {
  const ms = parseDuration(name, text);
  if (isBareNumber(text)) core.notice(`Input '${name}': ${text} has no unit, so it is read as ${text} seconds. Write ${text}s to say so, or use m or h.`);
  return ms;
}

/** max-page-loss: a share such as 25%; allow-missing-home-page: true or false. */
function readContentGate(get: InputReader): GateSettings {
  const text = get(Input.MaxPageLoss).trim() || '25%';
  const match = /^(\d{1,3}(?:\.\d+)?)\s*%$/.exec(text);
  const share = match ? Number(match[1]) / 100 : NaN;
  if (!(share >= 0 && share <= 1)) {
    throw new InputError(Input.MaxPageLoss, `'${text}' is not a share of pages from 0% to 100%. Write it as a percentage, for example 25% (the default), or 100% to accept any loss.`);
  }
  return {
    maxPageLoss: share >= 1 ? undefined : share,
    maxPageLossText: text,
    allowMissingHomePage: parseBoolean(Input.AllowMissingHomePage, get(Input.AllowMissingHomePage) || 'false'),
    inputs: { maxPageLoss: Input.MaxPageLoss, allowMissingHomePage: Input.AllowMissingHomePage }
  };
}

/**
 * wait-for-deployment. `auto` waits only on a push that starts a new export: that is when the
 * platform is still publishing what the export should hold. A renewal or a reused job exports
 * nothing new, and a scheduled or manual run comes long after the last push was published.
 */
function readPublicationInputs(get: InputReader, plan: ExportPlan | 'auto'): PublishInputs['publication'] {
  const text = (get(Input.WaitForDeployment).trim() || 'auto').toLowerCase();
  if (!['auto', 'true', 'false'].includes(text)) {
    throw new InputError(Input.WaitForDeployment, `'${text}' is not auto, true or false. auto (the default) waits for the platform to publish a push before exporting it.`);
  }
  const isPush = core.variable('GITHUB_EVENT_NAME') === 'push';
  const startsExport = plan !== 'auto' && 'start' in plan;
  if (text === 'false' || (text === 'auto' && !(isPush && startsExport))) return undefined;
  const projectId = get(Input.ProjectId).trim();
  if (projectId === '') {
    throw new InputError(
      Input.ProjectId,
      `is needed to wait for the platform to publish ${isPush ? 'this push' : 'the docs'} before exporting (wait-for-deployment: ${text}${text === 'auto' ? ', on a push' : ''}); without the wait the export would hold the docs as they were before the push. ` +
        'Add project-id (from the API keys page of the dashboard), or set wait-for-deployment: false to export whatever is published now.'
    );
  }
  if (/[\s/]/.test(projectId)) throw new InputError(Input.ProjectId, `'${projectId}' is not a project id: it has a space or a slash.`);
  const sha = core.variable('GITHUB_SHA') ?? '';
  const ref = core.variable('GITHUB_REF') ?? '';
  // Only a push to a branch names a commit the platform should publish; a tag push or another event does not.
  const pushed = isPush && /^[0-9a-f]{40}$/i.test(sha) && ref.startsWith('refs/heads/') ? { sha: sha.toLowerCase(), branch: ref.slice('refs/heads/'.length) } : undefined;
  // The pushed repository is the workflow's own; github-token (by default the workflow's) can read it.
  const token = get(Input.GithubToken).trim();
  const repository = core.variable('GITHUB_REPOSITORY') ?? '';
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
function workspacePath(get: InputReader, input: string): { given: string; path: string } | undefined {
  const given = get(input).trim();
  if (given === '') return undefined;
  return { given, path: resolve(core.variable('GITHUB_WORKSPACE') ?? process.cwd(), given) };
}

export const ARCHIVE_PATH_NEEDED =
  'is required: give the archive-path output of the step that kept the archive (keep-archive), the file you uploaded to the URL. Its size and SHA-256 are what the URL must serve.';

function readDurableInputs(get: InputReader, template: string): NonNullable<PublishInputs['durable']> {
  if (template === '') throw new InputError(Input.BundleUrlTemplate, 'is required: the URL your team hosts the bundle at, with <job-id> where the job id goes, for example https://bundles.example.com/<job-id>/bundle.tar.gz.');
  const allowPlainHttp = parseBoolean(Input.AllowPlainHttp, get(Input.AllowPlainHttp) || 'false');
  const problem = templateProblem(template, allowPlainHttp);
  if (problem) throw new InputError(Input.BundleUrlTemplate, problem);
  const archive = workspacePath(get, Input.ArchivePath);
  if (!archive) throw new InputError(Input.ArchivePath, ARCHIVE_PATH_NEEDED);
  // The pod's-eye check always downloads the whole object: a URL that serves other bytes of the same size is refused.
  return { template, archive, checkSha256: true };
}

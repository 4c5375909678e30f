// Input and output names of the actions, spelled once.

/** Inputs every action reads alike (src/action/platform-inputs.ts). */
export const PlatformInput = {
  ApiKey: 'api-key',
  ApiUrl: 'api-url',
  RequestTimeout: 'request-timeout'
} as const;

/** Inputs of the actions that wait on a job. */
export const PollInput = {
  MinPollInterval: 'min-poll-interval',
  MaxPollInterval: 'max-poll-interval'
} as const;

/**
 * Test-only, never set by a workflow: `floor,ceiling` in milliseconds over the publish actions'
 * constant poll bounds (POLL_LIMITS), for the bundles that tests and `npm run try` run under dist/
 * on emulated jobs of seconds (docs/developing.md). An environment variable, not an input: no
 * action.yml declares it.
 */
export const TEST_POLL_MS_VARIABLE = 'STATIC_EXPORT_TEST_ONLY_POLL_MS';

/** The project input of the agent and analytics actions, and of publish when it waits for a deployment. */
export const ProjectInput = {
  ProjectId: 'project-id'
} as const;

/**
 * Every input the publish library reads, whichever action reads it (src/publish/inputs.ts). Each
 * action declares only its own share: ExportInput, RenewInput, HostInput below. The poll and
 * request knobs are no inputs of theirs: constants (REQUEST_TIMEOUT_MS and POLL_LIMITS in
 * platform-inputs.ts; docs/behaviour.md says why these values).
 */
export const PublishInput = {
  ApiKey: PlatformInput.ApiKey,
  ApiUrl: PlatformInput.ApiUrl,
  Domain: 'domain',
  Version: 'version',
  Paths: 'paths',
  Timeout: 'timeout',
  JobId: 'job-id',
  ConfigPath: 'config-path',
  ConfigRepository: 'config-repository',
  ConfigKey: 'config-key',
  BaseBranch: 'base-branch',
  PrLabels: 'pr-labels',
  /** Named in messages only: no action takes it, the branch is named from the file (target.ts). */
  PrBranch: 'pr-branch',
  GithubToken: 'github-token',
  DryRun: 'dry-run',
  AutoMerge: 'auto-merge',
  RenewWithin: 'renew-within',
  DownloadPath: 'download-path',
  KeepArchive: 'keep-archive',
  ArchivePath: 'archive-path',
  BundleUrlTemplate: 'bundle-url-template',
  CheckSha256: 'check-sha256',
  AllowPlainHttp: 'allow-plain-http',
  WaitForDeployment: 'wait-for-deployment',
  MaxPageLoss: 'max-page-loss',
  AllowMissingHomePage: 'allow-missing-home-page',
  ...ProjectInput
} as const;

const P = PublishInput;

/** The pull request's inputs, alike in the three actions, so that all three land on one pull request. */
const ConfigInput = { ConfigPath: P.ConfigPath, ConfigRepository: P.ConfigRepository, ConfigKey: P.ConfigKey, BaseBranch: P.BaseBranch, GithubToken: P.GithubToken } as const;

/** The root action: export on a push, and propose the new link when given a values file. */
export const ExportInput = {
  ApiKey: P.ApiKey,
  ApiUrl: P.ApiUrl,
  ProjectId: P.ProjectId,
  Domain: P.Domain,
  Version: P.Version,
  Paths: P.Paths,
  JobId: P.JobId,
  Timeout: P.Timeout,
  WaitForDeployment: P.WaitForDeployment,
  DownloadPath: P.DownloadPath,
  KeepArchive: P.KeepArchive,
  ...ConfigInput,
  PrLabels: P.PrLabels,
  DryRun: P.DryRun,
  MaxPageLoss: P.MaxPageLoss,
  AllowMissingHomePage: P.AllowMissingHomePage
} as const;

/** renew/: the nightly run, which renews the link in the values file (no export). */
export const RenewInput = {
  ApiKey: P.ApiKey,
  ApiUrl: P.ApiUrl,
  ProjectId: P.ProjectId,
  Timeout: P.Timeout,
  RenewWithin: P.RenewWithin,
  ...ConfigInput,
  DryRun: P.DryRun,
  AutoMerge: P.AutoMerge
} as const;

/** host/: propose a URL the team hosts, after checking it as a pod would fetch it. */
export const HostInput = {
  ApiKey: P.ApiKey,
  ApiUrl: P.ApiUrl,
  ProjectId: P.ProjectId,
  JobId: P.JobId,
  ArchivePath: P.ArchivePath,
  BundleUrlTemplate: P.BundleUrlTemplate,
  AllowPlainHttp: P.AllowPlainHttp,
  ...ConfigInput
} as const;

/** Every output the publish library can set; each action passes on only its own share (below). */
export const PublishOutput = {
  JobId: 'job-id',
  DocsCommit: 'docs-commit',
  Status: 'status',
  PageCount: 'page-count',
  BundleUrl: 'bundle-url',
  ExpiresAt: 'expires-at',
  DeployedExpiresAt: 'deployed-expires-at',
  SizeBytes: 'size-bytes',
  ConfigChanged: 'config-changed',
  PullRequestNumber: 'pull-request-number',
  PullRequestUrl: 'pull-request-url',
  PullRequestOperation: 'pull-request-operation',
  Merged: 'merged',
  MergedPullRequestNumber: 'merged-pull-request-number',
  MergedPullRequestUrl: 'merged-pull-request-url',
  Skipped: 'skipped',
  SkipReason: 'skip-reason',
  BundlePath: 'bundle-path',
  BundleFiles: 'bundle-files',
  BundleSha256: 'bundle-sha256',
  ArchivePath: 'archive-path',
  ArchiveSha256: 'archive-sha256',
  ArchiveSha256Path: 'archive-sha256-path',
  ArchiveName: 'archive-name',
  ArchiveContentType: 'archive-content-type',
  ContentDiff: 'content-diff',
  ContentDiffPath: 'content-diff-path'
} as const;

const O = PublishOutput;

/** The pull request's outputs, for a later step that comments, notifies or waits on it. */
const PullRequestOutput = { ConfigChanged: O.ConfigChanged, PullRequestNumber: O.PullRequestNumber, PullRequestUrl: O.PullRequestUrl, PullRequestOperation: O.PullRequestOperation } as const;

export const ExportOutput = {
  JobId: O.JobId,
  BundleUrl: O.BundleUrl,
  ExpiresAt: O.ExpiresAt,
  BundlePath: O.BundlePath,
  ArchivePath: O.ArchivePath,
  ArchiveName: O.ArchiveName,
  ArchiveContentType: O.ArchiveContentType,
  ContentDiff: O.ContentDiff,
  ...PullRequestOutput
} as const;

export const RenewOutput = {
  JobId: O.JobId,
  BundleUrl: O.BundleUrl,
  ExpiresAt: O.ExpiresAt,
  DeployedExpiresAt: O.DeployedExpiresAt,
  Skipped: O.Skipped,
  ...PullRequestOutput,
  Merged: O.Merged,
  MergedPullRequestNumber: O.MergedPullRequestNumber,
  MergedPullRequestUrl: O.MergedPullRequestUrl
} as const;

export const HostOutput = {
  BundleUrl: O.BundleUrl,
  ExpiresAt: O.ExpiresAt,
  ArchiveSha256: O.ArchiveSha256,
  ContentDiff: O.ContentDiff,
  ...PullRequestOutput
} as const;

export const DEFAULT_API_URL = 'https://api.mintlify.com';

export const AgentJobInput = {
  ...PlatformInput,
  ...PollInput,
  ...ProjectInput,
  JobId: 'job-id',
  Prompt: 'prompt',
  Timeout: 'timeout',
  FailOnFailed: 'fail-on-failed'
} as const;

export const AgentJobOutput = {
  JobId: 'job-id',
  Status: 'status',
  PrLink: 'pr-link',
  Branch: 'branch',
  Model: 'model',
  CreatedAt: 'created-at',
  ArchivedAt: 'archived-at'
} as const;

export const FeedbackInput = {
  ...PlatformInput,
  ...ProjectInput,
  DateFrom: 'date-from',
  DateTo: 'date-to',
  Source: 'source',
  Status: 'status',
  Top: 'top',
  ReportPath: 'report-path',
  MaxRequests: 'max-requests',
  Timeout: 'timeout'
} as const;

export const FeedbackOutput = {
  Pages: 'pages',
  Total: 'total',
  ThumbsUp: 'thumbs-up',
  ThumbsDown: 'thumbs-down',
  Code: 'code',
  Complete: 'complete',
  ReportPath: 'report-path',
  CsvPath: 'csv-path'
} as const;

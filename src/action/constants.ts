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

/** The project input of the agent and analytics actions, and of publish when it waits for a deployment. */
export const ProjectInput = {
  ProjectId: 'project-id'
} as const;

export const PublishInput = {
  ...PlatformInput,
  ...PollInput,
  Domain: 'domain',
  Version: 'version',
  Paths: 'paths',
  Timeout: 'timeout',
  JobId: 'job-id',
  ConfigPath: 'config-path',
  ConfigRepository: 'config-repository',
  ConfigKey: 'config-key',
  BaseBranch: 'base-branch',
  PrBranch: 'pr-branch',
  PrTitle: 'pr-title',
  PrLabels: 'pr-labels',
  GithubToken: 'github-token',
  DryRun: 'dry-run',
  AutoMerge: 'auto-merge',
  MinValidity: 'min-validity',
  DownloadPath: 'download-path',
  KeepArchive: 'keep-archive',
  ArchivePath: 'archive-path',
  BundleUrlTemplate: 'bundle-url-template',
  CheckSha256: 'check-sha256',
  AllowPlainHttp: 'allow-plain-http',
  LinkMargin: 'link-margin',
  FailWhenProductionExpires: 'fail-when-production-expires',
  WaitForDeployment: 'wait-for-deployment',
  MaxPageLoss: 'max-page-loss',
  AllowMissingHomePage: 'allow-missing-home-page',
  ...ProjectInput
} as const;

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

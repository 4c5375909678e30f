// Input and output names of the actions, spelled once.

export const PublishInput = {
  ApiKey: 'api-key',
  Domain: 'domain',
  ApiUrl: 'api-url',
  Version: 'version',
  Paths: 'paths',
  Timeout: 'timeout',
  JobId: 'job-id',
  RequestTimeout: 'request-timeout',
  MinPollInterval: 'min-poll-interval',
  MaxPollInterval: 'max-poll-interval',
  ConfigPath: 'config-path',
  ConfigRepository: 'config-repository',
  ConfigKey: 'config-key',
  BaseBranch: 'base-branch',
  PrBranch: 'pr-branch',
  PrTitle: 'pr-title',
  PrLabels: 'pr-labels',
  GithubToken: 'github-token',
  DryRun: 'dry-run',
  MinValidity: 'min-validity'
} as const;

export const PublishOutput = {
  JobId: 'job-id',
  Status: 'status',
  PageCount: 'page-count',
  BundleUrl: 'bundle-url',
  ExpiresAt: 'expires-at',
  SizeBytes: 'size-bytes',
  ConfigChanged: 'config-changed',
  PullRequestNumber: 'pull-request-number',
  PullRequestUrl: 'pull-request-url',
  PullRequestOperation: 'pull-request-operation',
  Skipped: 'skipped',
  SkipReason: 'skip-reason'
} as const;

export const DEFAULT_API_URL = 'https://api.mintlify.com';

export const AgentJobInput = {
  ApiKey: 'api-key',
  ProjectId: 'project-id',
  ApiUrl: 'api-url',
  JobId: 'job-id',
  Prompt: 'prompt',
  Timeout: 'timeout',
  FailOnFailed: 'fail-on-failed',
  RequestTimeout: 'request-timeout',
  MinPollInterval: 'min-poll-interval',
  MaxPollInterval: 'max-poll-interval'
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
  ApiKey: 'api-key',
  ProjectId: 'project-id',
  ApiUrl: 'api-url',
  DateFrom: 'date-from',
  DateTo: 'date-to',
  Source: 'source',
  Status: 'status',
  Top: 'top',
  ReportPath: 'report-path',
  MaxRequests: 'max-requests',
  Timeout: 'timeout',
  RequestTimeout: 'request-timeout'
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

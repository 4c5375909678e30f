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
  MaxPollInterval: 'max-poll-interval'
} as const;

export const PublishOutput = {
  JobId: 'job-id',
  Status: 'status',
  PageCount: 'page-count',
  BundleUrl: 'bundle-url',
  ExpiresAt: 'expires-at',
  SizeBytes: 'size-bytes'
} as const;

export const DEFAULT_API_URL = 'https://api.mintlify.com';

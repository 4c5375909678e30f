// One line a person can act on, for each way a call to the platform can fail: what happened, what
// it means, what to do. Entry points pass any error here before failing the step.
import { ApiError, ResponseShapeError } from '../platform/transport.ts';
import { apiDrift } from '../platform/contract.ts';
import { formatSeconds } from './format.ts';
import { dnsAdvice, isDnsCode, tlsAdvice } from './network.ts';
import { InputError } from './inputs.ts';

export interface ErrorContext {
  /** The API's base URL, to name the host a network fault could not reach. */
  apiUrl: string;
  /** What the step was doing, e.g. "starting the export of docs.example.com". */
  doing: string;
  /** Hints by status for the area in use (static export, agent, analytics). */
  hints?: Partial<Record<number, string>>;
}

export function explainError(error: unknown, context: ErrorContext): string {
  if (error instanceof InputError || error instanceof ResponseShapeError) return error.message;
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);

  const reference = error.requestId ? ` (request id ${error.requestId})` : '';
  const quoted = error.serverMessage ? ` The server said: "${error.serverMessage}".` : '';
  const details = error.details.length ? ` Details: ${error.details.join('; ')}.` : '';
  const what = `${capitalize(context.doing)} failed`;
  // A route that is not where the contract puts it: say so before any reading of the status.
  const drift = apiDrift(error.method, error.path, error.status);
  if (drift) return `${what}: ${drift}${quoted}${reference}`;
  const hint = error.status === undefined ? undefined : context.hints?.[error.status];
  if (hint) return `${what}: ${hint}${quoted}${details}${reference}`;

  switch (error.status) {
    case undefined:
      if (error.tls) return `${what}: ${tlsAdvice(new URL(context.apiUrl).host, error.code!)}${reference}`;
      if (isDnsCode(error.code)) return `${what}: ${dnsAdvice(new URL(context.apiUrl).hostname, error.code, 'check the host name in api-url')}.${reference}`;
      if (error.code === 'ETIMEDOUT') {
        return `${what}: ${error.message}, after retries. The API is slow or unreachable from this runner: re-run the step, and raise timeout if the step ran out of time while it retried.${reference}`;
      }
      if (error.maybeTaken) {
        return `${what}: ${error.message}. It was not retried because the server may already have acted on it; check before re-running.${reference}`;
      }
      return `${what}: could not reach ${new URL(context.apiUrl).host} (${error.code}). Check api-url and the runner's proxy settings (HTTPS_PROXY, NO_PROXY).${reference}`;
    case 400:
      return `${what}: the API refused the request (400).${quoted}${details} Correct the inputs it names and re-run.${reference}`;
    case 401:
      return `${what}: the API key was refused (401): it is wrong or expired. Use an admin key (admin keys start with mint_; an assistant key mint_dsc_… is not one) and store it as a repository secret.${reference}`;
    case 403:
      return `${what}: the API key may not do this (403).${quoted} Check the key's scope and IP allowlist (GitHub-hosted runners use changing addresses).${reference}`;
    case 404:
      return `${what}: not found (404).${quoted}${reference}`;
    case 429: {
      const after = error.retryAfterMs === undefined ? '' : ` The server asks to wait ${formatSeconds(error.retryAfterMs)}.`;
      return `${what}: rate limited (429) after retries.${after} Re-run later, or run less often.${reference}`;
    }
    default:
      if (error.status >= 500) {
        return `${what}: the API kept failing (${error.status}) after retries.${quoted} The platform may be having trouble; re-run in a few minutes.${reference}`;
      }
      return `${what}: ${error.message}.${details}${reference}`;
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

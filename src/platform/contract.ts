// The contract this action speaks: the platform's OpenAPI descriptions it was written against, by
// their info.title and info.version, and the routes it calls in each. The static export API is a
// private beta, so a route may move or change under the action. A 404 that a route declares keeps its
// own meaning (no such job); any other 404, and any 405, says the route is not where the contract
// puts it, and is named as the platform's API having changed, not as one more HTTP error.
// The descriptions themselves are in openapi/platform/ (one file per title, listed in openapi/README.md).

interface Route {
  method: string;
  /** The path as the action sends it, ids as one segment each. */
  path: RegExp;
  /** The OpenAPI description that declares it: title and version. */
  contract: string;
  /** True when the contract declares a 404 of its own for this route (no job with that id, …). */
  declares404: boolean;
  /** Another reading of a 404, when the route takes an id the user gave. */
  or404?: string;
}

import { JOBS_SHAPE, PROJECT_SHAPE } from './static-export-shapes.ts';

// Both shapes of the static export API carry the same title and version; static-export-shapes.ts names them apart.
const STATIC_EXPORT = JOBS_SHAPE.contract;
const STATIC_EXPORT_NEXT = PROJECT_SHAPE.contract;
const DEPLOYMENT = 'Mintlify External API 1.0.0';
const ADMIN = 'Mintlify Admin API 2.0.0';
const ANALYTICS = 'Mintlify Analytics Export API 1.0.0';
const ID = '[^/]+';
const PROJECT = 'project-id names no project this key can see';

const ROUTES: Route[] = [
  { method: 'POST', path: /^\/v1\/static-export\/jobs$/, contract: STATIC_EXPORT, declares404: false },
  { method: 'GET', path: new RegExp(`^/v1/static-export/jobs/${ID}$`), contract: STATIC_EXPORT, declares404: true },
  { method: 'POST', path: new RegExp(`^/v1/static-export/jobs/${ID}/bundle$`), contract: STATIC_EXPORT, declares404: true },
  { method: 'POST', path: new RegExp(`^/v1/static-export/${ID}/jobs$`), contract: STATIC_EXPORT_NEXT, declares404: false, or404: PROJECT },
  { method: 'GET', path: new RegExp(`^/v1/static-export/${ID}/jobs/${ID}$`), contract: STATIC_EXPORT_NEXT, declares404: true },
  { method: 'POST', path: new RegExp(`^/v1/project/update/${ID}$`), contract: DEPLOYMENT, declares404: false, or404: PROJECT },
  { method: 'GET', path: new RegExp(`^/v1/project/update-status/${ID}$`), contract: DEPLOYMENT, declares404: false },
  { method: 'POST', path: new RegExp(`^/v2/agent/${ID}/job$`), contract: ADMIN, declares404: false, or404: PROJECT },
  { method: 'GET', path: new RegExp(`^/v2/agent/${ID}/job/${ID}$`), contract: ADMIN, declares404: true },
  { method: 'GET', path: new RegExp(`^/v1/analytics/${ID}/feedback/by-page$`), contract: ANALYTICS, declares404: false, or404: PROJECT }
];

/**
 * What a 404 or 405 on a route of the contract means when the contract does not declare it: the
 * platform's API may have changed. Undefined for any other answer, a declared 404, or a route the
 * contract does not hold.
 */
export function apiDrift(method: string, path: string, status: number | undefined): string | undefined {
  if (status !== 404 && status !== 405) return undefined;
  const route = ROUTES.find((r) => r.method === method && r.path.test(path));
  if (!route || (status === 404 && route.declares404)) return undefined;
  const or = status === 404 && route.or404 ? `, unless ${route.or404}` : '';
  return (
    `${method} ${path} answered ${status}, which the contract this action speaks (${route.contract}) does not declare for that route: the platform's API may have changed${or}. ` +
    "Update the action to a release that speaks the platform's current API, or report it to the action's maintainers with the request id."
  );
}

// Keeps in the repository the part of GitHub's REST description (github/rest-api-description) that
// the action and the GitHub emulator use: the operations below, and every component they refer to,
// as one smaller OpenAPI document (openapi/github/). Run it again on a newer description to follow
// GitHub: `node scripts/extract-github-description.ts <api.github.com.json> [source]`.
import { readFileSync, writeFileSync } from 'node:fs';

/** The operations the emulator serves and the action calls, by GitHub's operationId. */
export const GITHUB_OPERATIONS = [
  'repos/get',
  'repos/get-branch',
  'repos/get-content',
  'repos/compare-commits',
  'git/get-ref',
  'git/create-ref',
  'git/update-ref',
  'git/get-commit',
  'git/create-commit',
  'git/create-tree',
  'pulls/list',
  'pulls/create',
  'pulls/get',
  'pulls/update',
  'pulls/merge',
  'pulls/update-branch',
  'issues/add-labels',
  'issues/remove-label'
];

type Json = Record<string, unknown>;

// Words for people and examples make up most of the description and no validator reads them.
const DROPPED = new Set(['example', 'examples', 'x-github', 'x-octokit', 'x-github-releases', 'externalDocs']);

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as Json).filter(([key]) => !DROPPED.has(key)).map(([key, inner]) => [key, strip(inner)]));
}

function refsIn(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) value.forEach((inner) => refsIn(inner, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value as Json)) {
      if (key === '$ref' && typeof inner === 'string') found.add(inner);
      else refsIn(inner, found);
    }
  }
}

function at(doc: Json, pointer: string): unknown {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, part) => (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

function extract(full: Json, source: string): Json {
  const paths: Record<string, Json> = {};
  const wanted = new Set(GITHUB_OPERATIONS);
  for (const [path, item] of Object.entries(full.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (wanted.has((operation as Json).operationId as string)) {
        wanted.delete((operation as Json).operationId as string);
        (paths[path] ??= {})[method] = strip(operation);
      }
    }
  }
  if (wanted.size > 0) throw new Error(`Not in the description: ${[...wanted].join(', ')}`);
  // Every component the operations name, and those they name in turn.
  const components: Record<string, Json> = {};
  const seen = new Set<string>();
  let pending = new Set<string>();
  refsIn(paths, pending);
  while (pending.size > 0) {
    const next = new Set<string>();
    for (const ref of pending) {
      if (seen.has(ref)) continue;
      seen.add(ref);
      const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(ref) ?? [];
      if (!kind || !name) throw new Error(`Unexpected $ref ${ref}`);
      const value = strip(at(full, ref));
      (components[kind] ??= {})[name] = value;
      refsIn(value, next);
    }
    pending = next;
  }
  for (const kind of Object.values(components)) {
    const sorted = Object.fromEntries(Object.entries(kind).sort(([a], [b]) => a.localeCompare(b)));
    for (const key of Object.keys(kind)) delete kind[key];
    Object.assign(kind, sorted);
  }
  const info = full.info as Json;
  return {
    openapi: full.openapi,
    info: { title: 'GitHub v3 REST API (the operations this action uses)', version: String(info.version), license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT' }, 'x-source': source },
    servers: [{ url: 'https://api.github.com' }],
    paths,
    components
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, source = 'github/rest-api-description, descriptions/api.github.com/api.github.com.json'] = process.argv.slice(2);
  if (!input) throw new Error('Give the path of api.github.com.json');
  const subset = extract(JSON.parse(readFileSync(input, 'utf8')) as Json, source);
  writeFileSync(new URL('../openapi/github/api.github.com.json', import.meta.url), `${JSON.stringify(subset, null, 1)}\n`);
}

// Checks the emulators against the real APIs' own descriptions (openapi/: GitHub's REST description
// and the platform's OpenAPI files): every answer an emulator gives, and every request it receives,
// must be one the description allows. On under the test suite (EMULATOR_CONTRACT_CHECK, set by
// __tests__/setup/global-setup.mjs and so inherited by every process a test starts), off elsewhere.
// A route no description holds (downloads, /_emulator/, an answer a fault spoils on purpose) is not
// checked: real services send those too, and the description says nothing of them.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';

export interface Exchange {
  method: string;
  /** The path as sent, query included. */
  path: string;
  requestBody: string;
  status: number;
  /** The answer's body when it is JSON (undefined for none or another type). */
  answer: unknown;
}

export type ContractCheck = (exchange: Exchange) => void;

/** The descriptions each emulator answers for, under openapi/. */
const DESCRIPTIONS = {
  github: ['github/api.github.com.json'],
  platform: ['platform/static-export-openapi.json', 'platform/static-export-next.json', 'platform/deployment-openapi.json', 'platform/admin-openapi.json', 'platform/analytics-openapi.json']
};

export type Api = keyof typeof DESCRIPTIONS;

interface Operation {
  name: string;
  method: string;
  template: string;
  pattern: RegExp;
  doc: string;
  pointer: string;
  node: Record<string, unknown>;
}

type Json = Record<string, unknown>;

/**
 * Where the description is narrower than the service it describes, each with the public report
 * that shows the service's real answer: the emulator answers as the service does.
 */
const KNOWN_GAPS: { operation: string; error: RegExp; source: string }[] = [
  {
    operation: 'pulls/list',
    error: /^\/\d+\/labels\/\d+\/description must be string$/,
    source: 'https://github.com/github/rest-api-description/issues/1812 (a label without a description is null in the list of pull requests)'
  }
];

const VIOLATIONS = Symbol.for('static-export-action.contract-violations');

/** The check for one emulator, or undefined when the suite did not ask for it. */
export function contractCheck(api: Api, env = process.env): ContractCheck | undefined {
  if (env.EMULATOR_CONTRACT_CHECK !== '1') return undefined;
  const operations = operationsOf(api);
  return (exchange) => {
    let problems: string[];
    try {
      problems = problemsOf(operations, exchange);
    } catch (error) {
      // A description the validator cannot read must not hang the emulator's answer.
      problems = [`could not be checked on ${exchange.method} ${exchange.path}: ${error instanceof Error ? error.message : String(error)}`];
    }
    for (const problem of problems) report(`The ${api === 'github' ? 'GitHub' : 'platform'} emulator ${problem}`);
  };
}

/** What the description does not allow in one exchange (empty when it allows it all). */
export function problemsOf(operations: Operation[], exchange: Exchange): string[] {
  const url = new URL(exchange.path, 'http://emulator');
  let pathname = url.pathname;
  try {
    pathname = decodeURIComponent(pathname);
  } catch {
    // An undecodable path is matched as it came.
  }
  const operation = operations.find((op) => op.method === exchange.method.toLowerCase() && op.pattern.test(pathname));
  if (!operation) return [];
  const named = `${exchange.method} ${operation.template} (${operation.name})`;
  const problems: string[] = [];
  const requestSchema = jsonSchemaAt(operation.node.requestBody as Json | undefined, operation.doc);
  if (requestSchema && exchange.requestBody.trim() !== '') {
    let body: unknown;
    try {
      body = JSON.parse(exchange.requestBody);
    } catch {
      body = exchange.requestBody;
    }
    const errors = validate(operation, 'requestBody', body);
    if (errors) problems.push(`received ${named} with a request body its description does not allow: ${errors}`);
  }
  problems.push(...queryProblems(operation, url.searchParams).map((problem) => `received ${named} with ${problem}`));
  const responses = (operation.node.responses ?? {}) as Json;
  const declared = responses[String(exchange.status)] ?? responses[`${String(exchange.status)[0]}XX`] ?? responses.default;
  // An undeclared status is how real services have bad days (502, 429): the suite sends those on purpose.
  if (declared !== undefined && exchange.answer !== undefined && jsonSchemaAt(declared as Json, operation.doc)) {
    const key = responses[String(exchange.status)] ? String(exchange.status) : responses[`${String(exchange.status)[0]}XX`] ? `${String(exchange.status)[0]}XX` : 'default';
    const errors = validate(operation, `responses/${key}`, exchange.answer, KNOWN_GAPS.filter((gap) => gap.operation === operation.name).map((gap) => gap.error));
    if (errors) problems.push(`answered ${named} ${exchange.status} with a body its description does not allow: ${errors}`);
  }
  return problems;
}

/** The exit code of a process whose emulator answered against the description (the network guard's is 86). */
export const CONTRACT_EXIT_CODE = 87;
let childReported = false;

function report(message: string): void {
  const collected = (process as unknown as Record<symbol, { violations: string[] } | undefined>)[VIOLATIONS];
  // In a test's process, the test during which it happened fails (__tests__/setup/after-each.mjs).
  if (collected) collected.violations.push(message);
  else {
    // In a process a test started (npm run try, the emulator's CLI): its exit code says it, whatever
    // code the process meant to end with (set in 'exit', after its own process.exit or exitCode).
    process.stderr.write(`${message}\n`);
    if (!childReported) process.once('exit', () => (process.exitCode = CONTRACT_EXIT_CODE));
    childReported = true;
  }
}

// One Ajv and one compiled validator per operation and answer, for the whole process. Jest gives each
// test file its own modules, so ajv is loaded with Node's own require (process.getBuiltinModule is
// not redirected by jest, unlike node:module) and the cache kept on its class: a worker loads the
// descriptions and compiles each operation once for all the files it runs, not once per file.
interface Compiled {
  ajv?: Ajv;
  documents: Map<string, Json>;
  compiled: Map<string, ValidateFunction>;
  operationsByApi: Map<Api, Operation[]>;
}
const nativeRequire = ((process as { getBuiltinModule?: (name: string) => unknown }).getBuiltinModule?.('node:module') as typeof import('node:module') | undefined)?.createRequire(import.meta.url) ?? createRequire(import.meta.url);
const AjvClass = (nativeRequire('ajv') as typeof import('ajv')).Ajv;
const addFormats = nativeRequire('ajv-formats') as (ajv: Ajv, options: { mode: 'fast' | 'full' }) => Ajv;
const CACHE = Symbol.for('static-export-action.contract-check');
const holder = AjvClass as unknown as Record<symbol, Compiled | undefined>;
const cache: Compiled = (holder[CACHE] ??= { documents: new Map(), compiled: new Map(), operationsByApi: new Map() });
const { documents, compiled, operationsByApi } = cache;

function theAjv(): Ajv {
  if (!cache.ajv) {
    // strict: false lets OpenAPI's own words (nullable, example, discriminator, x-…) stand beside JSON Schema's.
    // inlineRefs: false compiles each shared schema (a repository, a user) once, not in every place it appears.
    const ajv = new AjvClass({ strict: false, allErrors: true, inlineRefs: false });
    // Formats in ajv-formats' fast mode: the same formats, each checked by a shorter pattern (a uri by
    // its scheme and shape, not by RFC 3986's every rule). GitHub's answers hold dozens of URLs each,
    // and the full patterns were a tenth of an in-process test's CPU; a field that is missing or of
    // another type, what the check is for, is caught the same.
    addFormats(ajv, { mode: 'fast' });
    // OpenAPI's numeric formats say how big a number is, not what a string looks like.
    for (const format of ['int32', 'int64', 'float', 'double', 'binary', 'byte', 'uri-template', 'repo.nwo', 'ssh-key', 'ssh-key fingerprint']) ajv.addFormat(format, true);
    cache.ajv = ajv;
  }
  return cache.ajv;
}

export function operationsOf(api: Api): Operation[] {
  const known = operationsByApi.get(api);
  if (known) return known;
  const operations: Operation[] = [];
  for (const file of DESCRIPTIONS[api]) {
    const doc = JSON.parse(readFileSync(new URL(`../openapi/${file}`, import.meta.url), 'utf8')) as Json;
    openApiNullable(doc);
    documents.set(file, doc);
    theAjv().addSchema(doc, file);
    const prefix = new URL(((doc.servers as { url: string }[] | undefined)?.[0]?.url ?? 'http://x') + '/', 'http://x').pathname.replace(/\/$/, '');
    for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, node] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const op = node as Json;
        operations.push({
          name: String(op.operationId ?? `${method} ${template}`),
          method,
          template: prefix + template,
          pattern: patternOf(prefix + template),
          doc: file,
          pointer: `#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`,
          node: op
        });
      }
    }
  }
  // A literal segment beats a parameter: /pulls/{n}/merge before /pulls/{n}, git/ref before contents.
  operations.sort((a, b) => literalLength(b.template) - literalLength(a.template));
  operationsByApi.set(api, operations);
  return operations;
}

function literalLength(template: string): number {
  return template.replace(/\{[^}]+\}/g, '').length;
}

/**
 * `/repos/{owner}/{repo}/git/ref/{ref}` → a pattern; the last parameter may hold slashes (a ref, a
 * path), but not a repository's name: `/repos/{owner}/{repo}` must not take in a route the stored
 * description lacks (`/repos/o/r/actions/runs`), which goes unchecked instead.
 */
function patternOf(template: string): RegExp {
  const parts = template.split(/(\{[^}]+\})/);
  const last = parts.map((part) => part.startsWith('{')).lastIndexOf(true);
  const source = parts.map((part, i) => (part.startsWith('{') ? (i === last && i === parts.length - 2 && part !== '{repo}' ? '(.+)' : '([^/]+)') : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`);
}

/** The JSON schema of a request body or response, resolving one $ref to a shared response. */
function jsonSchemaAt(node: Json | undefined, docName: string): unknown {
  if (!node) return undefined;
  const resolved = typeof node.$ref === 'string' ? pointerIn(documents.get(docName) as Json, node.$ref) : node;
  const content = (resolved as Json | undefined)?.content as Record<string, { schema?: unknown }> | undefined;
  const json = content && Object.entries(content).find(([type]) => /json/.test(type));
  return json?.[1].schema;
}

function pointerIn(doc: Json, ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, part) => (node as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** The query parameters the description declares, checked by their schema: a required one missing, a value out of range. */
function queryProblems(operation: Operation, query: URLSearchParams): string[] {
  const doc = documents.get(operation.doc) as Json;
  const problems: string[] = [];
  ((operation.node.parameters ?? []) as Json[]).forEach((node, index) => {
    const pointer = typeof node.$ref === 'string' ? node.$ref : `${operation.pointer}/parameters/${index}`;
    const parameter = pointerIn(doc, pointer) as Json;
    if (parameter.in !== 'query') return;
    const given = query.get(String(parameter.name));
    if (given === null) {
      if (parameter.required === true) problems.push(`no query parameter ${String(parameter.name)}, which its description requires`);
      return;
    }
    let schema = parameter.schema as Json;
    if (typeof schema.$ref === 'string') schema = pointerIn(doc, schema.$ref) as Json;
    // A query holds strings: read it as the schema's type says, as a server would.
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    const value = type === 'integer' || type === 'number' ? (/^-?\d+(\.\d+)?$/.test(given) ? Number(given) : given) : type === 'boolean' ? (given === 'true' ? true : given === 'false' ? false : given) : type === 'array' ? given.split(',') : given;
    const errors = validateAt(operation.doc, `${pointer}/schema`, value);
    if (errors) problems.push(`the query parameter ${String(parameter.name)}=${given}, which its description does not allow: ${errors}`);
  });
  return problems;
}

/** Validates `value` against the schema at `pointer` in a description, compiled once. */
function validateAt(docName: string, pointer: string, value: unknown): string | undefined {
  const key = `${docName}${pointer}`;
  let check = compiled.get(key);
  if (!check) {
    check = theAjv().compile({ $ref: `${docName}${pointer}` });
    compiled.set(key, check);
  }
  return check(value) ? undefined : (check.errors ?? []).map((error) => `${error.instancePath || 'the value'} ${error.message ?? 'is not allowed'}`).join('; ');
}

/** Validates `value` against the schema at `where` under the operation; a line naming each field at fault, or undefined. */
function validate(operation: Operation, where: string, value: unknown, gaps: RegExp[] = []): string | undefined {
  const key = `${operation.doc}${operation.pointer}/${where}`;
  let check = compiled.get(key);
  if (!check) {
    const doc = documents.get(operation.doc) as Json;
    let node = pointerIn(doc, `${operation.pointer}/${where}`) as Json;
    let pointer = `${operation.pointer}/${where}`;
    if (typeof node.$ref === 'string') {
      pointer = node.$ref;
      node = pointerIn(doc, node.$ref) as Json;
    }
    const type = Object.keys((node.content ?? {}) as Json).find((name) => /json/.test(name)) as string;
    check = theAjv().compile({ $ref: `${operation.doc}${pointer}/content/${type.replace(/~/g, '~0').replace(/\//g, '~1')}/schema` });
    compiled.set(key, check);
  }
  if (check(value)) return undefined;
  const errors = (check.errors ?? []).filter((error) => !gaps.some((gap) => gap.test(`${error.instancePath} ${error.message ?? ''}`)));
  if (errors.length === 0) return undefined;
  // Missing fields grouped by the object that lacks them: `/labels/0 lacks node_id, url`.
  const lacks = new Map<string, string[]>();
  const other: string[] = [];
  for (const error of errors) {
    const at = error.instancePath || '(the body)';
    if (error.keyword === 'required') lacks.set(at, [...(lacks.get(at) ?? []), String((error.params as { missingProperty: string }).missingProperty)]);
    else other.push(`${at} ${error.message ?? 'is not allowed'}`);
  }
  return [...[...lacks].map(([at, fields]) => `${at} lacks ${fields.join(', ')}`), ...other.slice(0, 5)].join('; ');
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema says it (Ajv's own takes it only beside `type`). */
function openApiNullable(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(openApiNullable);
  if (node === null || typeof node !== 'object') return;
  const schema = node as Json;
  for (const inner of Object.values(schema)) openApiNullable(inner);
  if (schema.nullable !== true) return;
  delete schema.nullable;
  if (typeof schema.type === 'string') {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
    return;
  }
  const rest = { ...schema };
  for (const key of Object.keys(schema)) delete schema[key];
  schema.anyOf = [rest, { type: 'null' }];
}

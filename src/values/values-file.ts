// Renews the static export settings in a deployment's values file (Helm `values.yaml`, or JSON)
// so that a reviewed pull request shows only the lines that really changed.
import { extname } from 'node:path';
import { applyEdits, findNodeAtLocation, getNodeValue, modify as jsonModify, parseTree, printParseErrorCode } from 'jsonc-parser';
import type { FormattingOptions, JSONPath, Node as JsonNode, ParseError } from 'jsonc-parser';
import { Document, isAlias, isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument, Scalar, stringify, visit, YAMLParseError } from 'yaml';
import type { Pair, YAMLMap } from 'yaml';
import { explainYamlError } from './yaml-errors.ts';

export interface StaticExportSettings {
  bundleUrl: string;
  version?: string;
  /** Set `enabled: true` too (default). A renewal leaves `enabled` as the team set it. */
  enable?: boolean;
}

export interface SettingChange {
  /** Dotted path of the setting, e.g. `mintlify.staticExport.bundleUrl`. */
  key: string;
  /** `undefined` when the setting was absent. */
  before: unknown;
  after: unknown;
}

export interface PatchResult {
  text: string;
  /** Empty when nothing changed; `text` is then the input, byte for byte. */
  changes: SettingChange[];
}

export class ConfigFileError extends Error {
  file: string;
  line?: number;
  problem: string;

  constructor(file: string, problem: string, line?: number) {
    super(line === undefined ? `${file}: ${problem}` : `${file}:${line}: ${problem}`);
    this.name = 'ConfigFileError';
    this.file = file;
    this.line = line;
    this.problem = problem;
  }
}

/** The edit gave a file that does not read back as asked: the action's fault, never the user's file's. */
export class EditFaultError extends Error {
  constructor(file: string, configKey: string, problem: string) {
    super(
      `${file}: the action's edit of ${configKey} gave a file it cannot read back (${problem}). ` +
        `This is a fault of the action, not of your file, and nothing was written. ` +
        `Report it to the action's maintainers with this message and the file; until it is fixed, set ${configKey} by hand.`
    );
    this.name = 'EditFaultError';
  }
}

type Setting = [name: string, value: unknown];

export function patchValuesFile(
  file: string,
  text: string,
  configKey: string,
  settings: StaticExportSettings
): PatchResult {
  const path = keyPath(file, configKey);
  const wanted: Setting[] = [['bundleUrl', settings.bundleUrl]];
  if (settings.enable !== false) wanted.unshift(['enabled', true]);
  if (settings.version !== undefined) wanted.push(['version', settings.version]);

  const result = formatOf(file) === 'yaml' ? patchYaml(file, text, path, wanted) : patchJson(file, text, path, wanted);

  // The edits are made by hand on the text, so read the result back before anyone commits it.
  let read: (name: string) => unknown;
  try {
    read = settingsIn(file, result.text, configKey);
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    const where = error.line === undefined ? '' : `line ${error.line} of the edited file: `;
    throw new EditFaultError(file, configKey, `${where}${error.problem}`);
  }
  for (const [name, value] of wanted) {
    const found = read(name);
    // The link is not shown: a message may end up where a link's signature must not.
    const shown = typeof found === 'string' ? 'another text' : JSON.stringify(found);
    if (found !== value) throw new EditFaultError(file, configKey, `${configKey}.${name} reads back as ${shown}, not as written`);
  }
  return result;
}

/** Shaped like the platform's presigned links, so a dry edit meets what a real one will. */
const PLACEHOLDER_LINK =
  'https://placeholder.invalid/se_0000000000000000/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=604800&X-Amz-Signature=0000000000000000';

/**
 * Makes the edit a run will make, with a placeholder link, and drops the result: a file the edit
 * cannot handle (or an edit that breaks it) fails before any export is spent on it.
 */
export function checkPatchable(file: string, text: string, configKey: string, version?: string): void {
  patchValuesFile(file, text, configKey, { bundleUrl: PLACEHOLDER_LINK, ...(version === undefined ? {} : { version }) });
}

export function readSetting(file: string, text: string, configKey: string, name: string): unknown {
  return settingsIn(file, text, configKey)(name);
}

/** Reads the file once; the function then gives each setting of the block (undefined when absent). */
function settingsIn(file: string, text: string, configKey: string): (name: string) => unknown {
  const path = keyPath(file, configKey);
  if (formatOf(file) === 'yaml') {
    const yaml = parseYaml(file, text);
    const place = locateYaml(yaml, path);
    if (place.kind !== 'found') return () => undefined;
    return (name) => {
      const node = findPair(place.map, name)?.value;
      return isNode(node) ? node.toJS(yaml.doc) : node;
    };
  }
  const tree = parseJson(file, text);
  const place = locateJson(file, text, tree, path);
  const block = place.block;
  if (block === undefined) return () => undefined;
  return (name) => {
    const node = findNodeAtLocation(block, [name]);
    return node === undefined ? undefined : getNodeValue(node);
  };
}

/**
 * The dotted path of every block named `name` in the file (a key holding a mapping, or nothing yet),
 * found through mappings at any depth: where a chart may keep the settings, such as an umbrella
 * chart's `mintlify.staticExport`. Lists are not entered: config-key cannot name a place in one.
 */
export function blockPaths(file: string, text: string, name: string): string[] {
  return blockPathsWhere(file, text, (path) => path.at(-1) === name);
}

/** The dotted paths of every block (a map, or a key with no value yet) in the file, parents first. */
export function allBlockPaths(file: string, text: string): string[] {
  return blockPathsWhere(file, text, () => true);
}

function blockPathsWhere(file: string, text: string, wanted: (path: string[]) => boolean): string[] {
  const found: string[] = [];
  if (formatOf(file) === 'yaml') {
    const walk = (map: YAMLMap, at: string[]): void => {
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const path = [...at, String(pair.key.value)];
        const value = pair.value;
        if (wanted(path) && (isMap(value) || value === null || (isScalar(value) && value.value === null))) found.push(path.join('.'));
        if (isMap(value)) walk(value, path);
      }
    };
    const root = parseYaml(file, text).doc.contents;
    if (isMap(root)) walk(root, []);
    return found;
  }
  const walk = (object: JsonNode, at: string[]): void => {
    for (const property of object.children ?? []) {
      const [key, value] = property.children ?? [];
      if (key === undefined || value === undefined) continue;
      const path = [...at, String(key.value)];
      if (wanted(path) && (value.type === 'object' || value.type === 'null')) found.push(path.join('.'));
      if (value.type === 'object') walk(value, path);
    }
  };
  const tree = parseJson(file, text);
  if (tree !== undefined) walk(tree, []);
  return found;
}

function keyPath(file: string, configKey: string): string[] {
  const path = configKey.split('.');
  if (path.some((segment) => segment === '')) {
    throw new ConfigFileError(file, `"${configKey}" is not a dotted key such as "staticExport" or "mintlify.staticExport"`);
  }
  return path;
}

function formatOf(file: string): 'yaml' | 'json' {
  const extension = extname(file).toLowerCase();
  if (extension === '.yaml' || extension === '.yml') return 'yaml';
  if (extension === '.json') return 'json';
  throw new ConfigFileError(file, `unsupported file type "${extension}": use a .yaml, .yml or .json file`);
}

/** Nests the settings under the keys still to be created: (['a','b'], s) → {a: {b: s}}. */
function nest(keys: string[], wanted: Setting[]): Record<string, unknown> {
  let value: Record<string, unknown> = Object.fromEntries(wanted);
  for (const key of [...keys].reverse()) value = { [key]: value };
  return value;
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

// ---------------------------------------------------------------------------------------------
// YAML: the `yaml` Document finds the nodes and their source ranges; the file is then edited only
// inside those ranges, because re-rendering the whole Document would also restyle untouched lines
// (comment spacing, sequence indentation, flow spacing, folded scalars, runs of blank lines).

interface ParsedYaml {
  file: string;
  text: string;
  doc: Document.Parsed;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

type YamlPlace =
  | { kind: 'found'; map: YAMLMap }
  /** The key `rest[0]` is missing from `parent`; no parent when the document is empty. */
  | { kind: 'absent'; parent: YAMLMap | undefined; rest: string[] }
  /** The key of `pair` is there with no value (`key:` or `key: ~`); `rest` is what goes below it. */
  | { kind: 'empty'; pair: Pair; value: Scalar; inFlow: boolean; rest: string[] };

/**
 * The largest values file read: GitHub's contents API itself returns no content above 1 MB. The
 * file is parsed on the event loop, so this also bounds how long cancel and the timeout can wait.
 */
export const MAX_VALUES_FILE_BYTES = 1024 * 1024;

function checkSize(file: string, text: string): void {
  const bytes = Buffer.byteLength(text);
  if (bytes <= MAX_VALUES_FILE_BYTES) return;
  throw new ConfigFileError(
    file,
    `the file is ${(bytes / 1024 / 1024).toFixed(1)} MB, more than the 1 MB this action reads (GitHub's contents API returns no content above 1 MB). ` +
      'Keep the static export settings in a values file of their own, under 1 MB (Helm merges several: helm upgrade -f values.yaml -f static-export.yaml), and point config-path at it'
  );
}

/**
 * The last files parsed, by name and text: one run reads the same few texts again and again (the base's
 * file, the proposal's, the one it last proposed; each setting of each), and a 1 MB file takes a
 * quarter of a second to parse. Only a file that parsed is kept; its Document is only read, never changed.
 */
const parsed = new Map<string, ParsedYaml>(); // by text
const PARSES_KEPT = 4;

function parseYaml(file: string, text: string): ParsedYaml {
  const kept = parsed.get(text);
  if (kept?.file === file) return kept;
  const fresh = parseYamlNow(file, text);
  if (parsed.size >= PARSES_KEPT) parsed.delete(parsed.keys().next().value!);
  parsed.set(text, fresh);
  return fresh;
}

function parseYamlNow(file: string, text: string): ParsedYaml {
  checkSize(file, text);
  const lineCounter = new LineCounter();
  // uniqueKeys off: yaml compares each key with every key before it, quadratic in a mapping's size
  // (20,000 keys took 11 s); duplicateKey() does the same check with one Set per mapping.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false });
  const duplicate = doc.errors.length === 0 ? duplicateKey(doc) : undefined;
  // Reported as yaml's own check would, so that the message names the key and both lines.
  const error = duplicate !== undefined ? new YAMLParseError([duplicate, duplicate + 1], 'DUPLICATE_KEY', 'Map keys must be unique') : doc.errors[0];
  if (error !== undefined) {
    const { line, problem } = explainYamlError(text, doc, error, lineCounter);
    throw new ConfigFileError(file, `not valid YAML: ${problem}`, line);
  }
  return { file, text, doc };
}

/** Where a mapping repeats a key, if one does: keys are equal as yaml's own check finds them (same scalar value). */
function duplicateKey(doc: Document.Parsed): number | undefined {
  let at: number | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          at = isNode(pair.key) ? (pair.key.range?.[0] ?? 0) : 0;
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    }
  });
  return at;
}

function keyLine(text: string, pair: Pair): number | undefined {
  return isNode(pair.key) && pair.key.range ? lineAt(text, pair.key.range[0]) : undefined;
}

/** A setting the block inherits through a merge key (`<<: *defaults`), as Helm reads it; undefined when none. */
function inheritedValue(doc: Document, map: YAMLMap, name: string): unknown {
  for (const pair of map.items) {
    if (!isScalar(pair.key) || (pair.key.source ?? pair.key.value) !== '<<') continue;
    // The first source that has the setting wins, as in YAML's merge rules.
    for (const source of isSeq(pair.value) ? pair.value.items : [pair.value]) {
      const block = isAlias(source) ? source.resolve(doc) : source;
      const found = isMap(block) ? findPair(block, name) : undefined;
      if (found && isScalar(found.value)) return found.value.value;
    }
  }
  return undefined;
}

/**
 * A key on the way to the settings holds a value instead of a block: name config-key, which chose the
 * path, and when it ends in a setting's own name, the block it should name instead.
 */
function notABlock(path: string[], depth: number, holds: string): string {
  const at = path.slice(0, depth + 1).join('.');
  const key = path.join('.');
  const last = path.at(-1)!;
  const setting = depth === path.length - 1 && path.length > 1 && ['bundleUrl', 'enabled', 'version'].includes(last);
  const fix = setting
    ? `config-key names the block that holds the settings, not a setting: set config-key to ${path.slice(0, -1).join('.')}.`
    : `config-key (${key}) names the block to edit: write "${at}" as a block of settings, or set config-key to the block that holds bundleUrl.`;
  return `"${at}" is ${holds}, not a block of settings. ${fix}`;
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => isScalar(pair.key) && pair.key.value === key);
}

function locateYaml({ file, text, doc }: ParsedYaml, path: string[]): YamlPlace {
  const root = doc.contents;
  // `---` and `...` with nothing between them hold an empty scalar: no content yet, like an empty file.
  const empty = root === null || (isScalar(root) && root.value === null && root.range[0] === root.range[1]);
  if (empty) return { kind: 'absent', parent: undefined, rest: path };
  if (!isMap(root)) throw new ConfigFileError(file, 'the top level is not a mapping', lineAt(text, root.range[0]));

  let map: YAMLMap = root;
  for (let i = 0; i < path.length; i++) {
    const pair = findPair(map, path[i]);
    if (pair === undefined) return { kind: 'absent', parent: map, rest: path.slice(i) };
    const value = pair.value;
    if (isScalar(value) && value.value === null) {
      return { kind: 'empty', pair, value, inFlow: map.flow === true, rest: path.slice(i + 1) };
    }
    if (isAlias(value)) {
      // Editing through an alias would change every block that uses the anchor.
      const anchorLine = lineAt(text, Math.max(0, text.search(new RegExp(`&${escapeRegExp(value.source)}(?![\\w-])`))));
      throw new ConfigFileError(
        file,
        `"${path.slice(0, i + 1).join('.')}" is an alias (*${value.source}) of the anchor &${value.source} on line ${anchorLine}, so a change here would change every block that uses that anchor. ` +
          `Write the block out in full under ${path.slice(0, i + 1).join('.')} (in place of *${value.source}), then run again`,
        keyLine(text, pair)
      );
    }
    if (!isMap(value)) {
      const holds = isSeq(value) ? 'a list' : isScalar(value) ? `a ${typeof value.value === 'boolean' ? 'true/false' : typeof value.value}` : 'not a mapping';
      throw new ConfigFileError(file, notABlock(path, i, holds), keyLine(text, pair));
    }
    map = value;
  }
  return { kind: 'found', map };
}

function patchYaml(file: string, text: string, path: string[], wanted: Setting[]): PatchResult {
  const yaml = parseYaml(file, text);
  const place = locateYaml(yaml, path);
  const configKey = path.join('.');
  const edits: Edit[] = [];
  const changes: SettingChange[] = [];

  if (place.kind === 'found') {
    const missing: Setting[] = [];
    for (const [name, after] of wanted) {
      const key = `${configKey}.${name}`;
      const pair = findPair(place.map, name);
      const value = pair?.value;
      if (pair === undefined) {
        missing.push([name, after]);
        changes.push({ key, before: inheritedValue(yaml.doc, place.map, name), after });
      } else if (!isScalar(value)) {
        throw new ConfigFileError(file, `"${key}" is not a single value`, keyLine(text, pair));
      } else if (value.value !== after) {
        edits.push(replaceScalar(yaml, value, after, place.map.flow === true));
        changes.push({ key, before: value.value, after });
      }
    }
    if (missing.length > 0) edits.push(addToMap(yaml, place.map, missing));
  } else {
    for (const [name, after] of wanted) changes.push({ key: `${configKey}.${name}`, before: undefined, after });
    const block = nest(place.rest, wanted);
    if (place.kind === 'absent') edits.push(addToMap(yaml, place.parent, Object.entries(block)));
    else edits.push(...fillEmpty(yaml, place, block));
  }

  return { text: applyYamlEdits(text, edits), changes };
}

function applyYamlEdits(text: string, edits: Edit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  }
  return result;
}

/** Writes the new value over the old one's source, in the same quoting style. */
function replaceScalar({ text }: ParsedYaml, node: Scalar, value: unknown, inFlow: boolean): Edit {
  const [start, end] = node.range ?? [0, 0];
  const isBlock = node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED;
  // Keep the old style unless it cannot carry over: a block scalar needs its context's indentation,
  // a plain one may not be safe in flow, and a null has no style worth keeping.
  const restyle = isBlock || node.value === null || (inFlow && node.type === Scalar.PLAIN);
  const scalar = new Scalar(value);
  scalar.type = restyle ? Scalar.QUOTE_DOUBLE : node.type;
  const rendered = stringify(scalar, { lineWidth: 0 }).replace(/\n$/, '');
  if (start === end) return { start, end, text: ` ${rendered}` }; // `key:` with nothing after the colon
  // A block scalar's range runs to the start of the next line.
  return { start, end, text: isBlock ? rendered + eolOf(text) : rendered };
}

/** Adds entries after the last one in a mapping (for the top level, where the document's content ends). */
function addToMap(yaml: ParsedYaml, map: YAMLMap | undefined, entries: Array<[string, unknown]>): Edit {
  const { text, doc } = yaml;
  if (map?.flow) return addToFlowMap(yaml, map, Object.fromEntries(entries));
  const column = map === undefined ? 0 : keyColumn(text, map);
  const lines = renderBlock(Object.fromEntries(entries), column, indentStep(yaml));
  const at = map === undefined ? documentEnd(text) : endOfEntries(text, map, column);
  // A new top-level block is set apart by a blank line, like the blocks before it.
  if ((map === undefined || map === doc.contents) && text.trim() !== '' && !blankLineBefore(text, at)) lines.unshift('');
  return insertLines(text, at, lines);
}

/**
 * Where a new entry of `map` goes: after its last entry and the comments that belong to that entry
 * (the lines right below it, and commented-out lines indented under it), before comments that
 * belong to nothing, the document end marker `...`, or whatever comes next. After a `...`, an entry
 * would start a second document.
 */
function endOfEntries(text: string, map: YAMLMap, column: number): number {
  let end = lineEndAfter(text, contentEnd(map) ?? map.range?.[1] ?? text.length);
  let attached = true; // no blank line between this line and what belongs to the entry
  for (let start = end; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const next = newline === -1 ? text.length : newline + 1;
    const line = text.slice(start, next);
    const indent = /^[ \t]*/.exec(line)![0].length;
    if (line.trim() === '') attached = false;
    else if (line[indent] === '#' && (indent > column || (attached && indent === column))) [end, attached] = [next, true];
    else break;
    start = next;
  }
  return end;
}

/** Where the last entry's content ends (its trailing comments aside). */
function contentEnd(node: unknown): number | undefined {
  if (isPair(node)) return contentEnd(node.value) ?? contentEnd(node.key);
  if ((isMap(node) || isSeq(node)) && !node.flow) return contentEnd(node.items.at(-1)) ?? node.range?.[0];
  return isNode(node) ? node.range?.[1] : undefined;
}

/** The start of the line after the one that holds `offset - 1`. */
function lineEndAfter(text: string, offset: number): number {
  if (offset === 0 || text[offset - 1] === '\n') return offset;
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

/** Where a document without content ends: at its `...` marker, or the end of the file. */
function documentEnd(text: string): number {
  const marker = /^\.\.\.(?=[ \t]|\r?$)/m.exec(text);
  return marker?.index ?? text.length;
}

function blankLineBefore(text: string, at: number): boolean {
  if (at === 0) return true;
  if (text[at - 1] !== '\n') return false;
  const previous = text.lastIndexOf('\n', at - 2) + 1;
  return text.slice(previous, at).trim() === '';
}

function addToFlowMap({ text }: ParsedYaml, map: YAMLMap, entries: Record<string, unknown>): Edit {
  const [start, end] = map.range ?? [0, 0];
  const padded = text[start + 1] === ' ';
  if (map.items.length === 0) return { start, end, text: renderFlow(entries, padded) };
  const last = map.items[map.items.length - 1];
  const lastNode = last.value ?? last.key;
  const at = (isNode(lastNode) ? lastNode.range?.[1] : undefined) ?? end - 1;
  const inner = renderFlow(entries, false).slice(1, -1);
  return { start: at, end: at, text: `, ${inner}` };
}

/** Gives `key:` or `key: ~` the block it should hold. */
function fillEmpty(
  yaml: ParsedYaml,
  place: { pair: Pair; value: Scalar; inFlow: boolean },
  block: Record<string, unknown>
): Edit[] {
  const { text } = yaml;
  const [start, end] = place.value.range ?? [0, 0];
  if (place.inFlow) {
    const rendered = renderFlow(block, false);
    return [{ start, end, text: start === end ? ` ${rendered}` : rendered }];
  }
  // Drop the `~` or `null` with the spaces before it; a comment after it stays on the key's line.
  let from = start;
  while (from > 0 && (text[from - 1] === ' ' || text[from - 1] === '\t')) from--;
  const removeNull: Edit = { start: end > start ? from : start, end, text: '' };
  const lineEnd = text.indexOf('\n', end);
  const column = (isScalar(place.pair.key) ? columnAt(text, place.pair.key.range?.[0] ?? 0) : 0) + indentStep(yaml);
  const lines = renderBlock(block, column, indentStep(yaml));
  return [removeNull, insertLines(text, lineEnd === -1 ? text.length : lineEnd + 1, lines)];
}

/** Inserts whole lines at the start of a line; at the end of a file without a final newline, it stays without. */
function insertLines(text: string, at: number, lines: string[]): Edit {
  const eol = eolOf(text);
  const block = lines.join(eol);
  if (at > 0 && text[at - 1] !== '\n') return { start: at, end: at, text: eol + block };
  return { start: at, end: at, text: block + eol };
}

function renderBlock(value: Record<string, unknown>, column: number, step: number): string[] {
  const rendered = new Document(value).toString({
    indent: step,
    lineWidth: 0, // a presigned link must stay on one line
    defaultStringType: 'QUOTE_DOUBLE',
    defaultKeyType: 'PLAIN'
  });
  return rendered
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => ' '.repeat(column) + line);
}

function renderFlow(value: Record<string, unknown>, padded: boolean): string {
  return new Document(value, { flow: true })
    .toString({ lineWidth: 0, flowCollectionPadding: padded, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' })
    .replace(/\n$/, '');
}

function columnAt(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

function keyColumn(text: string, map: YAMLMap): number {
  const first = map.items[0]?.key;
  return isScalar(first) && first.range ? columnAt(text, first.range[0]) : 0;
}

/** The file's indentation step: how far the first nested mapping sits inside its key. */
function indentStep({ text, doc }: ParsedYaml): number {
  let step = 0;
  visit(doc, {
    Pair(_, pair) {
      if (!isMap(pair.value) || pair.value.flow || !isScalar(pair.key) || !pair.key.range) return;
      step = keyColumn(text, pair.value) - columnAt(text, pair.key.range[0]);
      return step > 0 ? visit.BREAK : undefined;
    }
  });
  return step > 0 ? step : 2;
}

// ---------------------------------------------------------------------------------------------
// JSON: jsonc-parser's `modify` gives minimal edits, formatted like the rest of the file.

function parseJson(file: string, text: string): JsonNode | undefined {
  checkSize(file, text);
  if (text.trim() === '') return undefined;
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true });
  const error = errors[0];
  if (error !== undefined) {
    throw new ConfigFileError(file, `not valid JSON: ${printParseErrorCode(error.error)}`, lineAt(text, error.offset));
  }
  if (tree === undefined || tree.type !== 'object') {
    throw new ConfigFileError(file, 'the top level is not an object', lineAt(text, tree?.offset ?? 0));
  }
  return tree;
}

/** The settings object when it exists; otherwise how many keys of the path do (a `null` counts as missing). */
function locateJson(
  file: string,
  text: string,
  tree: JsonNode | undefined,
  path: string[]
): { block: JsonNode | undefined; depth: number } {
  let node = tree;
  for (let i = 0; i < path.length; i++) {
    const child = node === undefined ? undefined : findNodeAtLocation(node, [path[i]]);
    if (child === undefined || child.type === 'null') return { block: undefined, depth: i };
    if (child.type !== 'object') {
      const holds = child.type === 'array' ? 'a list' : child.type === 'boolean' ? 'a true/false' : `a ${child.type}`;
      throw new ConfigFileError(file, notABlock(path, i, holds), lineAt(text, child.offset));
    }
    node = child;
  }
  return { block: node, depth: path.length };
}

function patchJson(file: string, text: string, path: string[], wanted: Setting[]): PatchResult {
  const tree = parseJson(file, text);
  const place = locateJson(file, text, tree, path);
  const configKey = path.join('.');
  // A file on one line stays on one line: no formatting of the inserted text but the file's spacing.
  const oneLine = tree !== undefined && !text.trimEnd().includes('\n');
  const options = oneLine ? {} : { formattingOptions: jsonFormatting(text) };
  const modify = (source: string, at: JSONPath, value: unknown) => {
    const edits = jsonModify(source, at, value, options);
    return oneLine ? edits.map((edit) => ({ ...edit, content: spacedLike(text, edit.content) })) : edits;
  };
  const changes: SettingChange[] = [];

  if (place.block === undefined) {
    // One edit creates the block with whatever parents it lacks.
    const at = path.slice(0, place.depth + 1);
    const source = tree === undefined ? '' : text;
    let result = applyEdits(source, modify(source, at, nest(path.slice(place.depth + 1), wanted)));
    if (tree === undefined) result += jsonFormatting(text).eol;
    for (const [name, after] of wanted) changes.push({ key: `${configKey}.${name}`, before: undefined, after });
    return { text: result, changes };
  }

  let result = text;
  for (const [name, after] of wanted) {
    const node = findNodeAtLocation(place.block, [name]);
    const before = node === undefined ? undefined : getNodeValue(node);
    if (before === after) continue;
    result = applyEdits(result, modify(result, [...path, name], after));
    changes.push({ key: `${configKey}.${name}`, before, after });
  }
  return { text: result, changes };
}

/** Inserted one-line JSON with the file's own spacing after commas and colons. */
function spacedLike(text: string, content: string): string {
  const afterColon = text.includes('": ') ? '": ' : '":';
  const afterComma = /[^\s\\],\s"/.test(text) ? ', "' : ',"';
  return content.replace(/":\s*(?=[^\s])/g, afterColon).replace(/,\s*(?=")/g, afterComma.slice(0, -1));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function jsonFormatting(text: string): FormattingOptions {
  const eol = eolOf(text);
  const indent = /^[ \t]+(?=\S)/m.exec(text)?.[0];
  if (indent?.startsWith('\t')) return { insertSpaces: false, tabSize: 4, eol };
  return { insertSpaces: true, tabSize: indent?.length ?? 2, eol };
}

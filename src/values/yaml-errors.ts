// Says why a values file is not valid YAML in words a person can act on: the key or construct at
// fault, the lines that matter (both, where two places clash), and what to change. The `yaml`
// library's own messages name one position and no key ("Map keys must be unique").
import { isCollection, isMap, isNode, isPair, isScalar, Scalar, visit } from 'yaml';
import type { Document, LineCounter, Node, YAMLError } from 'yaml';

export interface YamlProblem {
  /** The line the error is reported on (1-based). */
  line: number;
  /** What is wrong and what to do, after "not valid YAML: ". */
  problem: string;
}

const AGAIN = 'then run again';

export function explainYamlError(text: string, doc: Document.Parsed, error: YAMLError, lines: LineCounter): YamlProblem {
  const at = Math.min(error.pos[0], text.length);
  const line = lineOf(lines, at);
  const specific = specificProblem(text, doc, error, lines, at, line);
  if (typeof specific === 'object') return specific;
  return { line, problem: specific ?? genericProblem(text, error, at, line) };
}

/** A message for the errors people make most; an object when another line is the one to fix. */
function specificProblem(text: string, doc: Document.Parsed, error: YAMLError, lines: LineCounter, at: number, line: number): string | YamlProblem | undefined {
  const reason = reasonOf(error);
  switch (error.code) {
    case 'DUPLICATE_KEY': {
      const clash = duplicateKey(doc, at);
      if (!clash) return undefined;
      return (
        `duplicate key "${clash.path}" on line ${line}, first on line ${lineOf(lines, clash.firstAt)}. ` +
        'Helm would keep only the last one and drop the first without a word. ' +
        `Keep the one you mean (move into it what the other holds) and delete the other, ${AGAIN}`
      );
    }
    case 'MULTIPLE_DOCS':
      return secondDocument(text, lines, at, line);
    case 'MISSING_CHAR': {
      const quoted = unclosedQuote(doc, at);
      if (quoted) {
        const [kind, mark, escape] = quoted.type === Scalar.QUOTE_DOUBLE ? ['double', '"', '\\"'] : ['single', "'", "''"];
        const opened = lineOf(lines, quoted.range![0]);
        const runsTo = at >= text.trimEnd().length ? 'the file ends inside it' : `it runs on to line ${line}`;
        return {
          line: opened,
          problem: `the ${kind}-quoted value on line ${opened}${ownerOf(doc, quoted)} is never closed: ${runsTo}. Close it with ${mark} on line ${opened} (a ${mark} inside it is written ${escape}), ${AGAIN}`
        };
      }
      if (/followed by map values/.test(reason)) {
        return `line ${line} holds ${quote(excerpt(text, at))} without the ":" that makes it a key. Write it as "key: value", or make it a comment with #, ${AGAIN}`;
      }
      return undefined;
    }
    case 'BAD_INDENT': {
      const flow = unclosedFlow(doc, at);
      if (flow) {
        const [open, close, kind] = isMap(flow) ? ['{', '}', 'flow mapping'] : ['[', ']', 'flow sequence'];
        const opened = lineOf(lines, flow.range![0]);
        return {
          line: opened,
          problem:
            `the ${kind} ${open} opened on line ${opened}${ownerOf(doc, flow)} is not closed with ${close} before line ${line}. ` +
            `Close it with ${close}; a continuation line goes further in than the key it belongs to, ${AGAIN}`
        };
      }
      const above = previousContentLine(text, at);
      if (/same column/.test(reason) && above) {
        const entry = at + /^[ \t]*/.exec(text.slice(at, at + 200))![0].length; // the error may point at the line's start
        return (
          `${quote(keyOrExcerpt(text, entry))} on line ${line} starts at column ${columnOf(lines, entry)}, but ${quote(keyOrExcerpt(text, above.offset))} above it on line ${above.line} ` +
          `at column ${columnOf(lines, above.offset)}: the entries of one mapping start at the same column. Indent line ${line} like the entry it belongs with (spaces only), ${AGAIN}`
        );
      }
      return undefined;
    }
    case 'TAB_AS_INDENT':
      return `line ${line} is indented with a tab, and YAML indents with spaces only. Replace the tab with spaces, as deep as the lines it belongs with, ${AGAIN}`;
    case 'BAD_DQ_ESCAPE': {
      const escape = /\\(?:x[0-9a-fA-F]{0,2}|u[0-9a-fA-F]{0,4}|U[0-9a-fA-F]{0,8}|.)?/.exec(text.slice(at - 1, at + 10))?.[0] ?? '\\';
      return `the double-quoted value on line ${line} holds ${escape}, which is not a YAML escape. Write \\\\ for a backslash, or put the value in single quotes, ${AGAIN}`;
    }
    case 'BAD_SCALAR_START': {
      const value = excerpt(text, at);
      return `the value ${quote(value)} on line ${line} starts with ${value[0]}, which YAML keeps for itself. Put the value in quotes (${JSON.stringify(value)}), ${AGAIN}`;
    }
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return valueThenNested(text, doc, lines, at, line);
    default:
      return undefined;
  }
}

/** `key: value` followed by a line indented under it: the most common cause of these two errors. */
function valueThenNested(text: string, doc: Document.Parsed, lines: LineCounter, at: number, line: number): string | undefined {
  const key = keyPathOf(doc, (value) => value.range?.[0] === at);
  const next = nextContentLine(text, at);
  if (!key || !next || columnOf(lines, next.offset) <= columnOf(lines, lineStart(text, at) + indentOf(text, at))) return undefined;
  const value = text.slice(at).split(/\r?\n/, 1)[0].replace(/\s+#.*$/, '').trim();
  return (
    `"${key}" on line ${line} has the value ${quote(value)} and, on line ${next.line}, ${quote(excerpt(text, next.offset))} indented under it: ` +
    `a key holds either one value or nested entries. Delete the value to nest line ${next.line} under "${key}", or indent line ${next.line} like "${key}", ${AGAIN}`
  );
}

/** Any other error: the library's reason, the construct it stopped at, and the line before it. */
function genericProblem(text: string, error: YAMLError, at: number, line: number): string {
  const above = previousContentLine(text, at);
  const after = above && above.line !== line ? `, after ${quote(excerpt(text, above.offset))} on line ${above.line}` : '';
  const found = excerpt(text, at);
  const reason = reasonOf(error).replace(/^[A-Z](?![A-Z])/, (first) => first.toLowerCase());
  const what = found === '' ? `${reason}, at the end of line ${line}` : `${reason}, at ${quote(found)} on line ${line}`;
  return `${what}${after}. Fix the YAML there (\`helm lint\` or yamllint point at the same place), ${AGAIN}`;
}

function reasonOf(error: YAMLError): string {
  // The message repeats the position and quotes the source; the first clause is the reason.
  return error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

/** The duplicated key at `at`: its dotted path and where the same key first appears in its mapping. */
function duplicateKey(doc: Document.Parsed, at: number): { path: string; firstAt: number } | undefined {
  let found: { path: string; firstAt: number } | undefined;
  visit(doc, {
    Map(_, map, ancestors) {
      const index = map.items.findIndex((pair) => isScalar(pair.key) && pair.key.range?.[0] === at);
      if (index === -1) return undefined;
      const key = map.items[index].key as Scalar;
      const first = map.items.slice(0, index).find((pair) => isScalar(pair.key) && pair.key.value === key.value);
      if (!first || !isScalar(first.key)) return undefined;
      const parents = ancestors.filter(isPair).map((pair) => (isScalar(pair.key) ? String(pair.key.value) : '?'));
      found = { path: [...parents, String(key.value)].join('.'), firstAt: first.key.range?.[0] ?? at };
      return visit.BREAK;
    }
  });
  return found;
}

function secondDocument(text: string, lines: LineCounter, at: number, line: number): string {
  const todo = `A values file holds one document: delete that marker and keep everything in one mapping, or move what follows it to a file of its own, ${AGAIN}`;
  const lineText = text.slice(lineStart(text, at)).split('\n', 1)[0];
  if (/^---(?:\s|$)/.test(lineText)) return `a second YAML document starts with the marker --- on line ${line}. ${todo}`;
  const end = /^\.\.\.(?=[ \t]|\r?$)/gm;
  let marker: number | undefined;
  for (let match = end.exec(text); match && match.index < at; match = end.exec(text)) marker = match.index;
  const after = marker === undefined ? '' : `, after the document end marker ... on line ${lineOf(lines, marker)}`;
  return `a second YAML document starts on line ${line}${after}. ${todo}`;
}

/** The quoted scalar that runs to `at` without its closing quote. */
function unclosedQuote(doc: Document.Parsed, at: number): Scalar | undefined {
  let found: Scalar | undefined;
  visit(doc, {
    Scalar(_, scalar) {
      const quoted = scalar.type === Scalar.QUOTE_DOUBLE || scalar.type === Scalar.QUOTE_SINGLE;
      if (quoted && scalar.range && scalar.range[0] < at && scalar.range[1] >= at) found = scalar;
    }
  });
  return found;
}

/** The flow collection that stops at `at` without its closing bracket. */
function unclosedFlow(doc: Document.Parsed, at: number): Node | undefined {
  let found: Node | undefined;
  visit(doc, (_, node) => {
    if (isCollection(node) && node.flow && node.range && node.range[0] < at && node.range[1] === at) found = node;
  });
  return found;
}

/** ` (the value of "a.b")` for a node that is a mapping's value, else nothing. */
function ownerOf(doc: Document.Parsed, node: Node): string {
  const key = keyPathOf(doc, (value) => value === node);
  return key === undefined ? '' : ` (the value of "${key}")`;
}

/** The dotted key path of the first mapping value that passes `test`. */
function keyPathOf(doc: Document.Parsed, test: (value: Node) => boolean): string | undefined {
  let path: string | undefined;
  visit(doc, {
    Pair(_, pair, ancestors) {
      if (!isNode(pair.value) || !test(pair.value)) return undefined;
      const keys = [...ancestors.filter(isPair), pair].map((p) => (isScalar(p.key) ? String(p.key.value) : '?'));
      path = keys.join('.');
      return visit.BREAK;
    }
  });
  return path;
}

/** The nearest line before `at` that holds YAML (not blank, not only a comment). */
function previousContentLine(text: string, at: number): { line: number; offset: number } | undefined {
  let end = lineStart(text, at);
  let line = text.slice(0, end).split('\n').length;
  while (end > 0) {
    const start = lineStart(text, end - 1);
    line--;
    const content = text.slice(start, end).search(/[^\s]/);
    if (content !== -1 && text[start + content] !== '#') return { line, offset: start + content };
    end = start;
  }
  return undefined;
}

/** The nearest line after the line of `at` that holds YAML. */
function nextContentLine(text: string, at: number): { line: number; offset: number } | undefined {
  const pattern = /\n([ \t]*)(?=[^\s#])/g;
  pattern.lastIndex = at;
  const match = pattern.exec(text);
  if (!match) return undefined;
  const offset = match.index + 1 + match[1].length;
  return { line: text.slice(0, offset).split('\n').length, offset };
}

/** How far the line of `at` is indented. */
function indentOf(text: string, at: number): number {
  const start = lineStart(text, at);
  return /^[ \t]*/.exec(text.slice(start, at))![0].length;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

function lineOf(lines: LineCounter, at: number): number {
  return lines.linePos(at).line;
}

function columnOf(lines: LineCounter, at: number): number {
  return lines.linePos(at).col;
}

/** The source from `at` to the end of its line, shortened for a message. */
function excerpt(text: string, at: number): string {
  const rest = text.slice(at).split(/\r?\n/, 1)[0].trim();
  return rest.length > 40 ? `${rest.slice(0, 40)}…` : rest;
}

/** `key` for a line that starts with `key:`, else the source there. */
function keyOrExcerpt(text: string, at: number): string {
  const source = excerpt(text, at);
  return /^([^\s:#][^:#]*?):(?:\s|$)/.exec(source)?.[1] ?? source;
}

function quote(source: string): string {
  return `"${source.replaceAll('"', '\\"')}"`;
}

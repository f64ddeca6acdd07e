/**
 * YAML inputs (network.yml, column mappings): the one-line syntax errors of text-file.ts, for YAML, and the limits
 * that keep a hostile or broken file from exhausting memory or the stack: aliases expand to at most
 * {@link MAX_YAML_ALIAS_NODES} nodes (an "alias bomb" of nested anchors would expand to billions), nesting is at most
 * {@link MAX_NESTING} levels, and a tag the plain YAML 1.2 core schema does not know (`!foo 50`, `!!binary …`) is
 * refused by name instead of being read as a string.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { FormatError } from '../errors.js';
import { MAX_NESTING, tooDeepAt, tooDeepError, withoutBom } from './text-file.js';

let yaml: typeof Yaml | undefined;
/** The yaml package, loaded by the first YAML read (synchronously: parseYamlText is synchronous), not at start-up. */
const yamlLib = () => (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);

/** Nodes that aliases may expand to in one YAML input (the yaml package's maxAliasCount). */
export const MAX_YAML_ALIAS_NODES = 100;

function syntaxError(file: string, e: Yaml.YAMLParseError): FormatError {
  const at = e.linePos?.[0];
  const problem = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  if (/Maximum call stack/i.test(problem)) {
    return new FormatError(
      file,
      at ? `line ${at.line}:${at.col}` : '',
      `nested more than ${MAX_NESTING} levels deep (the limit for tracewatt's text inputs)`,
    );
  }
  return new FormatError(
    file,
    at ? `line ${at.line}:${at.col}` : '',
    `not valid YAML: ${problem}${e.code === 'TAB_AS_INDENT' ? ' (indent with spaces)' : ''}`,
  );
}

/** Depth of a parsed value, walked without recursion; stops once past `max`. */
function depthOf(value: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > deepest) deepest = d + 1;
    if (deepest > max) return deepest;
    for (const x of Array.isArray(v) ? v : Object.values(v as object)) stack.push([x, d + 1]);
  }
  return deepest;
}

/**
 * YAML.parse with one-line errors naming the file and line:column (tab indentation included), within the limits above.
 */
export function parseYamlText(file: string, text: string): unknown {
  const t = withoutBom(text);
  const deep = tooDeepAt(t, MAX_NESTING, true);
  if (deep >= 0) throw tooDeepError(file, t, deep);
  const lib = yamlLib();
  let value: unknown;
  try {
    const doc = lib.parseDocument(t, { prettyErrors: true, logLevel: 'silent' });
    if (doc.errors.length > 0) throw doc.errors[0];
    const tag = doc.warnings.find((w) => w.code === 'TAG_RESOLVE_FAILED');
    if (tag) {
      const at = tag.linePos?.[0];
      const name = (/tag:?\s*(\S+)/i.exec(tag.message)?.[1] ?? '').replace(/^tag:yaml\.org,2002:/, '!!');
      throw new FormatError(
        file,
        at ? `line ${at.line}:${at.col}` : '',
        `YAML tag ${name} is not one tracewatt reads (plain YAML: maps, lists, strings and numbers)`,
      );
    }
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_NODES });
  } catch (e) {
    if (e instanceof lib.YAMLParseError) throw syntaxError(file, e);
    if (e instanceof ReferenceError && /excessive alias/i.test(e.message)) {
      throw new FormatError(
        file,
        '',
        `YAML aliases expand to more than ${MAX_YAML_ALIAS_NODES} nodes (the limit on alias expansion: anchors ` +
          `nested in anchors grow exponentially)`,
      );
    }
    if (e instanceof ReferenceError && /unresolved alias/i.test(e.message)) {
      throw new FormatError(
        file,
        '',
        `not valid YAML: an alias names an anchor not set before it (${e.message.replace(/^.*: /, '*')})`,
      );
    }
    if (e instanceof RangeError) throw tooDeepError(file, t, -1);
    throw e;
  }
  if (depthOf(value, MAX_NESTING) > MAX_NESTING) throw tooDeepError(file, t, -1);
  return value;
}

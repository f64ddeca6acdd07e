/** YAML inputs (network.yml, column mappings): the one-line syntax errors of text-file.ts, for YAML. */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { FormatError } from '../errors.js';
import { withoutBom } from './text-file.js';

let yaml: typeof Yaml | undefined;
/** The yaml package, loaded by the first YAML read (synchronously: parseYamlText is synchronous), not at start-up. */
const yamlLib = () => (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);

/** YAML.parse with one-line errors naming the file and line:column (tab indentation included). */
export function parseYamlText(file: string, text: string): unknown {
  try {
    return yamlLib().parse(withoutBom(text), { prettyErrors: true });
  } catch (e) {
    if (!(e instanceof yamlLib().YAMLParseError)) throw e;
    const at = e.linePos?.[0];
    const problem = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new FormatError(file, at ? `line ${at.line}:${at.col}` : '', `not valid YAML: ${problem}${e.code === 'TAB_AS_INDENT' ? ' (indent with spaces)' : ''}`);
  }
}

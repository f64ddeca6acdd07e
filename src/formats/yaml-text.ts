/** YAML inputs (network.yml, column mappings): the one-line syntax errors of text-file.ts, for YAML. */
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { FormatError } from '../errors.js';
import { withoutBom } from './text-file.js';

/** YAML.parse with one-line errors naming the file and line:column (tab indentation included). */
export function parseYamlText(file: string, text: string): unknown {
  try {
    return parseYaml(withoutBom(text), { prettyErrors: true });
  } catch (e) {
    if (!(e instanceof YAMLParseError)) throw e;
    const at = e.linePos?.[0];
    const problem = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new FormatError(file, at ? `line ${at.line}:${at.col}` : '', `not valid YAML: ${problem}${e.code === 'TAB_AS_INDENT' ? ' (indent with spaces)' : ''}`);
  }
}

/**
 * Checks result JSON against the shapes in types.ts before the report touches it: each record's kind, schema
 * version and label, then the fields its kind's check (kinds.ts) names. A problem is a FormatError naming the file
 * and the JSON path, e.g. `sweep.json: [0].points[3].energyJ.total: expected a number, found "n/a"`. Unknown extra
 * fields are allowed (newer engines may add some).
 */
import { JsonShape, type JsonObject } from '../formats/json-shape.js';
import { parseJsonText, readTextFile } from '../formats/text-file.js';
import { RESULT_KINDS, viewsOf } from './kinds.js';
import { checkRecordHead } from './result-checks.js';
import type { ReportResult } from './types.js';

function checkResult(c: JsonShape, r: JsonObject, path: string): ReportResult {
  checkRecordHead(c, r, path, RESULT_KINDS);
  const result = r as unknown as ReportResult;
  viewsOf(result.kind).check(c, r, path);
  return result;
}

/** Validates one parsed results document: a single record or an array of records. */
export function parseResults(json: unknown, file: string): ReportResult[] {
  const c = new JsonShape(file);
  if (Array.isArray(json)) {
    if (json.length === 0) c.fail('', 'expected at least one result record, found an empty list');
    return json.map((item, i) => checkResult(c, c.object(item, `[${i}]`), `[${i}]`));
  }
  return [checkResult(c, c.object(json, ''), '')];
}

/** Reads and validates results files in order; the first bad file stops with a FormatError naming it. */
export async function loadResults(files: readonly string[]): Promise<ReportResult[]> {
  const all: ReportResult[] = [];
  for (const file of files) {
    all.push(...parseResults(parseJsonText(file, await readTextFile(file)), file));
  }
  return all;
}

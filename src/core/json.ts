/**
 * JSON output for results: bigint values are written as exact integer literals (valid JSON;
 * consumers that need all 64 bits, e.g. Python, read them exactly) instead of passing through a float.
 */
const MARK = '__tracewatt_bigint__';
const MARKED = new RegExp(`"${MARK}(-?\\d+)"`, 'g');

export function toJson(value: unknown, indent = 2): string {
  let found = false;
  const text = JSON.stringify(
    value,
    (_key, v) => {
      if (typeof v !== 'bigint') return v;
      found = true;
      return `${MARK}${v.toString()}`;
    },
    indent,
  );
  return found ? text.replace(MARKED, '$1') : text;
}

/**
 * Seeded mutations of JSON and YAML inputs, for the mutation tests: a value replaced (by one from a pool of absurd,
 * edge and wrong-typed values), a key deleted or added, a value nested deep, the text cut short. Each mutation says
 * what it did, so a failure names it.
 */

/** A path into a JSON value: object keys and array indices. */
export type JsonPath = (string | number)[];

export interface Mutation {
  label: string;
  text: string;
  /** The path changed, when a value was (for checks that depend on which field changed). */
  path?: JsonPath;
  /** The new value, when a value was set. */
  value?: unknown;
}

/** Values put in place of a field: edges of ranges, absurd magnitudes, wrong types. */
export const VALUE_POOL: unknown[] = [
  0,
  -1,
  1,
  0.5,
  1.5,
  2,
  1e-300,
  1e300,
  -1e300,
  1e9,
  2 ** 53 + 2,
  -(2 ** 53),
  4097,
  1e-7,
  '1',
  'x',
  '',
  true,
  false,
  null,
  [],
  {},
  [1],
  ['ring', 'ring'],
  { a: 1 },
];

/** Every path to a leaf or a container in `v` (the root excluded), arrays cut to their first `perArray` entries. */
export function paths(v: unknown, perArray = 3, at: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [];
  if (Array.isArray(v)) {
    v.slice(0, perArray).forEach((x, i) => out.push([...at, i], ...paths(x, perArray, [...at, i])));
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) out.push([...at, k], ...paths(x, perArray, [...at, k]));
  }
  return out;
}

export function getAt(v: unknown, p: JsonPath): unknown {
  let x = v as Record<string | number, unknown> | undefined;
  for (const k of p) x = x?.[k] as Record<string | number, unknown> | undefined;
  return x;
}

function parentAndKey(root: unknown, p: JsonPath): [Record<string | number, unknown>, string | number] {
  return [getAt(root, p.slice(0, -1)) as Record<string | number, unknown>, p[p.length - 1]!];
}

const show = (p: JsonPath) => p.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('') || '(root)';
const brief = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 30 ? `${s.slice(0, 27)}…` : s;
};

/** One seeded mutation of a JSON document (`extraKeys`: keys worth adding at the top, e.g. a parser's known keys). */
export function mutateJson(
  base: unknown,
  random: () => number,
  extraKeys: readonly [string, unknown][] = [],
): Mutation {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const root = structuredClone(base);
  const all = paths(root);
  const r = random();
  if (r < 0.55 && all.length > 0) {
    const p = pick(all);
    const value = pick(VALUE_POOL);
    const [parent, key] = parentAndKey(root, p);
    parent[key] = structuredClone(value);
    return { label: `${show(p)} = ${brief(value)}`, text: JSON.stringify(root, null, 2), path: p, value };
  }
  if (r < 0.68 && all.length > 0) {
    const p = pick(all.filter((q) => typeof q[q.length - 1] === 'string'));
    if (p) {
      const [parent, key] = parentAndKey(root, p);
      delete parent[key];
      return { label: `${show(p)} deleted`, text: JSON.stringify(root, null, 2), path: p };
    }
  }
  if (r < 0.78 && extraKeys.length > 0 && root && typeof root === 'object' && !Array.isArray(root)) {
    const [k, v] = pick(extraKeys);
    (root as Record<string, unknown>)[k] = v;
    return { label: `.${k} = ${brief(v)} added`, text: JSON.stringify(root, null, 2), path: [k], value: v };
  }
  if (r < 0.84 && root && typeof root === 'object') {
    (root as Record<string, unknown>)['no-such-key'] = 1;
    return { label: 'unknown key added', text: JSON.stringify(root, null, 2), path: ['no-such-key'], value: 1 };
  }
  const text = JSON.stringify(root, null, 2);
  if (r < 0.9 && all.length > 0) {
    const p = pick(all);
    const [parent, key] = parentAndKey(root, p);
    const depth = pick([65, 1000, 100_000]);
    parent[key] = '@@deep@@';
    return {
      label: `${show(p)} nested ${depth} deep`,
      text: JSON.stringify(root, null, 2).replace('"@@deep@@"', `${'['.repeat(depth)}${']'.repeat(depth)}`),
      path: p,
    };
  }
  if (r < 0.95) {
    const at = 1 + Math.floor(random() * (text.length - 1));
    return { label: `cut at character ${at}`, text: text.slice(0, at) };
  }
  return pick([
    { label: 'a byte-order mark first', text: `\ufeff${text}` },
    { label: 'empty file', text: '' },
    { label: 'a NUL byte', text: `${text.slice(0, 5)}\u0000${text.slice(5)}` },
    { label: 'a list, not an object', text: `[${text}]` },
  ]);
}

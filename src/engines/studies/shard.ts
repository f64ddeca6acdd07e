/**
 * Sharded sweeps: shard i of N computes the points whose index (in the sweep's sorted order) is i − 1 modulo N and
 * writes them, with the sweep's identity, as a partial; merge checks that the partials are all the shards of one
 * sweep, each once, and builds the record from all points exactly as the unsharded sweep does.
 * The identity is the SHA-256 of every input file read (each rank file of the trace, configs, calibration,
 * profiles) and every option that changes a figure, so partials of different sweeps are refused. A partial that
 * contradicts itself (a point whose scale or clock is not the one its index stands for, a negative energy, parts that
 * do not add up to the total, per-dimension entries of different lengths) is refused with the key named; a sweep
 * has at most MAX_SWEEP_POINTS points (a partial claiming 1e9 exhausted memory).
 */
import { excerpt, InputError, listExcerpt } from '../../errors.js';
import { describeJson, jsonPath, JsonShape, type JsonObject, type NumRange } from '../../formats/json-shape.js';
import { resolveRankFiles } from '../../formats/chakra/index.js';
import { fileDigest, rankFilesDigest } from '../../formats/digest.js';
import { MAX_SWEEP_POINTS } from './range.js';
import { DEFAULT_SERDES_VF_CURVE, voltageRatio } from './vf-curve.js';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export interface SweepIdentity {
  /** Input name → SHA-256 (hex) of its content; a trace is the digest of its rank files' digests in rank order. */
  inputs: Record<string, string>;
  /** Options that change a figure, as given. */
  options: Record<string, unknown>;
}

export type SweepKind = 'network' | 'gpu';

/** What `sweep … --shard i/N` writes: some points of one sweep. */
export interface SweepPartial<P = unknown> {
  kind: 'sweep-partial';
  schemaVersion: 1;
  sweep: SweepKind;
  shard: Shard;
  identity: SweepIdentity;
  /** Points of the whole sweep. */
  totalPoints: number;
  /** This shard's points, by index in the sweep's sorted order. */
  points: { index: number; point: P }[];
}

export function parseShard(text: string, flag = '--shard'): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 1) || index > count) {
    throw new InputError(`${flag}: expected i/N with 1 ≤ i ≤ N (shard i of N, e.g. 2/8), got "${excerpt(text)}"`);
  }
  if (count > MAX_SWEEP_POINTS)
    throw new InputError(
      `${flag}: ${count} shards; a sweep has at most ${MAX_SWEEP_POINTS} points, so at most ${MAX_SWEEP_POINTS} shards`,
    );
  return { index, count };
}

/** Indices of `total` points that a shard computes. */
export function shardIndices(total: number, shard: Shard): number[] {
  const out: number[] = [];
  for (let i = shard.index - 1; i < total; i += shard.count) out.push(i);
  return out;
}

/**
 * SHA-256 of every input: files by content, a trace (`trace` key) by its rank files; undefined entries are left out.
 */
export async function inputDigests(
  files: Record<string, string | readonly string[] | undefined>,
  trace?: string,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (trace !== undefined) out.trace = await rankFilesDigest(await resolveRankFiles(trace));
  for (const [name, f] of Object.entries(files)) {
    if (f === undefined) continue;
    if (typeof f === 'string') out[name] = await fileDigest(f);
    else for (let i = 0; i < f.length; i++) out[`${name}[${i}]`] = await fileDigest(f[i]);
  }
  return out;
}

/** JSON with object keys sorted, for comparing identities. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function makePartial<P>(
  sweep: SweepKind,
  shard: Shard,
  identity: SweepIdentity,
  totalPoints: number,
  points: { index: number; point: P }[],
): SweepPartial<P> {
  return { kind: 'sweep-partial', schemaVersion: 1, sweep, shard, identity, totalPoints, points };
}

/** Checks the shape of a partial read from JSON (`file` names it in errors), and that it agrees with itself. */
export function checkPartial(file: string, v: unknown): SweepPartial {
  const c: JsonShape = new JsonShape(file);
  const o = c.object(v, '', 'a partial sweep result (a JSON object)');
  if (o.kind !== 'sweep-partial')
    c.expected('kind', 'sweep-partial (a partial sweep result, written by `tracewatt sweep … --shard i/N`)', o.kind);
  c.oneOf(o, 'schemaVersion', '', [1]);
  const sweep = c.oneOf(o, 'sweep', '', ['network', 'gpu'] as const);
  const s = o.shard as Shard | undefined;
  if (
    !s ||
    typeof s !== 'object' ||
    !Number.isInteger(s.index) ||
    !Number.isInteger(s.count) ||
    s.index < 1 ||
    s.index > s.count ||
    s.count > MAX_SWEEP_POINTS
  )
    c.expected('shard', `{index, count} with 1 ≤ index ≤ count ≤ ${MAX_SWEEP_POINTS}`, s);
  const identity = c.child(o, 'identity', '', { what: 'an object {inputs, options}' });
  c.child(identity, 'inputs', 'identity');
  const options = c.child(identity, 'options', 'identity');
  const totalPoints = c.number(o, 'totalPoints', '', { integer: true, min: 1, max: MAX_SWEEP_POINTS, unit: 'points' });
  const points = c.list(o, 'points', '') as { index?: unknown; point?: unknown }[];
  const want = shardIndices(totalPoints, s);
  const got = points.map((p) => (p && typeof p === 'object' ? p.index : undefined));
  if (canonical(got) !== canonical(want)) {
    c.fail(
      'points',
      `shard ${s.index}/${s.count} of ${totalPoints} points should hold points [${listExcerpt(want)}], holds [` +
        `${listExcerpt(got.map((x) => describeJson(x)))}]`,
    );
  }
  const settings = pointSettings(c, sweep, options, totalPoints);
  let dims = -1;
  points.forEach((p, i) => {
    const key = `points[${i}].point`;
    const point = checkPoint(c, key, sweep, p.point);
    const index = p.index as number;
    const setting = sweep === 'network' ? 'scale' : 'clockMHz';
    if (settings && point[setting] !== settings[index]) {
      c.fail(
        jsonPath(key, setting),
        `is ${describeJson(point[setting])}, but point ${index} of the sweep is at ${settings[index]} ` +
          `(identity.options)`,
      );
    }
    if (sweep === 'network') {
      const at = jsonPath(key, 'networkByDimensionJ');
      const n = (point.networkByDimensionJ as number[]).length;
      if (dims >= 0 && n !== dims)
        c.fail(at, `has ${n} entries, points[0] has ${dims}: one per network dimension in every point`);
      dims = n;
      const dimension = options.dimension;
      if (typeof dimension === 'number' && dimension >= n)
        c.fail(at, `has ${n} entries, but the swept dimension is ${dimension} (identity.options)`);
    }
  });
  return o as unknown as SweepPartial;
}

/**
 * The setting of every point of the sweep, from its identity: the sorted scales of a network sweep, the clocks of a
 * GPU sweep (undefined when the identity does not list them); their number must be totalPoints.
 */
function pointSettings(c: JsonShape, sweep: SweepKind, options: JsonObject, total: number): number[] | undefined {
  const key = sweep === 'network' ? 'scales' : 'frequenciesMHz';
  if (options[key] === undefined) return undefined;
  const list = c.numberList(options, key, 'identity.options');
  if (list.length !== total)
    c.fail(`identity.options.${key}`, `lists ${list.length} points, but totalPoints is ${total}`);
  return list;
}

/** The figures merge reads from each point, by sweep, and the range each must lie in (the rest is carried as it is). */
const POINT_NUMBERS: Record<SweepKind, [string, NumRange][]> = {
  network: [
    ['scale', { above: 0 }],
    ['bandwidthGBps', { above: 0, unit: 'GB/s' }],
    ['energyPerBitPJ', { min: 0, unit: 'pJ/bit' }],
    ['voltageRatio', { above: 0 }],
    ['makespanNs', { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, unit: 'ns' }],
  ],
  gpu: [
    ['clockMHz', { above: 0, unit: 'MHz' }],
    ['timeS', { min: 0, unit: 's' }],
  ],
};
/** Energy parts every point has; whatever parts it has must add up to its total. */
const ENERGY_PARTS = ['compute', 'memory', 'network', 'idle', 'total'];
/** Relative slack for sums of parts (rounding of a float sum). */
const SUM_TOLERANCE = 1e-9;
/** Relative slack for figures that are products of the same factors (a float product's rounding). */
const RATIO_TOLERANCE = 1e-9;

/** Checks one sweep point at `key` and returns it. */
function checkPoint(c: JsonShape, key: string, sweep: SweepKind, point: unknown): JsonObject {
  const o = c.object(point, key, 'a sweep point (an object)');
  for (const [k, range] of POINT_NUMBERS[sweep]) c.number(o, k, key, range);
  const ep = jsonPath(key, 'energyJ');
  const e = c.child(o, 'energyJ', key, { what: `an object {${ENERGY_PARTS.join(', ')}} in J` });
  c.requireKeys(e, ep, Object.fromEntries(ENERGY_PARTS.map((k) => [k, 'a number ≥ 0 J'])));
  let sum = 0;
  for (const k of Object.keys(e)) {
    const x = c.number(e, k, ep, { min: 0, unit: 'J' });
    if (k !== 'total') sum += x;
  }
  const total = e.total as number;
  if (Math.abs(sum - total) > SUM_TOLERANCE * Math.max(1, total))
    c.fail(ep, `its parts add up to ${sum} J, not its total ${total} J`);
  if (sweep === 'network') {
    const byDim = c.numberList(o, 'networkByDimensionJ', key, { min: 0, unit: 'J', minLength: 1 });
    const dimSum = byDim.reduce((a, x) => a + x, 0);
    if (dimSum > (e.network as number) * (1 + SUM_TOLERANCE) + SUM_TOLERANCE)
      c.fail(
        jsonPath(key, 'networkByDimensionJ'),
        `adds up to ${dimSum} J, more than the point's network energy ${e.network} J`,
      );
  }
  const band = o.energyBandJ;
  if (band !== undefined && !numbersFinite(band))
    c.expected(jsonPath(key, 'energyBandJ'), 'an object of finite numbers', band);
  return o;
}

/** Every number in a JSON value is finite (no null where a number belongs either: null is refused). */
function numbersFinite(v: unknown): boolean {
  const stack = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x === null) return false;
    if (typeof x === 'number' && !Number.isFinite(x)) return false;
    if (typeof x === 'object') stack.push(...Object.values(x as object));
  }
  return true;
}

/** Where two identities differ, in words ("input trace", "option scales"); empty when they are the same. */
function identityDifference(a: SweepIdentity, b: SweepIdentity): string[] {
  const diff: string[] = [];
  for (const [what, x, y] of [
    ['input', a.inputs, b.inputs],
    ['option', a.options, b.options],
  ] as const) {
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (canonical((x as Record<string, unknown>)[k]) !== canonical((y as Record<string, unknown>)[k]))
        diff.push(`${what} ${k}`);
    }
  }
  return diff;
}

/**
 * The points of one sweep from all its partials, in index order. Refuses partials of different sweeps (naming what
 * differs), a shard given twice, and missing shards.
 */
export function mergePartials(parts: readonly { file: string; partial: SweepPartial }[]): {
  sweep: SweepKind;
  identity: SweepIdentity;
  points: unknown[];
} {
  if (parts.length === 0) throw new InputError('merge: give the partial results of every shard');
  const first = parts[0];
  const { count } = first.partial.shard;
  const byShard = new Map<number, string>();
  for (const { file, partial } of parts) {
    if (partial.sweep !== first.partial.sweep)
      throw new InputError(`merge: ${file} is a ${partial.sweep} sweep, ${first.file} a ${first.partial.sweep} sweep`);
    const diff = identityDifference(first.partial.identity, partial.identity);
    if (diff.length > 0)
      throw new InputError(
        `merge: ${file} and ${first.file} are shards of different sweeps (${diff.join(', ')} differ)`,
      );
    if (partial.shard.count !== count || partial.totalPoints !== first.partial.totalPoints) {
      throw new InputError(
        `merge: ${file} is shard ${partial.shard.index}/${partial.shard.count} of ${partial.totalPoints} ` +
          `points, ${first.file} shard ${first.partial.shard.index}/${count} of ${first.partial.totalPoints}`,
      );
    }
    const seen = byShard.get(partial.shard.index);
    if (seen) throw new InputError(`merge: shard ${partial.shard.index}/${count} is given twice (${seen} and ${file})`);
    byShard.set(partial.shard.index, file);
  }
  const missing: number[] = [];
  for (let i = 1; i <= count; i++) if (!byShard.has(i)) missing.push(i);
  if (missing.length > 0) {
    throw new InputError(
      `merge: shard${missing.length > 1 ? 's' : ''} ${listExcerpt(missing.map((i) => `${i}/${count}`))} ` +
        `missing (have ${listExcerpt([...byShard.keys()].sort((a, b) => a - b).map((i) => `${i}/${count}`))})`,
    );
  }
  if (first.partial.sweep === 'network') {
    const dims = (p: SweepPartial) =>
      (p.points[0]?.point as { networkByDimensionJ?: unknown[] } | undefined)?.networkByDimensionJ?.length;
    const d0 = parts.map((p) => ({ file: p.file, n: dims(p.partial) })).filter((x) => x.n !== undefined);
    const other = d0.find((x) => x.n !== d0[0]!.n);
    if (other)
      throw new InputError(
        `merge: ${other.file} has ${other.n} network dimensions per point, ${d0[0]!.file} ${d0[0]!.n}: shards ` +
          `of one sweep have the same network`,
      );
  }
  const points = new Array<unknown>(first.partial.totalPoints);
  const where = new Array<string>(first.partial.totalPoints);
  for (const { file, partial } of parts) {
    partial.points.forEach((p, i) => {
      points[p.index] = p.point;
      where[p.index] = `${file}: points[${i}].point`;
    });
  }
  if (first.partial.sweep === 'network')
    checkNetworkPoints(points as NetworkPointFigures[], where, first.partial.identity.options);
  return { sweep: first.partial.sweep, identity: first.partial.identity, points };
}

interface NetworkPointFigures {
  scale: number;
  bandwidthGBps: number;
  energyPerBitPJ: number;
  voltageRatio: number;
}

/**
 * The figures of a network sweep's points agree with each other as the sweep made them: the swept bandwidth is the
 * nominal one × scale, the energy per bit the nominal one × voltageRatio², and with the default V–f curve the
 * voltage ratio is the curve's at that scale. A point that says otherwise was changed after the sweep.
 */
function checkNetworkPoints(
  points: readonly NetworkPointFigures[],
  where: readonly string[],
  options: Record<string, unknown>,
): void {
  const agree = (a: number, b: number) => Math.abs(a - b) <= RATIO_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
  const bw0 = points[0]!.bandwidthGBps / points[0]!.scale;
  const epb0 = points[0]!.energyPerBitPJ / points[0]!.voltageRatio ** 2;
  const defaultCurve = options.vfCurve === DEFAULT_SERDES_VF_CURVE.name;
  points.forEach((p, i) => {
    if (defaultCurve && !agree(p.voltageRatio, voltageRatio(DEFAULT_SERDES_VF_CURVE, p.scale))) {
      throw new InputError(
        `${where[i]}.voltageRatio: is ${p.voltageRatio}, but the default V–f curve gives ` +
          `${voltageRatio(DEFAULT_SERDES_VF_CURVE, p.scale)} at scale ${p.scale}`,
      );
    }
    if (!agree(p.bandwidthGBps / p.scale, bw0)) {
      throw new InputError(
        `${where[i]}.bandwidthGBps: is ${p.bandwidthGBps} GB/s at scale ${p.scale}, but point 0's gives a ` +
          `nominal ${bw0} GB/s (bandwidth = nominal × scale)`,
      );
    }
    if (!agree(p.energyPerBitPJ / p.voltageRatio ** 2, epb0)) {
      throw new InputError(
        `${where[i]}.energyPerBitPJ: is ${p.energyPerBitPJ} pJ/bit at voltage ratio ${p.voltageRatio}, but ` +
          `point 0's gives a nominal ${epb0} pJ/bit (pJ/bit = nominal × ratio²)`,
      );
    }
  });
}

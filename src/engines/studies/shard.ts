/**
 * Sharded sweeps: shard i of N computes the points whose index (in the sweep's sorted order) is i − 1 modulo N and
 * writes them, with the sweep's identity, as a partial; merge checks that the partials are all the shards of one
 * sweep, each once, and builds the record from all points exactly as the unsharded sweep does.
 * The identity is the SHA-256 of every input file read (each rank file of the trace, configs, calibration,
 * profiles) and every option that changes a figure, so partials of different sweeps are refused.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { FormatError, InputError } from '../../errors.js';
import { resolveRankFiles } from '../../formats/chakra/index.js';

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
    throw new InputError(`${flag}: expected i/N with 1 ≤ i ≤ N (shard i of N, e.g. 2/8), got "${text}"`);
  }
  return { index, count };
}

/** Indices of `total` points that a shard computes. */
export function shardIndices(total: number, shard: Shard): number[] {
  const out: number[] = [];
  for (let i = shard.index - 1; i < total; i += shard.count) out.push(i);
  return out;
}

async function fileDigest(file: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  } catch (e) {
    throw new InputError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return hash.digest('hex');
}

/** SHA-256 of every input: files by content, a trace (`trace` key) by its rank files; undefined entries are left out. */
export async function inputDigests(files: Record<string, string | readonly string[] | undefined>, trace?: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (trace !== undefined) {
    const whole = createHash('sha256');
    for (const r of await resolveRankFiles(trace)) whole.update(`${r.rank}:${await fileDigest(r.file)}\n`);
    out.trace = whole.digest('hex');
  }
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
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export function makePartial<P>(sweep: SweepKind, shard: Shard, identity: SweepIdentity, totalPoints: number, points: { index: number; point: P }[]): SweepPartial<P> {
  return { kind: 'sweep-partial', schemaVersion: 1, sweep, shard, identity, totalPoints, points };
}

/** Checks the shape of a partial read from JSON (`file` names it in errors). */
export function checkPartial(file: string, v: unknown): SweepPartial {
  const o = v as Partial<SweepPartial> | null;
  if (!o || typeof o !== 'object' || o.kind !== 'sweep-partial') {
    throw new FormatError(file, 'key "kind"', 'not a partial sweep result (write one with `tracewatt sweep … --shard i/N`)');
  }
  if (o.schemaVersion !== 1) throw new FormatError(file, 'key "schemaVersion"', `expected 1, got ${JSON.stringify(o.schemaVersion)}`);
  if (o.sweep !== 'network' && o.sweep !== 'gpu') throw new FormatError(file, 'key "sweep"', `expected "network" or "gpu", got ${JSON.stringify(o.sweep)}`);
  const s = o.shard;
  if (!s || !Number.isInteger(s.index) || !Number.isInteger(s.count) || s.index < 1 || s.index > s.count) {
    throw new FormatError(file, 'key "shard"', `expected {index, count} with 1 ≤ index ≤ count, got ${JSON.stringify(s)}`);
  }
  if (!o.identity || typeof o.identity !== 'object' || typeof o.identity.inputs !== 'object' || typeof o.identity.options !== 'object') {
    throw new FormatError(file, 'key "identity"', 'expected {inputs, options}');
  }
  if (!Number.isInteger(o.totalPoints) || o.totalPoints! < 1) throw new FormatError(file, 'key "totalPoints"', `expected a whole number ≥ 1, got ${JSON.stringify(o.totalPoints)}`);
  if (!Array.isArray(o.points)) throw new FormatError(file, 'key "points"', 'expected a list');
  const want = shardIndices(o.totalPoints!, s);
  const got = o.points.map((p) => p?.index);
  if (canonical(got) !== canonical(want)) {
    throw new FormatError(file, 'key "points"', `shard ${s.index}/${s.count} of ${o.totalPoints} points should hold points [${want.join(', ')}], holds [${got.join(', ')}]`);
  }
  o.points.forEach((p, i) => checkPoint(file, `points[${i}].point`, o.sweep!, p.point));
  return o as SweepPartial;
}

/** The figures merge reads from each point, by sweep (the rest of a point is carried as it is). */
const POINT_NUMBERS: Record<SweepKind, string[]> = {
  network: ['scale', 'bandwidthGBps', 'energyPerBitPJ', 'voltageRatio', 'makespanNs'],
  gpu: ['clockMHz', 'timeS'],
};
const ENERGY_PARTS = ['compute', 'memory', 'network', 'idle', 'total'];

function checkPoint(file: string, key: string, sweep: SweepKind, point: unknown): void {
  const o = point as Record<string, unknown> | null;
  const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  if (!o || typeof o !== 'object') throw new FormatError(file, `key "${key}"`, 'expected a sweep point (an object)');
  for (const k of POINT_NUMBERS[sweep]) if (!isNumber(o[k])) throw new FormatError(file, `key "${key}.${k}"`, `expected a number, got ${JSON.stringify(o[k])}`);
  const e = o.energyJ as Record<string, unknown> | null;
  if (!e || typeof e !== 'object' || ENERGY_PARTS.some((k) => !isNumber(e[k]))) {
    throw new FormatError(file, `key "${key}.energyJ"`, `expected {${ENERGY_PARTS.join(', ')}} in J, got ${JSON.stringify(o.energyJ)}`);
  }
  if (sweep === 'network' && !(Array.isArray(o.networkByDimensionJ) && o.networkByDimensionJ.every(isNumber))) {
    throw new FormatError(file, `key "${key}.networkByDimensionJ"`, 'expected a list of J per dimension');
  }
}

/** Where two identities differ, in words ("input trace", "option scales"); empty when they are the same. */
function identityDifference(a: SweepIdentity, b: SweepIdentity): string[] {
  const diff: string[] = [];
  for (const [what, x, y] of [['input', a.inputs, b.inputs], ['option', a.options, b.options]] as const) {
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (canonical((x as Record<string, unknown>)[k]) !== canonical((y as Record<string, unknown>)[k])) diff.push(`${what} ${k}`);
    }
  }
  return diff;
}

/**
 * The points of one sweep from all its partials, in index order. Refuses partials of different sweeps (naming what
 * differs), a shard given twice, and missing shards.
 */
export function mergePartials(parts: readonly { file: string; partial: SweepPartial }[]): { sweep: SweepKind; identity: SweepIdentity; points: unknown[] } {
  if (parts.length === 0) throw new InputError('merge: give the partial results of every shard');
  const first = parts[0];
  const { count } = first.partial.shard;
  const byShard = new Map<number, string>();
  for (const { file, partial } of parts) {
    if (partial.sweep !== first.partial.sweep) throw new InputError(`merge: ${file} is a ${partial.sweep} sweep, ${first.file} a ${first.partial.sweep} sweep`);
    const diff = identityDifference(first.partial.identity, partial.identity);
    if (diff.length > 0) throw new InputError(`merge: ${file} and ${first.file} are shards of different sweeps (${diff.join(', ')} differ)`);
    if (partial.shard.count !== count || partial.totalPoints !== first.partial.totalPoints) {
      throw new InputError(`merge: ${file} is shard ${partial.shard.index}/${partial.shard.count} of ${partial.totalPoints} points, ${first.file} shard ${first.partial.shard.index}/${count} of ${first.partial.totalPoints}`);
    }
    const seen = byShard.get(partial.shard.index);
    if (seen) throw new InputError(`merge: shard ${partial.shard.index}/${count} is given twice (${seen} and ${file})`);
    byShard.set(partial.shard.index, file);
  }
  const missing: number[] = [];
  for (let i = 1; i <= count; i++) if (!byShard.has(i)) missing.push(i);
  if (missing.length > 0) throw new InputError(`merge: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing (have ${[...byShard.keys()].sort((a, b) => a - b).map((i) => `${i}/${count}`).join(', ')})`);
  const points = new Array<unknown>(first.partial.totalPoints);
  for (const { partial } of parts) for (const p of partial.points) points[p.index] = p.point;
  return { sweep: first.partial.sweep, identity: first.partial.identity, points };
}

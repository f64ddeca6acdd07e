/**
 * Unit conversion for profiler outputs. Every quantity is converted to one base unit per kind:
 * time → ns, data → byte, data rate → byte/s, frequency → MHz, power → W, energy → J,
 * percent stays % (readers divide by 100 where they fill a 0–1 utilization).
 * ncu prints decimal prefixes (Kbyte = 1000 byte); binary spellings (KiB, MiB) are kept binary.
 * Lookup is case-insensitive except where case changes the meaning (mW vs MW is not a concern here).
 */
import { parseNumberCell } from './csv.js';
import type { CellAt } from './decimal.js';

export type Quantity = 'time' | 'bytes' | 'byteRate' | 'frequency' | 'percent' | 'power' | 'energy' | 'count';

export interface UnitInfo {
  quantity: Quantity;
  /** Multiply a value in this unit by factor to get the base unit. */
  factor: number;
  /** Base unit of the quantity (count units keep their own spelling). */
  baseUnit: string;
}

const T = (factor: number): UnitInfo => ({ quantity: 'time', factor, baseUnit: 'ns' });
const B = (factor: number): UnitInfo => ({ quantity: 'bytes', factor, baseUnit: 'byte' });
const BR = (factor: number): UnitInfo => ({ quantity: 'byteRate', factor, baseUnit: 'byte/s' });
const F = (factor: number): UnitInfo => ({ quantity: 'frequency', factor, baseUnit: 'MHz' });
const P = (factor: number): UnitInfo => ({ quantity: 'power', factor, baseUnit: 'W' });
const E = (factor: number): UnitInfo => ({ quantity: 'energy', factor, baseUnit: 'J' });

const timeUnits: Record<string, number> = {
  ns: 1,
  nsec: 1,
  nsecond: 1,
  nanosecond: 1,
  nanoseconds: 1,
  us: 1e3,
  usec: 1e3,
  usecond: 1e3,
  µs: 1e3,
  μs: 1e3,
  microsecond: 1e3,
  microseconds: 1e3,
  ms: 1e6,
  msec: 1e6,
  msecond: 1e6,
  millisecond: 1e6,
  milliseconds: 1e6,
  s: 1e9,
  sec: 1e9,
  second: 1e9,
  seconds: 1e9,
  min: 60e9,
  minute: 60e9,
  h: 3600e9,
  hour: 3600e9,
};
const byteUnits: Record<string, number> = {
  byte: 1,
  bytes: 1,
  b: 1,
  kbyte: 1e3,
  kb: 1e3,
  mbyte: 1e6,
  mb: 1e6,
  gbyte: 1e9,
  gb: 1e9,
  tbyte: 1e12,
  tb: 1e12,
  kib: 1024,
  kibyte: 1024,
  mib: 1024 ** 2,
  mibyte: 1024 ** 2,
  gib: 1024 ** 3,
  gibyte: 1024 ** 3,
  tib: 1024 ** 4,
};
const freqUnits: Record<string, number> = {
  hz: 1e-6,
  khz: 1e-3,
  mhz: 1,
  ghz: 1e3,
  'cycle/second': 1e-6,
  'cycle/s': 1e-6,
  'cycle/sec': 1e-6,
  'cycle/msecond': 1e-3,
  'cycle/ms': 1e-3,
  'cycle/usecond': 1,
  'cycle/us': 1,
  'cycle/nsecond': 1e3,
  'cycle/ns': 1e3,
};

export const UNITS: ReadonlyMap<string, UnitInfo> = (() => {
  const m = new Map<string, UnitInfo>();
  for (const [u, f] of Object.entries(timeUnits)) m.set(u, T(f));
  for (const [u, f] of Object.entries(byteUnits)) {
    m.set(u, B(f));
    for (const per of ['second', 's', 'sec']) m.set(`${u}/${per}`, BR(f));
  }
  for (const [u, f] of Object.entries(byteUnits)) m.set(`${u}ps`, BR(f)); // MBps (older nsys)
  for (const [u, f] of Object.entries(freqUnits)) m.set(u, F(f));
  m.set('%', { quantity: 'percent', factor: 1, baseUnit: '%' });
  m.set('pct', { quantity: 'percent', factor: 1, baseUnit: '%' });
  m.set('percent', { quantity: 'percent', factor: 1, baseUnit: '%' });
  for (const [u, f] of Object.entries({ w: 1, watt: 1, watts: 1, mw: 1e-3, milliwatt: 1e-3, kw: 1e3 })) m.set(u, P(f));
  for (const [u, f] of Object.entries({ j: 1, joule: 1, joules: 1, mj: 1e-3, kj: 1e3, wh: 3600, kwh: 3.6e6 }))
    m.set(u, E(f));
  return m;
})();

/**
 * Count-like units ncu prints (cycle, inst, warp, sector …): values are kept as they are, with the
 * unit in the key. Anything containing one of these words is accepted as a count.
 */
const COUNT_UNITS = [
  'cycle',
  'inst',
  'warp',
  'block',
  'thread',
  'register',
  'sector',
  'request',
  'pass',
  'sm',
  'cluster',
  'byte/block',
  'byte/cycle',
  'inst/cycle',
  'warp/cycle',
  'sector/request',
  'request/cycle',
  'byte/request',
  'flop',
  'op',
  'ops',
  'instruction',
  'kernel',
  'launch',
  'wave',
  'count',
  'x',
  'ratio',
  '1',
];
const COUNT_WORDS = new RegExp(`^(${COUNT_UNITS.join('|')})(/[a-z]+)?$`, 'i');

/** Looks up a unit; null when unknown. `''` (no unit) is a plain count. */
export function lookupUnit(unit: string): UnitInfo | null {
  const u = unit.trim();
  if (u === '') return { quantity: 'count', factor: 1, baseUnit: '' };
  const hit = UNITS.get(u.toLowerCase()) ?? UNITS.get(u);
  if (hit) return hit;
  if (COUNT_WORDS.test(u)) return { quantity: 'count', factor: 1, baseUnit: u };
  return null;
}

/** Splits a header such as `Start (ns)`, `power.draw [W]` or `time_ms` into name and unit. */
export function splitHeaderUnit(header: string): { name: string; unit: string | null } {
  const h = header.trim();
  const m = /^(.*?)\s*[[(]([^\])]+)[\])]\s*$/.exec(h);
  if (m) return { name: m[1]!, unit: m[2]!.trim() };
  return { name: h, unit: null };
}

/**
 * Parses a value carrying its unit as a suffix: `19.46 W`, `296.991 μs`, `4.89664s`, `7 %`. The number is read by
 * parseNumberCell: with `at`, under its file's one decimal rule.
 */
export function parseValueWithUnit(raw: string, at?: CellAt): { value: number; unit: string } | null {
  const m = /^\s*([-+]?[\d.,]*\d(?:[eE][-+]?\d+)?)\s*([^\d\s][^\s]*)?\s*$/.exec(raw);
  if (!m) return null;
  const value = parseNumberCell(m[1]!, at);
  if (value === null || !Number.isFinite(value)) return null;
  return { value, unit: m[2] ?? '' };
}

/** value × factor, rounded to 13 significant digits so unit changes do not print 2009.9999999999998. */
export function scaleValue(value: number, factor: number): number {
  if (factor === 1 || !Number.isFinite(value)) return value;
  return Number((value * factor).toPrecision(13));
}

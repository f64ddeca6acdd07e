/**
 * Groups canonical kernel samples into per-kernel clock series, and the sanity checks run on them. Checks are
 * reported (diagnostic codes below), never silently applied.
 */
import type { KernelSample } from '../vocab/kernel-sample.js';
import type { Diagnostics } from '../diagnostics.js';

export interface ClockPoint {
  smClockMHz: number;
  memClockMHz: number | null;
  durationNs: number | null;
  powerW: number | null;
  utilization: Record<string, number>;
  /** Samples averaged into this point. */
  count: number;
  /** Where the averaged samples came from (file and 1-based row of each), in input order. */
  sources: SampleLocation[];
}

/** A sample's place in its input file, carried from KernelSample.source. */
export interface SampleLocation {
  file: string;
  row: number;
}

/** "file: row 5", the form diagnostics use for one location. */
export function formatLocation(loc: SampleLocation): string {
  return `${loc.file}: row ${loc.row}`;
}

/** Locations compacted per file: "a.csv: rows 5, 9, 13, … (138 rows); b.csv: row 2". */
export function describeLocations(locs: readonly SampleLocation[], shown = 3): string {
  const byFile = new Map<string, number[]>();
  for (const l of locs) {
    const rows = byFile.get(l.file);
    if (rows) rows.push(l.row);
    else byFile.set(l.file, [l.row]);
  }
  return [...byFile.entries()]
    .map(
      ([file, rows]) =>
        `${file}: ${rows.length === 1 ? 'row' : 'rows'} ${rows.slice(0, shown).join(', ')}` +
        (rows.length > shown ? `, … (${rows.length} rows)` : ''),
    )
    .join('; ');
}

export interface KernelSeries {
  key: string;
  kernelName: string;
  points: ClockPoint[];
}

/** Kernel identity across clocks: name plus invocation (e.g. the nv-dvfs input number) when present. */
export function kernelKey(s: KernelSample): string {
  return s.invocation === null ? s.kernelName : `${s.kernelName}#${s.invocation}`;
}

function finitePos(v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0;
}

/** Average power of a sample: measured power, else energy / duration. */
export function samplePowerW(s: KernelSample): number | null {
  if (finitePos(s.powerW)) return s.powerW;
  if (finitePos(s.energyJ) && finitePos(s.durationNs)) return s.energyJ / (s.durationNs / 1e9);
  return null;
}

/** Running sums of one (kernel, SM clock) point. */
interface PointSums {
  point: ClockPoint;
  kernelName: string;
  invocation: number | null;
  format: string;
  powerLimitW: number | null;
  d: number;
  nd: number;
  p: number;
  np: number;
  u: Map<string, [number, number]>;
}

/**
 * The one place repeated samples of a kernel at one SM clock are averaged, one sample at a time, so a profile can be
 * grouped while it is read (it is a SampleSink) in memory bounded by its kernels and clocks, not its rows. Samples
 * with no clock are skipped (diagnostic TIME_NO_CLOCK), or with `keepUnclocked` kept as they are for a later
 * grouping; blank or out-of-range counters are dropped from the point (COUNTER_GLITCH). Each point keeps the
 * locations of its first `keepSources` samples (all by default) and counts the rest.
 */
export class KernelGrouper {
  private readonly byKey = new Map<string, Map<number, PointSums>>();
  private readonly unclocked: KernelSample[] = [];
  /** Samples added. */
  rows = 0;

  constructor(
    private readonly diagnostics?: Diagnostics,
    private readonly options: { keepSources?: number; keepUnclocked?: boolean } = {},
  ) {}

  add(s: KernelSample): void {
    this.rows++;
    const loc = (): SampleLocation => ({ file: s.source.file, row: s.source.row });
    if (!finitePos(s.smClockMHz)) {
      if (this.options.keepUnclocked) this.unclocked.push(s);
      else
        this.diagnostics?.add('TIME_NO_CLOCK', {
          message: `${s.kernelName}: no SM clock, sample skipped`,
          file: formatLocation(loc()),
        });
      return;
    }
    const key = kernelKey(s);
    let byClock = this.byKey.get(key);
    if (!byClock) this.byKey.set(key, (byClock = new Map()));
    const f = s.smClockMHz;
    let e = byClock.get(f);
    if (!e) {
      const point: ClockPoint = {
        smClockMHz: f,
        memClockMHz: s.memClockMHz,
        durationNs: null,
        powerW: null,
        utilization: {},
        count: 0,
        sources: [],
      };
      e = {
        point,
        kernelName: s.kernelName,
        invocation: s.invocation,
        format: s.source.format,
        powerLimitW: null,
        d: 0,
        nd: 0,
        p: 0,
        np: 0,
        u: new Map(),
      };
      byClock.set(f, e);
    }
    e.point.count++;
    if (e.point.sources.length < (this.options.keepSources ?? Infinity)) e.point.sources.push(loc());
    if (s.powerLimitW) e.powerLimitW = Math.min(e.powerLimitW ?? Infinity, s.powerLimitW);
    if (finitePos(s.durationNs)) (e.d += s.durationNs), e.nd++;
    else if (s.durationNs !== null)
      this.diagnostics?.add('BAD_DURATION', {
        message: `${s.kernelName}: duration ${s.durationNs} ignored`,
        file: formatLocation(loc()),
      });
    const p = samplePowerW(s);
    if (p !== null) (e.p += p), e.np++;
    else if (s.powerW !== null && s.powerW !== undefined)
      this.diagnostics?.add('BAD_POWER', {
        message: `${s.kernelName}: power ${s.powerW} ignored`,
        file: formatLocation(loc()),
      });
    for (const c in s.utilization) {
      const v = s.utilization[c];
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1.05) {
        this.diagnostics?.add('COUNTER_GLITCH', {
          message: `${s.kernelName}: ${c} = ${v} outside 0–1, ignored`,
          file: formatLocation(loc()),
        });
        continue;
      }
      const acc = e.u.get(c) ?? [0, 0];
      e.u.set(c, [acc[0] + Math.min(1, v), acc[1] + 1]);
    }
  }

  private static pointOf(e: PointSums): ClockPoint {
    return {
      ...e.point,
      durationNs: e.nd ? e.d / e.nd : null,
      powerW: e.np ? e.p / e.np : null,
      utilization: Object.fromEntries([...e.u.entries()].map(([c, [sum, n]]) => [c, sum / n])),
    };
  }

  /** Series per kernel, in order of first appearance, points sorted by clock. */
  series(): KernelSeries[] {
    const out: KernelSeries[] = [];
    for (const [key, byClock] of this.byKey) {
      const sums = [...byClock.values()];
      out.push({
        key,
        kernelName: sums[sums.length - 1]!.kernelName,
        points: sums.map(KernelGrouper.pointOf).sort((a, b) => a.smClockMHz - b.smClockMHz),
      });
    }
    return out;
  }

  /**
   * One sample per kernel and clock, holding the point's means (source: its first row), then the unclocked samples
   * as they came: grouping these again gives the same points (means of one value each), in a fraction of the rows.
   */
  samples(): KernelSample[] {
    const out: KernelSample[] = [];
    for (const byClock of this.byKey.values())
      for (const e of byClock.values()) {
        const pt = KernelGrouper.pointOf(e);
        const first = pt.sources[0]!;
        out.push({
          kernelName: e.kernelName,
          invocation: e.invocation,
          smClockMHz: pt.smClockMHz,
          memClockMHz: pt.memClockMHz,
          durationNs: pt.durationNs,
          utilization: pt.utilization,
          powerW: pt.powerW,
          energyJ: null,
          powerLimitW: e.powerLimitW,
          source: { file: first.file, row: first.row, format: e.format },
        });
      }
    return [...out, ...this.unclocked];
  }
}

/**
 * Series per kernel; samples with no clock are skipped (diagnostic TIME_NO_CLOCK); repeated samples of one kernel
 * at one clock are averaged. Blank or out-of-range counters are dropped from the point (COUNTER_GLITCH).
 */
export function groupKernels(samples: Iterable<KernelSample>, diagnostics?: Diagnostics): KernelSeries[] {
  const g = new KernelGrouper(diagnostics);
  for (const s of samples) g.add(s);
  return g.series();
}

/** Pipe components used to infer the real clock from conservation of work (u·t·f constant). */
const PIPES = ['fp32_active', 'fp64_active', 'fp16_active', 'tensor_active', 'int_active'];

/**
 * Sanity checks on kernel series:
 * - CLOCK_CONTRADICTED: conservation of work (pipe utilization × time × clock constant) implies a clock > 15% away
 *   from the nominal one, relative to the kernel's highest clock.
 * - SLOWER_THAN_CLOCK_RATIO: at a lower clock the kernel takes > 10% longer than the clock ratio allows.
 * - MOSTLY_IDLE: SM activity below 10% (power is then mostly idle power).
 * - FASTER_AT_LOWER_CLOCK: the kernel is > 10% faster at a lower clock (timing glitch or changed work).
 * - POWER_DROP_AT_HIGHER_CLOCK: power > 10% below the power at the next lower clock although the kernel got no
 *   slower (a glitched power reading: power cannot fall when the clock rises and the work rate does not).
 * Returns the points marked unreliable: `key@clock` for the time model, `power:key@clock` for the power model.
 */
export function sanityCheck(series: KernelSeries[], diagnostics: Diagnostics): Set<string> {
  const bad = new Set<string>();
  for (const s of series) {
    const pts = s.points.filter((p) => p.durationNs !== null);
    if (pts.length === 0) continue;
    const top = pts[pts.length - 1]!;
    if ((top.utilization.sm_active ?? 1) < 0.1)
      diagnostics.add('MOSTLY_IDLE', {
        message: `${s.key}: SM active ${(100 * top.utilization.sm_active!).toFixed(1)}% at ${top.smClockMHz} MHz`,
        file: formatLocation(top.sources[0]!),
      });
    const withPower = s.points.filter((p) => p.powerW !== null);
    for (let i = 1; i < withPower.length; i++) {
      const a = withPower[i - 1]!;
      const b = withPower[i]!;
      const noSlower = a.durationNs === null || b.durationNs === null || b.durationNs <= a.durationNs * 1.02;
      if (b.powerW! < 0.9 * a.powerW! && noSlower) {
        diagnostics.add('POWER_DROP_AT_HIGHER_CLOCK', {
          message:
            `${s.key}: ${b.powerW!.toFixed(1)} W at ${b.smClockMHz} MHz after ${a.powerW!.toFixed(1)} W at ` +
            `${a.smClockMHz} MHz`,
          file: formatLocation(b.sources[0]!),
        });
        bad.add(`power:${s.key}@${b.smClockMHz}`);
      }
    }
    for (const p of pts.slice(0, -1)) {
      const ratio = p.durationNs! / top.durationNs!;
      const clockRatio = top.smClockMHz / p.smClockMHz;
      if (ratio > 1.1 * clockRatio) {
        diagnostics.add('SLOWER_THAN_CLOCK_RATIO', {
          message:
            `${s.key}: ${ratio.toFixed(2)}× slower at ${p.smClockMHz} MHz than at ${top.smClockMHz} MHz; the ` +
            `clock ratio allows ${clockRatio.toFixed(2)}×`,
          file: formatLocation(p.sources[0]!),
        });
        bad.add(`${s.key}@${p.smClockMHz}`);
      }
      if (ratio < 0.9) {
        diagnostics.add('FASTER_AT_LOWER_CLOCK', {
          message:
            `${s.key}: ${(100 * (1 - ratio)).toFixed(0)}% faster at ${p.smClockMHz} MHz than at ${top.smClockMHz}` +
            ` MHz`,
          file: formatLocation(p.sources[0]!),
        });
        bad.add(`${s.key}@${p.smClockMHz}`);
      }
      const pipe = PIPES.find((c) => (top.utilization[c] ?? 0) >= 0.05 && (p.utilization[c] ?? 0) > 0);
      if (pipe) {
        const implied =
          (top.utilization[pipe]! * top.durationNs! * top.smClockMHz) / (p.utilization[pipe]! * p.durationNs!);
        if (Math.abs(implied / p.smClockMHz - 1) > 0.15) {
          diagnostics.add('CLOCK_CONTRADICTED', {
            message:
              `${s.key}: nominal ${p.smClockMHz} MHz, conservation of ${pipe} work implies ${implied.toFixed(0)} ` +
              `MHz`,
            file: formatLocation(p.sources[0]!),
          });
          bad.add(`${s.key}@${p.smClockMHz}`);
        }
      }
    }
  }
  return bad;
}

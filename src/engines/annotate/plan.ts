/**
 * The annotation plan: every profiled kernel predicted once per target clock, its annotation attributes encoded
 * once, and the name keys that lead to it. A plan is plain data (Maps, arrays, Uint8Arrays, the calibration), so it
 * is handed to worker threads as it is. Roofline estimates for unmatched nodes are made per rank, on demand.
 */
import { randomUUID } from 'node:crypto';
import type { Diagnostics } from '../../diagnostics.js';
import type { KernelSample, ProfileTable } from '../../formats/profiles/kernel-sample.js';
import { InputError } from '../../errors.js';
import { ByteSink, makeAttr, type Attribute } from '../../formats/chakra/index.js';
import { encodeAttribute } from '../../formats/chakra/encode.js';
import type { Calibration } from '../../model/calibration.js';
import { estimateFromRoofline, predictKernel, type KernelPrediction, type KernelProfile } from '../../model/predict.js';
import { groupKernels, kernelKey } from '../../model/kernels.js';
import { baseKernelName, normalizeKernelName } from './names.js';
import type { MatchLevel } from './types.js';

/** Attribute names written on an annotated node (util_<component> besides). Units in the README. */
export const ANNOTATION_ATTRS = {
  energyJ: 'energy_j',
  powerW: 'power_w',
  frequencyMHz: 'frequency_mhz',
  frequencyEffectiveMHz: 'frequency_effective_mhz',
  frequencyRefMHz: 'frequency_ref_mhz',
  estimatedFrom: 'estimated_from',
  durationRefMicros: 'duration_micros_ref',
} as const;
export const UTIL_PREFIX = 'util_';

export type RooflinePrecision = 'fp16Tensor' | 'fp32' | 'fp64';

/** One node's annotation at one clock: the new duration, the figures, and the encoded attributes (field-10 frames). */
export interface Prepared {
  durationMicros: number;
  durationNs: number;
  energyJ: number;
  powerW: number;
  /** Attributes without duration_micros_ref, for the full-decoder path. */
  attrs: Attribute[];
  /** The same attributes encoded as Node field 10 entries (tag, length, AttributeProto), for the fast path. */
  block: Uint8Array;
}

export interface PlanEntry {
  /** Profile kernel key (name, and #invocation when the profile numbers invocations). */
  key: string;
  level: 'kernel' | 'op';
  perFreq: Prepared[];
}

export interface AnnotatePlan {
  /** Unique per plan: worker threads key what they keep across ranks by it. */
  id: string;
  frequenciesMHz: number[];
  referenceClockMHz: number;
  components: string[];
  entries: PlanEntry[];
  /** Name key → entry indices, in invocation order; one map per match level. */
  keys: Record<MatchLevel, Map<string, number[]>>;
  calibration: Calibration;
  rooflinePrecision: RooflinePrecision;
  /** Why roofline estimates are impossible (no datasheet facts); null when they are possible. */
  rooflineUnavailable: string | null;
}

export interface PlanOptions {
  frequenciesMHz: number[];
  referenceClockMHz?: number;
  scaling?: 'ratio' | 'offset';
  rooflinePrecision?: RooflinePrecision;
  diagnostics?: Diagnostics;
}

const clamp01 = (x: number) => (x > 1 ? 1 : x > 0 ? x : 0);

/** The attributes of one annotation, in the order they are appended (duration_micros_ref comes last, per node). */
export function annotationAttributes(
  pred: KernelPrediction, frequencyMHz: number, referenceClockMHz: number, components: string[], source: 'profile' | 'roofline',
): Attribute[] {
  const a: Attribute[] = [
    makeAttr(ANNOTATION_ATTRS.energyJ, 'double_val', pred.energyJ),
    makeAttr(ANNOTATION_ATTRS.powerW, 'double_val', pred.powerW),
  ];
  for (const c of components) a.push(makeAttr(UTIL_PREFIX + c, 'double_val', clamp01(pred.utilization[c] ?? 0)));
  a.push(makeAttr(ANNOTATION_ATTRS.frequencyMHz, 'double_val', frequencyMHz));
  if (pred.capped) a.push(makeAttr(ANNOTATION_ATTRS.frequencyEffectiveMHz, 'double_val', pred.effectiveClockMHz));
  a.push(makeAttr(ANNOTATION_ATTRS.frequencyRefMHz, 'double_val', referenceClockMHz));
  a.push(makeAttr(ANNOTATION_ATTRS.estimatedFrom, 'string_val', source));
  return a;
}

/** Attributes encoded as repeated Node.attr (field 10) entries. */
export function encodeAttrBlock(attrs: Attribute[]): Uint8Array {
  const sink = new ByteSink(256);
  for (const a of attrs) {
    sink.tag(10, 2);
    const at = sink.beginLength();
    encodeAttribute(sink, a);
    sink.finishLength(at);
  }
  return new Uint8Array(sink.view());
}

/** Predicted duration in whole µs as duration_micros holds it: nearest, at least 1 µs. */
export function durationMicrosOf(durationNs: number): number {
  return Math.max(1, Math.round(durationNs / 1000));
}

export function prepare(pred: KernelPrediction, frequencyMHz: number, plan: Pick<AnnotatePlan, 'referenceClockMHz' | 'components'>, source: 'profile' | 'roofline'): Prepared {
  const attrs = annotationAttributes(pred, frequencyMHz, plan.referenceClockMHz, plan.components, source);
  return { durationMicros: durationMicrosOf(pred.durationNs), durationNs: pred.durationNs, energyJ: pred.energyJ, powerW: pred.powerW, attrs, block: encodeAttrBlock(attrs) };
}

interface Group {
  key: string;
  kernelName: string;
  invocation: number | null;
  names: string[];
  samples: KernelSample[];
  order: number;
}

/** Profile samples of one op, aggregated per clock: Σ duration, energy-weighted power, time-weighted utilization. */
function aggregateOp(samples: KernelSample[]): KernelProfile[] {
  const series = groupKernels(samples);
  const clocks = new Map<number, { d: number; e: number; havePower: boolean; u: Map<string, number>; n: number }>();
  for (const s of series) {
    for (const p of s.points) {
      if (p.durationNs === null) continue;
      const c = clocks.get(p.smClockMHz) ?? { d: 0, e: 0, havePower: true, u: new Map(), n: 0 };
      clocks.set(p.smClockMHz, c);
      c.n++;
      c.d += p.durationNs;
      if (p.powerW === null) c.havePower = false;
      else c.e += p.powerW * p.durationNs;
      for (const [k, v] of Object.entries(p.utilization)) c.u.set(k, (c.u.get(k) ?? 0) + v * p.durationNs);
    }
  }
  const out: KernelProfile[] = [];
  for (const [f, c] of clocks) {
    if (c.n < series.length || !(c.d > 0)) continue; // a clock where some kernel of the op was not profiled
    out.push({
      smClockMHz: f, durationNs: c.d, powerW: c.havePower ? c.e / c.d : null,
      utilization: Object.fromEntries([...c.u].map(([k, v]) => [k, v / c.d])),
    });
  }
  return out;
}

/** Builds the plan from a calibration and one or more profile tables. */
export function buildPlan(cal: Calibration, profiles: ProfileTable[], options: PlanOptions): AnnotatePlan {
  const freqs = options.frequenciesMHz;
  if (freqs.length === 0) throw new InputError('give at least one target SM frequency');
  for (const f of freqs) if (!(Number.isFinite(f) && f > 0)) throw new InputError(`target SM frequency must be a positive number of MHz, got ${f}`);
  if (new Set(freqs).size !== freqs.length) throw new InputError(`target SM frequencies repeat: ${freqs.join(', ')}`);
  const referenceClockMHz = options.referenceClockMHz ?? Math.max(...cal.clocks.smClocksMHz);
  if (!(referenceClockMHz > 0)) throw new InputError(`reference SM frequency must be a positive number of MHz, got ${referenceClockMHz}`);
  const diag = options.diagnostics;
  const plan: AnnotatePlan = {
    id: randomUUID(),
    frequenciesMHz: freqs,
    referenceClockMHz,
    components: [...cal.components],
    entries: [],
    keys: { exact: new Map(), normalized: new Map(), base: new Map(), op: new Map() },
    calibration: cal,
    rooflinePrecision: options.rooflinePrecision ?? 'fp16Tensor',
    rooflineUnavailable: cal.datasheet ? null : `calibration for ${cal.device.name} has no datasheet facts (peak FLOP/s, memory bandwidth)`,
  };

  // Kernel groups: one per profile kernel key, in order of first appearance.
  const groups = new Map<string, Group>();
  const opSamples = new Map<string, KernelSample[]>();
  let order = 0;
  for (const table of profiles) {
    for (const s of table.samples) {
      const key = kernelKey(s);
      let g = groups.get(key);
      if (!g) {
        const names = [s.kernelName];
        const k = s.extra?.kernel;
        if (typeof k === 'string' && k && k !== s.kernelName) names.push(k);
        g = { key, kernelName: s.kernelName, invocation: s.invocation, names, samples: [], order: order++ };
        groups.set(key, g);
      }
      g.samples.push(s);
      const op = s.extra?.op;
      if (typeof op === 'string' && op.trim()) {
        const norm = normalizeKernelName(op);
        const list = opSamples.get(norm) ?? [];
        opSamples.set(norm, list);
        list.push(s);
      }
    }
  }

  const addKey = (level: MatchLevel, key: string, index: number) => {
    if (!key) return;
    const m = plan.keys[level];
    const list = m.get(key);
    if (!list) m.set(key, [index]);
    else if (!list.includes(index)) list.push(index);
  };
  for (const g of groups.values()) {
    const usable = g.samples.filter((s) => s.smClockMHz !== null && s.durationNs !== null && s.durationNs > 0);
    if (usable.length === 0) {
      diag?.add('profile-kernel-unusable', { message: `${g.key}: no sample with an SM clock and a positive duration; not used for matching` });
      continue;
    }
    let perFreq: Prepared[];
    try {
      perFreq = freqs.map((f) => prepare(predictKernel(cal, usable, f, { scaling: options.scaling }), f, plan, 'profile'));
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      diag?.add('profile-kernel-unpredictable', { message: `${g.key}: ${e.message}` });
      continue;
    }
    const index = plan.entries.push({ key: g.key, level: 'kernel', perFreq }) - 1;
    for (const n of g.names) addKey('exact', n, index);
  }
  plan.entries.forEach((e, index) => {
    const g = groups.get(e.key)!;
    for (const n of g.names) {
      const norm = normalizeKernelName(n);
      addKey('normalized', norm, index);
      addKey('base', baseKernelName(norm), index);
    }
  });
  // Several profiled kernels under one key are taken in invocation order (then profile order).
  const rank = (i: number) => groups.get(plan.entries[i].key)!;
  for (const m of Object.values(plan.keys)) {
    for (const list of m.values()) list.sort((a, b) => (rank(a).invocation ?? -1) - (rank(b).invocation ?? -1) || rank(a).order - rank(b).order);
  }
  for (const [op, samples] of opSamples) {
    const agg = aggregateOp(samples);
    if (agg.length === 0) {
      diag?.add('profile-op-unusable', { message: `op ${op}: no clock at which every kernel of the op was profiled` });
      continue;
    }
    const perFreq = freqs.map((f) => prepare(predictKernel(cal, agg, f, { scaling: options.scaling }), f, plan, 'profile'));
    addKey('op', op, plan.entries.push({ key: `op:${op}`, level: 'op', perFreq }) - 1);
  }
  return plan;
}

/** Roofline annotation of a node with `flops` FLOPs and `bytes` bytes, at every target clock of the plan. */
export function rooflinePrepared(plan: AnnotatePlan, flops: number, bytes: number): Prepared[] {
  return plan.frequenciesMHz.map((f) =>
    prepare(estimateFromRoofline(plan.calibration, { flops, bytes, precision: plan.rooflinePrecision }, f), f, plan, 'roofline'));
}

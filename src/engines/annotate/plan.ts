/**
 * The annotation plan: every profiled kernel predicted once per target clock, its annotation attributes encoded
 * once, and the name keys that lead to it. A plan is plain data (Maps, arrays, Uint8Arrays, the calibration), so it
 * is handed to worker threads as it is. Roofline estimates for unmatched nodes, and estimates from a node's own
 * duration (profiled kernels with durations only, unmatched nodes), are made per rank, on demand.
 */
import { randomUUID } from 'node:crypto';
import type { Diagnostics } from '../../diagnostics.js';
import type { KernelSample, ProfileTable } from '../../vocab/kernel-sample.js';
import { InputError } from '../../errors.js';
import { ByteSink, makeAttr, type Attribute } from '../../formats/chakra/index.js';
import { encodeAttribute } from '../../formats/chakra/encode.js';
import { checkTargetClock, type Calibration } from '../../model/calibration.js';
import { estimateFromRoofline, predictKernel, type KernelPrediction, type KernelProfile } from '../../model/predict.js';
import { predictKernelBand, type PredictionBand } from '../../model/predict-band.js';
import { assumedKernelPowerW, type AssumedPower } from '../../model/active-power.js';
import {
  bestEnergyPerFlop,
  boundsAt,
  powerFlags,
  type BestEnergyPerFlop,
  type ClockBounds,
} from '../../model/physics-checks.js';
import { groupKernels, kernelKey, samplePowerW } from '../../model/kernels.js';
import { KINETO_FORMAT } from '../../formats/profiles/format-ids.js';
import { ANNOTATION_ATTRS, UTIL_PREFIX } from '../../vocab/attributes.js';
import { kernelMicros } from '../../vocab/units.js';
import { baseKernelName, normalizeKernelName } from './names.js';
import type { MatchLevel } from './types.js';

/**
 * estimated_from of a node annotated from its own duration (at the reference clock, scaled by the time model to
 * other clocks) and the power the calibration assumes for a kernel of which nothing else is known.
 */
export const DURATION_SOURCE = 'node-duration,calibration-power';
export type AnnotationSource = 'profile' | 'roofline' | typeof DURATION_SOURCE;

export type RooflinePrecision = 'fp16Tensor' | 'fp32' | 'fp64';

/** One node's annotation at one clock: the new duration, the figures, and the encoded attributes (field-10 frames). */
export interface Prepared {
  durationMicros: number;
  durationNs: number;
  energyJ: number;
  /** energy_memory_j: the DRAM part of energyJ (0 where nothing tells it: see memoryKnown). */
  energyMemoryJ: number;
  /** False when the DRAM part is not known (written as 0, counted as memorySplitUnknown). */
  memoryKnown: boolean;
  powerW: number;
  /** Physics flags of the modelled power at this clock (model/physics-checks.ts ABOVE_CAP, BELOW_IDLE). */
  flags: number;
  /** Attributes without duration_micros_ref, for the full-decoder path. */
  attrs: Attribute[];
  /** The same attributes encoded as Node field 10 entries (tag, length, AttributeProto), for the fast path. */
  block: Uint8Array;
}

export interface PlanEntry {
  /**
   * Profile kernel key (name, and #invocation when the profile numbers invocations; @rank when profiles hold several
   * ranks).
   */
  key: string;
  level: 'kernel' | 'op';
  /** Empty when byDuration. */
  perFreq: Prepared[];
  /**
   * The profile gives a duration only (no counters, no power: a Kineto trace without CUPTI ranges or power log):
   * the node is annotated from its own duration and the calibration's assumed power (DURATION_SOURCE).
   */
  byDuration: boolean;
  /** A memcpy or memset, not a kernel. */
  memory: boolean;
}

export type PlanKeys = Record<MatchLevel, Map<string, number[]>>;

export interface AnnotatePlan {
  /** Unique per plan: worker threads key what they keep across ranks by it. */
  id: string;
  frequenciesMHz: number[];
  referenceClockMHz: number;
  components: string[];
  entries: PlanEntry[];
  /** Name key → entry indices, in invocation order; one map per match level. */
  keys: PlanKeys;
  /**
   * Per trace rank, the keys of that rank's profile samples (and of samples without a rank), when the profiles
   * hold several ranks (one Kineto trace per rank); a rank without an entry uses `keys`, which then hold the lowest
   * profiled rank's. Null when the profiles hold one rank or none.
   */
  rankKeys: Record<number, PlanKeys> | null;
  /** Power assumed for nodes annotated from their own duration, per target clock, and what it is. */
  assumedPower: AssumedPower[];
  /** Write the 10–90 % band attributes (energy_j_p10, …) where the calibration's band model gives one. */
  bands: boolean;
  /** What building the plan assumed, for the user (e.g. where the reference clock came from). */
  notes: string[];
  calibration: Calibration;
  rooflinePrecision: RooflinePrecision;
  /** Why roofline estimates are impossible (no datasheet facts); null when they are possible. */
  rooflineUnavailable: string | null;
  /** DRAM energy per bit for the memory part of roofline estimates (bytes × pJ/bit); undefined: the model's β·u. */
  memoryPjPerBit?: number;
  /** Power cap and idle power per target clock (same order as frequenciesMHz). */
  bounds: ClockBounds[];
  /** The device's best energy per FLOP at the roofline precision; null without datasheet facts. */
  bestEnergyPerFlop: BestEnergyPerFlop | null;
}

export interface PlanOptions {
  frequenciesMHz: number[];
  referenceClockMHz?: number;
  scaling?: 'ratio' | 'offset';
  rooflinePrecision?: RooflinePrecision;
  /** Write 10–90 % band attributes (see AnnotatePlan.bands). */
  bands?: boolean;
  /** DRAM energy per bit (the power configuration's memory pJ/bit) for the memory part of roofline estimates. */
  memoryPjPerBit?: number;
  diagnostics?: Diagnostics;
}

const clamp01 = (x: number) => (x > 1 ? 1 : x > 0 ? x : 0);

/** The attributes of one annotation, in the order they are appended (duration_micros_ref comes last, per node). */
export function annotationAttributes(
  pred: KernelPrediction,
  frequencyMHz: number,
  referenceClockMHz: number,
  components: string[],
  source: AnnotationSource,
  band: PredictionBand | null = null,
): Attribute[] {
  const a: Attribute[] = [
    makeAttr(ANNOTATION_ATTRS.energyJ, 'double_val', pred.energyJ),
    makeAttr(ANNOTATION_ATTRS.energyMemoryJ, 'double_val', pred.energyMemoryJ ?? 0),
    makeAttr(ANNOTATION_ATTRS.powerW, 'double_val', pred.powerW),
  ];
  // A node known by its duration alone has no utilization: none is written (0 would read as measured idle).
  if (source !== DURATION_SOURCE)
    for (const c of components) a.push(makeAttr(UTIL_PREFIX + c, 'double_val', clamp01(pred.utilization[c] ?? 0)));
  a.push(makeAttr(ANNOTATION_ATTRS.frequencyMHz, 'double_val', frequencyMHz));
  if (pred.capped) a.push(makeAttr(ANNOTATION_ATTRS.frequencyEffectiveMHz, 'double_val', pred.effectiveClockMHz));
  a.push(makeAttr(ANNOTATION_ATTRS.frequencyRefMHz, 'double_val', referenceClockMHz));
  a.push(makeAttr(ANNOTATION_ATTRS.estimatedFrom, 'string_val', source));
  if (band) {
    a.push(
      makeAttr(ANNOTATION_ATTRS.energyJP10, 'double_val', band.energyJ.p10),
      makeAttr(ANNOTATION_ATTRS.energyJP90, 'double_val', band.energyJ.p90),
      makeAttr(ANNOTATION_ATTRS.durationNsP10, 'double_val', band.durationNs.p10),
      makeAttr(ANNOTATION_ATTRS.durationNsP90, 'double_val', band.durationNs.p90),
    );
  }
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

/** One node's annotation at the plan's i-th target clock. */
export function prepare(
  pred: KernelPrediction,
  i: number,
  plan: Pick<AnnotatePlan, 'referenceClockMHz' | 'components' | 'frequenciesMHz' | 'bounds'>,
  source: AnnotationSource,
  band: PredictionBand | null = null,
): Prepared {
  const attrs = annotationAttributes(
    pred,
    plan.frequenciesMHz[i]!,
    plan.referenceClockMHz,
    plan.components,
    source,
    band,
  );
  return {
    durationMicros: kernelMicros(pred.durationNs),
    durationNs: pred.durationNs,
    energyJ: pred.energyJ,
    energyMemoryJ: pred.energyMemoryJ ?? 0,
    memoryKnown: pred.energyMemoryJ !== null,
    powerW: pred.powerW,
    flags: powerFlags(pred.powerW, plan.bounds[i]!),
    attrs,
    block: encodeAttrBlock(attrs),
  };
}

interface Group {
  key: string;
  kernelName: string;
  invocation: number | null;
  names: string[];
  samples: KernelSample[];
  order: number;
  rank: number | null;
  memory: boolean;
}

const MEMORY_NAME = /^mem(cpy|set)\b/i;
const rankOf = (s: KernelSample): number | null =>
  typeof s.extra?.rank === 'number' && Number.isInteger(s.extra.rank) ? s.extra.rank : null;
const isMemory = (s: KernelSample) =>
  s.extra?.kind === 'memcpy' || s.extra?.kind === 'memset' || MEMORY_NAME.test(s.kernelName);
/** A sample with neither power nor any utilization: a duration only. */
const durationOnly = (s: KernelSample) =>
  samplePowerW(s) === null && !Object.values(s.utilization).some((v) => typeof v === 'number' && Number.isFinite(v));

/**
 * The clock the profile's durations were taken at when the user gives none: the one clock a Kineto reader assumed
 * for every sample (the device's boost clock), so that the plan scales from the clock the samples say.
 */
/**
 * The one rule for the clock a run's durations were recorded at when --reference-frequency is not given (annotate):
 * the clock its profile's reader assumed for samples that record none (a Kineto trace: the maximum boost clock of the
 * device it names, formats/kineto/clocks.ts), else the calibration's highest calibrated clock. Profile samples
 * without a clock (a generic CSV, an Nsight Systems trace) are taken at this clock too, as Kineto's are. The note says
 * which.
 */
export function defaultReferenceClock(cal: Calibration, profiles: ProfileTable[]): { mhz: number; note: string } {
  const fromProfile = assumedProfileClock(profiles);
  if (fromProfile !== null) {
    return {
      mhz: fromProfile,
      note:
        `reference clock ${fromProfile} MHz: the maximum boost clock of the GPU the Kineto profile names (it ` +
        `records no clock; pass --reference-frequency if the run was clock-locked)`,
    };
  }
  const mhz = Math.max(...cal.clocks.smClocksMHz);
  return {
    mhz,
    note:
      `reference clock ${mhz} MHz: the highest clock of the calibration (${cal.device.name}; pass ` +
      `--reference-frequency if the run ran at another)`,
  };
}

function assumedProfileClock(profiles: ProfileTable[]): number | null {
  const clocks = new Set<number>();
  for (const t of profiles) {
    if (t.format !== KINETO_FORMAT) continue;
    for (const s of t.samples) if (s.smClockMHz !== null) clocks.add(s.smClockMHz);
  }
  return clocks.size === 1 ? [...clocks][0]! : null;
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
      smClockMHz: f,
      durationNs: c.d,
      powerW: c.havePower ? c.e / c.d : null,
      utilization: Object.fromEntries([...c.u].map(([k, v]) => [k, v / c.d])),
    });
  }
  return out;
}

/** What a node annotated from its own duration assumed (the clock and the calibration's power), for a note. */
export function durationEstimateNote(
  plan: Pick<AnnotatePlan, 'referenceClockMHz' | 'assumedPower' | 'frequenciesMHz'>,
  what: string,
): string {
  return (
    `${what} are annotated from each node's own duration (at ${plan.referenceClockMHz} MHz) and an assumed power: ` +
    `${plan.assumedPower.map((p, i) => `${formatW(p.powerW)} W at ${plan.frequenciesMHz[i]} MHz`).join(', ')}, ` +
    `${plan.assumedPower[0]!.basis} (estimated_from=${DURATION_SOURCE}); a power log (--power-log) or counters ` +
    `measure it instead`
  );
}

/** Builds the plan from a calibration and one or more profile tables. */
export function buildPlan(cal: Calibration, profiles: ProfileTable[], options: PlanOptions): AnnotatePlan {
  const notes: string[] = [];
  const fallback = options.referenceClockMHz === undefined ? defaultReferenceClock(cal, profiles) : null;
  const referenceClockMHz = options.referenceClockMHz ?? fallback!.mhz;
  if (!(referenceClockMHz > 0))
    throw new InputError(`reference SM frequency must be a positive number of MHz, got ${referenceClockMHz}`);
  // No target clock given: the clock the trace ran at (its durations kept, energies annotated), said in the notes.
  const freqs = options.frequenciesMHz.length > 0 ? options.frequenciesMHz : [referenceClockMHz];
  if (options.frequenciesMHz.length === 0)
    notes.push(`target SM clock ${referenceClockMHz} MHz: the reference clock (no --frequency given)`);
  for (const f of freqs)
    if (!(Number.isFinite(f) && f > 0))
      throw new InputError(`target SM frequency must be a positive number of MHz, got ${f}`);
  // Every target clock is checked before anything is predicted: a clock the device lacks is refused, with its range.
  for (const f of freqs) checkTargetClock(cal, f);
  if (new Set(freqs).size !== freqs.length) throw new InputError(`target SM frequencies repeat: ${freqs.join(', ')}`);
  // Said where profiles are matched at it (without one the headline's "reference clock" line says it).
  if (fallback && profiles.length > 0) notes.push(fallback.note);
  const calMax = Math.max(...cal.clocks.smClocksMHz);
  if (referenceClockMHz > calMax + 0.5 && !(cal.datasheet && referenceClockMHz <= cal.datasheet.maxSmClockMHz + 0.5)) {
    notes.push(
      `reference clock ${referenceClockMHz} MHz is above the calibration's highest clock (${calMax} MHz, ` +
        `${cal.device.name}): the time model extrapolates; is the calibration for the GPU the trace ran on?`,
    );
  }
  const diag = options.diagnostics;
  const plan: AnnotatePlan = {
    id: randomUUID(),
    frequenciesMHz: freqs,
    referenceClockMHz,
    components: [...cal.components],
    entries: [],
    keys: emptyKeys(),
    rankKeys: null,
    assumedPower: freqs.map((f) => assumedKernelPowerW(cal, f)),
    bands: options.bands === true,
    notes,
    calibration: cal,
    rooflinePrecision: options.rooflinePrecision ?? 'fp16Tensor',
    rooflineUnavailable: cal.datasheet
      ? null
      : `calibration for ${cal.device.name} has no datasheet facts (peak FLOP/s, memory bandwidth)`,
    memoryPjPerBit: options.memoryPjPerBit,
    bounds: freqs.map((f) => boundsAt(cal, f)),
    bestEnergyPerFlop: bestEnergyPerFlop(cal, options.rooflinePrecision ?? 'fp16Tensor'),
  };

  // Kernel groups: one per profile kernel key, in order of first appearance.
  const groups = new Map<string, Group>();
  const opSamples = new Map<string, KernelSample[]>();
  const ranks = new Set<number>();
  for (const table of profiles) for (const s of table.samples) if (rankOf(s) !== null) ranks.add(rankOf(s)!);
  // Several ranks' profiles (one Kineto trace per rank): each rank's kernels are its own entries.
  const perRank = ranks.size > 1;
  let order = 0;
  // Samples whose profile records no SM clock (a generic CSV, an Nsight Systems trace) ran at the reference clock: the
  // one given, else defaultReferenceClock's, as a Kineto trace's samples do.
  let unclocked = 0;
  let total = 0;
  const given = referenceClockMHz;
  for (const table of profiles) {
    for (const raw of table.samples) {
      total++;
      const s = raw.smClockMHz === null && given !== undefined ? (unclocked++, { ...raw, smClockMHz: given }) : raw;
      const rank = perRank ? rankOf(s) : null;
      const key = rank === null ? kernelKey(s) : `${kernelKey(s)}@rank${rank}`;
      let g = groups.get(key);
      if (!g) {
        const names = [s.kernelName];
        const k = s.extra?.kernel;
        if (typeof k === 'string' && k && k !== s.kernelName) names.push(k);
        g = {
          key,
          kernelName: s.kernelName,
          invocation: s.invocation,
          names,
          samples: [],
          order: order++,
          rank,
          memory: isMemory(s),
        };
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

  if (unclocked) {
    notes.push(
      `${unclocked} of ${total} profile samples have no SM clock: taken to have run at the reference clock ` +
        `${given} MHz ` +
        `(` +
        (options.referenceClockMHz !== undefined
          ? 'given: --reference-frequency'
          : 'the default reference clock; pass --reference-frequency if the run ran at another') +
        `)`,
    );
  }

  const predicted = (profile: KernelSample[] | KernelProfile[], i: number): Prepared => {
    const f = freqs[i]!;
    if (!plan.bands) return prepare(predictKernel(cal, profile, f, { scaling: options.scaling }), i, plan, 'profile');
    const p = predictKernelBand(cal, profile, f, { scaling: options.scaling });
    return prepare(p, i, plan, 'profile', p.band);
  };
  for (const g of groups.values()) {
    const usable = g.samples.filter((s) => s.smClockMHz !== null && s.durationNs !== null && s.durationNs > 0);
    if (usable.length === 0) {
      const why = 'no sample with an SM clock and a positive duration';
      diag?.add('profile-kernel-unusable', { message: `${g.key}: ${why}; not used for matching` });
      continue;
    }
    const byDuration = usable.every(durationOnly);
    let perFreq: Prepared[] = [];
    if (!byDuration) {
      try {
        perFreq = freqs.map((_, i) => predicted(usable, i));
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        diag?.add('profile-kernel-unpredictable', { message: `${g.key}: ${e.message}` });
        continue;
      }
    }
    plan.entries.push({ key: g.key, level: 'kernel', perFreq, byDuration, memory: g.memory });
  }
  // The keys, each rank's and the shared ones.
  const fallbackRank = perRank ? Math.min(...ranks) : null;
  if (perRank) plan.rankKeys = Object.fromEntries([...ranks].map((r) => [r, emptyKeys()]));
  plan.entries.forEach((e, index) => {
    const g = groups.get(e.key)!;
    const sets: PlanKeys[] = [];
    if (g.rank === null || g.rank === fallbackRank) sets.push(plan.keys);
    if (plan.rankKeys) {
      if (g.rank === null) sets.push(...Object.values(plan.rankKeys));
      else sets.push(plan.rankKeys[g.rank]!);
    }
    for (const keys of sets) {
      for (const n of g.names) addKey(keys, 'exact', n, index);
      for (const n of g.names) {
        const norm = normalizeKernelName(n);
        addKey(keys, 'normalized', norm, index);
        addKey(keys, 'base', baseKernelName(norm), index);
      }
    }
  });
  // Several profiled kernels under one key are taken in invocation order (then profile order).
  const rank = (i: number) => groups.get(plan.entries[i].key)!;
  for (const keys of [plan.keys, ...Object.values(plan.rankKeys ?? {})]) {
    for (const m of Object.values(keys)) {
      for (const list of m.values())
        list.sort((a, b) => (rank(a).invocation ?? -1) - (rank(b).invocation ?? -1) || rank(a).order - rank(b).order);
    }
  }
  for (const [op, samples] of opSamples) {
    const agg = aggregateOp(samples);
    if (agg.length === 0) {
      diag?.add('profile-op-unusable', { message: `op ${op}: no clock at which every kernel of the op was profiled` });
      continue;
    }
    const byDuration = agg.every((p) => p.powerW === null && Object.keys(p.utilization).length === 0);
    const perFreq = byDuration ? [] : freqs.map((_, i) => predicted(agg, i));
    const index = plan.entries.push({ key: `op:${op}`, level: 'op', perFreq, byDuration, memory: false }) - 1;
    for (const keys of [plan.keys, ...Object.values(plan.rankKeys ?? {})]) addKey(keys, 'op', op, index);
  }
  if (plan.entries.some((e) => e.byDuration))
    notes.push(
      durationEstimateNote(
        plan,
        `profiled kernels without counters or power (${plan.entries.filter((e) => e.byDuration).length})`,
      ),
    );
  if (plan.bands) {
    if (!cal.uncertainty)
      notes.push(
        `--bands: the calibration of ${cal.device.name} has no band model (` +
          (cal.device.kind === 'datasheet' ? 'a datasheet calibration' : 'written before bands, or too few clocks') +
          `): no band is written`,
      );
    else
      notes.push(
        '--bands: bands are written on nodes predicted from a profile with counters or power; roofline and ' +
          'duration estimates carry none',
      );
  }
  return plan;
}

const formatW = (w: number) => String(Number(w.toPrecision(4)));

function emptyKeys(): PlanKeys {
  return { exact: new Map(), normalized: new Map(), base: new Map(), op: new Map() };
}

function addKey(keys: PlanKeys, level: MatchLevel, key: string, index: number): void {
  if (!key) return;
  const m = keys[level];
  const list = m.get(key);
  if (!list) m.set(key, [index]);
  else if (!list.includes(index)) list.push(index);
}

/**
 * A node annotated from its own duration (whole µs at the reference clock) at every target clock: predictKernel
 * with a duration-only profile, the function predict and every other path call for such a kernel (the time model
 * scales the duration, taken as compute-bound; the power is the calibration's assumed active power).
 */
export function durationPrepared(plan: AnnotatePlan, durationMicros: number): Prepared[] {
  const profile: KernelProfile = {
    smClockMHz: plan.referenceClockMHz,
    durationNs: durationMicros * 1000,
    powerW: null,
    utilization: {},
  };
  return plan.frequenciesMHz.map((f, i) =>
    prepare(predictKernel(plan.calibration, profile, f), i, plan, DURATION_SOURCE),
  );
}

/** Roofline annotation of a node with `flops` FLOPs and `bytes` bytes, at every target clock of the plan. */
export function rooflinePrepared(plan: AnnotatePlan, flops: number, bytes: number): Prepared[] {
  const work = { flops, bytes, precision: plan.rooflinePrecision, memoryPjPerBit: plan.memoryPjPerBit };
  return plan.frequenciesMHz.map((f, i) =>
    prepare(estimateFromRoofline(plan.calibration, work, f), i, plan, 'roofline'),
  );
}

/**
 * The LLaMA-2-70B case study (AstraWattch poster): 32 H100s on Switch(8) × Ring(4) (scale-up 2 pJ/bit at 400 GB/s,
 * scale-out 25 pJ/bit at 50 GB/s, idle 80 W), in two layouts that load the scale-out ring differently:
 * TP 8 × DP 4 (the gradient all-reduce crosses the ring) and TP 8 × PP 4 (pipeline sends cross it), at the real
 * global batch of LLaMA-2 training (1,024 sequences of 4,096 tokens = 4 M tokens).
 *
 * Three knobs side by side, each against the same nominal point: scale-out network DVFS, scale-up network DVFS and
 * the GPU SM clock. Kernel times and energies come from a calibration file (default: the H100 datasheet defaults,
 * which are not fitted) at the chosen clock, not from a fixed active power.
 *
 * Full batch without replaying it: every point is replayed at two micro-batch counts and extrapolated linearly
 * in the micro-batch count (see CaseStudyLayout.extrapolation), checked against a third replay at nominal.
 * All figures are estimates.
 */
import { fileURLToPath } from 'node:url';
import { InputError } from '../../errors.js';
import { parseSystemConfig, type NetworkConfig, type PowerConfig } from '../../formats/astra/index.js';
import { loadCalibration, maxSmClock } from '../../model/calibration.js';
import { calibratedTimeModel, networkConfig, resolvePlan, systemJson } from '../generate/index.js';
import { commPowerW, energyDefinitions, ledgerSettings, resolvePower } from '../replay/index.js';
import type { ReplayResult } from '../replay/types.js';
import { layoutFinding, overallFinding } from './case-study-finding.js';
import { atScaleOutBandwidth, checkMapBatches, MAP_DEFAULTS, mapCell, sensitivityMap } from './case-study-map.js';
import {
  clockBand,
  energyPerBitBand,
  extrapolate,
  figuresOf,
  knobPoint,
  knobRecord,
  type PointFigures,
} from './case-study-knobs.js';
import { scaledConfigs } from './network-sweep.js';
import { runPoints, type PoolRun } from './pool.js';
import type { LlmTraceOptions, PointTask } from './replay-point.js';
import type { CaseStudyLayout, CaseStudyRecord, Knob, KnobPoint, SensitivityRow } from './types.js';
import { DEFAULT_SERDES_VF_CURVE, type VfCurve } from './vf-curve.js';

export interface LayoutSpec {
  name: string;
  dp: number;
  tp: number;
  pp: number;
}

export const CASE_STUDY_LAYOUTS: readonly LayoutSpec[] = [
  { name: 'TP 8 × DP 4', dp: 4, tp: 8, pp: 1 },
  { name: 'TP 8 × PP 4', dp: 1, tp: 8, pp: 4 },
];

const calibrationFile = (name: string) => fileURLToPath(new URL(`../../../calibration/${name}`, import.meta.url));

export const CASE_STUDY_DEFAULTS = {
  globalBatch: 1024,
  seqLen: 4096,
  scales: [0.5, 0.75, 1, 1.25],
  clocksMHz: [780, 1080, 1380, 1680, 1980],
  calibration: calibrationFile('h100-datasheet.json'),
  bandCalibration: calibrationFile('a40.json'),
  energyPerBitBand: [0.5, 2] as [number, number],
} as const;

export interface CaseStudyOptions {
  layouts?: readonly LayoutSpec[];
  /** Sequences per iteration over all data-parallel replicas; default 1,024 (LLaMA-2's 4 M tokens). */
  globalBatch?: number;
  seqLen?: number;
  /** Network frequency scales for both network knobs; 1 is always added. */
  scales?: readonly number[];
  /** SM clocks of the GPU knob; the calibration's highest clock (nominal) is always added. */
  clocksMHz?: readonly number[];
  /** Calibration giving kernel times and energies per SM clock. */
  calibration?: string;
  /** Calibration whose fitted uncertainty bands stand in for the GPU knob's (when `calibration` has none). */
  bandCalibration?: string;
  vfCurve?: VfCurve;
  /**
   * The sensitivity map of scale-out DVFS (case-study-map.ts): global batches (sequences) and scale-out bandwidths
   * (GB/s; the preset's is always added), swept with the scale-out knob's scales; false leaves it out.
   */
  map?: false | { batchesSequences?: readonly number[]; scaleOutBandwidthsGBps?: readonly number[] };
  threads?: number;
  onPoint?: (done: number, total: number) => void;
}

export interface CaseStudyOutput {
  record: CaseStudyRecord;
  parallelism: PoolRun['parallelism'];
  /** Replays run (two micro-batch counts per point, plus one check per layout). */
  replays: number;
}

/** Micro-batch counts replayed per pipeline: steady state reached (≥ 2 × stages), then one more round. */
export function replayedMicroBatches(pp: number): [number, number, number] {
  const m1 = Math.max(4, 2 * pp);
  const step = Math.max(4, pp);
  return [m1, m1 + step, m1 + 2 * step];
}

interface PointDef {
  knob: Knob['id'];
  setting: number;
  network: NetworkConfig;
  power: PowerConfig;
  clockMHz: number;
}

export async function runCaseStudy(o: CaseStudyOptions = {}): Promise<CaseStudyOutput> {
  const layouts = o.layouts ?? CASE_STUDY_LAYOUTS;
  const globalBatch = o.globalBatch ?? CASE_STUDY_DEFAULTS.globalBatch;
  const seqLen = o.seqLen ?? CASE_STUDY_DEFAULTS.seqLen;
  const curve = o.vfCurve ?? DEFAULT_SERDES_VF_CURVE;
  const calFile = o.calibration ?? CASE_STUDY_DEFAULTS.calibration;
  const bandFile = o.bandCalibration ?? CASE_STUDY_DEFAULTS.bandCalibration;
  const cal = await loadCalibration(calFile);
  const bandCal = cal.uncertainty ? cal : await loadCalibration(bandFile);
  const bands = bandCal.uncertainty?.modes['one-clock-down'];
  if (!bands?.energy || !bands.time)
    throw new InputError(`${bandFile}: no one-clock-down energy and time bands to stand in for ${calFile}'s`);
  const fMax = maxSmClock(cal).mhz;
  const scales = [...new Set([...(o.scales ?? CASE_STUDY_DEFAULTS.scales), 1])].sort((a, b) => a - b);
  const clocks = [...new Set([...(o.clocksMHz ?? CASE_STUDY_DEFAULTS.clocksMHz), fMax])].sort((a, b) => a - b);
  for (const f of clocks)
    if (!(f > 0 && f <= fMax))
      throw new InputError(`SM clock ${f} MHz is outside ${cal.device.name}'s range (up to ${fMax} MHz)`);
  const power = await resolvePower('h100-cluster');
  const [epbLow, epbHigh] = CASE_STUDY_DEFAULTS.energyPerBitBand;

  // Every replay of every layout in one pool, so both cores stay busy to the end.
  const tasks: PointTask[] = [];
  const presetOutGBps = power.network[1]?.bandwidthGBps;
  const mapBandwidths =
    o.map === false
      ? []
      : [
          ...new Set([
            ...(o.map?.scaleOutBandwidthsGBps ?? MAP_DEFAULTS.scaleOutBandwidthsGBps),
            ...(presetOutGBps ? [presetOutGBps] : []),
          ]),
        ].sort((a, b) => a - b);
  for (const b of mapBandwidths)
    if (!(b > 0)) throw new InputError(`map scale-out bandwidth ${b} GB/s must be positive`);
  const mapBatches =
    o.map === false
      ? []
      : checkMapBatches(
          o.map?.batchesSequences ?? MAP_DEFAULTS.batchesSequences,
          layouts,
          (name) => replayedMicroBatches(layouts.find((L) => L.name === name)!.pp)[0],
        );
  const plans = layouts.map((L) => {
    const [m1, m2, m3] = replayedMicroBatches(L.pp);
    const microBatches = globalBatch / L.dp;
    if (!Number.isInteger(microBatches) || microBatches < m2) {
      throw new InputError(
        `global batch ${globalBatch} gives ${microBatches} micro-batches per replica for ${L.name}: need a ` +
          `whole number ≥ ${m2}`,
      );
    }
    const trace = (m: number): LlmTraceOptions => ({
      model: 'llama2-70b',
      dp: L.dp,
      tp: L.tp,
      pp: L.pp,
      microBatch: 1,
      globalBatch: m * L.dp,
      seqLen,
    });
    const plan = resolvePlan({ ...trace(m1), timeModel: calibratedTimeModel(cal, fMax, 'bf16') });
    const gen = networkConfig(plan);
    if (gen.topology.length !== 2)
      throw new InputError(`${L.name}: the case study needs two network dimensions (scale-up, scale-out)`);
    const network: NetworkConfig = {
      file: `case-study network (${gen.topology.map((t, i) => `${t} ${gen.npusCount[i]}`).join(' × ')})`,
      dims: gen.topology.map((topology, i) => ({
        topology,
        npus: gen.npusCount[i],
        bandwidthGBps: power.network[i].bandwidthGBps ?? gen.bandwidthGBps[i],
        latencyNs: gen.latencyNs[i],
      })),
    };
    const system = parseSystemConfig('case-study system.json', systemJson(plan));
    const defs: PointDef[] = [{ knob: 'scale-out', setting: 1, network, power, clockMHz: fMax }];
    for (const [knob, dim] of [
      ['scale-out', 1],
      ['scale-up', 0],
    ] as const) {
      for (const s of scales)
        if (s !== 1) defs.push({ knob, setting: s, ...scaledConfigs(network, power, dim, s, curve), clockMHz: fMax });
    }
    for (const f of clocks) if (f !== fMax) defs.push({ knob: 'gpu-clock', setting: f, network, power, clockMHz: f });
    const first = tasks.length;
    const task = (d: PointDef, m: number): PointTask => ({
      trace: { kind: 'llm', options: trace(m), calibrated: { calibrationFile: calFile, clockMHz: d.clockMHz } },
      system,
      network: d.network,
      power: d.power,
    });
    // The check replay (largest) first, then each point's two sizes.
    tasks.push(task(defs[0]!, m3));
    for (const d of defs) tasks.push(task(d, m1), task(d, m2));
    // The map: each bandwidth × scale at two sizes; at the preset bandwidth the scale-out knob's own replays.
    const mapAt = new Map<string, number>();
    for (const bw of mapBandwidths) {
      for (const s of scales) {
        const i = defs.findIndex((d, j) => (s === 1 ? j === 0 : d.knob === 'scale-out' && d.setting === s));
        if (bw === network.dims[1]!.bandwidthGBps && i >= 0) {
          mapAt.set(`${bw}|${s}`, first + 1 + 2 * i);
          continue;
        }
        const base = atScaleOutBandwidth(network, power, bw);
        const d: PointDef = {
          knob: 'scale-out',
          setting: s,
          ...(s === 1 ? base : scaledConfigs(base.network, base.power, 1, s, curve)),
          clockMHz: fMax,
        };
        mapAt.set(`${bw}|${s}`, tasks.length);
        tasks.push(task(d, m1), task(d, m2));
      }
    }
    return { L, m: [m1, m2, m3] as const, microBatches, defs, first, mapAt };
  });

  let done = 0;
  const run = await runPoints(tasks, { threads: o.threads, onDone: () => o.onPoint?.(++done, tasks.length) });
  const results = run.results;

  const layoutRecords: CaseStudyLayout[] = plans.map(({ L, m: [m1, m2, m3], microBatches, defs, first }) => {
    const at = (i: number, size: 0 | 1): ReplayResult => results[first + 1 + 2 * i + size]!;
    const full = defs.map((_, i) => extrapolate(figuresOf(at(i, 0)), figuresOf(at(i, 1)), m1, m2, microBatches));
    const nominal = full[0]!;
    const check = extrapolate(figuresOf(at(0, 0)), figuresOf(at(0, 1)), m1, m2, m3);
    const checked = figuresOf(results[first]!);
    const err = (x: number, y: number) => (y !== 0 ? (100 * (x - y)) / y : 0);

    const networkBand = (p: PointFigures) => energyPerBitBand(p, nominal, epbLow, epbHigh);
    const pointsOf = (knob: Knob['id']): KnobPoint[] =>
      defs.flatMap((d, i) => {
        const isNominal = i === 0;
        if (!isNominal && d.knob !== knob) return [];
        const setting = knob === 'gpu-clock' ? (isNominal ? fMax : d.setting) : d.setting;
        const p = full[i]!;
        return [
          knobPoint(
            setting,
            p,
            nominal,
            knob === 'gpu-clock' ? clockBand(p, nominal, bands, setting, fMax) : networkBand(p),
          ),
        ];
      });
    const epb = `${epbLow}× to ${epbHigh}× the configured energy per bit on both dimensions (time unchanged)`;
    const knobs: Knob[] = [
      knobRecord('scale-out', 'scale-out network DVFS', '× nominal', 1, pointsOf('scale-out'), `band: ${epb}`),
      knobRecord('scale-up', 'scale-up network DVFS', '× nominal', 1, pointsOf('scale-up'), `band: ${epb}`),
      knobRecord(
        'gpu-clock',
        'GPU SM clock',
        'MHz',
        fMax,
        pointsOf('gpu-clock'),
        `band: the 10–90 % error of ` +
          (bandCal === cal
            ? 'this calibration'
            : `the fitted ${bandCal.device.name} calibration (${bandFile.split('/').pop()})`) +
          ` ` +
          `for predictions one clock down, at each clock's distance from ${fMax} MHz, on compute energy and ` +
          `iteration time, every kernel erring alike`,
      ),
    ];
    const big = at(0, 1);
    const e = nominal.energyJ;
    const base = {
      name: L.name,
      dp: L.dp,
      tp: L.tp,
      pp: L.pp,
      microBatches,
      nominal: {
        makespanS: nominal.makespanS,
        energyJ: e,
        networkByDimensionJ: nominal.networkByDimensionJ,
        bytesSentPerDimGB: nominal.bytesSentPerDim.map((b) => b / 1e9),
        shares: {
          networkEnergy: e.network / e.total,
          scaleOutEnergy: (nominal.networkByDimensionJ[1] ?? 0) / e.total,
          hiddenCommunication: nominal.communicationS > 0 ? nominal.overlapS / nominal.communicationS : 0,
          exposedCommunication:
            nominal.communicationS > 0 ? (nominal.communicationS - nominal.overlapS) / nominal.communicationS : 0,
          communicationEnergy: e.communication / e.total,
          idleEnergy: e.idle / e.total,
        },
      },
      knobs,
      extrapolation: {
        replayedMicroBatches: [m1, m2] as [number, number],
        checkMicroBatches: m3,
        makespanErrorPct: err(check.makespanS, checked.makespanS),
        energyErrorPct: err(check.energyJ.total, checked.energyJ.total),
      },
      ranks: big.ranks.map((r) => ({
        rank: r.rank,
        computeS: r.gpuComputeNs * 1e-9,
        exposedCommS: r.exposedCommNs * 1e-9,
        hostS: (r.hostExposedNs + r.remoteMemExposedNs) * 1e-9,
        waitS: r.waitNs * 1e-9,
        communicationS: r.commNs * 1e-9,
      })),
    };
    return { ...base, ...layoutFinding(base) };
  });

  const mapRows: SensitivityRow[] = plans.flatMap(({ L, m: [m1, m2], mapAt }) =>
    mapBandwidths.flatMap((bw) => {
      const replays = scales.map((s) => {
        const i = mapAt.get(`${bw}|${s}`)!;
        return [figuresOf(results[i]!), figuresOf(results[i + 1]!)] as [PointFigures, PointFigures];
      });
      return mapBatches.map((B) =>
        mapCell(
          {
            layout: L.name,
            globalBatchSequences: B,
            microBatchesPerPipeline: B / L.dp,
            scaleOutBandwidthGBps: bw,
            realBatchPoint: B === globalBatch && bw === presetOutGBps,
          },
          scales,
          replays,
          m1,
          m2,
        ),
      );
    }),
  );

  const d0 = power.network[0]!;
  const d1 = power.network[1]!;
  const record: CaseStudyRecord = {
    kind: 'case-study',
    schemaVersion: 1,
    label: `LLaMA-2-70B training, 32 × H100, Switch(8) × Ring(4), global batch ${globalBatch} × ${seqLen} tokens`,
    system: [
      `LLaMA-2-70B, bf16, 1F1B, one training iteration of ${globalBatch} sequences × ${seqLen} tokens (` +
        `${((globalBatch * seqLen) / 2 ** 20).toFixed(0)} Mi tokens, LLaMA-2's global batch), micro-batch 1 ` +
        `sequence`,
      `layouts: ${layouts.map((L) => `${L.name} (${globalBatch / L.dp} micro-batches per pipeline)`).join('; ')}`,
      `GPU: kernel times and energies from ${cal.device.name} calibration ${calFile.split('/').pop()} (` +
        `${cal.device.kind === 'datasheet' ? 'datasheet defaults, not fitted' : 'fitted'}) at each SM clock; ` +
        `idle ${power.gpu.idlePowerW} W${power.gpu.idleSource ? ` (${power.gpu.idleSource})` : ''}, ` +
        `${commPowerW(power.gpu)} W while only communication runs, per GPU`,
      `${d0.name}: Switch(8), ${d0.bandwidthGBps} GB/s, ${d0.energyPjPerBit} pJ/bit; ${d1.name}: Ring(4), ` +
        `${d1.bandwidthGBps} GB/s, ${d1.energyPjPerBit} pJ/bit (power preset ${power.name})`,
      `network DVFS: bandwidth × s, energy per bit × (V(s)/V(1))², ${curve.name}`,
      `replay: ASTRA-sim analytical network (congestion-unaware); full batch extrapolated from two replays per ` +
        `point (see each layout's check)`,
    ],
    definitions: [
      'ΔT % = (T − T₀)/T₀ and ΔE % = (E − E₀)/E₀ against the nominal point (network at s = 1, GPU at its ' +
        "highest clock); E is the whole iteration's energy, idle included.",
      'Marginal efficiency: ΔE/ΔT (J/s = W; in the report and --csv) and the energy saved per 1 % slowdown, ' +
        '−ΔE % / ΔT % (saved/slowdown; only for slower points). A point that is faster and cheaper than nominal ' +
        'is a pure gain.',
      'Shares at nominal: direct network energy / total; communication time hidden behind compute / all ' +
        'communication time and exposed communication (running with no GPU compute) / all communication time ' +
        '(summed over ranks; the two add up to 100 %); communication and idle energy / total.',
      'Per-rank time (report plot): GPU compute + exposed communication + host (CPU or remote memory only) + ' +
        'waiting (nothing running) = the makespan.',
      ...energyDefinitions(ledgerSettings(power)).map((d) => `Energy part ${d}`),
      'Bands (10–90 %): network knobs 0.5× to 2× the configured energy per bit; GPU clock the error a fitted ' +
        'calibration measured for predictions away from the profiled clock. The roofline times and the ' +
        'congestion-unaware network are not in the bands.',
      "The poster's finding, as tested here: raising the scale-out links' voltage and frequency (s > 1) lowers " +
        "the iteration's total energy, because the time it saves cuts the GPUs' communication-time and idle " +
        "energy by more than the links' higher energy per bit adds.",
    ],
    layouts: layoutRecords,
    finding: overallFinding(layoutRecords),
    ...(mapRows.length
      ? {
          sensitivity: sensitivityMap(
            mapRows,
            layouts.map((L) => L.name),
            mapBatches,
            mapBandwidths,
            scales,
            MAP_DEFAULTS.thresholdPct,
          ),
        }
      : {}),
  };
  return { record, parallelism: run.parallelism, replays: tasks.length };
}

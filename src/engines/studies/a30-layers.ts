/**
 * `case-study a30-layers`: single GPT decoder layers on an NVIDIA A30 against a published layer-level SM-clock study.
 * Each layer's forward pass is generated (`generate llm --scope layer-forward`, bf16), swept over every A30 SM clock
 * with the GPU clock sweep (annotate with the A30 datasheet calibration at each clock, replay each clock's trace),
 * and its Pareto front compared with the published energy saving and runtime penalty of the lowest-energy point
 * against the fastest. The calibration holds datasheet facts only (calibration/a30-datasheet.json, written by
 * src/model/datasheet-calibration.ts like the H100 and A100 files): nothing in it was chosen to match the table.
 * All modelled figures are estimates.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findModelPreset } from '../generate/models.js';
import { InputError } from '../../errors.js';
import { parseNetworkConfig, parseSystemConfig } from '../../formats/astra/index.js';
import { withTempDir } from '../../formats/output.js';
import { loadCalibration, maxSmClock, type Calibration } from '../../model/calibration.js';
import { estimateFromRoofline } from '../../model/predict.js';
import { NodeType } from '../../formats/chakra/schema.js';
import { calibratedTimeModel, generateLlmTraces, writeLlmTraces, type LlmGenerateOptions } from '../generate/index.js';
import {
  meanAbsDifference,
  observations,
  rowOf,
  type LayerClockStudyRecord,
  type LayerSweep,
  type PublishedCell,
} from './a30-layers-record.js';
import { sweepGpu } from './gpu-sweep.js';
import type { PoolRun } from './pool.js';

/**
 * SM clocks of the A30: 210 to 1440 MHz in 15 MHz steps, as nvidia-smi lists its supported clocks (HBM2 fixed at
 * 1215 MHz), the clocks of the published study.
 */
export function a30ClocksMHz(): number[] {
  const clocks: number[] = [];
  for (let f = 210; f <= 1440; f += 15) clocks.push(f);
  return clocks;
}

/**
 * The layers of the published table: GPT-3 family presets (Brown et al. 2020, Table 2.1), smallest first, each with
 * its published (energy saving %, runtime penalty %) at S = 128, 512 and 1024 in turn.
 */
export const A30_LAYERS: readonly { model: string; layer: string; published: readonly number[] }[] = [
  { model: 'gpt3-125m', layer: 'GPT 125M', published: [5.3, 1.6, 30.8, 23.9, 28.1, 18.3] },
  { model: 'gpt3-1.3b', layer: 'GPT 1.3B', published: [24.5, 27.4, 20.5, 14.8, 21.0, 12.8] },
  { model: 'gpt3-13b', layer: 'GPT 13B', published: [14.6, 14.9, 10.8, 12.7, 11.8, 11.3] },
  { model: 'gpt3-175b', layer: 'GPT 175B', published: [13.5, 11.3, 9.0, 15.5, 19.9, 30.7] },
];

export const A30_SEQ_LENS: readonly number[] = [128, 512, 1024];

/** The published measurement: how it was taken. */
export const A30_PUBLISHED_SOURCE =
  "a layer-level measurement of single GPT decoder layers on one NVIDIA A30 (as quoted in the project's issue 31): " +
  'SM clock swept 210–1440 MHz in 15 MHz steps with HBM fixed at 1215 MHz; power from NVML total-power samples ' +
  'at about 2 ms; ' +
  'each layer looped until runtime and power were stable, then E = P·t; energy saving and runtime penalty of the ' +
  'lowest-energy Pareto point against the fastest one.';

/** The published table, one cell per layer and sequence length. */
export const A30_PUBLISHED: readonly PublishedCell[] = A30_LAYERS.flatMap(({ model, published }) =>
  A30_SEQ_LENS.map((seqLen, i) => ({
    model,
    seqLen,
    energySavingPct: published[2 * i]!,
    runtimePenaltyPct: published[2 * i + 1]!,
  })),
);

const calibrationFile = (name: string) => fileURLToPath(new URL(`../../../calibration/${name}`, import.meta.url));

export const A30_STUDY_DEFAULTS = {
  calibration: calibrationFile('a30-datasheet.json'),
  /** Sequences per layer pass. */
  microBatch: 1,
  /** Target for the mean absolute difference per column, percentage points. */
  targetPts: 5,
} as const;

export interface A30StudyOptions {
  /** Calibration giving kernel times and energies per SM clock; default calibration/a30-datasheet.json. */
  calibration?: string;
  microBatch?: number;
  /** A subset of the study's layers (model presets of A30_LAYERS) and of its sequence lengths: default all. */
  models?: readonly string[];
  seqLens?: readonly number[];
  threads?: number;
  onPoint?: (done: number, total: number) => void;
}

export interface A30StudyOutput {
  record: LayerClockStudyRecord;
  replays: number;
  parallelism: PoolRun['parallelism'];
}

function checkClocks(cal: Calibration, clocks: readonly number[], file: string): void {
  const top = maxSmClock(cal).mhz;
  if (Math.max(...clocks) !== top) {
    throw new InputError(
      `${file}: ${cal.device.name} tops out at ${top} MHz, but the A30 study sweeps 210–1440 MHz: give an A30 ` +
        `calibration`,
    );
  }
}

export async function runA30LayerStudy(o: A30StudyOptions = {}): Promise<A30StudyOutput> {
  const calFile = o.calibration ?? A30_STUDY_DEFAULTS.calibration;
  const microBatch = o.microBatch ?? A30_STUDY_DEFAULTS.microBatch;
  if (!Number.isInteger(microBatch) || microBatch < 1)
    throw new InputError(`micro-batch must be a whole number ≥ 1, got ${microBatch}`);
  const cal = await loadCalibration(calFile);
  const clocks = a30ClocksMHz();
  checkClocks(cal, clocks, calFile);
  const top = clocks[clocks.length - 1]!;
  for (const m of o.models ?? [])
    if (!A30_LAYERS.some((l) => l.model === m))
      throw new InputError(`${m} is not a layer of the A30 study (${A30_LAYERS.map((l) => l.model).join(', ')})`);
  for (const s of o.seqLens ?? [])
    if (!A30_SEQ_LENS.includes(s))
      throw new InputError(`S = ${s} is not a sequence length of the A30 study (${A30_SEQ_LENS.join(', ')})`);
  const cells = A30_LAYERS.filter((l) => !o.models || o.models.includes(l.model)).flatMap((l) =>
    A30_SEQ_LENS.filter((s) => !o.seqLens || o.seqLens.includes(s)).map((seqLen) => ({ ...l, seqLen })),
  );
  const total = cells.length * clocks.length;
  let done = 0;
  let parallelism: PoolRun['parallelism'] = { mode: 'in-process', threads: 1 };
  const layers: LayerSweep[] = await withTempDir('tracewatt-a30-layers-', async (dir) => {
    const out: LayerSweep[] = [];
    for (const c of cells) {
      const prefix = path.join(dir, `${c.model}-s${c.seqLen}`);
      // The layer as `generate llm --scope layer-forward` writes it, its durations those of the A30 at its top clock.
      const layer: LlmGenerateOptions = {
        model: c.model,
        dp: 1,
        tp: 1,
        pp: 1,
        microBatch,
        globalBatch: microBatch,
        seqLen: c.seqLen,
        dtype: 'bf16',
        scope: 'layer-forward',
        timeModel: calibratedTimeModel(cal, top, 'bf16'),
      };
      const w = await writeLlmTraces({ ...layer, outPrefix: prefix });
      const r = await sweepGpu({
        label: `${c.layer} decoder layer, forward, S = ${c.seqLen}`,
        trace: prefix,
        calibration: cal,
        profiles: [],
        frequenciesMHz: clocks,
        system: parseSystemConfig(w.systemFile, await readFile(w.systemFile, 'utf8')),
        network: parseNetworkConfig(w.networkFile, await readFile(w.networkFile, 'utf8')),
        workDir: path.join(dir, `${c.model}-s${c.seqLen}-sweep`),
        threads: o.threads,
        onPoint: () => o.onPoint?.(++done, total),
      });
      parallelism = r.parallelism;
      out.push({
        model: c.model,
        layer: c.layer,
        seqLen: c.seqLen,
        sweep: r.record,
        maxKernelPowerW: maxKernelPowerW(cal, layer, top),
      });
    }
    return out;
  });
  const rows = layers.map((l) => rowOf(l, A30_PUBLISHED.find((p) => p.model === l.model && p.seqLen === l.seqLen)!));
  const models = A30_LAYERS.map((l) => l.model).filter((m) => rows.some((r) => r.model === m));
  const obs = observations(
    layers,
    rows,
    models,
    A30_SEQ_LENS.filter((s) => rows.some((r) => r.seqLen === s)),
    cal.powerCap.powerW,
  );
  const record: LayerClockStudyRecord = {
    kind: 'layer-clock-study',
    schemaVersion: 1,
    label:
      `GPT decoder layers on an NVIDIA A30: SM clock ${clocks[0]}–${clocks[clocks.length - 1]} MHz against the ` +
      `published table`,
    system: systemLines(cal, calFile, microBatch, clocks),
    definitions: DEFINITIONS,
    publishedSource: A30_PUBLISHED_SOURCE,
    rows,
    meanAbsDifference: meanAbsDifference(rows, A30_STUDY_DEFAULTS.targetPts),
    observations: obs,
    limits: limits(cal, rows),
    layers,
    estimate: true,
  };
  return { record, replays: total, parallelism };
}

/**
 * The highest power any kernel of the layer would draw at `clockMHz` with no cap (roofline estimate): whether the
 * power cap could bind at all. The roofline estimate itself holds power at the cap without lowering the clock.
 */
function maxKernelPowerW(cal: Calibration, layer: LlmGenerateOptions, clockMHz: number): number {
  const uncapped: Calibration = { ...cal, powerCap: { ...cal.powerCap, powerW: null, source: 'none' } };
  let max = 0;
  for (const n of generateLlmTraces(layer).nodesOf(0)) {
    if (n.type !== NodeType.COMP_NODE) continue;
    const attr = (name: string) => Number(n.attrs.find((a) => a.name === name)?.value ?? 0);
    const p = estimateFromRoofline(
      uncapped,
      { flops: attr('num_ops'), bytes: attr('tensor_size'), precision: 'fp16Tensor' },
      clockMHz,
    );
    max = Math.max(max, p.powerW);
  }
  return max;
}

const DEFINITIONS = [
  'Fastest point: the Pareto point with the shortest runtime (of equal runtimes, the lowest energy); ' +
    'lowest-energy point: the Pareto point with the least energy.',
  'Energy saving (%) = (E_fastest − E_lowest) / E_fastest; runtime penalty (%) = (T_lowest − T_fastest) / ' +
    "T_fastest; E is the layer pass's whole modelled GPU energy, T its runtime (estimated).",
  'Difference (points) = tracewatt − published; mean absolute difference = mean over the cells of ' +
    '|difference|, per column.',
  'Bottom width (%): runtime span of the clocks whose energy is within 2 % of the lowest, as % of the fastest ' +
    'runtime (a sharp V is narrow, a flat U wide).',
];

function systemLines(cal: Calibration, calFile: string, microBatch: number, clocks: readonly number[]): string[] {
  const ds = cal.datasheet!;
  const vf = cal.vf;
  const step = clocks[1]! - clocks[0]!;
  return [
    `one GPT-3-family decoder layer (${A30_LAYERS.map((l) => findModelPreset(l.model)!.name).join(', ')}; ` +
      `Brown et al. 2020, Table 2.1), forward pass, bf16, micro-batch ${microBatch} sequence` +
      `${microBatch === 1 ? '' : 's'}, S = ${A30_SEQ_LENS.join(' / ')} tokens`,
    `trace: tracewatt generate llm --scope layer-forward (fused norm, QKV, FlashAttention, output projection, ` +
      `norm, MLP up, GELU, MLP down: 8 kernels per pass), one GPU`,
    `GPU: ${cal.device.name} from ${path.basename(calFile)} (` +
      `${cal.device.kind === 'datasheet' ? 'datasheet facts only, not fitted' : 'fitted'}): ` +
      `${(ds.peakFlopsPerS.fp16Tensor ?? ds.peakFlopsPerS.fp32) / 1e12} TFLOP/s bf16 tensor, ` +
      `${ds.memoryBandwidthBytesPerS / 1e9} GB/s HBM2, ${ds.tdpW} W TDP (the power cap), idle ${ds.idlePowerW} W ` +
      `(estimate)`,
    ...(vf
      ? [
          `V–f: the default shape of every datasheet calibration — voltage flat up to ${vf.kneeMHz} MHz (60 % ` +
            `of ${ds.maxSmClockMHz} MHz), then +${vf.slopePerGHz} V/V per GHz; power split over SM, tensor and ` +
            `DRAM activity by the same default rule`,
        ]
      : []),
    `SM clock swept ${clocks[0]}–${clocks[clocks.length - 1]} MHz in ${step} MHz steps (${clocks.length} ` +
      `clocks); each clock annotated (roofline time and power at that clock) and replayed: tracewatt sweep gpu`,
  ];
}

/** What the model gets and misses, from its numbers. */
function limits(cal: Calibration, rows: LayerClockStudyRecord['rows']): string[] {
  const knee = cal.vf?.kneeMHz ?? null;
  const cap = cal.powerCap.powerW;
  const maxP = Math.max(...rows.map((r) => r.maxKernelPowerW));
  const top = Math.max(...rows.map((x) => x.fastestClockMHz));
  // Compute-bound layers are fastest at the top clock; memory-bound ones reach their runtime floor below it.
  const computeBound = rows.filter((r) => r.fastestClockMHz === top);
  const memoryBound = rows.filter((r) => r.fastestClockMHz < top);
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} %`;
  return [
    (knee !== null
      ? `The lowest-energy clock sits at the knee of the assumed V–f shape (${knee} MHz) for every compute-bound layer`
      : 'The lowest-energy clock is set by the assumed V–f shape') +
      `, ` +
      `so its runtime penalty is ${range(computeBound.map((r) => r.runtimePenaltyPct))} where the published ` +
      `penalties of the same cells are ${range(computeBound.map((r) => r.publishedRuntimePenaltyPct))}: ` +
      'the real A30 gains less by slowing down, as a higher static (time-proportional) power or a voltage that ' +
      'rises from lower clocks would make it; the datasheet defaults know neither.',
    `No power-cap throttling: with the default power split no kernel draws more than ${maxP.toFixed(0)} W at ` +
      `the top clock${cap !== null ? ` (cap ${cap} W)` : ''}, ` +
      'and the roofline estimate holds power at the cap without lowering the clock, so the runtime never rises ' +
      'at the top clock. A real GPU under dense GEMMs can run at its power limit ' +
      "(the fitted A40 calibration, from Perseus' measured GPT-3 stages, detects a 293 W cap: power flat while " +
      'time stops improving); on the A30 that would lower the real clock at the top settings, ' +
      'shorten the distance to the optimum and could make the highest clock slower than a lower one.',
    ...(memoryBound.length
      ? [
          `Memory-bound kernels: ${memoryBound.map((r) => `${r.layer} at S = ${r.seqLen}`).join(', ')} read ` +
            `more bytes of weights than their GEMMs can hide behind compute ` +
            `above some clock (roofline bound by the ${(cal.datasheet?.memoryBandwidthBytesPerS ?? 0) / 1e9} ` +
            `GB/s HBM2), so their runtime is flat there and their saving small; the roofline has no partial ` +
            `overlap, ` +
            "caches or clock-dependent memory efficiency, and HBM power follows the SM clock's V²f in the " +
            'datasheet model although HBM runs on its own 1215 MHz clock.',
        ]
      : []),
    'The replay times kernels in whole µs; the smallest layers (tens of µs per pass) carry up to ±0.5 µs per ' +
      'kernel of rounding in their runtimes.',
  ];
}

/**
 * Small, realistic result records for the report tests: an 8-GPU replay, a GPU clock sweep with a U-shaped
 * energy curve, a scale-out network DVFS sweep, the V100 accuracy table of the reference paper, and a case-study
 * summary. Numbers are hand-made in plausible ranges (H100: 700 W active, 80 W idle), not engine output.
 */
import { readFileSync } from 'node:fs';
import type {
  AccuracyTable,
  CaseStudySummary,
  EnergyBreakdownJ,
  GpuClockPoint,
  GpuClockSweepResult,
  LayerStudySummary,
  NetworkSweepPoint,
  NetworkSweepResult,
  PlanSummary,
  ReplayRecord,
  ReportResult,
} from '../../src/report/types.js';

function breakdown(
  compute: number,
  memory: number,
  network: number,
  idle: number,
  communication = 0,
  host = 0,
): EnergyBreakdownJ {
  return {
    compute,
    memory,
    communication,
    network,
    idle,
    host,
    total: compute + memory + communication + network + idle + host,
  };
}

export function replayFixture(ranks = 8): ReplayRecord {
  const rankRows = Array.from({ length: ranks }, (_, rank) => {
    const finishNs = 1_250_000_000 - (rank % 4) * 12_000_000;
    return {
      rank,
      finishNs,
      exposedCommNs: 310_000_000 + (rank % 4) * 9_000_000,
      waitNs: 230_000_000 - (rank % 4) * 5_000_000,
      energyJ: breakdown(520 - rank * 3.5, 61 + (rank % 2) * 4, 18.5 + (rank % 4), 56 + rank * 2.25, 52 + (rank % 3)),
    };
  });
  const sum = (k: keyof EnergyBreakdownJ) => rankRows.reduce((a, r) => a + r.energyJ[k], 0);
  return {
    kind: 'replay',
    schemaVersion: 1,
    label: 'gpt-small on Switch(4)×Ring(2), 8 × H100',
    makespanNs: 1_250_000_000,
    energyJ: breakdown(sum('compute'), sum('memory'), sum('network'), sum('idle'), sum('communication')),
    // Summed over the 8 ranks, like the replay engine's timeS: compute + exposed + host + remote memory + wait =
    // makespan × 8.
    timeS: {
      makespan: 1.25,
      compute: 5.84,
      communication: 4.16,
      exposedCommunication: 2.48,
      hostExposed: 0.12,
      remoteMemExposed: 0,
      wait: 1.56,
      astraExposed: 4.16,
      overlap: 1.68,
    },
    exposedCommNs: 310_000_000,
    overlapShare: 1.68 / 4.16,
    ranks: rankRows,
    bytesSentPerDim: [2.5e12, 6e11],
    networkEnergyPerDimJ: [40, 120],
    dimensionNames: ['scale-up (Switch 4)', 'scale-out (Ring 2)'],
    byName: byNameRows(),
  };
}

/**
 * Energy by name: 18 rows, long CUDA kernel names among them, idle and network static (not summed to the fixture's
 * totals).
 */
function byNameRows(): NonNullable<ReplayRecord['byName']> {
  const names = [
    'void ' +
      'cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_64x3_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_64x3_tn_align8::Params)',
    'ALL_REDUCE 64 MiB (pg dp)',
    'flash_fwd_kernel',
    'ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_nn',
    'ALL_GATHER 16 MiB (pg tp)',
    'vectorized_elementwise_kernel',
    'layer_norm_fwd',
    'softmax_warp_forward',
    'REDUCE_SCATTER 16 MiB (pg tp)',
    'SEND 8 MiB',
    'RECV 8 MiB',
    'adam_step',
    'embedding_backward',
    'nll_loss_forward',
    'elementwise_add',
    'cast_bf16',
  ];
  const rows = names.map((name, i) => {
    const comm = /^(ALL_|REDUCE|SEND|RECV)/.test(name);
    const e = 400 / (i + 1);
    return {
      name,
      kind: (comm ? (name.startsWith('SEND') || name.startsWith('RECV') ? 'p2p' : 'collective') : 'kernel') as 'kernel',
      count: 8 * (i + 1),
      timeNs: 1e8 / (i + 1),
      energyJ: comm ? breakdown(0, 0, e * 0.05, 0, e * 0.95) : breakdown(e * 0.8, e * 0.2, 0, 0),
    };
  });
  return [
    ...rows,
    { name: '(idle)', kind: 'idle', count: 0, timeNs: 1.5e9, energyJ: breakdown(0, 0, 0, 130) },
    { name: '(network static)', kind: 'network-static', count: 0, timeNs: 1e10, energyJ: breakdown(0, 0, 3.7e-5, 0) },
  ];
}

/** SM clocks 210..1980 MHz; time falls with clock, energy is U-shaped with its minimum near 1200 MHz. */
export function gpuSweepFixture(step = 90): GpuClockSweepResult {
  const points: GpuClockPoint[] = [];
  for (let f = 210; f <= 1980; f += step) {
    const timeS = 0.35 + 1.55 * (1980 / f) * 0.55;
    const v = 0.7 + 0.3 * Math.max(0, (f - 900) / 1080) ** 1.3;
    const compute = 380 * v * v + 0.0;
    const memory = 60;
    const network = 22;
    const idle = 95 * timeS;
    points.push({
      clockMHz: f,
      timeS,
      energyJ: breakdown(compute + 140 * timeS * 0.6, memory, network, idle),
      pareto: false,
    });
  }
  // Pareto: walk by time ascending, keep points that lower the best energy so far.
  let best = Infinity;
  for (const p of [...points].sort((a, b) => a.timeS - b.timeS)) {
    if (p.energyJ.total < best) {
      p.pareto = true;
      best = p.energyJ.total;
    }
  }
  const energyOptimal = points.reduce((a, b) => (b.energyJ.total < a.energyJ.total ? b : a));
  const timeOptimal = points.reduce((a, b) => (b.timeS < a.timeS ? b : a));
  return {
    kind: 'gpu-clock-sweep',
    schemaVersion: 1,
    label: 'gpt-small, 8 × H100, SM clock sweep',
    points,
    energyOptimalMHz: energyOptimal.clockMHz,
    timeOptimalMHz: timeOptimal.clockMHz,
  };
}

/** Scale-out dimension 1 swept 0.5..1.0; lower scale = cheaper bits, longer makespan, more idle energy. */
export function networkSweepFixture(): NetworkSweepResult {
  const points: NetworkSweepPoint[] = [];
  for (let i = 0; i <= 10; i++) {
    const scale = Number((0.5 + 0.05 * i).toFixed(2));
    const voltageRatio = 0.75 + 0.25 * scale;
    const energyPerBitPJ = 25 * voltageRatio ** 2;
    const makespanNs = Math.round(1.25e9 + 0.31e9 * (1 / scale - 1) * 0.8);
    const dim0 = 8.2;
    const dim1 = (2e12 * 8 * energyPerBitPJ) / 1e12;
    const idle = 610 + 80 * 8 * (makespanNs / 1e9 - 1.25);
    points.push({
      scale,
      bandwidthGBps: 50 * scale,
      energyPerBitPJ,
      voltageRatio,
      makespanNs,
      energyJ: breakdown(3962, 504, dim0 + dim1, idle),
      networkByDimensionJ: [dim0, dim1],
      marginal: null,
      dominated: false,
    });
  }
  for (let i = 0; i < points.length - 1; i++) {
    const p = points[i]!;
    const q = points[i + 1]!;
    const dE = p.energyJ.total - q.energyJ.total;
    const dT = (p.makespanNs - q.makespanNs) / 1e9;
    const slowPct = (dT / (q.makespanNs / 1e9)) * 100;
    p.marginal = {
      fromScale: q.scale,
      deltaEnergyJ: dE,
      deltaTimeS: dT,
      energyPerTimeW: dT === 0 ? null : dE / dT,
      energySavedPctPerSlowdownPct: slowPct > 0 ? ((-dE / q.energyJ.total) * 100) / slowPct : null,
    };
  }
  for (const p of points) {
    p.dominated = points.some(
      (q) =>
        q !== p &&
        q.makespanNs <= p.makespanNs &&
        q.energyJ.total <= p.energyJ.total &&
        (q.makespanNs < p.makespanNs || q.energyJ.total < p.energyJ.total),
    );
  }
  return { kind: 'network-sweep', schemaVersion: 1, label: 'scale-out network DVFS, 8 × H100', dimension: 1, points };
}

export function accuracyFixture(): AccuracyTable {
  return {
    kind: 'accuracy',
    schemaVersion: 1,
    label: 'V100 DGX training workload, profiled at 1530 MHz',
    referenceClockMHz: 1530,
    frequencies: [
      { frequencyMHz: 735, timeErrorPct: 9.9, powerErrorPct: -1.7, energyErrorPct: 11.8, n: 412 },
      { frequencyMHz: 930, timeErrorPct: 4.6, powerErrorPct: -2.3, energyErrorPct: 2.2, n: 412 },
      { frequencyMHz: 1132, timeErrorPct: 2.2, powerErrorPct: null, energyErrorPct: 2.0, n: 412 },
      { frequencyMHz: 1335, timeErrorPct: -2.1, powerErrorPct: 1.9, energyErrorPct: 4.0, n: 412 },
      { frequencyMHz: 1530, timeErrorPct: 7.4, powerErrorPct: -6.0, energyErrorPct: 0.9, n: 412 },
    ],
  };
}

/**
 * The case-study record `npm start` wrote (tracewatt's own output, test/fixtures/report/case-study.json), with
 * characters that must be escaped added to its overall finding.
 */
export function caseStudyFixture(): CaseStudySummary {
  const r = JSON.parse(
    readFileSync(new URL('../fixtures/report/case-study.json', import.meta.url), 'utf8'),
  ) as CaseStudySummary;
  return {
    ...r,
    finding:
      `${r.finding} Direct network energy is small, but overlap is poor & idle energy is large: <slower> links ` +
      `cost idle energy.`,
  };
}

/** One of each kind, in the order a case-study report would show them. */
export function allFixtures(): ReportResult[] {
  return [caseStudyFixture(), replayFixture(), gpuSweepFixture(), networkSweepFixture(), accuracyFixture()];
}

/** data-plot ids of the figures a report of {@link allFixtures} contains, in page order. */
export const EXPECTED_PLOTS = [
  'case-knobs',
  'case-shares',
  'case-clock-front',
  'case-network',
  'case-ranks',
  'energy-by-name',
  'energy-per-rank',
  'energy-vs-clock',
  'pareto-front',
  'network-sweep',
  'network-sweep-breakdown',
  'accuracy',
];

/**
 * An imported run of 8 ranks as `replay --as-measured --power-log --json` writes it (hand-made from
 * {@link replayFixture}: each rank's measured iteration, its replay within 1 %, a logged energy per rank), and the
 * modelled replay of the same run (its ranks carry the same measured iterations).
 */
export function measuredFixtures(): [ReplayRecord, ReplayRecord] {
  const modelled = replayFixture();
  const measuredNs = (rank: number) => 1_180_000_000 - (rank % 4) * 15_000_000 + rank * 1_000_000;
  const asMeasured: ReplayRecord = {
    ...replayFixture(),
    label: 'gpt-small as measured',
    mode: 'as-measured',
    byName: undefined,
    ranks: modelled.ranks.map((r) => ({
      ...r,
      finishNs: Math.round(measuredNs(r.rank) * (1 + ((r.rank % 3) - 1) * 0.004)),
      measuredIterationNs: measuredNs(r.rank),
      energyJ: breakdown(r.energyJ.compute * 0.9, r.energyJ.memory, 0, r.energyJ.idle * 0.8),
    })),
    powerLog: {
      file: 'nvidia-smi.csv',
      gpu: null,
      notes: ['power log placed on the iteration by wall-clock stamps (log stamps read as UTC)'],
      ranks: modelled.ranks.map((r) => ({ rank: r.rank, energyJ: 610 - r.rank * 4 })),
    },
  };
  return [
    asMeasured,
    {
      ...modelled,
      label: 'gpt-small on Switch8_Ring4.yml',
      ranks: modelled.ranks.map((r) => ({ ...r, measuredIterationNs: measuredNs(r.rank) })),
    },
  ];
}

const readFixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/report/${name}`, import.meta.url), 'utf8')) as T;

/**
 * `tracewatt plan --profile calibration/profiles/perseus-sosp24/gpt3-175b+a40_bf16.csv --stages 8 --micro-batches 12
 * --schedule 1f1b --blocking-power 70.38 --straggler-slowdown 1.2 --json`, the fields the report reads, numbers to 6
 * significant digits (test/fixtures/report/plan.json).
 */
export const planFixture = (): PlanSummary => readFixture<PlanSummary>('plan.json');

/**
 * `tracewatt case-study a30-layers`'s record (results.json), every second clock of each layer's sweep kept (and the
 * clocks the rows name), numbers to 5 significant digits (test/fixtures/report/layer-study.json).
 */
export const layerStudyFixture = (): LayerStudySummary => readFixture<LayerStudySummary>('layer-study.json');

/**
 * The sensitivity map `npm start` (case-study llama2-70b) wrote into its record, numbers to 5 significant digits
 * (test/fixtures/report/case-study-sensitivity.json).
 */
export const sensitivityFixture = (): NonNullable<CaseStudySummary['sensitivity']> =>
  readFixture('case-study-sensitivity.json');

/**
 * Every kind of result and plot the report draws: the case study with its sensitivity map, the measured-beside-modelled
 * pair, a plan, the layer study.
 */
export function everyPlotFixtures(): ReportResult[] {
  const [caseStudy, ...rest] = allFixtures();
  return [
    { ...(caseStudy as CaseStudySummary), sensitivity: sensitivityFixture() },
    ...rest,
    ...measuredFixtures(),
    planFixture(),
    layerStudyFixture(),
  ];
}

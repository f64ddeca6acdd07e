/**
 * `planPipeline`: the time–energy frontier and clock plans of a pipeline-parallel iteration from per-stage options
 * (measured, or modelled from a few clocks), with the intrinsic saving (no slowdown), the lowest-energy plan, the
 * EnvPipe-style baseline and the extrinsic saving when a straggler sets the iteration time.
 */
import { InputError } from '../../errors.js';
import type { PipelineSchedule } from '../generate/plan.js';
import { makeCurve, splitAt, type ClockOption, type Curve } from './curve.js';
import { envPipe } from './envpipe.js';
import { extrinsicSaving, type FrontierPoint } from './extrinsic.js';
import { graphFrontier, iterationEnergy, type PlanPoint } from './frontier.js';
import { pipelineGraph, type PipelineGraph, type StageLags } from './pipeline.js';
import type { StageOptions } from './stage-options.js';
import { RESULT_SCHEMA_VERSION } from '../replay/index.js';
import type { IterationPoint, NamedPlan, PlanRecord, Saving, SplitComputation } from './types.js';

export interface PipelinePlanInput {
  label: string;
  source: PlanRecord['source'];
  /** Options per stage, as planned with (measured, or modelled in fit mode). */
  stages: StageOptions[];
  /** Fit mode: the measured options, to check the plan against where they exist. */
  measured?: StageOptions[];
  microBatches: number;
  schedule: PipelineSchedule;
  blockingPowerW: number;
  /** Message delays between stages (trace mode); none for a stage profile (Perseus' emulation). */
  lags?: StageLags;
  /** GPUs per stage the options sum over (default 1). */
  gpusPerStage?: number;
  /**
   * Plans realized between the fastest and the slowest iteration time (default 400), plus one at the all-max-clock
   * time.
   */
  points?: number;
  /** Straggler: iteration time T′ = slowdown × all-max-clock time … */
  stragglerSlowdown?: number;
  /** … or T′ in seconds. */
  deadlineS?: number;
  notes?: string[];
}

const CURVE_STEPS = 50; // straggler slowdowns 1.00 … 1.50

export function planPipeline(input: PipelinePlanInput): PlanRecord {
  const { blockingPowerW, microBatches, schedule } = input;
  const stages = input.stages.length;
  if (!(stages >= 1)) throw new InputError('plan: at least one pipeline stage is needed');
  if (!(microBatches >= 1)) throw new InputError('plan: at least one micro-batch is needed');
  if (!(blockingPowerW >= 0) || !Number.isFinite(blockingPowerW))
    throw new InputError(`plan: blocking power must be a number of W ≥ 0, got ${blockingPowerW}`);
  const curves = input.stages.map((o, s) => ({
    forward: makeCurve(`stage ${s} forward`, o.forward, blockingPowerW),
    backward: makeCurve(`stage ${s} backward`, o.backward, blockingPowerW),
  }));
  const graph = pipelineGraph(schedule, stages, microBatches, curves, input.lags);
  const lanes = stages;
  const f = graphFrontier(graph.dag, { blockingPowerW, lanes, points: input.points });
  const base = f.baseline;
  const saving = (p: IterationPoint): Saving => ({
    timeS: p.timeS,
    energyJ: p.energyJ,
    savingPct: 100 * (1 - p.energyJ / base.energyJ),
    timeChangePct: 100 * (p.timeS / base.timeS - 1),
  });

  const pareto = f.points.filter((p) => p.pareto);
  const intrinsicPoint = f.points.reduce((a, b) =>
    Math.abs(b.deadlineS - base.timeS) < Math.abs(a.deadlineS - base.timeS) ? b : a,
  );
  const minPoint = pareto.reduce((a, b) => (b.energyJ < a.energyJ ? b : a));
  const fastestPoint = pareto[0]!;
  const split = f.lowerBound; // fastest first
  const splitMin = split.reduce((a, b) => (b.energyJ < a.energyJ ? b : a));
  const splitIntrinsic = { timeS: base.timeS, energyJ: intrinsicPoint.lowerBoundJ };

  const env = envPipe(graph);
  const envPoint = energyOf(graph, env.options, blockingPowerW, lanes);

  const frontierPoints: FrontierPoint[] = pareto.map((p) => ({ timeS: p.timeS, energyJ: p.energyJ }));
  const extrinsicAt = (deadlineS: number) => {
    const one = extrinsicSaving(frontierPoints, base, intrinsicPoint, deadlineS, lanes, blockingPowerW);
    const two = extrinsicSaving(split, base, splitIntrinsic, deadlineS, lanes, blockingPowerW);
    return one && two ? { ...one, splitSavingPct: two.savingPct } : null;
  };
  const extrinsicCurve = Array.from({ length: CURVE_STEPS + 1 }, (_, k) => {
    const slowdownFactor = 1 + k / 100;
    const e = extrinsicAt(slowdownFactor * base.timeS)!;
    return {
      slowdownFactor,
      savingPct: e.savingPct,
      extrinsicSavingPct: e.extrinsicSavingPct,
      splitSavingPct: e.splitSavingPct,
    };
  });
  let deadlineS = input.deadlineS;
  if (input.stragglerSlowdown !== undefined) {
    if (!(input.stragglerSlowdown >= 1))
      throw new InputError(`--straggler-slowdown: expected a factor ≥ 1, got ${input.stragglerSlowdown}`);
    deadlineS = input.stragglerSlowdown * base.timeS;
  }
  if (deadlineS !== undefined && !(deadlineS >= base.timeS)) {
    throw new InputError(
      `--deadline-s ${deadlineS}: faster than the all-max-clock iteration (${base.timeS.toPrecision(6)} s); no ` +
        `plan can meet it`,
    );
  }
  const extrinsic = deadlineS !== undefined ? extrinsicAt(deadlineS)! : undefined;

  const plans: NamedPlan[] = [namedPlan('intrinsic', graph, intrinsicPoint), namedPlan('min-energy', graph, minPoint)];
  if (extrinsic) {
    const chosen = pareto.find((p) => p.timeS === extrinsic.plannedTimeS) ?? intrinsicPoint;
    plans.push(namedPlan('deadline', graph, chosen));
  }

  return {
    kind: 'plan',
    schemaVersion: RESULT_SCHEMA_VERSION,
    label: input.label,
    source: input.source,
    schedule,
    stages,
    microBatches,
    blockingPowerW,
    lanes,
    gpusPerStage: input.gpusPerStage ?? 1,
    baseline: {
      timeS: base.timeS,
      energyJ: base.energyJ,
      computeEnergyJ: base.computeEnergyJ,
      blockingEnergyJ: base.blockingEnergyJ,
    },
    frontier: pareto.map((p) => ({
      timeS: p.timeS,
      energyJ: p.energyJ,
      deadlineS: p.deadlineS,
      computeEnergyJ: p.computeEnergyJ,
      blockingEnergyJ: p.blockingEnergyJ,
      splitEnergyJ: p.lowerBoundJ,
    })),
    splitFrontier: split,
    intrinsic: { ...saving(intrinsicPoint), split: saving(splitIntrinsic) },
    minEnergy: { ...saving(minPoint), split: saving(splitMin) },
    fastest: { ...saving(fastestPoint), split: saving(split[0]!) },
    envPipe: saving(envPoint),
    ...(extrinsic ? { extrinsic } : {}),
    extrinsicCurve,
    ...(input.measured
      ? { measuredCheck: measuredCheck(graph, input.measured, intrinsicPoint, blockingPowerW, lanes) }
      : {}),
    plans,
    splitPlan: splitPlan(graph, intrinsicPoint),
    solver: { steps: f.solverSteps, plansRealized: f.points.length },
    notes: input.notes ?? [],
    estimate: true,
  };
}

function energyOf(
  graph: PipelineGraph,
  options: readonly ClockOption[],
  blockingPowerW: number,
  lanes: number,
): IterationPoint {
  return iterationEnergy(graph.dag, (i) => options[i]!, blockingPowerW, lanes);
}

function namedPlan(name: string, graph: PipelineGraph, p: PlanPoint): NamedPlan {
  return {
    name,
    deadlineS: p.deadlineS,
    timeS: p.timeS,
    energyJ: p.energyJ,
    computations: graph.ops.map((op, i) => {
      const o = graph.dag.curveOf[i]!.options[p.choice[i]!]!;
      return {
        stage: op.stage,
        instruction: op.pass,
        microBatch: op.microBatch,
        clockMHz: o.clockMHz,
        timeS: o.timeS,
        energyJ: o.energyJ,
      };
    }),
  };
}

function splitPlan(graph: PipelineGraph, p: PlanPoint): SplitComputation[] {
  return graph.ops.map((op, i) => {
    const c: Curve = graph.dag.curveOf[i]!;
    const s = splitAt(c, p.relaxedS[i]!);
    const a = c.options[s.first]!;
    const b = c.options[s.second]!;
    return {
      stage: op.stage,
      instruction: op.pass,
      microBatch: op.microBatch,
      clockMHz: a.clockMHz,
      secondClockMHz: b.clockMHz,
      shareAtFirst: s.share,
      timeS: s.share * a.timeS + (1 - s.share) * b.timeS,
      energyJ: s.share * a.energyJ + (1 - s.share) * b.energyJ,
    };
  });
}

/**
 * The intrinsic plan's clocks on measured options (fit mode); computations whose clock was not measured are counted.
 */
function measuredCheck(
  graph: PipelineGraph,
  measured: StageOptions[],
  p: PlanPoint,
  blockingPowerW: number,
  lanes: number,
): PlanRecord['measuredCheck'] {
  let missing = 0;
  const lookup = (i: number, clockMHz: number): ClockOption | null => {
    const op = graph.ops[i]!;
    return measured[op.stage]![op.pass].find((o) => Math.abs(o.clockMHz - clockMHz) < 0.5) ?? null;
  };
  const maxOf = (i: number) => {
    const list = measured[graph.ops[i]!.stage]![graph.ops[i]!.pass];
    return list.reduce((a, b) => (b.clockMHz > a.clockMHz ? b : a));
  };
  const all = Array.from({ length: graph.dag.size }, (_, i) => i);
  const isLag = (i: number) => graph.dag.curveOf[i]!.lag;
  const baseOptions = all.map((i) => (isLag(i) ? graph.dag.curveOf[i]!.maxClock : maxOf(i)));
  const planOptions = all.map((i) => {
    const o = graph.dag.curveOf[i]!.options[p.choice[i]!]!;
    if (isLag(i)) return o;
    const m = lookup(i, o.clockMHz);
    if (!m) missing++;
    return m ?? o;
  });
  const base = energyOf(graph, baseOptions, blockingPowerW, lanes);
  const plan = energyOf(graph, planOptions, blockingPowerW, lanes);
  return {
    baseline: { timeS: base.timeS, energyJ: base.energyJ },
    intrinsic: {
      timeS: plan.timeS,
      energyJ: plan.energyJ,
      savingPct: 100 * (1 - plan.energyJ / base.energyJ),
      timeChangePct: 100 * (plan.timeS / base.timeS - 1),
    },
    missing,
  };
}

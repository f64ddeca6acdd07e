/**
 * The computation graph of one pipeline-parallel training iteration: S stages, N micro-batches, each stage running
 * its forward (F) and backward (B) computations in the schedule's order (1F1B or GPipe, the same orders
 * `generate llm` writes). F(s, j) needs F(s−1, j); B(s, j) needs B(s+1, j), and on the last stage F(S−1, j).
 * Communication between stages takes no time unless `lags` are given (Perseus' emulation); then each message is a
 * fixed delay op after the computations (ops beyond `ops.length` in the graph).
 */
import { stageSchedule } from '../generate/schedule.js';
import type { PipelineSchedule } from '../generate/plan.js';
import { lagCurve, type Curve } from './curve.js';
import { Dag } from './dag.js';

export type Pass = 'forward' | 'backward';

export interface PipelineOp {
  stage: number;
  pass: Pass;
  microBatch: number;
}

/** Message delays between stages, s: activation s → s+1 and gradient s+1 → s, index s = 0 … stages − 2. */
export interface StageLags {
  activationS: number[];
  gradientS: number[];
}

export interface PipelineGraph {
  dag: Dag;
  /** The computations: dag ops 0 … ops.length − 1 (message delays follow them). */
  ops: PipelineOp[];
  stages: number;
  microBatches: number;
  schedule: PipelineSchedule;
}

/** `curves[stage].forward / .backward`: the options of each stage's computations. */
export function pipelineGraph(
  schedule: PipelineSchedule,
  stages: number,
  microBatches: number,
  curves: readonly { forward: Curve; backward: Curve }[],
  lags?: StageLags,
): PipelineGraph {
  const ops: PipelineOp[] = [];
  const index = new Map<string, number>();
  const key = (stage: number, pass: Pass, mb: number) => `${stage}:${pass}:${mb}`;
  const orders = Array.from({ length: stages }, (_, s) => stageSchedule(schedule, stages, s, microBatches));
  for (let s = 0; s < stages; s++) {
    for (const step of orders[s]!) {
      const pass: Pass = step.pass === 'F' ? 'forward' : 'backward';
      index.set(key(s, pass, step.microBatch), ops.length);
      ops.push({ stage: s, pass, microBatch: step.microBatch });
    }
  }
  const preds: number[][] = ops.map(() => []);
  for (let s = 0; s < stages; s++) {
    const steps = orders[s]!;
    for (let k = 1; k < steps.length; k++) {
      const prev = steps[k - 1]!;
      const cur = steps[k]!;
      preds[index.get(key(s, cur.pass === 'F' ? 'forward' : 'backward', cur.microBatch))!]!.push(
        index.get(key(s, prev.pass === 'F' ? 'forward' : 'backward', prev.microBatch))!,
      );
    }
  }
  const opCurves: Curve[] = ops.map((op) => curves[op.stage]![op.pass]);
  const lagCurves = new Map<string, Curve>();
  const delayed = (from: number, delayS: number, label: string): number => {
    if (!(delayS > 0)) return from;
    let c = lagCurves.get(`${label}|${delayS}`);
    if (!c) lagCurves.set(`${label}|${delayS}`, (c = lagCurve(label, delayS)));
    opCurves.push(c);
    preds.push([from]);
    return opCurves.length - 1;
  };
  ops.forEach((op, i) => {
    let dep: number | undefined;
    if (op.pass === 'forward' && op.stage > 0) {
      dep = delayed(
        index.get(key(op.stage - 1, 'forward', op.microBatch))!,
        lags?.activationS[op.stage - 1] ?? 0,
        `activation ${op.stage - 1}→${op.stage}`,
      );
    } else if (op.pass === 'backward' && op.stage < stages - 1) {
      dep = delayed(
        index.get(key(op.stage + 1, 'backward', op.microBatch))!,
        lags?.gradientS[op.stage] ?? 0,
        `gradient ${op.stage + 1}→${op.stage}`,
      );
    } else if (op.pass === 'backward') dep = index.get(key(op.stage, 'forward', op.microBatch));
    if (dep !== undefined && !preds[i]!.includes(dep)) preds[i]!.push(dep);
  });
  const dag = new Dag(opCurves, preds);
  return { dag, ops, stages, microBatches, schedule };
}

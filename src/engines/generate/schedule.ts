/**
 * Order in which one pipeline stage runs the forward (F) and backward (B) passes of its
 * micro-batches.
 *
 * - GPipe: all m forwards, then all m backwards.
 * - 1F1B (PipeDream-Flush, Megatron's default): stage s of p runs min(p − s − 1, m) warm-up
 *   forwards, then alternates one forward and one backward, then drains the remaining backwards.
 *
 * With uniform stage times both leave an idle fraction of (p − 1)/(m + p − 1); 1F1B keeps at most
 * p − s micro-batches of activations alive instead of m.
 */
import type { PipelineSchedule } from './plan.js';

export interface ScheduleStep {
  pass: 'F' | 'B';
  microBatch: number;
}

export function stageSchedule(
  schedule: PipelineSchedule,
  stages: number,
  stage: number,
  microBatches: number,
): ScheduleStep[] {
  const steps: ScheduleStep[] = [];
  const m = microBatches;
  if (schedule === 'gpipe') {
    for (let i = 0; i < m; i++) steps.push({ pass: 'F', microBatch: i });
    for (let i = 0; i < m; i++) steps.push({ pass: 'B', microBatch: i });
    return steps;
  }
  const warmup = Math.min(stages - stage - 1, m);
  for (let i = 0; i < warmup; i++) steps.push({ pass: 'F', microBatch: i });
  for (let i = 0; i < m - warmup; i++) {
    steps.push({ pass: 'F', microBatch: warmup + i });
    steps.push({ pass: 'B', microBatch: i });
  }
  for (let i = m - warmup; i < m; i++) steps.push({ pass: 'B', microBatch: i });
  return steps;
}

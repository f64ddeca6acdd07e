export { planPipeline, type PipelinePlanInput } from './plan-pipeline.js';
export {
  measuredStageOptions,
  fittedStageOptions,
  quantizeOptions,
  clockGrid,
  type StageOptions,
} from './stage-options.js';
export { makeCurve, splitAt, slowestWithin, type ClockOption } from './curve.js';
export { Dag } from './dag.js';
export { pipelineGraph } from './pipeline.js';
export { sweep } from './solver.js';
export { graphFrontier } from './frontier.js';
export * from './types.js';
export { planTrace, type TracePlanInput } from './trace-plan.js';
export { planProfile } from './profile-plan.js';

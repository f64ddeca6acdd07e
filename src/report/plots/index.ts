export { renderPlot, renderSvg, PLOT_CONFIG, COMPONENT_COLOURS, type RenderedPlot } from './render.js';
export {
  energyBreakdownSpec,
  energyBreakdownSvg,
  type BreakdownBar,
  type BreakdownOptions,
} from './energy-breakdown.js';
export { energyVsClockSpec, energyVsClockSvg, type EnergyVsClockOptions } from './energy-vs-clock.js';
export { paretoSpec, paretoSvg, type ParetoPoint, type ParetoOptions } from './pareto.js';
export {
  networkSweepSpec,
  networkSweepSvg,
  networkSweepChangeSpec,
  type NetworkSweepOptions,
} from './network-sweep.js';
export { accuracySpec, accuracySvg, type AccuracyOptions } from './accuracy.js';
export {
  frontierSpec,
  frontierSvg,
  extrinsicSpec,
  type FrontierPlotOptions,
  type FrontierCurvePoint,
  type FrontierMarker,
} from './frontier.js';
export {
  layoutSharesSpec,
  knobOverviewSpec,
  clockFrontSpec,
  networkKnobsSpec,
  rankTimeSpec,
  relativeDomain,
} from './case-study.js';
export { byNameSpec, TOP_BY_NAME_PLOT } from './by-name.js';
export { sensitivityMapSpec } from './sensitivity-map.js';

/** Hand-off to and from ASTRA-sim: a workload it can run (export), and energy from the times it printed. */
export { energyFromAstraSimLog } from './energy.js';
export { exportAstraSim, type AstraSimExport } from './export.js';

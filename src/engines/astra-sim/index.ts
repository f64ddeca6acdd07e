/** Hand-off to and from ASTRA-sim: a workload it can run (export), and energy from the times it printed. */
export { energyFromAstraSimLog, type EnergyFromLogInput } from './energy.js';
export { exportAstraSim, type ExportInput, type AstraSimExport, type ExportRepair } from './export.js';
export { REPAIRS, repairNode, type RepairCode, type RepairContext } from './repair.js';
export { ASTRA_SIM_BINARIES, astraSimCommand, energyCommandLine, runScript, type AstraBackend, type ExportedFiles } from './run-script.js';

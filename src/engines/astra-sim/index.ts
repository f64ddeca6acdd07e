/** Hand-off to and from ASTRA-sim: energy from the times it printed. */
export { energyFromAstraSimLog, type EnergyFromLogInput } from './energy.js';

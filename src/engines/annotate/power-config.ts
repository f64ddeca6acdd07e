/**
 * The power configuration written beside an annotated trace (`<out>.power.json`), in the replay's `--power` format
 * (src/formats/astra parsePowerConfig): at the target clock, the GPU's active power (the annotated nodes' mean), its
 * idle power (the calibration's idle figure at that clock: a measurement or a published figure, never the active
 * fit's intercept) with its source, its power while only communication runs, memory and network energy per bit
 * from the user or a preset, and each component's power (`gpu.componentPowersW`). Every figure is an estimate.
 */
import { InputError } from '../../errors.js';
import { loadPowerConfig, parsePowerConfig, type PowerConfig } from '../../formats/astra/index.js';
import { idlePowerAt } from '../../model/idle-power.js';
import { componentPowersAt } from '../../model/model-power.js';
import { evaluatePower } from '../../model/power-model.js';
import type { Calibration } from '../calibrate/index.js';
import { commPowerW as defaultCommPowerW, COMM_POWER_SHARE, POWER_PRESETS, presetPath } from '../replay/index.js';

export { componentPowersAt } from '../../model/model-power.js';

/**
 * The share of the active power above idle a GPU draws while only communication runs (NCCL kernels keep SMs busy
 * polling and moving data, but compute little): the stated default of gpu.commPowerW, defined once in replay/ledger.ts.
 */
export const COMM_ACTIVE_SHARE = COMM_POWER_SHARE;

export interface PowerOptions {
  /** Preset (calibration/power/<name>.json) or power.json file for memory and network pJ/bit; default: by device. */
  preset?: string;
  memoryPjPerBit?: number;
  /** One figure per network dimension, dimension 0 first. */
  networkPjPerBit?: number[];
  /** Default: the calibration's idle power at the clock (model/idle-power.ts). */
  idlePowerW?: number;
  /** Default: idle + COMM_ACTIVE_SHARE × (active − idle). */
  commPowerW?: number;
}

/** The shipped preset closest to a device (by name), else the H100 case study. */
export function presetForDevice(device: string): string {
  if (/v100/i.test(device)) return 'v100-cluster';
  // The A30's HBM2 is the A100's memory generation: its preset's energy per bit is the closest shipped.
  if (/a100|a30/i.test(device)) return 'a100-cluster';
  return 'h100-cluster';
}

export interface PowerBase {
  config: PowerConfig;
  label: string;
}

/** The preset (or power.json) the memory and network energies come from. */
export async function loadPowerBase(options: PowerOptions, device: string): Promise<PowerBase> {
  const name = options.preset ?? presetForDevice(device);
  const preset = (POWER_PRESETS as readonly string[]).includes(name);
  const file = preset ? presetPath(name) : name;
  let config: PowerConfig;
  try {
    config = await loadPowerConfig(file);
  } catch (e) {
    // An InputError here is the file not read (its content's errors are FormatErrors): name what was looked for.
    if (preset || !(e instanceof InputError)) throw e;
    throw new InputError(
      `power preset ${name}: not a preset (${POWER_PRESETS.join(', ')}) nor a readable file (` +
        `${e.message.replace(`${file}: `, '')})`,
    );
  }
  return { config, label: preset ? `preset ${name}` : file };
}

/** Memory (DRAM) energy per bit: the user's, else the preset's. */
export function memoryPjPerBitOf(base: PowerBase, options: PowerOptions): number {
  if (options.memoryPjPerBit !== undefined && !(options.memoryPjPerBit >= 0))
    throw new InputError(`memory energy must be ≥ 0 pJ/bit, got ${options.memoryPjPerBit}`);
  return options.memoryPjPerBit ?? base.config.memory.energyPjPerBit;
}

export interface PowerDocument {
  doc: Record<string, unknown>;
  activePowerW: number;
  idlePowerW: number;
  commPowerW: number;
}

/**
 * The power.json document for one target clock. `computeEnergyJ` / `annotatedDurationNs` are the totals of the
 * annotated nodes: their ratio is the active power for compute nodes the replay finds without energy_j.
 */
export async function buildPowerDocument(
  cal: Calibration,
  frequencyMHz: number,
  totals: { computeEnergyJ: number; annotatedDurationNs: number },
  options: PowerOptions,
  name: string,
  powerBase?: PowerBase,
): Promise<PowerDocument> {
  const { config: base, label } = powerBase ?? (await loadPowerBase(options, cal.device.name));
  const comp = componentPowersAt(cal, frequencyMHz);
  const cap = cal.powerCap.powerW ?? Infinity;
  const idle = options.idlePowerW === undefined ? idlePowerAt(cal, frequencyMHz) : null;
  if (options.idlePowerW === undefined && !idle)
    throw new InputError(
      `the calibration of ${cal.device.name} has no idle figure (no idle block, no datasheet): re-run ` +
        `tracewatt calibrate with --idle <power log or idle profile>, or pass --idle-power W`,
    );
  const idlePowerW = options.idlePowerW ?? idle!.powerW;
  if (!(idlePowerW >= 0)) throw new InputError(`idle power must be ≥ 0 W, got ${idlePowerW}`);
  const idleSource = idle ? `${idle.how}; ${idle.source}` : 'given by the user (--idle-power)';
  let activePowerW: number;
  let activeNote: string;
  if (totals.annotatedDurationNs > 0) {
    activePowerW = totals.computeEnergyJ / (totals.annotatedDurationNs * 1e-9);
    activeNote =
      `gpu.activePowerW: energy-weighted mean modelled power of the annotated compute nodes at ${frequencyMHz} ` +
      `MHz; the replay uses it only for compute nodes without energy_j`;
  } else {
    const full = Object.fromEntries(cal.components.map((c) => [c, 1]));
    activePowerW = cal.datasheet?.activePowerW ?? Math.min(cap, evaluatePower(comp, full));
    activeNote = cal.datasheet
      ? 'gpu.activePowerW: datasheet active power (no node was annotated)'
      : `gpu.activePowerW: modelled power at ${frequencyMHz} MHz with every utilization at 1 (no node was annotated)`;
  }
  const network = options.networkPjPerBit
    ? options.networkPjPerBit.map((e, i) => {
        if (!(e >= 0)) throw new InputError(`network energy must be ≥ 0 pJ/bit, got ${e} for dimension ${i}`);
        return {
          name: base.network[i]?.name ?? `dim${i}`,
          energyPjPerBit: e,
          ...(base.network[i]?.bandwidthGBps !== undefined ? { bandwidthGBps: base.network[i].bandwidthGBps } : {}),
        };
      })
    : base.network.map((d) => ({
        name: d.name,
        energyPjPerBit: d.energyPjPerBit,
        ...(d.bandwidthGBps !== undefined ? { bandwidthGBps: d.bandwidthGBps } : {}),
      }));
  const memoryPj = memoryPjPerBitOf({ config: base, label }, options);
  const remotePj = options.memoryPjPerBit ?? base.memory.remoteEnergyPjPerBit;
  const fmt = (w: number) => Number(w.toPrecision(6));
  if (options.commPowerW !== undefined && !(options.commPowerW >= 0))
    throw new InputError(`communication power must be ≥ 0 W, got ${options.commPowerW}`);
  const commPowerW = options.commPowerW ?? defaultCommPowerW({ activePowerW, idlePowerW });
  const commNote =
    options.commPowerW !== undefined
      ? 'gpu.commPowerW: given by the user'
      : `gpu.commPowerW: the GPU while only communication runs, taken as idle + ${COMM_ACTIVE_SHARE} × (active − ` +
        `idle) = ${fmt(commPowerW)} W (an assumption: collectives keep SMs busy polling and moving data but ` +
        `compute little; no measurement of it at hand)`;
  const doc = {
    name,
    description:
      `Written by tracewatt annotate: ${cal.device.name} (${cal.device.kind} calibration) at SM clock ` +
      `${frequencyMHz} MHz. Modelled numbers: results are estimates.`,
    sources: [
      `calibration: ${cal.device.name}, ${cal.provenance.command || cal.provenance.tool}`,
      `memory energy per bit: ${options.memoryPjPerBit !== undefined ? 'given by the user' : label}; network ` +
        `energy per bit: ${options.networkPjPerBit ? 'given by the user' : label}`,
    ],
    assumptions: [
      activeNote,
      `gpu.idlePowerW: the GPU held at ${frequencyMHz} MHz computing nothing (gpu.idleSource says where it comes from)`,
      commNote,
      `gpu.componentPowersW: W of each component at utilization 1 above P0 (${fmt(comp.interceptW)} W) at ` +
        `${frequencyMHz} MHz, from the calibration` +
        (Object.keys(comp.coefficientsW).length ? '' : ' (none: counter-free calibration)'),
    ],
    gpu: {
      activePowerW: fmt(activePowerW),
      idlePowerW: fmt(idlePowerW),
      idleSource,
      commPowerW: fmt(commPowerW),
      frequencyMHz,
      componentPowersW: Object.fromEntries(Object.entries(comp.coefficientsW).map(([c, w]) => [c, fmt(w)])),
    },
    memory:
      remotePj === memoryPj
        ? { energyPjPerBit: memoryPj }
        : { energyPjPerBit: memoryPj, remoteEnergyPjPerBit: remotePj },
    network,
    networkIdlePowerWPerRank: base.networkIdlePowerWPerRank,
  };
  // The replay must read what is written: check it with the replay's own parser.
  parsePowerConfig(`${name}.power.json`, JSON.stringify(doc));
  return { doc, activePowerW: doc.gpu.activePowerW, idlePowerW: doc.gpu.idlePowerW, commPowerW: doc.gpu.commPowerW };
}

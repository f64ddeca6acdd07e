/**
 * The power configuration written beside an annotated trace (`<out>.power.json`), in the replay's `--power` format
 * (src/formats/astra parsePowerConfig): GPU active and idle power at the target clock from the calibration, memory
 * and network energy per bit from the user or a preset, and each component's power at the clock (`gpu.componentPowersW`).
 * Every figure is an estimate.
 */
import { readFile } from 'node:fs/promises';
import { InputError } from '../../errors.js';
import { parsePowerConfig, type PowerConfig } from '../../formats/astra/index.js';
import { evaluatePower } from '../../model/power-model.js';
import { coefficientsAt } from '../../model/vf-model.js';
import type { Calibration } from '../calibrate/index.js';
import { POWER_PRESETS, presetPath } from '../replay/index.js';

export interface PowerOptions {
  /** Preset (calibration/power/<name>.json) or power.json file for memory and network pJ/bit; default: by device. */
  preset?: string;
  memoryPjPerBit?: number;
  /** One figure per network dimension, dimension 0 first. */
  networkPjPerBit?: number[];
  /** Default: the calibration's modelled power at the clock with every utilization at zero. */
  idlePowerW?: number;
}

/** The shipped preset closest to a device (by name), else the H100 case study. */
export function presetForDevice(device: string): string {
  if (/v100/i.test(device)) return 'v100-cluster';
  // The A30's HBM2 is the A100's memory generation: its preset's energy per bit is the closest shipped.
  if (/a100|a30/i.test(device)) return 'a100-cluster';
  return 'h100-cluster';
}

/** Per-clock models at the most common memory clock (when memory clocks were swept too). */
function modelsAtMainMemClock(cal: Calibration) {
  const per = cal.power.perClock;
  if (cal.clocks.memClocksMHz.length <= 1) return per;
  const counts = new Map<number | null, number>();
  for (const m of per) counts.set(m.memClockMHz, (counts.get(m.memClockMHz) ?? 0) + 1);
  const main = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  return per.filter((m) => m.memClockMHz === main);
}

/** Component powers at an SM clock: P0 (all utilizations zero) and W per unit utilization of each component. */
export function componentPowersAt(cal: Calibration, frequencyMHz: number): { interceptW: number; coefficientsW: Record<string, number> } {
  const c = coefficientsAt(modelsAtMainMemClock(cal), cal.vf, frequencyMHz);
  return { interceptW: c.interceptW, coefficientsW: { ...c.coefficientsW } };
}

async function loadBase(options: PowerOptions, device: string): Promise<{ config: PowerConfig; label: string }> {
  const name = options.preset ?? presetForDevice(device);
  const file = (POWER_PRESETS as readonly string[]).includes(name) ? presetPath(name) : name;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new InputError(`power preset ${name}: not a preset (${POWER_PRESETS.join(', ')}) nor a readable file (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  return { config: parsePowerConfig(file, text), label: (POWER_PRESETS as readonly string[]).includes(name) ? `preset ${name}` : file };
}

export interface PowerDocument {
  doc: Record<string, unknown>;
  activePowerW: number;
  idlePowerW: number;
}

/**
 * The power.json document for one target clock. `computeEnergyJ` / `annotatedDurationNs` are the totals of the
 * annotated nodes: their ratio is the active power for compute nodes the replay finds without energy_j.
 */
export async function buildPowerDocument(
  cal: Calibration, frequencyMHz: number, totals: { computeEnergyJ: number; annotatedDurationNs: number }, options: PowerOptions, name: string,
): Promise<PowerDocument> {
  const { config: base, label } = await loadBase(options, cal.device.name);
  const comp = componentPowersAt(cal, frequencyMHz);
  const cap = cal.powerCap.powerW ?? Infinity;
  const idlePowerW = options.idlePowerW ?? Math.max(0, Math.min(cap, comp.interceptW));
  if (!(idlePowerW >= 0)) throw new InputError(`idle power must be ≥ 0 W, got ${idlePowerW}`);
  let activePowerW: number;
  let activeNote: string;
  if (totals.annotatedDurationNs > 0) {
    activePowerW = totals.computeEnergyJ / (totals.annotatedDurationNs * 1e-9);
    activeNote = `gpu.activePowerW: energy-weighted mean modelled power of the annotated compute nodes at ${frequencyMHz} MHz; the replay uses it only for compute nodes without energy_j`;
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
      return { name: base.network[i]?.name ?? `dim${i}`, energyPjPerBit: e, ...(base.network[i]?.bandwidthGBps !== undefined ? { bandwidthGBps: base.network[i].bandwidthGBps } : {}) };
    })
    : base.network.map((d) => ({ name: d.name, energyPjPerBit: d.energyPjPerBit, ...(d.bandwidthGBps !== undefined ? { bandwidthGBps: d.bandwidthGBps } : {}) }));
  if (options.memoryPjPerBit !== undefined && !(options.memoryPjPerBit >= 0)) throw new InputError(`memory energy must be ≥ 0 pJ/bit, got ${options.memoryPjPerBit}`);
  const memoryPj = options.memoryPjPerBit ?? base.memory.energyPjPerBit;
  const remotePj = options.memoryPjPerBit ?? base.memory.remoteEnergyPjPerBit;
  const fmt = (w: number) => Number(w.toPrecision(6));
  const doc = {
    name,
    description: `Written by tracewatt annotate: ${cal.device.name} (${cal.device.kind} calibration) at SM clock ${frequencyMHz} MHz. Modelled numbers: results are estimates.`,
    sources: [
      `calibration: ${cal.device.name}, ${cal.provenance.command || cal.provenance.tool}`,
      `memory energy per bit: ${options.memoryPjPerBit !== undefined ? 'given by the user' : label}; network energy per bit: ${options.networkPjPerBit ? 'given by the user' : label}`,
    ],
    assumptions: [
      activeNote,
      options.idlePowerW !== undefined
        ? 'gpu.idlePowerW: given by the user'
        : `gpu.idlePowerW: modelled power at ${frequencyMHz} MHz with every utilization at zero (P0 of the calibration), the draw of a GPU held at that clock while it computes nothing`,
      `gpu.componentPowersW: W of each component at utilization 1 above P0 (${fmt(comp.interceptW)} W) at ${frequencyMHz} MHz, from the calibration` +
        (Object.keys(comp.coefficientsW).length ? '' : ' (none: counter-free calibration)'),
    ],
    gpu: {
      activePowerW: fmt(activePowerW), idlePowerW: fmt(idlePowerW), frequencyMHz,
      componentPowersW: Object.fromEntries(Object.entries(comp.coefficientsW).map(([c, w]) => [c, fmt(w)])),
    },
    memory: remotePj === memoryPj ? { energyPjPerBit: memoryPj } : { energyPjPerBit: memoryPj, remoteEnergyPjPerBit: remotePj },
    network,
    networkIdlePowerWPerRank: base.networkIdlePowerWPerRank,
  };
  // The replay must read what is written: check it with the replay's own parser.
  parsePowerConfig(`${name}.power.json`, JSON.stringify(doc));
  return { doc, activePowerW: doc.gpu.activePowerW, idlePowerW: doc.gpu.idlePowerW };
}

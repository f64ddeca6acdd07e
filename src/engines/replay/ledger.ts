/**
 * The energy ledger: where every joule of a replay goes, defined once. Replay, `energy --astra-sim-log`, the sweeps,
 * the case study, trace plans and the report all take their parts, their per-rank time split and their definitions
 * from here.
 *
 * Per rank, over [0, makespan], the modelled power is piecewise:
 * - GPU: while a GPU compute node runs, the node's own power (its energy / its duration); while communication
 *   (a collective, send or receive) runs and no compute node does, `gpu.commPowerW`; otherwise `gpu.idlePowerW`;
 * - network: each communication node's bytes × pJ/bit spread over the node, plus the ports' static power
 *   (`networkIdlePowerWPerRank`) throughout;
 * - remote memory: each load/store's bytes × pJ/bit spread over the node;
 * - host: `hostPowerWPerRank` while a CPU node runs (0 unless configured).
 * The parts (EnergyBreakdownJ) integrate that power, so they add up to the total and the total is ∫ power dt
 * (the replay timeline's power counters, timeline.ts, are this power).
 */
import type { PowerConfig } from '../../formats/astra/index.js';

const J_PER_PJ = 1e-12;
const J_PER_W_NS = 1e-9;

/** Energy of one run split by where it is spent, in joules (estimated); every joule is in exactly one part. */
export interface EnergyBreakdownJ {
  /** Σ over GPU compute nodes of (node energy − its DRAM part); the GPU's static draw during kernels included. */
  compute: number;
  /**
   * DRAM part of GPU compute nodes (energy_memory_j, or tensor_size × pJ/bit carved out of the node) + remote memory.
   */
  memory: number;
  /** gpu.commPowerW × time communication runs with no GPU compute node running. */
  communication: number;
  /** Bytes sent × pJ/bit per dimension (at the sending rank) + network static power × makespan per rank. */
  network: number;
  /** gpu.idlePowerW × (makespan − GPU compute time − communication-only time), per rank. */
  idle: number;
  /** hostPowerWPerRank × CPU node time; 0 unless a host power is configured. */
  host: number;
  /** The sum of the parts = ∫ modelled power dt over the makespan, all ranks. */
  total: number;
}

/** The parts in the order tables print them (total last, not a part). */
export const ENERGY_PARTS = ['compute', 'memory', 'communication', 'network', 'idle', 'host'] as const;

/**
 * Share of (active − idle) assumed above idle while only communication runs, when the power config gives no commPowerW.
 */
export const COMM_POWER_SHARE = 0.3;

/** GPU power while only communication runs: gpu.commPowerW, else idle + 0.3 × (active − idle) (stated assumption). */
export function commPowerW(gpu: PowerConfig['gpu']): number {
  return gpu.commPowerW ?? gpu.idlePowerW + COMM_POWER_SHARE * Math.max(0, gpu.activePowerW - gpu.idlePowerW);
}

/** Energy of a GPU compute node: its energy_j (NaN when absent), else the active power over its duration. */
export function gpuNodeEnergyJ(annotatedJ: number, durationNs: number, power: PowerConfig): number {
  return Number.isNaN(annotatedJ) ? power.gpu.activePowerW * durationNs * J_PER_W_NS : annotatedJ;
}

/** A GPU compute node's energy split into compute and memory (DRAM); computeJ + memoryJ = the node's energy. */
export interface NodeEnergySplit {
  computeJ: number;
  memoryJ: number;
  /** The DRAM part was cut to the node's energy (it asked for more than the node has, or less than 0). */
  clamped: boolean;
}

/**
 * The DRAM part of a GPU compute node: its `energy_memory_j` when it carries one (NaN when absent), else tensor_size
 * bytes × the memory pJ/bit — carved out of the node's energy, never added on top; kept within [0, node energy].
 */
export function splitNodeEnergy(
  nodeJ: number,
  energyMemoryJ: number,
  bytes: number,
  memoryPjPerBit: number,
): NodeEnergySplit {
  const wanted = wantedMemoryJ(energyMemoryJ, bytes, memoryPjPerBit);
  const memoryJ = keptMemoryJ(nodeJ, wanted);
  return { computeJ: nodeJ - memoryJ, memoryJ, clamped: memoryJ !== wanted };
}

/** The DRAM part a GPU compute node states or implies, before it is kept within the node's energy (splitNodeEnergy). */
export function wantedMemoryJ(energyMemoryJ: number, bytes: number, memoryPjPerBit: number): number {
  return Number.isNaN(energyMemoryJ) ? bytes * 8 * memoryPjPerBit * J_PER_PJ : energyMemoryJ;
}

/**
 * The DRAM part kept of `wantedJ`: within [0, node energy] (splitNodeEnergy's memoryJ, for callers that split many
 * nodes and want no object per node; clamped when it differs from wantedJ).
 */
export function keptMemoryJ(nodeJ: number, wantedJ: number): number {
  return Math.min(Math.max(0, wantedJ), Math.max(0, nodeJ));
}

/** Energy of a remote-memory load/store, J. */
export function remoteMemoryEnergyJ(bytes: number, power: PowerConfig): number {
  return bytes * 8 * power.memory.remoteEnergyPjPerBit * J_PER_PJ;
}

/** Network energy of bytes sent on each dimension, J. */
export function networkEnergyJ(bytesPerDim: readonly number[], pjPerBitPerDim: readonly number[]): number {
  let e = 0;
  for (let i = 0; i < bytesPerDim.length; i++) e += bytesPerDim[i] * 8 * pjPerBitPerDim[i] * J_PER_PJ;
  return e;
}

/** What the ledger needs of one rank: its times (ns) and the energy of its nodes. */
export interface RankLedgerInput {
  /** Time with a GPU compute node running (the GPU slot runs one node at a time), ns. */
  gpuComputeNs: number;
  /** Time with communication running and no GPU compute node, ns. */
  commOnlyNs: number;
  /** Time with a CPU node running, ns. */
  cpuComputeNs: number;
  /** Σ over GPU compute nodes of node energy − DRAM part, J. */
  computeJ: number;
  /** DRAM parts of GPU compute nodes + remote-memory energy, J. */
  memoryJ: number;
  /** Bytes × pJ/bit of the rank's sends, all dimensions, J (static power not included). */
  networkJ: number;
}

/** One rank's energy parts over [0, makespan]. */
export function rankEnergyJ(r: RankLedgerInput, makespanNs: number, power: PowerConfig): EnergyBreakdownJ {
  const idleNs = Math.max(0, makespanNs - r.gpuComputeNs - r.commOnlyNs);
  return breakdown({
    compute: r.computeJ,
    memory: r.memoryJ,
    communication: commPowerW(power.gpu) * r.commOnlyNs * J_PER_W_NS,
    network: r.networkJ + power.networkIdlePowerWPerRank * makespanNs * J_PER_W_NS,
    idle: power.gpu.idlePowerW * idleNs * J_PER_W_NS,
    host: (power.hostPowerWPerRank ?? 0) * r.cpuComputeNs * J_PER_W_NS,
  });
}

/** A breakdown with its total (the sum of the parts). */
export function breakdown(parts: Omit<EnergyBreakdownJ, 'total'>): EnergyBreakdownJ {
  let total = 0;
  for (const k of ENERGY_PARTS) total += parts[k];
  return { ...parts, total };
}

/** Part by part sum of breakdowns (cluster totals from ranks). */
export function sumBreakdowns(list: readonly EnergyBreakdownJ[]): EnergyBreakdownJ {
  const parts = { compute: 0, memory: 0, communication: 0, network: 0, idle: 0, host: 0 };
  for (const e of list) for (const k of ENERGY_PARTS) parts[k] += e[k];
  return breakdown(parts);
}

/** Where one rank's time goes, ns: one definition for every output (tables, report, case study, docs). */
export interface RankTimeSplitNs {
  /** Communication running with no GPU compute node (communication not hidden by compute). */
  exposedCommNs: number;
  /** Host (CPU) nodes running with neither GPU compute nor communication. */
  hostExposedNs: number;
  /** Remote-memory loads/stores running with no GPU compute, communication or CPU node. */
  remoteMemExposedNs: number;
  /** Nothing running, up to the makespan (waiting for peers, dependencies, or the last rank to finish). */
  waitNs: number;
  /** ASTRA-sim's "exposed communication": finish − GPU compute time (host and waiting time included). */
  astraExposedNs: number;
}

/** What the time split needs of one rank, ns. */
export interface RankTimesNs {
  finishNs: number;
  gpuComputeNs: number;
  commOnlyNs: number;
  hostOnlyNs: number;
  remoteMemOnlyNs: number;
}

/** gpuComputeNs + exposedCommNs + hostExposedNs + remoteMemExposedNs + waitNs = makespanNs. */
export function rankTimeSplit(r: RankTimesNs, makespanNs: number): RankTimeSplitNs {
  return {
    exposedCommNs: r.commOnlyNs,
    hostExposedNs: r.hostOnlyNs,
    remoteMemExposedNs: r.remoteMemOnlyNs,
    waitNs: Math.max(0, makespanNs - r.gpuComputeNs - r.commOnlyNs - r.hostOnlyNs - r.remoteMemOnlyNs),
    astraExposedNs: r.finishNs - r.gpuComputeNs,
  };
}

/** The powers a result's energy used (kept in its settings, printed under its energy table). */
export interface LedgerSettings {
  activePowerW: number;
  idlePowerW: number;
  /** Where the idle figure comes from, as the power config says; null when it does not say. */
  idleSource: string | null;
  commPowerW: number;
  /** commPowerW is the assumption idle + 0.3 × (active − idle) (the power config gives none). */
  commPowerAssumed: boolean;
  memoryPjPerBit: number;
  networkIdlePowerWPerRank: number;
  hostPowerWPerRank: number;
}

export function ledgerSettings(power: PowerConfig): LedgerSettings {
  return {
    activePowerW: power.gpu.activePowerW,
    idlePowerW: power.gpu.idlePowerW,
    idleSource: power.gpu.idleSource ?? null,
    commPowerW: commPowerW(power.gpu),
    commPowerAssumed: power.gpu.commPowerW === undefined,
    memoryPjPerBit: power.memory.energyPjPerBit,
    networkIdlePowerWPerRank: power.networkIdlePowerWPerRank,
    hostPowerWPerRank: power.hostPowerWPerRank ?? 0,
  };
}

const w = (x: number) => `${Number(x.toPrecision(5))} W`;

/** The definition of every energy part, with the powers used when given: printed under every energy table. */
export function energyDefinitions(s?: LedgerSettings): string[] {
  const comm = !s
    ? 'gpu.commPowerW (else idle + 0.3 × (active − idle), assumed)'
    : s.commPowerAssumed
      ? `${w(s.commPowerW)} (assumed: idle + ${COMM_POWER_SHARE} × (active − idle), no gpu.commPowerW given)`
      : w(s.commPowerW);
  const idle = !s ? 'gpu.idlePowerW' : `${w(s.idlePowerW)}${s.idleSource ? ` (${s.idleSource})` : ''}`;
  const host = !s
    ? 'host power × CPU node time; 0 unless configured'
    : s.hostPowerWPerRank > 0
      ? `${w(s.hostPowerWPerRank)} per rank × CPU node time`
      : '0 (no host power configured: not modelled)';
  const net =
    !s || s.networkIdlePowerWPerRank > 0
      ? ` + ${s ? w(s.networkIdlePowerWPerRank) : 'static power'} per rank × makespan`
      : '';
  return [
    "compute: GPU compute nodes' energy (energy_j, else active power × time) less their DRAM part",
    'memory: DRAM part of GPU compute nodes (energy_memory_j, else tensor_size × pJ/bit carved out of the ' +
      "node's energy) + remote memory",
    `communication: ${comm} × time communication runs with no GPU compute`,
    `network: bytes sent × pJ/bit per dimension (at the sender)${net}`,
    `idle: ${idle} × (makespan − GPU compute time − communication-only time), per rank`,
    `host: ${host}`,
    'total: the sum of the parts = ∫ modelled power dt over the makespan, all ranks',
  ];
}

/** The definition of every term of the per-rank time split: printed under every table that shows it. */
export const TIME_DEFINITIONS: readonly string[] = [
  'exposed comm: communication running with no GPU compute; host exposed: CPU nodes with neither; remote ' +
    'memory exposed: remote loads/stores with none of those',
  'wait: nothing running, up to the makespan (peers, dependencies, the last rank); GPU compute + exposed + ' +
    'host + remote memory + wait = makespan',
  'ASTRA-sim exposed: finish − GPU compute time, what ASTRA-sim prints as "exposed communication" (host and ' +
    'waiting time included)',
];

/** What a modelled-power timeline slice is, for the ledger: which part of the power it drives. */
export type PowerSliceKind = 'gpu' | 'cpu' | 'comm' | 'mem' | 'none';

/**
 * One rank's modelled power over time, built from its executed nodes (in any order) and read back as steps: the
 * GPU part (node power / communication power / idle), spread network and remote-memory energy, host and network
 * static power. Its integral over [0, makespan] equals the rank's EnergyBreakdownJ.total.
 */
export class PowerTrack {
  /** Time ns → change of the running GPU node's power, W. */
  private readonly gpuW = new Map<number, number>();
  /** Time ns → change of the number of GPU compute nodes running (a node's power may be 0 W). */
  private readonly gpu = new Map<number, number>();
  /** Time ns → change of the number of communication nodes running. */
  private readonly comm = new Map<number, number>();
  /** Time ns → change of the other power (spread network and remote-memory energy, host), W. */
  private readonly otherW = new Map<number, number>();

  constructor(private readonly power: PowerConfig) {}

  /**
   * A node ran over [startNs, endNs]: a GPU compute node at `powerW` (its energy / duration), a communication or
   * remote-memory node whose own energy (network or remote memory) spreads as `powerW`, a CPU node (host power).
   */
  add(kind: PowerSliceKind, startNs: number, endNs: number, powerW: number): void {
    if (!(endNs > startNs)) return;
    switch (kind) {
      case 'gpu':
        bump(this.gpu, startNs, endNs, 1);
        bump(this.gpuW, startNs, endNs, powerW);
        return;
      case 'comm':
        bump(this.comm, startNs, endNs, 1);
        bump(this.otherW, startNs, endNs, powerW);
        return;
      case 'mem':
        bump(this.otherW, startNs, endNs, powerW);
        return;
      case 'cpu':
        bump(this.otherW, startNs, endNs, this.power.hostPowerWPerRank ?? 0);
        return;
    }
  }

  /**
   * The modelled power from each change point on, W, from 0 to the makespan (a last step at the makespan closes it):
   * its integral over [0, makespan] is the rank's energy total.
   */
  steps(makespanNs: number): { tNs: number; powerW: number }[] {
    const times = [...new Set([0, ...this.gpu.keys(), ...this.comm.keys(), ...this.otherW.keys()])]
      .filter((t) => t <= makespanNs)
      .sort((a, b) => a - b);
    const idleW = this.power.gpu.idlePowerW;
    const commW = commPowerW(this.power.gpu);
    const staticW = this.power.networkIdlePowerWPerRank;
    let gpus = 0;
    let nodeW = 0;
    let comms = 0;
    let otherW = 0;
    const out: { tNs: number; powerW: number }[] = [];
    for (const t of times) {
      gpus += this.gpu.get(t) ?? 0;
      nodeW += this.gpuW.get(t) ?? 0;
      comms += this.comm.get(t) ?? 0;
      otherW += this.otherW.get(t) ?? 0;
      const gpuPartW = gpus > 0 ? nodeW : comms > 0 ? commW : idleW;
      out.push({ tNs: t, powerW: gpuPartW + (otherW > 0 ? otherW : 0) + staticW });
    }
    if (out[out.length - 1].tNs < makespanNs) out.push({ tNs: makespanNs, powerW: idleW + staticW });
    return out;
  }
}

function bump(m: Map<number, number>, startNs: number, endNs: number, delta: number): void {
  m.set(startNs, (m.get(startNs) ?? 0) + delta);
  m.set(endNs, (m.get(endNs) ?? 0) - delta);
}

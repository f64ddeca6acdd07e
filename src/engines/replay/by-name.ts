/**
 * Energy and time by kernel / op name and by collective (type, size, process group): the rows `replay --json`
 * gives as `byName`, the text's top-10 table and the report's bar chart read. One row per distinct name, filled
 * while the replay runs (memory grows with the names, not the nodes), split by the ledger's parts (ledger.ts):
 * - a GPU kernel: its compute and memory (DRAM) parts;
 * - a CPU op: its host part (0 unless a host power is configured);
 * - a collective, send or receive: its network energy (bytes × pJ/bit) and its share of the communication part
 *   (gpu.commPowerW × the time it runs with no GPU compute; communication nodes running together share that time
 *   equally);
 * - a remote-memory load/store: its memory part;
 * - two rows belong to no node: "(idle)" (the idle part) and "(network static)" (network static power × makespan).
 * So the rows add up, part by part, to the result's energyJ (a test checks it on real traces).
 * An engine that knows each node's name and times (the replay engine, an as-measured replay) feeds a ByNameLedger.
 */
import { breakdown, ENERGY_PARTS, type EnergyBreakdownJ } from './ledger.js';

export type ByNameKind = 'kernel' | 'cpu' | 'collective' | 'p2p' | 'remote-memory' | 'idle' | 'network-static' | 'rest';

/** Energy and time of all nodes of one name (or collective type, size and group), all ranks. */
export interface ByNameRow {
  name: string;
  kind: ByNameKind;
  /** Nodes, all ranks. */
  count: number;
  /** Σ node durations over all ranks (rank-ns); for "(idle)": idle time, rank-ns; for "(network static)": makespan × ranks. */
  timeNs: number;
  /** The row's energy by ledger part, J (estimated); total = the sum of its parts. */
  energyJ: EnergyBreakdownJ;
}

const J_PER_W_NS = 1e-9;
type Parts = Omit<EnergyBreakdownJ, 'total'>;
const zero = (): Parts => ({ compute: 0, memory: 0, communication: 0, network: 0, idle: 0, host: 0 });

/** The row name of a collective: type, size and process group, e.g. "ALL_REDUCE 64 MiB (pg dp)". */
export function collectiveName(type: string, bytes: number, group: string): string {
  return `${type} ${formatBytes(bytes)}${group ? ` (pg ${group})` : ''}`;
}

/** The row name of a send or receive of `bytes`. */
export function p2pName(send: boolean, bytes: number): string {
  return `${send ? 'SEND' : 'RECV'} ${formatBytes(bytes)}`;
}

/** Exact for whole KiB / MiB / GiB, else bytes. */
function formatBytes(b: number): string {
  for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
    if (b >= size && b % size === 0) return `${b / size} ${unit}`;
  }
  return `${b} B`;
}

/** Rows by name while a replay runs; `rows` closes them with the idle and network-static rows. */
export class ByNameLedger {
  private readonly rowsByKey = new Map<string, { name: string; kind: ByNameKind; count: number; timeNs: number; parts: Parts }>();

  /** A node of `name` ran `timeNs` with these energy parts (J); `weight` ranks did the same (identical ranks simulated once). */
  add(kind: ByNameKind, name: string, timeNs: number, parts: Partial<Parts>, weight = 1): void {
    const key = `${kind}\u0000${name}`;
    let row = this.rowsByKey.get(key);
    if (!row) this.rowsByKey.set(key, (row = { name, kind, count: 0, timeNs: 0, parts: zero() }));
    row.count += weight;
    row.timeNs += timeNs * weight;
    for (const k of ENERGY_PARTS) row.parts[k] += (parts[k] ?? 0) * weight;
  }

  /**
   * All rows, largest energy first, with "(idle)" (the result's idle part over its idle rank-ns) and
   * "(network static)" (`networkStaticW` per rank × makespan × ranks) added where non-zero.
   */
  rows(idle: { energyJ: number; timeNs: number }, makespanNs: number, ranks: number, networkStaticW: number): ByNameRow[] {
    const out: ByNameRow[] = [...this.rowsByKey.values()].map((r) => ({
      name: r.name, kind: r.kind, count: r.count, timeNs: r.timeNs, energyJ: breakdown(r.parts),
    }));
    if (idle.energyJ > 0 || idle.timeNs > 0) {
      out.push({ name: '(idle)', kind: 'idle', count: 0, timeNs: idle.timeNs, energyJ: breakdown({ ...zero(), idle: idle.energyJ }) });
    }
    if (networkStaticW > 0) {
      const timeNs = makespanNs * ranks;
      out.push({ name: '(network static)', kind: 'network-static', count: 0, timeNs, energyJ: breakdown({ ...zero(), network: networkStaticW * timeNs * J_PER_W_NS }) });
    }
    return out.sort((a, b) => b.energyJ.total - a.energyJ.total || a.name.localeCompare(b.name));
  }
}

/** The first `n` rows and one "rest" row summing the others (null when there are none). */
export function topByName(rows: readonly ByNameRow[], n: number): { top: ByNameRow[]; rest: ByNameRow | null } {
  const top = rows.slice(0, n);
  const others = rows.slice(n);
  if (others.length === 0) return { top, rest: null };
  const parts = zero();
  let count = 0;
  let timeNs = 0;
  for (const r of others) {
    count += r.count;
    timeNs += r.timeNs;
    for (const k of ENERGY_PARTS) parts[k] += r.energyJ[k];
  }
  return { top, rest: { name: `rest (${others.length} names)`, kind: 'rest', count, timeNs, energyJ: breakdown(parts) } };
}

/** Part by part sum of rows (equals the result's energyJ). */
export function sumRows(rows: readonly ByNameRow[]): EnergyBreakdownJ {
  const parts = zero();
  for (const r of rows) for (const k of ENERGY_PARTS) parts[k] += r.energyJ[k];
  return breakdown(parts);
}

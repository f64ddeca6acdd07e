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
import type { NameTable } from './names.js';

export type ByNameKind = 'kernel' | 'cpu' | 'collective' | 'p2p' | 'remote-memory' | 'idle' | 'network-static' | 'rest';

/** Energy and time of all nodes of one name (or collective type, size and group), all ranks. */
export interface ByNameRow {
  name: string;
  kind: ByNameKind;
  /** Nodes, all ranks. */
  count: number;
  /**
   * Σ node durations over all ranks (rank-ns); for "(idle)": idle time, rank-ns; for "(network static)": makespan ×
   * ranks.
   */
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
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (b >= size && b % size === 0) return `${b / size} ${unit}`;
  }
  return `${b} B`;
}

/** Per row: count, time, then the parts in ENERGY_PARTS order. */
const STRIDE = 2 + ENERGY_PARTS.length;

/** Rows by name while a replay runs; `rows` closes them with the idle and network-static rows. */
export class ByNameLedger {
  private readonly rowByKey = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly kinds: ByNameKind[] = [];
  /** Row r's count, time and parts at r × STRIDE (typed: no object per row or per node added). */
  private values = new Float64Array(0);

  /**
   * A node of `name` ran `timeNs` with these energy parts (J); `weight` ranks did the same (identical ranks simulated
   * once).
   */
  add(kind: ByNameKind, name: string, timeNs: number, parts: Partial<Parts>, weight = 1): void {
    const row = this.row(kind, name);
    this.addTo(
      row,
      timeNs,
      weight,
      parts.compute ?? 0,
      parts.memory ?? 0,
      parts.communication ?? 0,
      parts.network ?? 0,
      parts.host ?? 0,
    );
    if (parts.idle) this.values[row * STRIDE + 2 + PART_IDLE] += parts.idle * weight;
  }

  /** The row of (kind, name), made on first use: for callers that add to the same rows often (addTo). */
  row(kind: ByNameKind, name: string): number {
    const key = `${kind}\u0000${name}`;
    let r = this.rowByKey.get(key);
    if (r === undefined) {
      r = this.names.length;
      this.names.push(name);
      this.kinds.push(kind);
      this.rowByKey.set(key, r);
      if ((r + 1) * STRIDE > this.values.length) {
        const grown = new Float64Array(Math.max(this.values.length * 2, 16 * STRIDE));
        grown.set(this.values);
        this.values = grown;
      }
    }
    return r;
  }

  /** add() to a row by number, the parts (J) given one by one (idle never comes from a node). */
  addTo(
    row: number,
    timeNs: number,
    weight: number,
    compute: number,
    memory: number,
    communication: number,
    network: number,
    host: number,
  ): void {
    const v = this.values;
    const o = row * STRIDE;
    v[o] += weight;
    v[o + 1] += timeNs * weight;
    v[o + 2 + PART_COMPUTE] += compute * weight;
    v[o + 2 + PART_MEMORY] += memory * weight;
    v[o + 2 + PART_COMMUNICATION] += communication * weight;
    v[o + 2 + PART_NETWORK] += network * weight;
    v[o + 2 + PART_HOST] += host * weight;
  }

  /**
   * All rows, largest energy first, with "(idle)" (the result's idle part over its idle rank-ns) and
   * "(network static)" (`networkStaticW` per rank × makespan × ranks) added where non-zero.
   */
  rows(
    idle: { energyJ: number; timeNs: number },
    makespanNs: number,
    ranks: number,
    networkStaticW: number,
  ): ByNameRow[] {
    const v = this.values;
    const out: ByNameRow[] = this.names.map((name, r) => {
      const o = r * STRIDE + 2;
      const parts: Parts = {
        compute: v[o + PART_COMPUTE],
        memory: v[o + PART_MEMORY],
        communication: v[o + PART_COMMUNICATION],
        network: v[o + PART_NETWORK],
        idle: v[o + PART_IDLE],
        host: v[o + PART_HOST],
      };
      return { name, kind: this.kinds[r], count: v[o - 2], timeNs: v[o - 1], energyJ: breakdown(parts) };
    });
    if (idle.energyJ > 0 || idle.timeNs > 0) {
      out.push({
        name: '(idle)',
        kind: 'idle',
        count: 0,
        timeNs: idle.timeNs,
        energyJ: breakdown({ ...zero(), idle: idle.energyJ }),
      });
    }
    if (networkStaticW > 0) {
      const timeNs = makespanNs * ranks;
      out.push({
        name: '(network static)',
        kind: 'network-static',
        count: 0,
        timeNs,
        energyJ: breakdown({ ...zero(), network: networkStaticW * timeNs * J_PER_W_NS }),
      });
    }
    // Sorted by their totals read once (the rows' energy objects are slow to read in a comparator called
    // ~n log n times); the same comparisons, so the same (stable) order.
    const totals = Float64Array.from(out, (row) => row.energyJ.total);
    const order = Array.from(out, (_, i) => i);
    order.sort((i, j) => totals[j] - totals[i] || out[i].name.localeCompare(out[j].name));
    return order.map((i) => out[i]);
  }
}

const PART_COMPUTE = ENERGY_PARTS.indexOf('compute');
const PART_MEMORY = ENERGY_PARTS.indexOf('memory');
const PART_COMMUNICATION = ENERGY_PARTS.indexOf('communication');
const PART_NETWORK = ENERGY_PARTS.indexOf('network');
const PART_HOST = ENERGY_PARTS.indexOf('host');
const PART_IDLE = ENERGY_PARTS.indexOf('idle');

/** The node kinds whose rows go by the node's name. */
export type NamedKind = 'kernel' | 'cpu' | 'remote-memory';
const NAMED_KINDS: readonly NamedKind[] = ['kernel', 'cpu', 'remote-memory'];

/**
 * The ledger's row of each node of a replay, found once per name rather than per node: kernels, CPU ops and
 * remote-memory nodes by their name id (names.ts; an empty name is "(unnamed)"), collectives by their spec and
 * size, sends and receives by size.
 */
export class NodeRows {
  private readonly byNameId: Int32Array[] = NAMED_KINDS.map(() => new Int32Array(0));
  private readonly collectives: Map<number, number>[] = [];
  private readonly p2p = [new Map<number, number>(), new Map<number, number>()];

  constructor(
    private readonly ledger: ByNameLedger,
    private readonly names: NameTable,
  ) {}

  named(kind: NamedKind, nameId: number): number {
    if (nameId < 0) return this.ledger.row(kind, '(unnamed)');
    const k = NAMED_KINDS.indexOf(kind);
    let rows = this.byNameId[k];
    if (nameId >= rows.length) {
      const grown = new Int32Array(Math.max(nameId + 1, 2 * rows.length, 256)).fill(-1);
      grown.set(rows);
      rows = this.byNameId[k] = grown;
    }
    let r = rows[nameId];
    if (r < 0) r = rows[nameId] = this.ledger.row(kind, this.names.name(nameId) || '(unnamed)');
    return r;
  }

  /** The row of a collective of spec number `spec` (its kind and group) and `bytes`. */
  collective(spec: number, coll: string, group: string, bytes: number): number {
    const bySize = (this.collectives[spec] ??= new Map());
    let r = bySize.get(bytes);
    if (r === undefined) bySize.set(bytes, (r = this.ledger.row('collective', collectiveName(coll, bytes, group))));
    return r;
  }

  p2pRow(send: boolean, bytes: number): number {
    const bySize = this.p2p[send ? 0 : 1];
    let r = bySize.get(bytes);
    if (r === undefined) bySize.set(bytes, (r = this.ledger.row('p2p', p2pName(send, bytes))));
    return r;
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
  return {
    top,
    rest: { name: `rest (${others.length} names)`, kind: 'rest', count, timeNs, energyJ: breakdown(parts) },
  };
}

/** Part by part sum of rows (equals the result's energyJ). */
export function sumRows(rows: readonly ByNameRow[]): EnergyBreakdownJ {
  const parts = zero();
  for (const r of rows) for (const k of ENERGY_PARTS) parts[k] += r.energyJ[k];
  return breakdown(parts);
}

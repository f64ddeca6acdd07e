// Generated traces for replay benchmarks and tests: every rank a chain compute → all-reduce 1 MiB → compute …
// (the shape of ASTRA-sim's cost anchor in ../shared/notes/astra-sim-semantics.md). Compute nodes last 10 µs, or
// (with `seed`) a per-rank, per-node random 1–2,000 µs, so ranks reach every all-reduce at different times.
// Nodes are generated lazily per batch, so a source holds no trace in memory.

/** mulberry32: a small seeded generator, the same sequence on every platform. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The nodes of one rank, in batches of up to 1,024: `nextBatch()` gives the next batch, or null at the end.
 * `chakra` is the build's chakra module (emptyNode, makeAttr, NodeType).
 */
export function chainBatches(chakra, rank, count, seed) {
  const { emptyNode, makeAttr, NodeType } = chakra;
  const random = seed === undefined ? null : seededRandom(seed * 1_000_003 + rank);
  let next = 0;
  return () => {
    if (next >= count) return null;
    const batch = [];
    for (const end = Math.min(count, next + 1024); next < end; next++) {
      const id = BigInt(rank * count + next);
      const isColl = next % 2 === 1;
      const n = emptyNode(
        id,
        isColl ? `allreduce${next}` : `comp${next}`,
        isColl ? NodeType.COMM_COLL_NODE : NodeType.COMP_NODE,
      );
      if (next > 0) n.dataDeps = [id - 1n];
      if (isColl) n.attrs = [makeAttr('comm_type', 'int64_val', 0), makeAttr('comm_size', 'int64_val', 1 << 20)];
      else n.durationMicros = random ? BigInt(1 + Math.floor(random() * 2000)) : 10n;
      batch.push(n);
    }
    return batch;
  };
}

/** Replay sources for every rank. */
export function chainSources(chakra, ranks, count, seed) {
  return Array.from({ length: ranks }, (_, rank) => {
    const nextBatch = chainBatches(chakra, rank, count, seed);
    return { rank, file: `generated.${rank}.et`, nextBatch: async () => nextBatch() };
  });
}

/** The network and system of the 32-rank benchmark: Switch(8) × Ring(4), ASTRA-sim's "example" system (4 splits). */
export const BENCH_NETWORK_32 =
  'topology: [Switch, Ring]\nnpus_count: [8, 4]\nbandwidth: [50, 50]\nlatency: [500, 500]\n';
export const BENCH_NETWORK_1024 =
  'topology: [Switch, Ring, Ring]\nnpus_count: [8, 4, 32]\nbandwidth: [50, 50, 25]\nlatency: [500, 500, 1000]\n';
export const BENCH_SYSTEM = {
  'scheduling-policy': 'LIFO',
  'endpoint-delay': 10,
  'active-chunks-per-dimension': 1,
  'preferred-dataset-splits': 4,
  'all-reduce-implementation': ['ring', 'ring', 'ring'],
  'all-gather-implementation': ['ring', 'ring', 'ring'],
  'reduce-scatter-implementation': ['ring', 'ring', 'ring'],
  'all-to-all-implementation': ['ring', 'ring', 'ring'],
  'collective-optimization': 'localBWAware',
  'local-mem-bw': 1600,
  'peak-perf': 900,
};

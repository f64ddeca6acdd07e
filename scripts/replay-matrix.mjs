// The equal-arrival matrix shared by scripts/replay-equal-arrival-matrix.mjs and test/replay/collective-skew.test.ts:
// one collective on each of several networks, implementations, optimizations, chunkings and sizes.
const NETWORKS = {
  Ring4: 'topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n',
  Switch8: 'topology: [Switch]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n',
  FC4: 'topology: [FullyConnected]\nnpus_count: [4]\nbandwidth: [100]\nlatency: [700]\n',
  S4R2: 'topology: [Switch, Ring]\nnpus_count: [4, 2]\nbandwidth: [50, 25]\nlatency: [500, 1000]\n',
  R2R2R2: 'topology: [Ring, Ring, Ring]\nnpus_count: [2, 2, 2]\nbandwidth: [50, 40, 25]\nlatency: [500, 700, 1000]\n',
};
const COMM_TYPES = { ALL_REDUCE: 0, ALL_GATHER: 2, ALL_TO_ALL: 6, REDUCE_SCATTER: 7 };

export function equalArrivalMatrix() {
  const cases = [];
  for (const [net, networkYaml] of Object.entries(NETWORKS)) {
    const dims = networkYaml
      .match(/npus_count: \[([^\]]*)\]/)[1]
      .split(',')
      .map(Number);
    const ranks = dims.reduce((a, b) => a * b, 1);
    for (const impl of ['ring', 'direct', 'halvingDoubling']) {
      for (const optimization of ['localBWAware', 'baseline']) {
        for (const splits of [1, 4]) {
          for (const active of [1, 2]) {
            // halvingDoubling: ASTRA-sim's reduction delays and odd message sizes differ from the lockstep model's, so
            // the matrix keeps it to sizes and memory bandwidths where the two agree.
            const hd = impl === 'halvingDoubling';
            for (const [kind, commType] of Object.entries(COMM_TYPES)) {
              if (hd && kind === 'ALL_TO_ALL') continue;
              for (const bytes of hd ? [1 << 20] : [1 << 20, 1000003]) {
                const list = Array(dims.length).fill(impl);
                cases.push({
                  name: `${net} ${impl} ${optimization} splits=${splits} active=${active} ${kind} ${bytes}`,
                  networkYaml,
                  ranks,
                  commType,
                  bytes,
                  system: {
                    'scheduling-policy': 'LIFO',
                    'endpoint-delay': 10,
                    'active-chunks-per-dimension': active,
                    'preferred-dataset-splits': splits,
                    'all-reduce-implementation': list,
                    'all-gather-implementation': list,
                    'reduce-scatter-implementation': list,
                    'all-to-all-implementation': Array(dims.length).fill(hd ? 'ring' : impl),
                    'collective-optimization': optimization,
                    'local-mem-bw': hd ? 1e9 : 1600,
                    'peak-perf': 900,
                  },
                });
              }
            }
          }
        }
      }
    }
  }
  return cases;
}

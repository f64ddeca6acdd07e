// Where the modelled replay of an imported PyTorch run loses against its measured iteration (issue 25, item 4):
// imports the run (ET + Kineto pairs, `import pytorch`), fits the network to its collectives (`fit network`), then
// replays the import as written and with host-op waits turned into dependencies, each on the given, the fitted and
// an infinitely fast network, and prints per rank the modelled iteration against the measured one.
//
//   npm run build && node scripts/replay-gap.mjs [--dir traces/pytorch-real/dlrm] [--system F] [--network F]
//
// Variants (the import is rewritten here, as an experiment; nothing in src/ does this yet):
//   as imported     host ops keep their Kineto exclusive time, which includes blocking CUDA calls and, on the main
//                   thread, "## backward ##" waiting for the autograd thread (whose ops run on the same CPU slot);
//   waits → deps    a blocking call's time (cudaStreamSynchronize / cudaDeviceSynchronize / cudaEventSynchronize /
//                   cudaMemcpy, and cudaMemcpyAsync calls of ≥ 20 µs, i.e. pageable copies) is cut from the op that
//                   made it, and the main thread's next op waits instead for the GPU work launched before the call
//                   (on each stream, the last node launched before it: Kineto of this age records no stream or event
//                   of a synchronisation); "## backward ##" loses the time the autograd thread's ops ran inside it,
//                   and the main thread's next op waits for that thread's last op;
//   + offsets       each rank starts at its measured ProfilerStep start (a leading host node of that length; the
//                   modelled iteration is its finish less that offset).
// Figures are ms; "err" is (modelled − measured) / measured.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { importPytorch } from '../dist/engines/import/index.js';
import { fitNetwork } from '../dist/engines/netfit/index.js';
import { replayFiles } from '../dist/engines/replay/index.js';
import { attrBool, emptyNode, makeAttr, NodeType, readTraceFile, writeTraceFile } from '../dist/formats/chakra/index.js';
import { readKinetoTrace } from '../dist/formats/kineto/trace.js';
import { networkFitYaml } from '../dist/report/netfit-text.js';

const { values: o } = parseArgs({ options: {
  dir: { type: 'string', default: 'traces/pytorch-real/dlrm' },
  system: { type: 'string', default: 'traces/configs/sys_ring_example.json' },
  network: { type: 'string', default: 'traces/configs/Switch_8npus.yml' },
} });
const SYNC = new Set(['cudaStreamSynchronize', 'cudaDeviceSynchronize', 'cudaEventSynchronize', 'cudaMemcpy']);
const BLOCKING_COPY_NS = 20_000;
const ms = (ns) => (ns / 1e6).toFixed(2);

/** Total length of the union of [start, end) intervals, ns. */
function unionNs(intervals) {
  let total = 0;
  let cur = null;
  for (const [a, b] of [...intervals].sort((x, y) => x[0] - y[0])) {
    if (!cur || a > cur[1]) {
      if (cur) total += cur[1] - cur[0];
      cur = [a, b];
    } else cur[1] = Math.max(cur[1], b);
  }
  return cur ? total + cur[1] - cur[0] : total;
}

const work = await mkdtemp(path.join(os.tmpdir(), 'tw-replay-gap-'));
try {
  const imported = await importPytorch({ dir: o.dir, out: path.join(work, 'run') });
  const kineto = new Map();
  for (const r of imported.ranks) kineto.set(r.rank, await readKinetoTrace(r.kineto));
  const step = (rank) => {
    const k = kineto.get(rank);
    if (k.steps.length === 0) throw new Error(`${k.file}: no ProfilerStep: nothing measured to compare with`);
    return k.steps[0];
  };
  const startNs = (rank) => kineto.get(rank).baseUs * 1000 + step(rank).tsNs;
  const firstStart = Math.min(...imported.ranks.map((r) => startNs(r.rank)));

  const fit = await fitNetwork({ trace: path.join(work, 'run'), system: o.system, network: o.network });
  const fitted = path.join(work, 'fitted.yml');
  await writeFile(fitted, networkFitYaml(fit));
  const fast = path.join(work, 'fast.yml');
  await writeFile(fast, networkFitYaml({ ...fit, dims: fit.dims.map((d) => ({ ...d, fittedBandwidthGBps: 1e9, fittedLatencyNs: 0 })) }));
  console.log(`fit: ${fit.dims.map((d) => `dimension ${d.dim} ${d.givenBandwidthGBps} → ${d.fittedBandwidthGBps} GB/s, ${d.givenLatencyNs} → ${d.fittedLatencyNs} ns`).join('; ')}; ` +
    `RMS error of the ${fit.instances.length} collectives ${fit.rmsErrorPct.given.toFixed(0)} % → ${fit.rmsErrorPct.fitted.toFixed(0)} %`);

  const budget = [];
  for (const variant of ['waits', 'waits+offsets']) {
    for (const r of imported.ranks) {
      const { metadata, nodes } = await readTraceFile(`${path.join(work, 'run')}.${r.rank}.et`);
      const k = kineto.get(r.rank);
      const s = step(r.rank);
      const inStep = (x) => x.tsNs >= s.tsNs && x.tsNs < s.tsNs + s.durNs;
      const usOf = (tsNs) => BigInt(k.baseUs) + BigInt(Math.floor(tsNs / 1000));
      // Chakra node ↔ Kineto event: same name, same start µs (the importer writes the Kineto start).
      const byKey = (list) => {
        const m = new Map();
        for (const e of list) {
          const key = `${e.name}@${usOf(e.tsNs)}`;
          if (!m.has(key)) m.set(key, []);
          m.get(key).push(e);
        }
        return m;
      };
      const ops = byKey(k.cpuOps);
      const gpus = byKey(k.gpu);
      const nodeOf = new Map();
      const gpuNodes = [];
      for (const n of nodes) {
        const e = (attrBool(n, 'is_cpu_op') ? ops : gpus).get(`${n.name}@${n.startTimeMicros}`)?.shift();
        if (!e) continue;
        if (attrBool(n, 'is_cpu_op')) nodeOf.set(e, n);
        else gpuNodes.push({ node: n, stream: e.stream, launchNs: k.launches.get(e.correlation)?.tsNs ?? e.tsNs });
      }
      const stepOps = k.cpuOps.filter((x) => inStep(x) && !/^ProfilerStep/.test(x.name));
      const mainTid = (stepOps.find((x) => x.name.includes('DistributedDataParallel.forward')) ?? stepOps[0]).tid;
      const mainOps = stepOps.filter((x) => x.tid === mainTid && nodeOf.has(x)).sort((a, b) => a.tsNs - b.tsNs);
      const nextMainOp = (t) => nodeOf.get(mainOps.find((x) => x.tsNs >= t));
      const innermost = (t0, t1) => mainOps.filter((x) => x.tsNs <= t0 && x.tsNs + x.durNs >= t1).sort((a, b) => a.durNs - b.durNs)[0];
      const cut = (node, ns) => {
        const us = BigInt(Math.min(Number(node.durationMicros), Math.round(ns / 1000)));
        node.durationMicros -= us;
        return Number(us) * 1000;
      };
      let syncNs = 0;
      for (const call of [...k.launches.values()].filter((c) => inStep(c) && c.tid === mainTid)) {
        if (!SYNC.has(call.name) && !(call.name === 'cudaMemcpyAsync' && call.durNs >= BLOCKING_COPY_NS)) continue;
        const op = innermost(call.tsNs, call.tsNs + call.durNs);
        if (!op) continue;
        syncNs += cut(nodeOf.get(op), call.durNs);
        const lastPerStream = new Map();
        for (const g of gpuNodes) if (g.launchNs <= call.tsNs && !(lastPerStream.get(g.stream)?.launchNs >= g.launchNs)) lastPerStream.set(g.stream, g);
        const next = nextMainOp(call.tsNs + call.durNs);
        if (next) for (const g of lastPerStream.values()) if (!next.dataDeps.includes(g.node.id)) next.dataDeps.push(g.node.id);
      }
      const backward = stepOps.find((x) => x.name === '## backward ##' && x.tid === mainTid);
      let backwardNs = 0;
      const others = stepOps.filter((x) => x.tid !== mainTid);
      if (backward) {
        const inside = others.filter((x) => x.tsNs >= backward.tsNs && x.tsNs < backward.tsNs + backward.durNs);
        backwardNs = cut(nodeOf.get(backward), unionNs(inside.map((x) => [x.tsNs, x.tsNs + x.durNs])));
        const last = inside.filter((x) => nodeOf.has(x)).sort((a, b) => a.tsNs + a.durNs - (b.tsNs + b.durNs)).pop();
        const next = nextMainOp(backward.tsNs + backward.durNs);
        if (last && next) next.dataDeps.push(nodeOf.get(last).id);
      }
      const offsetNs = startNs(r.rank) - firstStart;
      if (variant === 'waits+offsets') {
        const lead = emptyNode(nodes.reduce((a, n) => (n.id > a ? n.id : a), 0n) + 1n, 'measured start offset', NodeType.COMP_NODE);
        lead.attrs = [makeAttr('is_cpu_op', 'bool_val', true)];
        lead.durationMicros = BigInt(Math.round(offsetNs / 1000));
        for (const n of nodes) if (n.dataDeps.length === 0 && n.ctrlDeps.length === 0) n.dataDeps.push(lead.id);
        nodes.unshift(lead);
      } else {
        const gpu = k.gpu.filter(inStep);
        const nccl = gpu.filter((g) => /^nccl/.test(g.name));
        budget.push({
          rank: r.rank, 'measured iteration': ms(s.durNs), 'start offset': ms(offsetNs),
          'main thread ops': ms(stepOps.filter((x) => x.tid === mainTid).reduce((a, x) => a + Number(nodeOf.get(x)?.durationMicros ?? 0n) * 1000, 0) + syncNs + backwardNs),
          'of which blocked in CUDA sync': ms(syncNs), 'of which backward waiting': ms(backwardNs),
          'autograd thread ops': ms(unionNs(others.map((x) => [x.tsNs, x.tsNs + x.durNs]))),
          'GPU compute': ms(unionNs(gpu.filter((g) => !nccl.includes(g)).map((g) => [g.tsNs, g.tsNs + g.durNs]))),
          'NCCL kernels (with waits)': ms(nccl.reduce((a, g) => a + g.durNs, 0)),
        });
      }
      await writeTraceFile(`${path.join(work, variant)}.${r.rank}.et`, metadata, nodes);
    }
  }
  const own = fit.instances.reduce((a, i) => a + i.measuredNs, 0);
  console.log(`\ntime budget per rank (ms; collectives' own time, all of them: ${ms(own)} ms, fitted ${ms(fit.instances.reduce((a, i) => a + i.fittedNs, 0))}, given ${ms(fit.instances.reduce((a, i) => a + i.givenNs, 0))})`);
  console.table(budget);

  const rows = [];
  for (const [label, prefix, offsets] of [['as imported', 'run', false], ['waits → deps', 'waits', false], ['waits → deps + offsets', 'waits+offsets', true]]) {
    for (const [netLabel, net] of [['given', o.network], ['fitted', fitted], ['infinite', fast]]) {
      const res = await replayFiles({ trace: path.join(work, prefix), system: o.system, network: net });
      const row = { variant: label, network: netLabel };
      for (const x of res.ranks) {
        const off = offsets ? Math.round((startNs(x.rank) - firstStart) / 1000) * 1000 : 0;
        const measured = step(x.rank).durNs;
        row[`rank ${x.rank}`] = `${ms(x.finishNs - off)} (${((100 * (x.finishNs - off - measured)) / measured).toFixed(0)} %)`;
      }
      rows.push(row);
    }
  }
  console.log('\nmodelled iteration per rank, ms (error against the measured ProfilerStep)');
  console.table(rows);
} finally {
  await rm(work, { recursive: true, force: true });
}

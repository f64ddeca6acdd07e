#!/usr/bin/env node
// Annotate benchmark: writes a generated 32-rank × 20,000-node trace whose GPU kernels carry the names of the
// RTX 8000 real kernels of NV-DVFS-Benchmark (spelled exactly, bare, demangled and mangled), plus unprofiled
// kernels with num_ops / tensor_size (roofline), host-side ops and all-reduces; then annotates it at one clock and
// at three, and prints annotated nodes/s (all nodes streamed per second, and annotated ones) and peak RSS.
// Run after `npm run build`:
//   node scripts/bench-annotate.mjs [--ranks 32] [--nodes 20000] [--workers N] [--keep]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { annotateTrace } from '../dist/engines/annotate/index.js';
import { emptyNode, makeAttr, NodeType, TraceWriter } from '../dist/formats/chakra/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const arg = (name, def) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : def);
const ranks = arg('ranks', 32);
const perRank = arg('nodes', 20000);
const workers = arg('workers', os.availableParallelism());
const profile = path.resolve(here, '..', '..', 'shared', 'profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv');
const calibration = path.resolve(here, '..', 'calibration', 'rtx8000.json');

// Kernel names of the profile in the spellings traces use.
const KERNELS = ['BlackScholesGPU', 'matrixMulCUDA', 'vectorAdd', 'reduce2_float', 'histogram256Kernel', 'transposeCoalesced', 'calculate_temp', 'Fan2'];
const spellings = KERNELS.flatMap((k) => [k, `void ${k}(float*, float const*, int)`, `_Z${k.length}${k}PfPKfi`]);
spellings.push('BlackScholes/BlackScholesGPU/input000');

async function generate(dir) {
  const prefix = path.join(dir, 'bench');
  for (let r = 0; r < ranks; r++) {
    const w = await TraceWriter.create(`${prefix}.${r}.et`, { version: '', attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')] });
    for (let i = 0; i < perRank; i++) {
      const id = BigInt(r * perRank + i);
      const k = i % 20;
      let n;
      if (k === 19) {
        n = emptyNode(id, `allreduce_${i}`, NodeType.COMM_COLL_NODE);
        n.attrs = [makeAttr('is_cpu_op', 'bool_val', false), makeAttr('comm_type', 'int64_val', 0), makeAttr('comm_size', 'int64_val', 1 << 20)];
      } else if (k === 18) {
        n = emptyNode(id, `aten::add_(${i})`, NodeType.COMP_NODE);
        n.durationMicros = 5n;
        n.attrs = [makeAttr('is_cpu_op', 'bool_val', true)];
      } else if (k >= 15) {
        n = emptyNode(id, `unprofiled_gemm_${k}`, NodeType.COMP_NODE);
        n.durationMicros = 40n;
        n.attrs = [makeAttr('is_cpu_op', 'bool_val', false), makeAttr('num_ops', 'int64_val', 1_000_000 * (k + (i % 7))), makeAttr('tensor_size', 'uint64_val', 65536)];
      } else {
        n = emptyNode(id, spellings[(i * 7 + r) % spellings.length], NodeType.COMP_NODE);
        n.durationMicros = 20n;
        n.attrs = [makeAttr('is_cpu_op', 'bool_val', false)];
      }
      if (i > 0) n.dataDeps = [id - 1n];
      const p = w.write(n);
      if (p) await p;
    }
    await w.close();
  }
  return prefix;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'tracewatt-bench-annotate-'));
try {
  const t0 = performance.now();
  const prefix = await generate(dir);
  const genS = (performance.now() - t0) / 1e3;
  console.log(`annotate benchmark: ${ranks} ranks × ${perRank} nodes (${ranks * perRank} nodes), generated in ${genS.toFixed(1)} s; node ${process.version}, ${os.availableParallelism()} CPUs, ${workers} worker(s)`);
  for (const freqs of [[1410], [705, 1110, 1710]]) {
    let peak = process.memoryUsage().rss;
    const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 10);
    const t1 = performance.now();
    const res = await annotateTrace({ trace: prefix, out: path.join(dir, 'out', 'bench'), calibration, profiles: [profile], frequenciesMHz: freqs, workers });
    const s = (performance.now() - t1) / 1e3;
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    const t = res.total;
    const annotated = t.gpuCompNodes - t.untouched;
    console.log(`  ${freqs.length} clock(s) [${freqs.join(', ')} MHz]: ${t.nodes} nodes in ${s.toFixed(2)} s → ${(t.nodes / s / 1e6).toFixed(2)} M nodes/s streamed, ` +
      `${(annotated / s / 1e6).toFixed(2)} M annotated nodes/s (${annotated} annotated × ${freqs.length} outputs; match rate ${((t.matchRate ?? 0) * 100).toFixed(1)}%, ` +
      `roofline ${t.roofline}, slow path ${t.slowPathNodes}); ${res.parallelism.mode} ${res.parallelism.threads} thread(s); peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`);
  }
} finally {
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

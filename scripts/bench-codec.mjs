// Chakra codec benchmark: generates a large trace with a realistic attribute mix (PyTorch-converted
// COMP nodes with IOInfo and host-side attributes, plus collectives), then measures, each phase in
// its own process so peak RSS is its own: streaming decode, streaming decode + re-encode, and a
// naive whole-file protobufjs decode as the baseline. Decode checks attributes and IOInfo fully but builds them
// when first read, so a second row reads them all. Run after `npm run build`.
//   node scripts/bench-codec.mjs [--mb 200] [--keep]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'dist', 'formats', 'chakra', 'index.js');
const args = process.argv.slice(2);
const phase = args.includes('--phase') ? args[args.indexOf('--phase') + 1] : undefined;

function attr(name, kind, value) {
  return { name, docString: '', kind, value };
}

/** A PyTorch-like node mix: 85% GPU kernels, 10% CPU ops, 5% collectives. */
function makeNode(i) {
  const id = BigInt(i);
  const r = i % 20;
  if (r === 19) {
    return {
      id, name: `nccl:all_reduce_${i}`, type: 7, ctrlDeps: [], dataDeps: [id - 1n], startTimeMicros: BigInt(i * 10), durationMicros: 120n,
      inputs: null, outputs: null,
      attrs: [attr('comm_type', 'int64_val', 0n), attr('comm_size', 'int64_val', BigInt(1 << 22)), attr('involved_dim', 'bool_list', [true, true]), attr('pg_name', 'string_val', '0'), attr('is_cpu_op', 'bool_val', false)],
    };
  }
  const cpu = r >= 17;
  const deps = i > 4 ? [id - 1n, id - 2n, id - 4n] : [];
  return {
    id,
    name: cpu ? `aten::linear_${i % 97}` : `void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)`,
    type: 4, ctrlDeps: i > 8 ? [id - 8n] : [], dataDeps: deps, startTimeMicros: BigInt(1_700_000_000_000 + i * 10), durationMicros: BigInt(5 + (i % 300)),
    inputs: { values: `[[${i}, ${i + 1}, 0, 53120, 4, 'cuda:0'], [${i + 2}, ${i + 3}, 0, 4096, 4, 'cuda:0']]`, shapes: '[[4096, 13], [4096]]', types: "['Tensor(float)', 'Tensor(float)']" },
    outputs: { values: `[[${i + 4}, ${i + 5}, 0, 53120, 4, 'cuda:0']]`, shapes: '[[4096, 13]]', types: "['Tensor(float)']" },
    attrs: [
      attr('rf_id', 'int64_val', BigInt(i)), attr('fw_parent', 'int64_val', BigInt(i - 1)), attr('seq_id', 'int64_val', BigInt(i >> 2)),
      attr('scope', 'int64_val', 0n), attr('tid', 'int64_val', 1n), attr('fw_tid', 'int64_val', 0n),
      attr('op_schema', 'string_val', cpu ? 'aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor' : ''),
      attr('is_cpu_op', 'bool_val', cpu), attr('num_ops', 'int64_val', BigInt(53120 * (1 + (i % 7)))), attr('tensor_size', 'uint64_val', BigInt(4 * 53120 * 3)),
    ],
  };
}

function rssMiB() {
  return process.resourceUsage().maxRSS / 1024;
}

async function generate(file, targetBytes) {
  const { TraceWriter } = await import(dist);
  const md = { version: '0.0.4', attrs: [attr('schema', 'string_val', '1.0.2-chakra.0.0.4')] };
  const w = await TraceWriter.create(file, md);
  let i = 0;
  const t0 = performance.now();
  // Write in slices of 20,000 nodes, checking the file size after each.
  while (w.bytesWritten < targetBytes) {
    for (let k = 0; k < 20000; k++) {
      const p = w.write(makeNode(i++));
      if (p) await p;
    }
  }
  const r = await w.close();
  return { nodes: r.nodes, seconds: (performance.now() - t0) / 1000 };
}

function cpuSeconds(since) {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

/** Streaming decode; with readAll, also every attribute and IOInfo string (what a consumer needing all pays). */
async function phaseDecode(file, readAll = false) {
  const { openTrace } = await import(dist);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const reader = await openTrace(file);
  let nodes = 0;
  let chars = 0;
  for await (const batch of reader.batches()) {
    nodes += batch.length;
    if (!readAll) continue;
    for (const n of batch) {
      for (const a of n.attrs) chars += a.name.length;
      for (const io of [n.inputs, n.outputs]) if (io) chars += io.values.length + io.shapes.length + io.types.length;
    }
  }
  return { nodes, chars, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSeconds(c0), peakRssMiB: rssMiB() };
}

async function phaseEncode(file) {
  const { openTrace, ByteSink, encodeNodeFrame } = await import(dist);
  const reader = await openTrace(file);
  const batches = [];
  let held = 0;
  let seconds = 0;
  let bytes = 0;
  let nodes = 0;
  const sink = new ByteSink(1 << 22);
  let cpu = 0;
  const flush = () => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const b of batches) for (const n of b) {
      encodeNodeFrame(sink, n);
      if (sink.pos > 1 << 21) {
        bytes += sink.pos;
        sink.reset();
      }
    }
    seconds += (performance.now() - t0) / 1000;
    cpu += cpuSeconds(c0);
    batches.length = 0;
    held = 0;
  };
  // Encode-only timing: decode a few batches, then time encoding them.
  for await (const batch of reader.batches()) {
    batches.push(batch);
    held += batch.length;
    nodes += batch.length;
    if (held > 50000) flush();
  }
  flush();
  bytes += sink.pos;
  return { nodes, bytes, seconds, cpuSeconds: cpu, peakRssMiB: rssMiB() };
}

async function phaseBaseline(file) {
  const protobuf = (await import('protobufjs')).default;
  const root = new protobuf.Root().loadSync(path.join(here, '..', 'proto', 'et_def.proto'), { keepCase: true });
  const Node = root.lookupType('ChakraProtoMsg.Node');
  const Meta = root.lookupType('ChakraProtoMsg.GlobalMetadata');
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const buf = readFileSync(file);
  const reader = protobuf.Reader.create(buf);
  Meta.decodeDelimited(reader);
  let nodes = 0;
  while (reader.pos < reader.len) {
    Node.decodeDelimited(reader);
    nodes++;
  }
  return { nodes, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSeconds(c0), peakRssMiB: rssMiB() };
}

if (phase) {
  const file = args[args.indexOf('--file') + 1];
  const fn = { decode: phaseDecode, 'decode-all': (f) => phaseDecode(f, true), encode: phaseEncode, baseline: phaseBaseline }[phase];
  console.log(JSON.stringify(await fn(file)));
} else {
  const mb = Number(args.includes('--mb') ? args[args.indexOf('--mb') + 1] : 200);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'));
  const file = path.join(dir, 'bench.0.et');
  const gen = await generate(file, mb * 1e6);
  const size = statSync(file).size;
  const run = (p) => JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--phase', p, '--file', file], { encoding: 'utf8', maxBuffer: 1 << 20 }));
  const dec = run('decode');
  const all = run('decode-all');
  const enc = run('encode');
  const base = run('baseline');
  const mbps = (b, s) => (b / 1e6 / s).toFixed(1).padStart(7);
  const knps = (n, s) => (n / s / 1e3).toFixed(0).padStart(6);
  console.log(`Chakra codec benchmark: ${(size / 1e6).toFixed(1)} MB, ${dec.nodes.toLocaleString('en-US')} nodes (${(size / dec.nodes).toFixed(0)} B/node), node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`);
  console.log('  phase              wall MB/s  per-CPU-s MB/s  k nodes/s (CPU)  peak RSS MiB');
  const row = (name, bytes, r, note = '') =>
    console.log(`  ${name.padEnd(18)} ${mbps(bytes, r.seconds)}    ${mbps(bytes, r.cpuSeconds)}        ${knps(r.nodes, r.cpuSeconds)}       ${r.peakRssMiB.toFixed(0).padStart(5)}  ${note}`);
  console.log(`  generate+write     ${mbps(size, gen.seconds)}  (includes building the nodes)`);
  row('stream decode', size, dec, 'streaming, 1 MiB chunks; attributes and IOInfo checked, built when read');
  row('  + read all', size, all, 'the same, reading every attribute and IOInfo string');
  row('encode', enc.bytes, enc, 'RSS includes decoding');
  row('protobufjs naive', size, base, 'whole file in memory, reflection decode');
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
}

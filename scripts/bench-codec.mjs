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
import { writePytorchLike } from './lib/trace-gen.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'dist', 'formats', 'chakra', 'index.js');
const args = process.argv.slice(2);
const phase = args.includes('--phase') ? args[args.indexOf('--phase') + 1] : undefined;

function rssMiB() {
  return process.resourceUsage().maxRSS / 1024;
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
    for (const b of batches)
      for (const n of b) {
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
  const fn = {
    decode: phaseDecode,
    'decode-all': (f) => phaseDecode(f, true),
    encode: phaseEncode,
    baseline: phaseBaseline,
  }[phase];
  console.log(JSON.stringify(await fn(file)));
} else {
  const mb = Number(args.includes('--mb') ? args[args.indexOf('--mb') + 1] : 200);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tw-bench-'));
  const file = path.join(dir, 'bench.0.et');
  const gen = await writePytorchLike(file, mb * 1e6);
  const size = statSync(file).size;
  const run = (p) =>
    JSON.parse(
      execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--phase', p, '--file', file], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      }),
    );
  const dec = run('decode');
  const all = run('decode-all');
  const enc = run('encode');
  const base = run('baseline');
  const mbps = (b, s) => (b / 1e6 / s).toFixed(1).padStart(7);
  const knps = (n, s) => (n / s / 1e3).toFixed(0).padStart(6);
  console.log(
    `Chakra codec benchmark: ${(size / 1e6).toFixed(1)} MB, ${dec.nodes.toLocaleString('en-US')} nodes (${(size / dec.nodes).toFixed(0)} B/node), node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log('  phase              wall MB/s  per-CPU-s MB/s  k nodes/s (CPU)  peak RSS MiB');
  const row = (name, bytes, r, note = '') =>
    console.log(
      `  ${name.padEnd(18)} ${mbps(bytes, r.seconds)}    ${mbps(bytes, r.cpuSeconds)}        ${knps(r.nodes, r.cpuSeconds)}       ${r.peakRssMiB.toFixed(0).padStart(5)}  ${note}`,
    );
  console.log(`  generate+write     ${mbps(size, gen.seconds)}  (includes building the nodes)`);
  row('stream decode', size, dec, 'streaming, 1 MiB chunks; attributes and IOInfo checked, built when read');
  row('  + read all', size, all, 'the same, reading every attribute and IOInfo string');
  row('encode', enc.bytes, enc, 'RSS includes decoding');
  row('protobufjs naive', size, base, 'whole file in memory, reflection decode');
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
}

#!/usr/bin/env node
// inspect benchmark, against reading the same file the way Chakra's Python tools do: the length varint, then
// ParseFromString per frame, with python3-protobuf's C++ backend (here the strict form of it: the whole file read at
// once, frames parsed from memoryview slices; Chakra's own reader reads the file a byte at a time, which is slower).
// The Python module is generated from proto/et_def.proto with protoc at run time; without python3 + google.protobuf
// + protoc (Debian: apt-get install python3-protobuf protobuf-compiler) the comparison is skipped, and said so.
// Traces, written to a temporary folder: the real PyTorch trace in traces/chakra-tests repeated to --mb MB (ids
// repeat), PyTorch-like nodes with unique ids to --mb MB, and 32 ranks x 20,000 small nodes. Every measurement runs
// in a fresh process (wall and CPU seconds, peak RSS); --repeat N keeps the best of N by CPU time and prints the
// medians. Two comparisons with Python, side by side: in-process (modules loaded, then the clock: the decoding
// alone) and whole process (`tracewatt inspect FILE` and `python3 read_et.py FILE` from start to exit, interpreter
// start, imports, file read and decode included, as a user meets them: --runs N rounds in turn, median and
// spread, scripts/lib/whole-process.mjs); each line names the Python protobuf backend that ran. --gb also decodes a
// 1 GB trace with the full decoder and prints its peak RSS beside the --mb one's (memory must not grow with the file).
//   npm run build && node scripts/bench-inspect.mjs [--mb 200] [--repeat 3] [--runs 5] [--gb] [--keep]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPython } from './lib/python-baseline.mjs';
import { writePytorchLike, writeRepeated, writeSmallRanks } from './lib/trace-gen.mjs';
import { ratioSpread, seconds, spread, timeInTurn, times } from './lib/whole-process.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const args = process.argv.slice(2);
const option = (name, def) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : def);

/** Child mode: one measurement, printed as one JSON line. */
async function measure(kind, target) {
  // Modules loaded before the clock starts, as the Python baseline's are.
  const { inspectTrace } = await import(path.join(root, 'dist', 'engines', 'trace', 'inspect.js'));
  const { openTrace } = await import(path.join(root, 'dist', 'formats', 'chakra', 'index.js'));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let nodes = 0;
  if (kind === 'inspect') nodes = (await inspectTrace(target)).total.nodeCount;
  else for await (const batch of (await openTrace(target)).batches()) nodes += batch.length;
  const cpu = process.cpuUsage(c0);
  return {
    nodes,
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

if (args[0] === '--measure') {
  console.log(JSON.stringify(await measure(args[1], args[2])));
  process.exit(0);
}

const repeat = option('repeat', 3);
const runs = option('runs', 5);
/** The best run by CPU time, with the medians of CPU and wall seconds beside (a loaded machine spreads runs widely). */
function best(runs) {
  const median = (key) => runs.map((r) => r[key]).sort((a, b) => a - b)[runs.length >> 1];
  return {
    ...runs.reduce((a, b) => (b.cpuSeconds < a.cpuSeconds ? b : a)),
    medianCpuSeconds: median('cpuSeconds'),
    medianSeconds: median('seconds'),
  };
}
function run(kind, target) {
  const runs = [];
  for (let k = 0; k < repeat; k++) {
    runs.push(
      JSON.parse(
        execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--measure', kind, target], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ),
    );
  }
  return best(runs);
}
/**
 * `tracewatt inspect FILE` and the Python reader as whole processes, in turn, `runs` rounds: their wall and CPU
 * spreads, the ratios Python / tracewatt round by round, and the Python reader's own in-process figures (best and
 * medians, as best() gives them) from the same runs.
 */
function wholeProcess(py, dir, file, runs) {
  const pyRuns = [];
  const [ours, python] = timeInTurn(
    [
      [process.execPath, path.join(root, 'dist', 'cli', 'main.js'), 'inspect', file],
      [py.python, py.script, dir, file],
    ],
    {
      runs,
      warmup: 0,
      onRun: (i, stdout) => void (i === 1 && pyRuns.push(JSON.parse(stdout))),
    },
  );
  const cpu = !ours.cpuS.includes(null);
  return {
    ours: { wall: spread(ours.wallS), cpu: cpu ? spread(ours.cpuS) : null },
    python: { wall: spread(python.wallS), cpu: cpu ? spread(python.cpuS) : null },
    wallRatio: ratioSpread(python, ours),
    cpuRatio: cpu ? ratioSpread(python, ours, 'cpuS') : null,
    pythonInProcess: best(pyRuns),
  };
}
const medians = (r) => `median ${r.medianCpuSeconds.toFixed(2)} CPU-s, ${r.medianSeconds.toFixed(2)} s wall`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'tracewatt-bench-inspect-'));
try {
  const mb = option('mb', 200);
  const repeated = path.join(dir, 'repeated.0.et');
  const unique = path.join(dir, 'unique.0.et');
  writeRepeated(repeated, mb * 1e6);
  await writePytorchLike(unique, mb * 1e6);
  const small = await writeSmallRanks(path.join(dir, 'small'), 32, 20000);
  const smallBytes = Array.from({ length: 32 }, (_, r) => statSync(`${small}.${r}.et`).size).reduce((a, b) => a + b, 0);
  const py = findPython(dir);
  console.log(
    `inspect benchmark: node ${process.version}, ${os.availableParallelism()} CPUs, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; best of ${repeat} fresh processes (by CPU time)`,
  );
  if (py.reason) console.log(`  Python baseline skipped: ${py.reason}`);
  const mbps = (bytes, s) => (bytes / 1e6 / s).toFixed(0);
  for (const [label, file] of [
    ['PyTorch trace repeated (ids repeat)', repeated],
    ['PyTorch-like, unique ids', unique],
  ]) {
    const bytes = statSync(file).size;
    const ins = run('inspect', file);
    console.log(
      `  ${label}, ${(bytes / 1e6).toFixed(0)} MB, ${ins.nodes.toLocaleString('en-US')} nodes: inspect ${ins.seconds.toFixed(2)} s wall, ${ins.cpuSeconds.toFixed(2)} CPU-s ` +
        `(${mbps(bytes, ins.seconds)} MB/s wall, ${mbps(bytes, ins.cpuSeconds)} MB/s per CPU-s; ${medians(ins)}), peak RSS ${ins.peakRssMiB.toFixed(0)} MiB`,
    );
    if (py.reason) continue;
    const w = wholeProcess(py, dir, file, runs);
    const p = w.pythonInProcess;
    if (p.nodes !== ins.nodes) throw new Error(`Python read ${p.nodes} nodes, inspect ${ins.nodes}`);
    console.log(
      `    in-process, Python (protobuf ${p.implementation} backend): ${p.seconds.toFixed(2)} s wall, ${p.cpuSeconds.toFixed(2)} CPU-s (${medians(p)}), peak RSS ${p.peakRssMiB.toFixed(0)} MiB → ` +
        `inspect is ${(p.seconds / ins.seconds).toFixed(1)}x faster by wall time, ${(p.cpuSeconds / ins.cpuSeconds).toFixed(1)}x by CPU time ` +
        `(medians: ${(p.medianSeconds / ins.medianSeconds).toFixed(1)}x, ${(p.medianCpuSeconds / ins.medianCpuSeconds).toFixed(1)}x)`,
    );
    console.log(
      `    whole process, start to exit, median (min–max) of ${runs} in turn: \`tracewatt inspect\` ${seconds(w.ours.wall)} wall${w.ours.cpu ? `, ${seconds(w.ours.cpu)} CPU` : ''}; ` +
        `Python (protobuf ${p.implementation} backend) ${seconds(w.python.wall)} wall${w.python.cpu ? `, ${seconds(w.python.cpu)} CPU` : ''} → ` +
        `tracewatt is ${times(w.wallRatio)} faster by wall time${w.cpuRatio ? `, ${times(w.cpuRatio)} by CPU time` : ''}`,
    );
  }
  const s = run('inspect', small);
  console.log(
    `  32 ranks x 20,000 small nodes, ${(smallBytes / 1e6).toFixed(1)} MB: inspect ${s.seconds.toFixed(2)} s wall, ${s.cpuSeconds.toFixed(2)} CPU-s ` +
      `(${mbps(smallBytes, s.seconds)} MB/s wall, ${mbps(smallBytes, s.cpuSeconds)} MB/s per CPU-s; ${medians(s)}), peak RSS ${s.peakRssMiB.toFixed(0)} MiB`,
  );
  if (args.includes('--gb')) {
    const gb = path.join(dir, 'gb.0.et');
    writeRepeated(gb, 1e9);
    rmSync(unique);
    for (const [label, file] of [
      [`${mb} MB`, repeated],
      ['1 GB', gb],
    ]) {
      const d = run('decode', file);
      const size = statSync(file).size;
      console.log(
        `  full decode (every node built), ${label} (${(size / 1e6).toFixed(0)} MB, ${d.nodes.toLocaleString('en-US')} nodes): ${d.seconds.toFixed(2)} s, ` +
          `${mbps(size, d.cpuSeconds)} MB/s per CPU-s, peak RSS ${d.peakRssMiB.toFixed(0)} MiB`,
      );
    }
  }
} finally {
  if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

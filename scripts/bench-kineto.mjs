// Reading and importing a large Kineto trace: a ~100 MB trace made of the real DLRM rank-0 events repeated (shifted
// in time, correlation and event ids kept distinct), its per-copy ProfilerStep replaced by one step over every copy
// (so that `import kineto` converts every event). Phases, each in its own process: JSON.parse of the whole text (the
// baseline), the profile reader (GPU events only), the full reader import uses (host ops, runtime calls too), and
// `import kineto` whole (read, convert, write the Chakra trace; issue 25's target: ≤ 5 s, ≤ 400 MiB for 100 MB).
// Prints wall time, CPU time (the process, all threads: under load the fairer figure), MB/s and peak RSS of each
// (node scripts/bench-kineto.mjs [--mb 100] [--phases json-parse-baseline,profile,full,import] [--keep]; --keep leaves
// the generated trace and the imported output in place, for profiling and for comparing outputs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'dist');
const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const phase = arg('--phase');
const file = arg('--file');

async function runPhase() {
  const t0 = performance.now();
  let count = 0;
  if (phase === 'profile') {
    const { readProfile } = await import(path.join(dist, 'formats/profiles/index.js'));
    count = (await readProfile(file)).samples.length;
  } else if (phase === 'full') {
    const { readKinetoTrace } = await import(path.join(dist, 'formats/kineto/trace.js'));
    const t = await readKinetoTrace(file);
    count = t.cpuOps.length + t.gpu.length + t.runtime.length;
  } else if (phase === 'import') {
    const { importKineto } = await import(path.join(dist, 'engines/import/kineto.js'));
    const r = await importKineto({ traces: [file], out: path.join(path.dirname(file), 'out'), partial: true });
    count = r.ranks[0].stats.nodes;
  } else {
    count = JSON.parse(readFileSync(file, 'utf8')).traceEvents.length;
  }
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage();
  const mb = statSync(file).size / 1e6;
  console.log(
    JSON.stringify({
      phase,
      seconds: +s.toFixed(2),
      cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(2),
      mbPerS: +(mb / s).toFixed(1),
      records: count,
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

if (phase && file) await runPhase();
else {
  const mbWanted = Number(arg('--mb')) || 100;
  const dir = path.join(here, '..', 'traces', 'pytorch-real', 'dlrm');
  const src = JSON.parse(
    gunzipSync(
      readFileSync(
        path.join(
          dir,
          readdirSync(dir).find((f) => f.startsWith('worker0_')),
        ),
      ),
    ).toString('utf8'),
  );
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tw-bench-kineto-'));
  const big = path.join(tmp, 'big.pt.trace.json');
  const events = src.traceEvents.filter((e) => !/^ProfilerStep#/.test(e.name ?? ''));
  const one = JSON.stringify(events).slice(1, -1);
  const copies = Math.ceil((mbWanted * 1e6) / one.length);
  const shiftUs = 30000;
  const host = events.find((e) => e.cat === 'cpu_op');
  const t0 = events.filter((e) => e.ph === 'X').reduce((a, e) => Math.min(a, e.ts), Infinity);
  const step = {
    ph: 'X',
    cat: 'user_annotation',
    name: 'ProfilerStep#1',
    pid: host.pid,
    tid: host.tid,
    ts: t0 - 20000,
    dur: copies * shiftUs + 40000,
    args: {},
  };
  const { traceEvents: _events, ...rest } = src;
  const parts = [`${JSON.stringify(rest).slice(0, -1)},"traceEvents":[`, JSON.stringify(step)];
  for (let i = 0; i < copies; i++) {
    parts.push(
      `,${one
        .replace(/"ts":(\d+)/g, (_, t) => `"ts":${Number(t) + i * shiftUs}`)
        .replace(/"(correlation|External id|id)":(\d+)/g, (_, k, c) => `"${k}":${Number(c) + i * 1000000}`)}`,
    );
  }
  parts.push(']}');
  writeFileSync(big, parts.join(''));
  console.log(
    `Kineto trace: ${(statSync(big).size / 1e6).toFixed(1)} MB (${copies} copies of the real DLRM rank-0 trace, one ProfilerStep over all)`,
  );
  try {
    for (const p of (arg('--phases') ?? 'json-parse-baseline,profile,full,import').split(',')) {
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--phase', p, '--file', big], {
        encoding: 'utf8',
      });
      process.stdout.write(
        r.stdout || `${p} failed: ${(r.stderr ?? '').split('\n').find((l) => /Error/.test(l)) ?? r.status}\n`,
      );
    }
  } finally {
    if (process.argv.includes('--keep')) console.log(`kept: ${big} (import output: ${path.join(tmp, 'out')})`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

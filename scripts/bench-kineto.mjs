// Reading a large Kineto trace: a ~100 MB trace made of the real DLRM rank-0 events repeated (shifted in time),
// read by the profile reader (GPU events only) and by the full reader import uses (host ops, launches too).
// Baseline in the same run: JSON.parse of the whole text. Prints wall time, MB/s and peak RSS of each phase,
// each in its own process (node scripts/bench-kineto.mjs [--mb 100]).
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
    count = t.cpuOps.length + t.gpu.length + t.launches.size;
  } else {
    count = JSON.parse(readFileSync(file, 'utf8')).traceEvents.length;
  }
  const s = (performance.now() - t0) / 1000;
  const mb = statSync(file).size / 1e6;
  console.log(JSON.stringify({ phase, seconds: +s.toFixed(2), mbPerS: +(mb / s).toFixed(1), records: count, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
}

if (phase && file) await runPhase();
else {
  const mbWanted = Number(arg('--mb')) || 100;
  const dir = path.join(here, '..', 'traces', 'pytorch-real', 'dlrm');
  const src = JSON.parse(gunzipSync(readFileSync(path.join(dir, readdirSync(dir).find((f) => f.startsWith('worker0_'))))).toString('utf8'));
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tw-bench-kineto-'));
  const big = path.join(tmp, 'big.pt.trace.json');
  const one = JSON.stringify(src.traceEvents).slice(1, -1);
  const copies = Math.ceil((mbWanted * 1e6) / one.length);
  const { traceEvents: _events, ...rest } = src;
  const head = `${JSON.stringify(rest).slice(0, -1)},"traceEvents":[`;
  const parts = [head];
  for (let i = 0; i < copies; i++) {
    // Shift each copy by 30 ms and keep correlation ids distinct, so the events stay a plausible trace.
    parts.push((i ? ',' : '') + one.replace(/"ts":(\d+)/g, (_, t) => `"ts":${Number(t) + i * 30000}`).replace(/"correlation":(\d+)/g, (_, c) => `"correlation":${Number(c) + i * 100000}`));
  }
  parts.push(']}');
  writeFileSync(big, parts.join(''));
  console.log(`Kineto trace: ${(statSync(big).size / 1e6).toFixed(1)} MB (${copies} copies of the real DLRM rank-0 trace)`);
  try {
    for (const p of ['json-parse-baseline', 'profile', 'full']) {
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--phase', p, '--file', big], { encoding: 'utf8' });
      process.stdout.write(r.stdout || `${p} failed: ${(r.stderr ?? '').split('\n').find((l) => /Error/.test(l)) ?? r.status}\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

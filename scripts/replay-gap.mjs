// Measured beside modelled, per rank, for an imported multi-rank PyTorch run (issue 25, item 4): each rank's measured
// iteration read from its raw Kineto JSON (the ProfilerStep's "dur"), the as-measured replay, and the modelled
// replay on the given network and on the network `fit network` fits to the run's collectives — for both import
// paths (`import pytorch`: ET + Kineto pairs; `import kineto`: the Kineto halves alone). The modelled rows start each
// rank at its measured start (the default); "together" starts every rank at 0, as ASTRA-sim does.
//
//   npm run build && node scripts/replay-gap.mjs [--dir traces/pytorch-real/dlrm] [--system F] [--network F]
//
// Figures are ms; "err" is (modelled − measured) / measured.
import { readdir, readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { importKineto, importPytorch } from '../dist/engines/import/index.js';
import { fitNetwork } from '../dist/engines/netfit/index.js';
import { replayFiles, replayFilesAsMeasured, resolvePower } from '../dist/engines/replay/index.js';
import { networkFitYaml } from '../dist/report/netfit-text.js';

const { values: o } = parseArgs({
  options: {
    dir: { type: 'string', default: 'traces/pytorch-real/dlrm' },
    system: { type: 'string', default: 'traces/configs/sys_ring_example.json' },
    network: { type: 'string', default: 'traces/configs/Switch_8npus.yml' },
  },
});
const ms = (ns) => (ns / 1e6).toFixed(3);

/** Per rank, the ProfilerStep's duration (ns) as the raw Kineto JSON writes it. */
async function measuredSteps(dir) {
  const out = [];
  for (const f of (await readdir(dir)).filter((n) => /\.pt\.trace\.json(\.gz)?$/.test(n))) {
    const raw = await readFile(path.join(dir, f));
    const json = JSON.parse((f.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8'));
    const steps = json.traceEvents.filter((e) => e.ph === 'X' && /^ProfilerStep#/.test(e.name ?? ''));
    const longest = steps.reduce((a, e) => (!a || e.dur > a.dur ? e : a), null);
    out[json.distributedInfo.rank] = Math.round(longest.dur * 1000);
  }
  return out;
}

const work = await mkdtemp(path.join(os.tmpdir(), 'tw-replay-gap-'));
try {
  const measured = await measuredSteps(o.dir);
  const power = await resolvePower('v100-cluster');
  for (const [label, run] of [
    ['import pytorch', (out) => importPytorch({ dir: o.dir, out })],
    ['import kineto', (out) => importKineto({ dir: o.dir, out })],
  ]) {
    const prefix = path.join(work, label.replace(' ', '-'));
    await run(prefix);
    const fit = await fitNetwork({ trace: prefix, system: o.system, network: o.network });
    const fitted = `${prefix}.fitted.yml`;
    await writeFile(fitted, networkFitYaml(fit));
    const rows = [
      {
        replay: 'measured (raw Kineto ProfilerStep)',
        ...Object.fromEntries(measured.map((m, r) => [`rank ${r}`, ms(m)])),
      },
    ];
    const row = (name, ranks) => {
      const out = { replay: name };
      for (const x of ranks)
        out[`rank ${x.rank}`] =
          `${ms(x.finishNs)} (${((100 * (x.finishNs - measured[x.rank])) / measured[x.rank]).toFixed(1)} %)`;
      rows.push(out);
    };
    row('as measured', (await replayFilesAsMeasured({ trace: prefix, power })).ranks);
    row(
      `modelled, ${path.basename(o.network)} (before the fit)`,
      (await replayFiles({ trace: prefix, system: o.system, network: o.network })).ranks,
    );
    row('modelled, fitted network', (await replayFiles({ trace: prefix, system: o.system, network: fitted })).ranks);
    row(
      'modelled, fitted, ranks started together',
      (await replayFiles({ trace: prefix, system: o.system, network: fitted, startAsMeasured: false })).ranks,
    );
    console.log(
      `\n${label} --dir ${o.dir}; fit: ${fit.dims.map((d) => `dimension ${d.dim} ${d.givenBandwidthGBps} → ${d.fittedBandwidthGBps} GB/s, ${d.givenLatencyNs} → ${d.fittedLatencyNs} ns`).join('; ')}`,
    );
    console.table(rows);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

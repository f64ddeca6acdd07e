// Runs replayFiles on a trace prefix in a child process (with the CLI's modules loaded, as `tracewatt replay` has
// them) and reports wall and CPU seconds and the child's peak RSS:
// the replay of files as `tracewatt replay` runs it (mode 'once': ranks with the same trace and peers simulated once
// per class, the default) or with every rank simulated ('every'). Shared by the replay benchmarks.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const replayIndex = pathToFileURL(path.join(dist, 'engines', 'replay', 'index.js')).href;
const commands = pathToFileURL(path.join(dist, 'cli', 'commands', 'index.js')).href;

/** { nodes, makespanNs, finishes (per-rank finish ns, comma-joined), classes (note or null), wallS, cpuS, peakRssMiB } */
export function replayInChild(prefix, mode) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tw-replay-child-'));
  try {
    const runner = path.join(dir, 'run.mjs');
    // The command table is loaded first, as the tracewatt command loads it, so the peak RSS is the command's.
    writeFileSync(
      runner,
      `await import(${JSON.stringify(commands)});
import { replayFiles } from ${JSON.stringify(replayIndex)};
const res = await replayFiles({ trace: process.argv[2], system: process.argv[2] + '.system.json', network: process.argv[2] + '.network.yml', identicalRanksOnce: process.argv[3] === 'once' });
const u = process.resourceUsage();
console.log(JSON.stringify({ nodes: res.nodes, makespanNs: res.makespanNs, finishes: res.ranks.map((r) => r.finishNs).join(','),
  classes: res.diagnostics.find((d) => d.code === 'replay.identical-ranks-simulated-once')?.samples[0]?.message.split(';')[0] ?? null,
  cpuS: (u.userCPUTime + u.systemCPUTime) / 1e6, peakRssMiB: u.maxRSS / 1024 }));
`,
    );
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [runner, prefix, mode], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(r.stderr);
    return { ...JSON.parse(r.stdout), wallS };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per mode, the second saying whether its per-rank finishes equal the first's. */
export function reportModes(label, prefix, modes = ['once', 'every']) {
  let first = null;
  for (const mode of modes) {
    const r = replayInChild(prefix, mode);
    first ??= r.finishes;
    console.log(
      `${label}, ${mode === 'once' ? 'as tracewatt replay runs it' : 'every rank simulated'}: ${r.nodes} nodes in ${r.wallS.toFixed(2)} s wall, ` +
        `${r.cpuS.toFixed(2)} CPU-s, peak RSS ${r.peakRssMiB.toFixed(0)} MiB; makespan ${r.makespanNs} ns` +
        `${r.classes ? ` (${r.classes})` : ''}${mode === 'every' ? `; per-rank finishes ${r.finishes === first ? 'equal' : 'DIFFER from'} the first run's` : ''}`,
    );
  }
}

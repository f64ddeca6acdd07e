// Whole-process timing, as a user meets a command: from the moment the process is started to its exit, its
// interpreter's start, module loading and set-up included. Commands run in turn (A B C A B C …), so that a machine
// whose speed drifts during the measurement moves every command alike, and each ratio is taken round by round.
// Figures are medians with their spread (min–max); one slow or one lucky run moves neither.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** CPU seconds of the waited-for children of this process so far (Linux: /proc/self/stat), or null elsewhere. */
function childrenCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    // After "pid (comm) ", field 3 is the state: cutime and cstime (fields 16 and 17 of the whole line) are 13 and 14 here.
    return (Number(fields[13]) + Number(fields[14])) / 100; // USER_HZ: 100 on Linux
  } catch {
    return null;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** { median, min, max } of a list of numbers. */
export function spread(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

/**
 * Runs every command ([file, ...args]) `runs` times in turn after `warmup` rounds that are not counted, each from
 * spawn to exit. Returns, per command, its wall and CPU seconds per round (CPU: the child's own, from the kernel's
 * accounting, 10 ms resolution; null where unknown) and its last standard output; `onRun(i, stdout)` sees every
 * counted run's output. A command that exits non-zero throws, with its standard error.
 */
export function timeInTurn(commands, { runs = 10, warmup = 1, cwd, env, onRun } = {}) {
  const results = commands.map(() => ({ wallS: [], cpuS: [], stdout: '' }));
  for (let round = 0; round < warmup + runs; round++) {
    for (const [i, [file, ...args]] of commands.entries()) {
      const cpu0 = childrenCpuSeconds();
      const t0 = process.hrtime.bigint();
      const r = spawnSync(file, args, {
        cwd,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 1 << 26,
      });
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpu1 = childrenCpuSeconds();
      if (r.status !== 0)
        throw new Error(
          `${[file, ...args].join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr ?? r.error?.message ?? '').trim().split('\n')[0]}`,
        );
      results[i].stdout = r.stdout;
      if (round < warmup) continue;
      onRun?.(i, r.stdout);
      results[i].wallS.push(wall);
      results[i].cpuS.push(cpu0 === null || cpu1 === null ? null : cpu1 - cpu0);
    }
  }
  return results;
}

/** Round-by-round ratios a / b of one measure ('wallS' or 'cpuS') of two results of timeInTurn, as a spread. */
export function ratioSpread(a, b, key = 'wallS') {
  return spread(a[key].map((x, k) => x / b[key][k]));
}

/** "0.123 s (0.110–0.140)" for a spread of seconds. */
export const seconds = (s) => `${s.median.toFixed(3)} s (${s.min.toFixed(3)}–${s.max.toFixed(3)})`;

/** "1.52× (1.21–1.90)" for a spread of ratios. */
export const times = (s) => `${s.median.toFixed(2)}× (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;

/**
 * Command lines for ASTRA-sim's analytical binaries on an exported folder, and the run.sh that holds them.
 * ASTRA-sim 2.x (astra-sim 518bd51) names them AstraSim_Analytical_Congestion_Unaware / _Aware; both take the same
 * four configuration flags, and write their own log folder (--logging-folder, default ./log).
 */
import path from 'node:path';
import { fingerprintLine, type ExportFingerprint } from '../../formats/astra/index.js';

export type AstraBackend = 'unaware' | 'aware';

export interface ExportedFiles {
  /** <folder>/workload/<name>: ASTRA-sim's --workload-configuration (ranks are <name>.<rank>.et). */
  workload: string;
  system: string;
  network: string;
  memory: string;
  commGroup?: string;
  /** tracewatt's power.json for `tracewatt energy` (ASTRA-sim does not read it). */
  power?: string;
  runScript: string;
}

export const ASTRA_SIM_BINARIES: Record<AstraBackend, string> = {
  unaware: 'AstraSim_Analytical_Congestion_Unaware',
  aware: 'AstraSim_Analytical_Congestion_Aware',
};

/** A word for a POSIX shell: left bare when it is safe, else single-quoted. */
function sh(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function configFlags(files: ExportedFiles, at: (file: string) => string): string[] {
  return [
    `--workload-configuration=${at(files.workload)}`,
    `--system-configuration=${at(files.system)}`,
    `--network-configuration=${at(files.network)}`,
    `--remote-memory-configuration=${at(files.memory)}`,
    ...(files.commGroup ? [`--comm-group-configuration=${at(files.commGroup)}`] : []),
  ];
}

/** The log a run.sh run writes: <folder>/astra-sim.<backend>.log. */
export function logFile(files: ExportedFiles, backend: AstraBackend): string {
  return path.join(path.dirname(files.runScript), `astra-sim.${backend}.log`);
}

/** One ASTRA-sim run on the exported files, from the current folder. */
export function astraSimCommand(files: ExportedFiles, backend: AstraBackend): string {
  const flags = configFlags(files, (f) => f).map(sh);
  const logs = sh(path.join(path.dirname(files.runScript), 'log'));
  return (
    `${ASTRA_SIM_BINARIES[backend]} ${flags.join(' ')} --logging-folder=${logs} > ${sh(logFile(files, backend))} ` +
    `2>&1`
  );
}

/**
 * `npx tracewatt energy` on the log of a run of the exported workload (npx: runs in the repository or after
 * `npm link`).
 */
export function energyCommandLine(files: ExportedFiles, backend: AstraBackend): string {
  return [
    'npx tracewatt energy --astra-sim-log',
    sh(logFile(files, backend)),
    sh(files.workload),
    '--system',
    sh(files.system),
    '--network',
    sh(files.network),
    '--memory',
    sh(files.memory),
    ...(files.commGroup ? ['--comm-group', sh(files.commGroup)] : []),
    ...(files.power ? ['--power', sh(files.power)] : []),
  ].join(' ');
}

/**
 * run.sh: runs either backend on the folder it sits in, wherever it is called from, and keeps its output, which
 * starts with the export's fingerprint (`energy --astra-sim-log` checks it against the files it is given).
 */
export function runScript(files: ExportedFiles, fingerprint: ExportFingerprint): string {
  const dir = path.dirname(files.runScript);
  const rel = (f: string) => `"$here"/${sh(path.relative(dir, f))}`;
  const here = (f: string | undefined) => (f === undefined ? undefined : path.relative(dir, f));
  const local: ExportedFiles = {
    workload: here(files.workload)!,
    system: here(files.system)!,
    network: here(files.network)!,
    memory: here(files.memory)!,
    commGroup: here(files.commGroup),
    power: here(files.power),
    runScript: here(files.runScript)!,
  };
  return `#!/usr/bin/env bash
# Runs ASTRA-sim's analytical network backend on the workload tracewatt exported here (tracewatt export astra-sim).
# usage: ./run.sh [unaware|aware]   congestion-unaware (default) or congestion-aware backend
# The binary is looked up on PATH, or in $ASTRA_SIM_BIN_DIR when set. Its output goes to astra-sim.<backend>.log here;
# then, in this folder: ${energyCommandLine(local, 'unaware')}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
backend=\${1:-unaware}
case "$backend" in
  unaware) bin=${ASTRA_SIM_BINARIES.unaware} ;;
  aware) bin=${ASTRA_SIM_BINARIES.aware} ;;
  *) echo "usage: $0 [unaware|aware]" >&2; exit 2 ;;
esac
if [ -n "\${ASTRA_SIM_BIN_DIR:-}" ]; then bin="$ASTRA_SIM_BIN_DIR/$bin"; fi
{
  echo ${sh(fingerprintLine(fingerprint))}
  "$bin" ${configFlags(files, rel).join(' \\\n    ')} \\
    --logging-folder="$here"/log
} 2>&1 | tee "$here/astra-sim.$backend.log"
`;
}

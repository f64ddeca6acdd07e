/** Helpers shared by readers to fill and check canonical kernel samples. */
import type { Diagnostics } from '../../diagnostics.js';
import type { KernelSample } from '../../vocab/kernel-sample.js';
import { FormatError } from '../../errors.js';
import { where } from './csv.js';

/** Allowed excess over 1 for a utilization before it is reported (rounding in producers). */
const UTIL_TOLERANCE = 1e-3;

/**
 * Checks a 0–1 utilization read from `column` at `line`: NaN/negative → FormatError; above 1 → kept
 * as is and counted (`utilization-above-1`), since some producers legitimately report >100 %.
 */
export function checkUtilization(
  file: string,
  line: number,
  column: string,
  value: number,
  diagnostics: Diagnostics,
): number {
  if (!Number.isFinite(value))
    throw new FormatError(file, where(line, column), `utilization '${value}' is not a finite number`);
  if (value < 0) throw new FormatError(file, where(line, column), `utilization must not be negative, got ${value}`);
  if (value > 1 + UTIL_TOLERANCE) {
    diagnostics.add('utilization-above-1', { file, message: `${where(line, column)}: ${value} > 1 kept as is` });
  }
  return value;
}

/** Fills in energy from power × duration, or power from energy / duration, when one is missing. */
export function completePowerEnergy(s: KernelSample): void {
  if (s.durationNs !== null && s.durationNs > 0) {
    if (s.energyJ === null && s.powerW !== null) s.energyJ = (s.powerW * s.durationNs) / 1e9;
    else if (s.powerW === null && s.energyJ !== null) s.powerW = s.energyJ / (s.durationNs / 1e9);
  }
}

/** Assigns `invocation` as the ordinal (0-based) among samples of the same kernel name, in file order. */
export function numberInvocations(samples: KernelSample[]): void {
  const seen = new Map<string, number>();
  for (const s of samples) {
    const n = seen.get(s.kernelName) ?? 0;
    s.invocation = n;
    seen.set(s.kernelName, n + 1);
  }
}

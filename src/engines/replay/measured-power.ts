/**
 * The energy a power log measured over each rank's measured iteration: the log (nvidia-smi, DCGM, Zeus, time,power
 * CSV) placed on the iteration by wall-clock stamps (the trace's measured_start_unix_ns against the log's timestamps;
 * nvidia-smi writes local time without a zone, so when the iteration does not fall inside the log the whole-hour shift
 * that puts it there is taken, and said), power integrated over the iteration (trapezoids).
 */
import type { Diagnostics } from '../../diagnostics.js';
import { InputError } from '../../errors.js';
import { integratePower, readPowerSeries, type PowerSeries } from '../../formats/profiles/power.js';

export interface MeasuredEnergy {
  rank: number;
  /** Energy the log measured over the rank's iteration, J. */
  energyJ: number;
  /** Mean power over it, W. */
  meanPowerW: number;
  /** Samples of the log inside the iteration (a power sensor refreshes every 20–100 ms: few samples, rough figure). */
  samples: number;
}

export interface PowerLogEnergy {
  file: string;
  gpu: string | null;
  ranks: MeasuredEnergy[];
  notes: string[];
}

/** Where on the log's axis (ns after its first sample) a wall-clock instant lies, with the time-zone shift taken. */
function placer(
  series: PowerSeries,
  windows: { startUnixNs: bigint; iterationNs: number }[],
): { offsetNs: (unixNs: bigint) => number; note: string } {
  const originNs = BigInt(Math.round(series.originEpochMs! * 1e6));
  const end = series.timeNs[series.timeNs.length - 1]!;
  const inside = (shiftNs: bigint) =>
    windows.every((w) => {
      const t = Number(w.startUnixNs - originNs + shiftNs);
      return t >= 0 && t + w.iterationNs <= end;
    });
  for (const h of [0, ...Array.from({ length: 14 }, (_, i) => [i + 1, -(i + 1)]).flat()]) {
    const shift = BigInt(h) * 3_600_000_000_000n;
    if (inside(shift)) {
      return {
        offsetNs: (u) => Number(u - originNs + shift),
        note:
          h === 0
            ? 'power log placed on the iteration by wall-clock stamps (log stamps read as UTC)'
            : `power log placed on the iteration by wall-clock stamps shifted by ${h > 0 ? '+' : ''}${h} h (the ` +
              `log's stamps are local time without a zone; assumed)`,
      };
    }
  }
  throw new InputError(
    `${series.source.file}: the measured iteration${windows.length > 1 ? 's do' : ' does'} not fall inside the ` +
      `power log (log from ${new Date(series.originEpochMs!).toISOString()} for ${(end / 1e9).toFixed(1)} s, ` +
      `iteration at ${new Date(Number(windows[0]!.startUnixNs / 1_000_000n)).toISOString()}, with any whole-hour ` +
      `time-zone shift)`,
  );
}

export async function powerLogEnergy(
  file: string,
  ranks: { rank: number; measuredStartUnixNs: bigint | null; measuredIterationNs: number | null }[],
  diagnostics: Diagnostics,
): Promise<PowerLogEnergy> {
  const series = await readPowerSeries(file, {}, diagnostics);
  if (series.originEpochMs === null)
    throw new InputError(
      `${file}: the power log has no wall-clock timestamps, so it cannot be placed on the iteration`,
    );
  const timed = ranks.filter((r) => r.measuredStartUnixNs !== null && r.measuredIterationNs !== null);
  if (timed.length === 0)
    throw new InputError(
      `${file}: the trace records no wall-clock start of its measured iteration (measured_start_unix_ns), so ` +
        `the power log cannot be placed on it`,
    );
  const place = placer(
    series,
    timed.map((r) => ({ startUnixNs: r.measuredStartUnixNs!, iterationNs: r.measuredIterationNs! })),
  );
  const out: MeasuredEnergy[] = timed.map((r) => {
    const a = place.offsetNs(r.measuredStartUnixNs!);
    const b = a + r.measuredIterationNs!;
    const energyJ = integratePower(series, a, b)!;
    const samples = series.timeNs.filter((t) => t >= a && t <= b).length;
    return { rank: r.rank, energyJ, meanPowerW: energyJ / (r.measuredIterationNs! * 1e-9), samples };
  });
  const notes = [...series.notes, place.note];
  if (ranks.length > 1)
    notes.push(
      `one power log for ${ranks.length} ranks: each rank's figure is the logged GPU's energy over that rank's ` +
        `iteration (ranks sharing the GPU are not separated)`,
    );
  if (out.some((r) => r.samples < 3))
    notes.push(
      `the power log has fewer than 3 samples inside an iteration: the measured energy rests on interpolation ` +
        `between samples`,
    );
  return { file, gpu: series.gpu ?? series.device, ranks: out, notes };
}

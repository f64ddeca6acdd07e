/** Sweep ranges from the command line: "start:stop:step" (inclusive) or a comma list "0.5,0.75,1". */
import { excerpt, InputError } from '../../errors.js';

/** The most points one sweep (and so one merge of its shards) may have. */
export const MAX_SWEEP_POINTS = 10_000;

/** Values are rounded to this many decimals so 0.5 + 10·0.05 is exactly 1. */
const DECIMALS = 9;

function num(text: string, flag: string, whole: string): number {
  const v = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(v))
    throw new InputError(`${flag} "${excerpt(whole)}": "${excerpt(text)}" is not a number`);
  return v;
}

/**
 * Parses "start:stop:step" (start and stop included when stop − start is a whole number of steps;
 * otherwise the last value is the one before stop) or a comma-separated list. Returns the values sorted
 * ascending without duplicates.
 */
export function parseRange(text: string, flag = 'range', maxPoints = MAX_SWEEP_POINTS): number[] {
  const parts = text.split(':');
  let values: number[];
  if (parts.length === 3) {
    const [start, stop, step] = parts.map((p) => num(p, flag, text));
    if (!(step > 0)) throw new InputError(`${flag} "${excerpt(text)}": the step must be positive`);
    if (stop < start) throw new InputError(`${flag} "${excerpt(text)}": stop ${stop} is below start ${start}`);
    const n = Math.floor((stop - start) / step + 1e-9) + 1;
    if (!(n <= maxPoints))
      throw new InputError(`${flag} "${excerpt(text)}" gives ${n} points; at most ${maxPoints} are allowed`);
    values = Array.from({ length: n }, (_, i) => start + i * step);
  } else if (parts.length === 1) {
    values = text.split(',').map((p) => num(p, flag, text));
    if (values.length > maxPoints)
      throw new InputError(
        `${flag} "${excerpt(text)}" gives ${values.length} points; at most ${maxPoints} are allowed`,
      );
  } else {
    throw new InputError(
      `${flag} "${excerpt(text)}": write start:stop:step (e.g. 0.5:1.0:0.05) or a comma list (e.g. 0.5,0.75,1)`,
    );
  }
  const rounded = values.map((v) => Number(v.toFixed(DECIMALS)));
  return [...new Set(rounded)].sort((a, b) => a - b);
}

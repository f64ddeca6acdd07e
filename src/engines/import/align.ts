/**
 * Aligning two threads' op names (execution trace in rf_id order, Kineto in record-function order): which ET op is
 * which Kineto op when neither trace carries the other's id. Greedy: equal names pair off in order; where the lists
 * disagree, the nearest point where both agree again for a run of names is taken (skipping ops one side lacks).
 */
/** Look-ahead when the aligned sequences disagree; a resync needs this many names in a row to agree. */
const RESYNC_WINDOW = 256;
const RESYNC_RUN = 3;

/** Aligns two name sequences; returns pairs [i, j] of equal names, in order. Greedy with resynchronisation. */
export function alignByName(a: string[], b: string[]): [number, number][] {
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  const runAt = (x: number, y: number) => {
    for (let k = 0; k < RESYNC_RUN; k++) {
      if (x + k >= a.length || y + k >= b.length) return k > 0 || (x < a.length && y < b.length && a[x] === b[y]);
      if (a[x + k] !== b[y + k]) return false;
    }
    return true;
  };
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
      continue;
    }
    // The nearest point (fewest skipped) where both agree for a run of names.
    let found: [number, number] | null = null;
    for (let s = 1; s <= RESYNC_WINDOW && !found; s++) {
      for (let di = 0; di <= s; di++) {
        const x = i + di;
        const y = j + (s - di);
        if (x < a.length && y < b.length && a[x] === b[y] && runAt(x, y)) {
          found = [x, y];
          break;
        }
      }
    }
    if (!found) {
      i++;
      j++;
      continue;
    }
    [i, j] = found;
  }
  return pairs;
}

/** How many names two lists share, each name counted as often as both hold it. */
export function countCommon(a: string[], b: string[]): number {
  const m = new Map<string, number>();
  for (const x of a) m.set(x, (m.get(x) ?? 0) + 1);
  let n = 0;
  for (const y of b) {
    const c = m.get(y);
    if (c) {
      n++;
      m.set(y, c - 1);
    }
  }
  return n;
}

/** Binary search over indices 0 … n − 1 whose key(k) ascends (the import's sorted op and event lists). */

/** First k in [0, n) with key(k) ≥ x, else n. */
export function lowerBound(n: number, key: (k: number) => number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First k in [0, n) with key(k) > x, else n: the number of keys ≤ x. */
export function upperBound(n: number, key: (k: number) => number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(mid) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

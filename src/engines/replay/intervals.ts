/** Length (ns) of the union of half-open intervals [start, end); the list is sorted in place. */
export function unionNs(spans: [number, number][]): number {
  spans.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let from = -Infinity;
  let to = -Infinity;
  for (const [s, e] of spans) {
    if (s > to) {
      if (to > from) total += to - from;
      from = s;
      to = e;
    } else if (e > to) to = e;
  }
  if (to > from) total += to - from;
  return total;
}

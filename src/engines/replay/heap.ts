/**
 * A queue of timed events, earliest first; events at the same time in the order of their `tie` number (the
 * replay passes the push order). The heap holds each event's time, tie and entry number; the entry's fields (a, b,
 * payload) stay where they were written, so sifting moves three numbers a level instead of every field. The
 * entry numbers not in use are kept past the heap's end. pop() leaves the removed event's fields in `a`, `b` and
 * `payload`.
 */
export class TimeQueue<T> {
  // Room for 8 events at first (arrays of 64 bytes or less live on the JavaScript heap: no buffer to allocate for a
  // replay of a few nodes); doubled as needed.
  private times = new Float64Array(8);
  private ties = new Float64Array(8);
  /** Entry number of each heap position; past `size`, the free entry numbers. */
  private entries = new Int32Array([0, 1, 2, 3, 4, 5, 6, 7]);
  private as = new Int32Array(8);
  private bs = new Int32Array(8);
  private payloads: (T | null)[] = [];
  size = 0;
  /** The last popped event's fields. */
  a = 0;
  b = 0;
  payload: T | null = null;

  /** Time of the earliest event (size > 0). */
  topTime(): number {
    return this.times[0];
  }

  push(t: number, tie: number, a: number, b: number, payload: T | null): void {
    if (this.size === this.times.length) this.grow();
    const { times, ties, entries } = this;
    let i = this.size++;
    const e = entries[i];
    this.as[e] = a;
    this.bs[e] = b;
    this.payloads[e] = payload;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const tp = times[p];
      if (tp < t || (tp === t && ties[p] < tie)) break;
      times[i] = tp;
      ties[i] = ties[p];
      entries[i] = entries[p];
      i = p;
    }
    times[i] = t;
    ties[i] = tie;
    entries[i] = e;
  }

  /** Removes the earliest event; its fields are then in a, b and payload. */
  pop(): void {
    const { times, ties, entries } = this;
    const top = entries[0];
    this.a = this.as[top];
    this.b = this.bs[top];
    this.payload = this.payloads[top];
    this.payloads[top] = null;
    const n = --this.size;
    const t = times[n];
    const tie = ties[n];
    const e = entries[n];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      const r = c + 1;
      if (r < n && (times[r] < times[c] || (times[r] === times[c] && ties[r] < ties[c]))) c = r;
      const tc = times[c];
      if (tc > t || (tc === t && ties[c] > tie)) break;
      times[i] = tc;
      ties[i] = ties[c];
      entries[i] = entries[c];
      i = c;
    }
    times[i] = t;
    ties[i] = tie;
    entries[i] = e;
    entries[n] = top;
  }

  private grow(): void {
    const old = this.times.length;
    const n = old * 2;
    const f64 = (x: Float64Array) => {
      const y = new Float64Array(n);
      y.set(x);
      return y;
    };
    const i32 = (x: Int32Array) => {
      const y = new Int32Array(n);
      y.set(x);
      return y;
    };
    this.times = f64(this.times);
    this.ties = f64(this.ties);
    this.as = i32(this.as);
    this.bs = i32(this.bs);
    this.entries = i32(this.entries);
    for (let i = old; i < n; i++) this.entries[i] = i;
  }
}

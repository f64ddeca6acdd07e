/**
 * A queue of timed events, earliest first; events at the same time in the order of their `tie` number (the
 * replay passes the push order, a collective's chunk scheduler its chunk and member). Entries live in typed arrays
 * (no object per event); pop() leaves the removed entry's fields in `a`, `b` and `payload`.
 */
export class TimeQueue<T> {
  private times = new Float64Array(64);
  private ties = new Float64Array(64);
  private as = new Int32Array(64);
  private bs = new Int32Array(64);
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
    const { times, ties } = this;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p] < t || (times[p] === t && ties[p] < tie)) break;
      this.move(i, p);
      i = p;
    }
    this.set(i, t, tie, a, b, payload);
  }

  /** Removes the earliest event; its fields are then in a, b and payload. */
  pop(): void {
    const { times, ties } = this;
    this.a = this.as[0];
    this.b = this.bs[0];
    this.payload = this.payloads[0];
    const n = --this.size;
    const t = times[n];
    const tie = ties[n];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (times[r] < times[l] || (times[r] === times[l] && ties[r] < ties[l])) ? r : l;
      if (times[c] > t || (times[c] === t && ties[c] > tie)) break;
      this.move(i, c);
      i = c;
    }
    this.set(i, t, tie, this.as[n], this.bs[n], this.payloads[n]);
    this.payloads[n] = null;
  }

  private move(to: number, from: number): void {
    this.set(to, this.times[from], this.ties[from], this.as[from], this.bs[from], this.payloads[from]);
  }

  private set(i: number, t: number, tie: number, a: number, b: number, payload: T | null): void {
    this.times[i] = t;
    this.ties[i] = tie;
    this.as[i] = a;
    this.bs[i] = b;
    this.payloads[i] = payload;
  }

  private grow(): void {
    const n = this.times.length * 2;
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
  }
}

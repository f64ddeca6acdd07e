/**
 * Values memoised by a pair of numbers (a node's num_ops and tensor_size), starting over once `limit` pairs are
 * held, so that a trace of ever-new pairs cannot grow it without bound.
 */
export class PairMemo<T> {
  private map = new Map<number, Map<number, T>>();
  private size = 0;

  constructor(private readonly limit: number) {}

  get(a: number, b: number): T | undefined {
    return this.map.get(a)?.get(b);
  }

  set(a: number, b: number, v: T): void {
    if (this.size >= this.limit) this.clear();
    let inner = this.map.get(a);
    if (!inner) {
      inner = new Map();
      this.map.set(a, inner);
    }
    inner.set(b, v);
    this.size++;
  }

  clear(): void {
    this.map = new Map();
    this.size = 0;
  }
}

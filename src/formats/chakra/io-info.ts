/**
 * Lazily decoded IOInfo. Its three strings (Python-repr tensor lists) are most of a PyTorch node's
 * bytes and few consumers read them, so decode only checks their structure and UTF-8 (errors keep
 * their byte offsets) and keeps a copy of the bytes (slab.ts); the strings are made on first access. An
 * IOInfo that was never modified is re-encoded from those bytes.
 */
import type { IOInfo, Lossless } from './types.js';

export class LazyIOInfo implements IOInfo {
  private loaded = false;
  private dirty = false;
  private v = '';
  private s = '';
  private t = '';
  private l: Lossless | undefined;

  constructor(
    /** The IOInfo message is raw[start, end). */
    private readonly raw: Buffer,
    private readonly start: number,
    private readonly end: number,
    private readonly decode: (raw: Buffer, start: number, end: number) => IOInfo,
  ) {}

  private load(): void {
    if (this.loaded) return;
    const io = this.decode(this.raw, this.start, this.end);
    this.v = io.values;
    this.s = io.shapes;
    this.t = io.types;
    this.l = io.lossless;
    this.loaded = true;
  }

  /** The original bytes while nothing was changed, else null (encode canonically). */
  unmodifiedBytes(): Buffer | null {
    return this.dirty ? null : this.raw.subarray(this.start, this.end);
  }

  get values(): string {
    this.load();
    return this.v;
  }
  set values(x: string) {
    this.load();
    this.v = x;
    this.dirty = true;
  }
  get shapes(): string {
    this.load();
    return this.s;
  }
  set shapes(x: string) {
    this.load();
    this.s = x;
    this.dirty = true;
  }
  get types(): string {
    this.load();
    return this.t;
  }
  set types(x: string) {
    this.load();
    this.t = x;
    this.dirty = true;
  }
  get lossless(): Lossless | undefined {
    this.load();
    return this.l;
  }
  set lossless(x: Lossless | undefined) {
    this.load();
    this.l = x;
    this.dirty = true;
  }

  toJSON(): IOInfo {
    return { values: this.values, shapes: this.shapes, types: this.types, ...(this.lossless ? { lossless: this.lossless } : {}) };
  }
}

/**
 * Lazily decoded IOInfo. Its three strings (Python-repr tensor lists) are most of a PyTorch node's
 * bytes and few consumers read them, so decode only checks their structure and UTF-8 (errors keep
 * their byte offsets) and keeps a copy of the bytes (slab.ts); the strings are made on first access. An
 * IOInfo that was never modified is re-encoded from those bytes.
 */
import type { IOInfo, Lossless } from './types.js';

export class LazyIOInfo implements IOInfo {
  /** The decoded message, once read; `dirty` once changed. Few fields: two of these exist per node. */
  private io: IOInfo | null = null;
  private dirty = false;

  constructor(
    /** The IOInfo message is raw[start, end). */
    private readonly raw: Buffer,
    private readonly start: number,
    private readonly end: number,
    private readonly decode: (raw: Buffer, start: number, end: number) => IOInfo,
  ) {}

  private load(): IOInfo {
    return (this.io ??= this.decode(this.raw, this.start, this.end));
  }

  private change(): IOInfo {
    this.dirty = true;
    return this.load();
  }

  /** The original bytes while nothing was changed, else null (encode canonically). */
  unmodifiedBytes(): Buffer | null {
    return this.dirty ? null : this.raw.subarray(this.start, this.end);
  }

  get values(): string {
    return this.load().values;
  }
  set values(x: string) {
    this.change().values = x;
  }
  get shapes(): string {
    return this.load().shapes;
  }
  set shapes(x: string) {
    this.change().shapes = x;
  }
  get types(): string {
    return this.load().types;
  }
  set types(x: string) {
    this.change().types = x;
  }
  get lossless(): Lossless | undefined {
    return this.load().lossless;
  }
  set lossless(x: Lossless | undefined) {
    this.change().lossless = x;
  }

  toJSON(): IOInfo {
    return { values: this.values, shapes: this.shapes, types: this.types, ...(this.lossless ? { lossless: this.lossless } : {}) };
  }
}

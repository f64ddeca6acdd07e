/**
 * IOInfo: its structural check, its decoder, and the lazily decoded form the Node decoder hands out. Its three
 * strings (Python-repr tensor lists) are most of a PyTorch node's bytes and few consumers read them, so decode
 * only checks their structure and UTF-8 (errors keep their byte offsets) and keeps a copy of the bytes (slab.ts);
 * the strings are made on first access. An IOInfo that was never modified is re-encoded from those bytes.
 */
import { keepUnknown, markExplicit, wrongWire } from './decode-attribute.js';
import type { IOInfo, Lossless } from './types.js';
import { WIRE_LEN, WireCursor } from './cursor.js';

const FIELD_NAMES = ['', 'values', 'shapes', 'types'];

/** Checks an IOInfo's structure and UTF-8 without building its strings; leaves the cursor at `end`. */
export function checkIOInfo(c: WireCursor, start: number, end: number): void {
  walkIOInfo(c, start, end, null);
}

export function decodeIOInfo(c: WireCursor, start: number, end: number): IOInfo {
  const io: IOInfo = { values: '', shapes: '', types: '' };
  const lossless = walkIOInfo(c, start, end, io);
  if (lossless) io.lossless = lossless;
  return io;
}

/** One pass over an IOInfo: fills `io` (and returns what re-encoding needs) or, without it, only checks. */
function walkIOInfo(c: WireCursor, start: number, end: number, io: IOInfo | null): Lossless | undefined {
  let lossless: Lossless | undefined;
  c.pos = start;
  while (c.nextField(end)) {
    const { field, wireType: wt, tagPos } = c;
    if (field >= 1 && field <= 3) {
      if (wt !== WIRE_LEN) throw wrongWire(tagPos, 'IOInfo', field, FIELD_NAMES[field], wt, '2');
      if (!io) {
        c.checkString(end);
        continue;
      }
      const s = c.string(end);
      if (field === 1) io.values = s;
      else if (field === 2) io.shapes = s;
      else io.types = s;
      if (s === '') lossless = markExplicit(lossless, field);
    } else {
      c.skipField(end);
      if (io) lossless = keepUnknown(lossless, field, c.buf, tagPos, c.pos);
    }
  }
  return lossless;
}

export class LazyIOInfo implements IOInfo {
  /** The decoded message, once read; `dirty` once changed. Few fields: two of these exist per node. */
  private io: IOInfo | null = null;
  private dirty = false;

  constructor(
    /** The IOInfo message is raw[start, end). */
    private readonly raw: Buffer,
    private readonly start: number,
    private readonly end: number,
  ) {}

  private load(): IOInfo {
    return (this.io ??= decodeIOInfo(new WireCursor(this.raw), this.start, this.end));
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
    return {
      values: this.values,
      shapes: this.shapes,
      types: this.types,
      ...(this.lossless ? { lossless: this.lossless } : {}),
    };
  }
}

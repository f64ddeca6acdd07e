/**
 * Chrome / Perfetto trace-event JSON (the "JSON Object Format" with a traceEvents array).
 * Timestamps and durations are in microseconds, as the format specifies. Complete events ("X")
 * on one (pid, tid) must nest, so callers give each rank × slot its own track; counter events
 * ("C") draw a value track such as power.
 *
 * Exact times: callers give integer nanoseconds; the file holds µs with at most 3 decimals (ns / 1000,
 * which JSON prints as exactly that decimal). Viewers add `ts + dur` in floating point, and for some
 * integers fl(s/1000 + d/1000) is one unit in the last place above fl((s + d)/1000): a slice that ends
 * where the next begins would then seem to overlap it (speedscope nests the next slice inside). Such a
 * slice is written 1 ns shorter (`dur` − 0.001), so that `ts + dur` never passes its true end; its
 * exact integer times stay in `args.startNs` / `args.endNs`.
 */
import type { WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { OutputSet, outputError, TEMP_OPEN_FLAGS } from '../output.js';

export interface CompleteEvent {
  name: string;
  pid: number;
  tid: number;
  /** Start, integer ns (rounded here if not). */
  startNs: number;
  /** End, integer ns (rounded here if not); not before the start. */
  endNs: number;
  cat?: string;
  args?: Record<string, string | number>;
}
export interface CounterEvent {
  name: string;
  pid: number;
  /** Integer ns (rounded here if not). */
  tsNs: number;
  values: Record<string, number>;
}

/**
 * `ts` and `dur` in µs (3 decimals at most) of a slice from `startNs` to `endNs`, such that a viewer's
 * floating-point `ts + dur` is at most `endNs / 1000`: never past the start of a slice that begins at its end.
 */
export function exactSlice(
  startNs: number,
  endNs: number,
): { ts: number; dur: number; startNs: number; endNs: number } {
  const s = Math.round(startNs);
  const e = Math.max(s, Math.round(endNs));
  if (!Number.isSafeInteger(e)) throw new RangeError(`trace-event time ${endNs} ns is not a safe integer`);
  const ts = s / 1000;
  const end = e / 1000;
  let d = e - s;
  while (d > 0 && ts + d / 1000 > end) d--;
  return { ts, dur: d / 1000, startNs: s, endNs: e };
}

/** Events are joined into chunks of about this many characters before they go to the file. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Streams events to the file's temporary name (renamed to `file` by close(), removed by abort()), so a long replay
 * never holds
 * the whole timeline in memory: when the file stream is full, {@link pending} returns a promise that resolves once it
 * has drained, and callers await it before producing more events.
 */
export class TraceEventWriter {
  private chunk = '';
  private first = true;
  private failed: unknown;
  private drained: Promise<void> | undefined;

  private constructor(
    readonly file: string,
    private readonly set: OutputSet,
    private readonly out: WriteStream,
  ) {
    out.on('error', (e) => {
      this.failed ??= e;
    });
    this.chunk = '{"displayTimeUnit":"ns","traceEvents":[\n';
  }

  /** Creates the file's folder and its temporary file (locked); an unwritable path is an InputError naming `file`. */
  static async create(file: string): Promise<TraceEventWriter> {
    const set = OutputSet.open(file);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(set.file(file), TEMP_OPEN_FLAGS);
    } catch (e) {
      set.discard();
      throw outputError(file, e);
    }
    return new TraceEventWriter(file, set, handle.createWriteStream());
  }

  private write(obj: unknown): void {
    this.chunk += (this.first ? '' : ',\n') + JSON.stringify(obj);
    this.first = false;
    if (this.chunk.length >= CHUNK_CHARS) this.flush();
  }

  private flush(): void {
    if (!this.chunk) return;
    const more = this.out.write(this.chunk);
    this.chunk = '';
    if (!more && !this.drained) {
      this.drained = new Promise<void>((resolve) => {
        const done = () => {
          this.out.off('drain', done);
          this.out.off('close', done);
          this.drained = undefined;
          resolve();
        };
        this.out.on('drain', done);
        this.out.on('close', done);
      });
    }
  }

  /**
   * A promise to await before writing more when the file is behind (back-pressure), otherwise undefined.
   * Rejects with the write error when writing has failed.
   */
  pending(): Promise<void> | undefined {
    if (this.failed !== undefined) return Promise.reject(outputError(this.file, this.failed));
    return this.drained;
  }

  processName(pid: number, name: string): void {
    this.write({ ph: 'M', name: 'process_name', pid, tid: 0, args: { name } });
  }

  threadName(pid: number, tid: number, name: string): void {
    this.write({ ph: 'M', name: 'thread_name', pid, tid, args: { name } });
  }

  complete(e: CompleteEvent): void {
    const { ts, dur, startNs, endNs } = exactSlice(e.startNs, e.endNs);
    this.write({
      ph: 'X',
      name: e.name,
      cat: e.cat ?? '',
      pid: e.pid,
      tid: e.tid,
      ts,
      dur,
      args: { ...e.args, startNs, endNs },
    });
  }

  counter(e: CounterEvent): void {
    this.write({ ph: 'C', name: e.name, pid: e.pid, tid: 0, ts: Math.round(e.tsNs) / 1000, args: e.values });
  }

  /** Ends the JSON document and renames `<file>.tmp` to `file`. */
  async close(): Promise<void> {
    this.chunk += '\n]}\n';
    this.flush();
    await this.finish();
    if (this.failed !== undefined) {
      this.set.discard();
      throw outputError(this.file, this.failed);
    }
    this.set.commit();
  }

  /** Stops writing and removes the temporary file (after a failed replay). */
  async abort(): Promise<void> {
    this.chunk = '';
    await this.finish();
    this.set.discard();
  }

  /** Ends the file stream and waits until it has closed; a write error (reported late, e.g. ENOSPC) is kept. */
  private async finish(): Promise<void> {
    if (!this.out.closed) this.out.end();
    await finished(this.out).catch((e: unknown) => {
      this.failed ??= e;
    });
  }
}

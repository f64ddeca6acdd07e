/**
 * Chrome / Perfetto trace-event JSON (the "JSON Object Format" with a traceEvents array).
 * Timestamps and durations are in microseconds, as the format specifies. Complete events ("X")
 * on one (pid, tid) must nest, so callers give each rank × slot its own track; counter events
 * ("C") draw a value track such as power.
 */
import type { WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { OutputSet, outputError } from '../output.js';

export interface CompleteEvent {
  name: string;
  pid: number;
  tid: number;
  tsUs: number;
  durUs: number;
  cat?: string;
  args?: Record<string, string | number>;
}
export interface CounterEvent {
  name: string;
  pid: number;
  tsUs: number;
  values: Record<string, number>;
}

/** Events are joined into chunks of about this many characters before they go to the file. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Streams events to the file's temporary name (renamed to `file` by close(), removed by abort()), so a long replay never holds
 * the whole timeline in memory: when the file stream is full, {@link pending} returns a promise that resolves once it
 * has drained, and callers await it before producing more events.
 */
export class TraceEventWriter {
  private chunk = '';
  private first = true;
  private failed: unknown;
  private drained: Promise<void> | undefined;

  private constructor(readonly file: string, private readonly set: OutputSet, private readonly out: WriteStream) {
    out.on('error', (e) => {
      this.failed ??= e;
    });
    this.chunk = '{"displayTimeUnit":"ns","traceEvents":[\n';
  }

  /** Creates the file's folder and its temporary file (locked); an unwritable path is an InputError naming `file`. */
  static async create(file: string): Promise<TraceEventWriter> {
    const set = OutputSet.open(file);
    let handle;
    try {
      handle = await open(set.file(file), 'w');
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
    this.write({ ph: 'X', name: e.name, cat: e.cat ?? '', pid: e.pid, tid: e.tid, ts: e.tsUs, dur: e.durUs, ...(e.args ? { args: e.args } : {}) });
  }

  counter(e: CounterEvent): void {
    this.write({ ph: 'C', name: e.name, pid: e.pid, tid: 0, ts: e.tsUs, args: e.values });
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

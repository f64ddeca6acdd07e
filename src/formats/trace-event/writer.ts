/**
 * Chrome / Perfetto trace-event JSON (the "JSON Object Format" with a traceEvents array).
 * Timestamps and durations are in microseconds, as the format specifies. Complete events ("X")
 * on one (pid, tid) must nest, so callers give each rank × slot its own track; counter events
 * ("C") draw a value track such as power.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

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

/** Streams events to a file so a long replay never holds the whole timeline as one string. */
export class TraceEventWriter {
  private readonly out;
  private first = true;

  constructor(readonly file: string) {
    this.out = createWriteStream(file);
    this.out.write('{"displayTimeUnit":"ns","traceEvents":[\n');
  }

  private write(obj: unknown): void {
    this.out.write((this.first ? '' : ',\n') + JSON.stringify(obj));
    this.first = false;
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

  async close(): Promise<void> {
    this.out.end('\n]}\n');
    await once(this.out, 'finish');
  }
}

/**
 * The measured iteration of a Kineto trace, computed here from the raw JSON on its own (not through tracewatt's
 * reader): the longest ProfilerStep#N (or the one named) from its start to the later of its end and the end of the
 * last kernel / gpu_memcpy / gpu_memset that starts inside it, in ns. Stamps are read from the text as decimals, so
 * fractional µs stamps of ~1e12–1e15 µs are exact to the ns.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** Every "ts" / "dur" of the file's events as exact integer ns, by event index (JSON.parse rounds large stamps). */
function exactNs(text: string): { ts: bigint[]; dur: bigint[] } {
  const ts: bigint[] = [];
  const dur: bigint[] = [];
  const toNs = (s: string) => {
    const [w, f = ''] = s.split('.');
    return BigInt(w!) * 1000n + BigInt(`${f}000`.slice(0, 3));
  };
  // One event per object: its own "ts" and "dur" are the first in it (args hold none in PyTorch's traces).
  const events = text.slice(text.indexOf('"traceEvents"')).split(/\}\s*,\s*\{\s*"/);
  for (const e of events) {
    const t = /"ts"\s*:\s*(\d+(?:\.\d+)?)/.exec(e);
    const d = /"dur"\s*:\s*(\d+(?:\.\d+)?)/.exec(e);
    ts.push(t ? toNs(t[1]!) : -1n);
    dur.push(d ? toNs(d[1]!) : 0n);
  }
  return { ts, dur };
}

export interface RawIteration {
  step: string;
  ns: number;
}

export function rawMeasuredIteration(file: string, step?: string): RawIteration | null {
  const buf = readFileSync(file);
  const text = (buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf).toString('utf8');
  const events = (JSON.parse(text) as { traceEvents: { ph?: string; cat?: string; name?: string }[] }).traceEvents;
  const { ts, dur } = exactNs(text);
  if (ts.length !== events.length)
    throw new Error(`${file}: could not split the events (${ts.length} vs ${events.length})`);
  let best = -1;
  events.forEach((e, i) => {
    if (e.ph !== 'X' || e.cat !== 'user_annotation' || !/^ProfilerStep#\d+$/.test(e.name ?? '')) return;
    if (step !== undefined ? e.name === step : best < 0 || dur[i]! > dur[best]!) best = i;
  });
  if (best < 0) return null;
  const start = ts[best]!;
  const end = start + dur[best]!;
  let last = end;
  events.forEach((e, i) => {
    if (
      e.ph === 'X' &&
      (e.cat === 'kernel' || e.cat === 'gpu_memcpy' || e.cat === 'gpu_memset') &&
      ts[i]! >= start &&
      ts[i]! < end &&
      ts[i]! + dur[i]! > last
    )
      last = ts[i]! + dur[i]!;
  });
  return { step: events[best]!.name!, ns: Number(last - start) };
}

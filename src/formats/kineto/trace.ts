/**
 * Kineto / PyTorch-profiler traces (`torch.profiler` trace-event JSON, `.json` or `.json.gz`), streamed one event at a
 * time (json-stream.ts) into the parts tracewatt uses: host operators (cpu_op, user_annotation), CUDA runtime and
 * driver calls (the launches, keyed by correlation id), GPU activity (kernel, gpu_memcpy, gpu_memset), CUPTI
 * range-profiler counter ranges (cuda_profiler_range), ProfilerStep annotations, device properties and the
 * distributed rank. Everything else (python_function stacks, flows, metadata, spans) is counted and skipped.
 *
 * Times: Kineto writes µs since the Unix epoch, integers or with a fractional part. A float cannot hold such a stamp
 * to the ns, so each event's time is kept as ns relative to the trace's first stamp (`baseUs`, an exact integer),
 * taken from the event's text when it has a fraction.
 */
import { FormatError } from '../../errors.js';
import { parseElement, readJsonPieces } from '../json-stream.js';

export type GpuEventKind = 'kernel' | 'memcpy' | 'memset';

export interface KinetoCpuOp {
  name: string;
  cat: 'cpu_op' | 'user_annotation';
  pid: number | string;
  tid: number | string;
  tsNs: number;
  durNs: number;
  /** args["External id"]: the profiler's record-function sequence number. */
  externalId: number | null;
  /** args["Record function id"] (newer Kineto): equals the execution trace's rf_id. */
  recordFunctionId: number | null;
  /** Order in the file. */
  index: number;
}

export interface KinetoLaunch {
  name: string;
  tid: number | string;
  tsNs: number;
  durNs: number;
  correlation: number;
  externalId: number | null;
}

export interface KinetoGpuEvent {
  kind: GpuEventKind;
  name: string;
  device: number | null;
  stream: number | null;
  correlation: number | null;
  externalId: number | null;
  tsNs: number;
  durNs: number;
  /** Bytes moved or set (memcpy/memset). */
  bytes: number | null;
  /** Counter values from a CUPTI range with this kernel's name, when the trace has them. */
  counters?: Record<string, number>;
  index: number;
}

export interface KinetoStep {
  name: string;
  step: number;
  tsNs: number;
  durNs: number;
}

export interface KinetoDevice {
  id: number;
  name: string;
  [property: string]: unknown;
}

export interface KinetoTrace {
  file: string;
  /** Integer µs stamp all tsNs are relative to (µs since the Unix epoch in PyTorch's traces). */
  baseUs: number;
  devices: KinetoDevice[];
  /** distributedInfo: rank, world_size, backend (when the run was distributed). */
  distributed: { rank: number | null; worldSize: number | null; backend: string | null; raw: Record<string, unknown> } | null;
  cpuOps: KinetoCpuOp[];
  launches: Map<number, KinetoLaunch>;
  gpu: KinetoGpuEvent[];
  steps: KinetoStep[];
  /** Counter ranges (cuda_profiler_range) by kernel name, in order. */
  counterRanges: Map<string, Record<string, number>[]>;
  /** Events read and skipped, by category. */
  skipped: Map<string, number>;
  notes: string[];
  /** Top-level keys other than traceEvents, kept as read (schemaVersion, record_shapes, traceName, …). */
  meta: Record<string, unknown>;
}

export interface ReadKinetoOptions {
  /** false: only GPU activity, device properties and counters (the profile reader); default true. */
  hostEvents?: boolean;
}

const GPU_KIND: Record<string, GpuEventKind> = { kernel: 'kernel', gpu_memcpy: 'memcpy', gpu_memset: 'memset' };
const STEP = /^ProfilerStep#(\d+)$/;
const TS_TEXT = /"ts"\s*:\s*(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/;

type Ev = { ph?: unknown; cat?: unknown; name?: unknown; pid?: unknown; tid?: unknown; ts?: unknown; dur?: unknown; args?: Record<string, unknown> };

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function intArg(args: Record<string, unknown> | undefined, key: string): number | null {
  const v = args?.[key];
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : null;
}

/** A decimal µs stamp's exact integer µs and fraction in ns, from its sign, digits, fraction and exponent. */
function exactMicros(m: RegExpExecArray): { us: number; fracNs: number } {
  const digits = m[2]! + (m[3] ?? '');
  const point = m[2]!.length + Number(m[4] ?? 0);
  const whole = point <= 0 ? '0' : point >= digits.length ? digits + '0'.repeat(point - digits.length) : digits.slice(0, point);
  const frac = point <= 0 ? '0'.repeat(-point) + digits : point >= digits.length ? '' : digits.slice(point);
  const sign = m[1] === '-' ? -1 : 1;
  return { us: sign * Number(whole), fracNs: sign * Math.round(Number(`0.${frac || '0'}`) * 1000) };
}

/** True when the first 64 KB of text look like a Kineto trace (a JSON object with traceEvents / schemaVersion). */
export function looksLikeKineto(head: string): boolean {
  const t = head.trimStart();
  return t.startsWith('{') && (/"traceEvents"\s*:/.test(t) || (/"schemaVersion"\s*:/.test(t) && /"deviceProperties"\s*:/.test(t)));
}

/** Reads a Kineto trace. Bad JSON is a FormatError with the byte offset; an event without ts/dur is one too. */
export async function readKinetoTrace(file: string, options: ReadKinetoOptions = {}): Promise<KinetoTrace> {
  const host = options.hostEvents ?? true;
  const trace: KinetoTrace = {
    file, baseUs: NaN, devices: [], distributed: null, cpuOps: [], launches: new Map(), gpu: [], steps: [],
    counterRanges: new Map(), skipped: new Map(), notes: [], meta: {},
  };
  let sawEvents = false;
  let duplicateCorrelations = 0;
  const skip = (cat: string) => trace.skipped.set(cat, (trace.skipped.get(cat) ?? 0) + 1);
  for await (const piece of readJsonPieces(file, new Set(['traceEvents']))) {
    if (piece.kind === 'value') {
      if (piece.key === 'deviceProperties' && Array.isArray(piece.value)) {
        for (const d of piece.value as Record<string, unknown>[]) {
          if (d && typeof d.id === 'number') trace.devices.push({ ...d, id: d.id, name: String(d.name ?? '') });
        }
      } else if (piece.key === 'distributedInfo' && piece.value && typeof piece.value === 'object') {
        const v = piece.value as Record<string, unknown>;
        const whole = (x: unknown) => (Number.isSafeInteger(x) && (x as number) >= 0 ? (x as number) : null);
        trace.distributed = { rank: whole(v.rank), worldSize: whole(v.world_size), backend: typeof v.backend === 'string' ? v.backend : null, raw: v };
      } else trace.meta[piece.key] = piece.value;
      continue;
    }
    if (piece.kind === 'array') {
      sawEvents = true;
      continue;
    }
    const ev = parseElement(file, piece) as Ev;
    if (!ev || typeof ev !== 'object') continue;
    const cat = typeof ev.cat === 'string' ? ev.cat : '';
    const kind = GPU_KIND[cat];
    const isHost = cat === 'cpu_op' || cat === 'user_annotation';
    const isLaunch = cat === 'cuda_runtime' || cat === 'cuda_driver';
    const isRange = cat === 'cuda_profiler_range';
    if (ev.ph !== 'X' || !(kind || isRange || (host && (isHost || isLaunch)))) {
      skip(cat || String(ev.ph ?? '?'));
      continue;
    }
    // Exact time: the integer µs and the fraction's ns, from the text when the number is not a whole one.
    let us: number;
    let fracNs = 0;
    if (typeof ev.ts === 'number' && Number.isSafeInteger(ev.ts)) us = ev.ts;
    else {
      const m = typeof ev.ts === 'number' ? TS_TEXT.exec(piece.text) : null;
      if (!m) throw new FormatError(file, `byte ${piece.offset}`, `event ${piece.index} ("${String(ev.name ?? '')}") has no numeric "ts"`);
      ({ us, fracNs } = exactMicros(m));
      if (!Number.isSafeInteger(us)) throw new FormatError(file, `byte ${piece.offset}`, `event ${piece.index}: ts ${m[0]} µs does not fit 2^53`);
      // The text read must be the value JSON.parse read (not a "ts" key nested in args, say).
      if (Math.abs(us + fracNs / 1000 - (ev.ts as number)) > 1) {
        throw new FormatError(file, `byte ${piece.offset}`, `event ${piece.index}: cannot read "ts" exactly from its text (${m[0]}; parsed ${String(ev.ts)})`);
      }
    }
    const dur = num(ev.dur);
    if (dur === null || dur < 0) throw new FormatError(file, `byte ${piece.offset}`, `event ${piece.index} ("${String(ev.name ?? '')}") has no non-negative "dur"`);
    if (Number.isNaN(trace.baseUs)) trace.baseUs = us;
    const tsNs = (us - trace.baseUs) * 1000 + fracNs;
    const durNs = Math.round(dur * 1000);
    const name = typeof ev.name === 'string' ? ev.name : '';
    const args = ev.args && typeof ev.args === 'object' ? ev.args : undefined;
    if (kind) {
      trace.gpu.push({
        kind, name, device: intArg(args, 'device'), stream: intArg(args, 'stream'), correlation: intArg(args, 'correlation'),
        externalId: intArg(args, 'External id'), tsNs, durNs, bytes: num(args?.bytes), index: piece.index,
      });
    } else if (isRange) {
      const counters: Record<string, number> = {};
      for (const [k, v] of Object.entries(args ?? {})) if (typeof v === 'number' && Number.isFinite(v)) counters[k] = v;
      const list = trace.counterRanges.get(name) ?? [];
      list.push(counters);
      trace.counterRanges.set(name, list);
    } else if (isHost) {
      const op: KinetoCpuOp = {
        name, cat: cat as KinetoCpuOp['cat'], pid: ev.pid as number, tid: ev.tid as number, tsNs, durNs,
        externalId: intArg(args, 'External id'), recordFunctionId: intArg(args, 'Record function id'), index: piece.index,
      };
      trace.cpuOps.push(op);
      const m = STEP.exec(name);
      if (m) trace.steps.push({ name, step: Number(m[1]), tsNs, durNs });
    } else {
      const correlation = intArg(args, 'correlation');
      if (correlation === null) {
        skip(`${cat} without correlation`);
        continue;
      }
      if (trace.launches.has(correlation)) duplicateCorrelations++;
      else trace.launches.set(correlation, { name, tid: ev.tid as number, tsNs, durNs, correlation, externalId: intArg(args, 'External id') });
    }
  }
  if (!sawEvents) throw new FormatError(file, '', 'no "traceEvents" array: not a Kineto / PyTorch profiler trace');
  if (Number.isNaN(trace.baseUs)) trace.baseUs = 0;
  if (duplicateCorrelations) trace.notes.push(`${duplicateCorrelations} runtime/driver calls repeat a correlation id already seen; the first was kept`);
  attachCounters(trace);
  return trace;
}

/** Counter ranges go to the kernels of the same name, i-th range to i-th kernel (CUPTI profiles kernels in order). */
function attachCounters(trace: KinetoTrace): void {
  if (trace.counterRanges.size === 0) return;
  const seen = new Map<string, number>();
  let attached = 0;
  for (const g of trace.gpu) {
    if (g.kind !== 'kernel') continue;
    const list = trace.counterRanges.get(g.name);
    if (!list) continue;
    const i = seen.get(g.name) ?? 0;
    seen.set(g.name, i + 1);
    if (i < list.length) {
      g.counters = list[i];
      attached++;
    }
  }
  const ranges = [...trace.counterRanges.values()].reduce((s, l) => s + l.length, 0);
  trace.notes.push(`${ranges} CUPTI counter ranges; ${attached} attached to the kernel of the same name in order`);
}

/** The trace's device properties for a device id, else null. */
export function deviceOf(trace: KinetoTrace, id: number | null): KinetoDevice | null {
  if (id === null) return trace.devices.length === 1 ? trace.devices[0]! : null;
  return trace.devices.find((d) => d.id === id) ?? null;
}

/** The device most GPU events ran on, or null when none says. */
export function mainDevice(trace: KinetoTrace): KinetoDevice | null {
  const counts = new Map<number, number>();
  for (const g of trace.gpu) if (g.device !== null) counts.set(g.device, (counts.get(g.device) ?? 0) + 1);
  const best = [...counts].sort((a, b) => b[1] - a[1])[0];
  return best ? deviceOf(trace, best[0]) ?? { id: best[0], name: '' } : trace.devices.length === 1 ? trace.devices[0]! : null;
}

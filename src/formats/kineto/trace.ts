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
import { excerpt, FormatError } from '../../errors.js';
import { describeJson, jsonPath, JsonShape, shortNumber } from '../json-shape.js';
import { CONFIG_LIMITS } from '../astra/parse.js';
import { type JsonPiece, parseElement, readJsonPieceBatches } from '../json-stream.js';
import { commArgsOf, exactId, streamOf, type CommArgs, type EventId } from './args.js';

export type { CommArgs, EventId } from './args.js';

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
  /** The collective this op describes (record_param_comms, nccl:*, c10d::* ops), else null. */
  comm: CommArgs | null;
  /** Order in the file. */
  index: number;
}

/** A CUDA / HIP runtime or driver call (cudaLaunchKernel, cudaStreamSynchronize, hipLaunchKernel, …). */
export interface KinetoLaunch {
  name: string;
  tid: number | string;
  tsNs: number;
  durNs: number;
  correlation: EventId;
  externalId: number | null;
  /** args.stream when the call records it (ROCm does), else null. */
  stream: number | null;
  index: number;
}

/**
 * A `cuda_sync` event (newer Kineto): what a synchronisation call waited for. `kind`: "Stream Sync",
 * "Event Sync", "Context Sync" or "Stream Wait Event"; the ids tie it to its runtime call and to the cudaEventRecord
 * whose event it waits on.
 */
export interface KinetoSync {
  kind: string;
  correlation: EventId | null;
  /** The stream that waits (Stream Sync, Stream Wait Event); null or -1 when the host waits. */
  stream: number | null;
  /** The stream the awaited event was recorded on. */
  waitOnStream: number | null;
  /** Correlation id of the cudaEventRecord call of the awaited event. */
  waitOnRecordCorrelation: EventId | null;
  tsNs: number;
  durNs: number;
}

export interface KinetoGpuEvent {
  kind: GpuEventKind;
  name: string;
  device: number | null;
  stream: number | null;
  correlation: EventId | null;
  externalId: number | null;
  tsNs: number;
  durNs: number;
  /** Bytes moved or set (memcpy/memset). */
  bytes: number | null;
  /** Communication arguments newer Kineto writes on NCCL kernels, else null. */
  comm: CommArgs | null;
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
  distributed: {
    rank: number | null;
    worldSize: number | null;
    backend: string | null;
    raw: Record<string, unknown>;
  } | null;
  cpuOps: KinetoCpuOp[];
  /** The first runtime/driver call of each correlation id. */
  launches: Map<EventId, KinetoLaunch>;
  /** Every runtime/driver call with a correlation id, in file order. */
  runtime: KinetoLaunch[];
  /** cuda_sync events (newer Kineto), in file order. */
  syncs: KinetoSync[];
  /** Events dropped as exact repeats of another (same category, name, thread, start, duration and ids). */
  duplicates: number;
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
/**
 * Categories older Kineto (PyTorch 1.8–1.9, libkineto's first ChromeTraceLogger) wrote, and the names it writes now:
 * GPU kernels as "Kernel", copies as "Memcpy" / "Memset", CUDA runtime calls as "Runtime", host operators as
 * "Operator". Read as their current names (counted in a note).
 */
export const LEGACY_CATEGORIES: Record<string, string> = {
  Kernel: 'kernel',
  Memcpy: 'gpu_memcpy',
  Memset: 'gpu_memset',
  Runtime: 'cuda_runtime',
  Operator: 'cpu_op',
};
/** The longest event duration read, µs (a week): longer is a broken file, and would not stay exact in ns. */
export const MAX_EVENT_DURATION_US = 604_800_000_000;
/** How far (µs) an event may start from the trace's first one: the same week. */
const MAX_EVENT_OFFSET_US = MAX_EVENT_DURATION_US;
const STEP = /^ProfilerStep#(\d+)$/;
const CAT_TEXT =
  /^\{\s*(?:"(?:ph|name|pid|tid|ts|dur|id)"\s*:\s*(?:"[^"\\]*"|[-\d.eE+]+)\s*,\s*)*"cat"\s*:\s*"([^"\\]*)"/;
const GPU_CATS = new Set(['kernel', 'gpu_memcpy', 'gpu_memset', 'cuda_profiler_range', 'Kernel', 'Memcpy', 'Memset']);
const HOST_CATS = new Set([
  ...GPU_CATS,
  'cpu_op',
  'user_annotation',
  'cuda_runtime',
  'cuda_driver',
  'cuda_sync',
  'Runtime',
  'Operator',
]);
const TS_TEXT = /"ts"\s*:\s*(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/;

type Ev = {
  ph?: unknown;
  cat?: unknown;
  name?: unknown;
  pid?: unknown;
  tid?: unknown;
  ts?: unknown;
  dur?: unknown;
  args?: Record<string, unknown>;
};

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function intArg(args: Record<string, unknown> | undefined, key: string): number | null {
  const v = args?.[key];
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : null;
}

/** args["External id"] (older Kineto writes "external id" on GPU events and runtime calls). */
const externalIdOf = (args: Record<string, unknown> | undefined) =>
  intArg(args, 'External id') ?? intArg(args, 'external id');

/**
 * distributedInfo: rank and world_size must be whole numbers below 2^53 (rank ≥ 0, world_size from 1 to the most ranks
 * replay takes, CONFIG_LIMITS.npus) when present; anything else ("zero", −1, 1.5, 2^53 + 1) is a FormatError naming the
 * value, never read as rank 0.
 */
function distributedOf(file: string, v: Record<string, unknown>): NonNullable<KinetoTrace['distributed']> {
  const c = new JsonShape(file);
  const whole = (key: string, min: number, max: number | null): number | null => {
    const x = v[key];
    if (x === undefined || x === null) return null;
    if (typeof x === 'number' && Number.isSafeInteger(x) && x >= min && (max === null || x <= max)) return x;
    const why =
      typeof x === 'number' && Number.isInteger(x) && Math.abs(x) > Number.MAX_SAFE_INTEGER
        ? ' (at or beyond 2^53: not exact)'
        : '';
    const range = max === null ? `from ${min} to 2^53 − 1` : `from ${min} to ${max} ranks (the most tracewatt replays)`;
    return c.fail(jsonPath('distributedInfo', key), `expected a whole number ${range}, found ${describeJson(x)}${why}`);
  };
  return {
    rank: whole('rank', 0, null),
    worldSize: whole('world_size', 1, CONFIG_LIMITS.npus.max),
    backend: typeof v.backend === 'string' ? v.backend : null,
    raw: v,
  };
}

type ElementPiece = Extract<JsonPiece, { kind: 'element' }>;

/** How an event is named in a message (built only when one is thrown). */
function eventLabel(piece: ElementPiece, ev: Ev): string {
  return `event ${piece.index} ("${excerpt(String(ev.name ?? ''))}")`;
}

/** A host event's process or thread: an integer, or a label string (Kineto writes both). */
function threadOf(file: string, piece: ElementPiece, ev: Ev, key: 'pid' | 'tid'): number | string {
  const v = ev[key];
  if ((typeof v === 'number' && Number.isSafeInteger(v)) || typeof v === 'string') return v;
  throw new FormatError(
    file,
    `byte ${piece.offset}`,
    `${eventLabel(piece, ev)}: "${key}" must be an integer below 2^53 or a string, found ` +
      (v === undefined
        ? 'nothing'
        : typeof v === 'number'
          ? shortNumber(v)
          : (JSON.stringify(v)?.slice(0, 40) ?? typeof v)),
  );
}

/** A decimal µs stamp's exact integer µs and fraction in ns, from its sign, digits, fraction and exponent. */
function exactMicros(m: RegExpExecArray): { us: number; fracNs: number } {
  const digits = m[2]! + (m[3] ?? '');
  const point = m[2]!.length + Number(m[4] ?? 0);
  const whole =
    point <= 0 ? '0' : point >= digits.length ? digits + '0'.repeat(point - digits.length) : digits.slice(0, point);
  const frac = point <= 0 ? '0'.repeat(-point) + digits : point >= digits.length ? '' : digits.slice(point);
  const sign = m[1] === '-' ? -1 : 1;
  return { us: sign * Number(whole), fracNs: sign * Math.round(Number(`0.${frac || '0'}`) * 1000) };
}

/** True when the first 64 KB of text look like a Kineto trace (a JSON object with traceEvents / schemaVersion). */
export function looksLikeKineto(head: string): boolean {
  const t = head.trimStart();
  return (
    t.startsWith('{') &&
    (/"traceEvents"\s*:/.test(t) || (/"schemaVersion"\s*:/.test(t) && /"deviceProperties"\s*:/.test(t)))
  );
}

/** Reads a Kineto trace. Bad JSON is a FormatError with the byte offset; an event without ts/dur is one too. */
export async function readKinetoTrace(file: string, options: ReadKinetoOptions = {}): Promise<KinetoTrace> {
  const host = options.hostEvents ?? true;
  const trace: KinetoTrace = {
    file,
    baseUs: NaN,
    devices: [],
    distributed: null,
    cpuOps: [],
    launches: new Map(),
    runtime: [],
    syncs: [],
    duplicates: 0,
    gpu: [],
    steps: [],
    counterRanges: new Map(),
    skipped: new Map(),
    notes: [],
    meta: {},
  };
  let sawEvents = false;
  let duplicateCorrelations = 0;
  const legacy = new Map<string, number>();
  const skip = (cat: string) => trace.skipped.set(cat, (trace.skipped.get(cat) ?? 0) + 1);
  for await (const batch of readJsonPieceBatches(file, new Set(['traceEvents'])))
    for (const piece of batch) {
      if (piece.kind === 'value') {
        if (piece.key === 'deviceProperties' && Array.isArray(piece.value)) {
          for (const d of piece.value as Record<string, unknown>[]) {
            if (d && typeof d.id === 'number') trace.devices.push({ ...d, id: d.id, name: String(d.name ?? '') });
          }
        } else if (piece.key === 'distributedInfo' && piece.value && typeof piece.value === 'object') {
          trace.distributed = distributedOf(file, piece.value as Record<string, unknown>);
        } else trace.meta[piece.key] = piece.value;
        continue;
      }
      if (piece.kind === 'array') {
        sawEvents = true;
        continue;
      }
      // An event of a category not read (flows, python stacks, …) is counted from its text and not parsed: Kineto
      // writes "ph" and "cat" first, so the first "cat" in the text is the event's own.
      const head = CAT_TEXT.exec(piece.text.length > 200 ? piece.text.slice(0, 200) : piece.text);
      if (head && !(host ? HOST_CATS : GPU_CATS).has(head[1]!)) {
        skip(head[1]!);
        continue;
      }
      const ev = parseElement(file, piece) as Ev;
      if (!ev || typeof ev !== 'object') continue;
      let cat = typeof ev.cat === 'string' ? ev.cat : '';
      const current = LEGACY_CATEGORIES[cat];
      if (current !== undefined) {
        legacy.set(cat, (legacy.get(cat) ?? 0) + 1);
        cat = current;
      }
      const kind = GPU_KIND[cat];
      const isHost = cat === 'cpu_op' || cat === 'user_annotation';
      const isLaunch = cat === 'cuda_runtime' || cat === 'cuda_driver';
      const isSync = cat === 'cuda_sync';
      const isRange = cat === 'cuda_profiler_range';
      if (ev.ph !== 'X' || !(kind || isRange || (host && (isHost || isLaunch || isSync)))) {
        skip(cat || String(ev.ph ?? '?'));
        continue;
      }
      // Exact time: the integer µs and the fraction's ns, from the text when the number is not a whole one.
      let us: number;
      let fracNs = 0;
      if (typeof ev.ts === 'number' && Number.isSafeInteger(ev.ts)) us = ev.ts;
      else {
        const m = typeof ev.ts === 'number' ? TS_TEXT.exec(piece.text) : null;
        if (!m)
          throw new FormatError(
            file,
            `byte ${piece.offset}`,
            `event ${piece.index} ("${String(ev.name ?? '')}") has no numeric "ts"`,
          );
        ({ us, fracNs } = exactMicros(m));
        if (!Number.isSafeInteger(us))
          throw new FormatError(file, `byte ${piece.offset}`, `event ${piece.index}: ts ${m[0]} µs does not fit 2^53`);
        // The text read must be the value JSON.parse read (not a "ts" key nested in args, say).
        if (Math.abs(us + fracNs / 1000 - (ev.ts as number)) > 1) {
          throw new FormatError(
            file,
            `byte ${piece.offset}`,
            `event ${piece.index}: cannot read "ts" exactly from its text (${m[0]}; parsed ${String(ev.ts)})`,
          );
        }
      }
      const dur = num(ev.dur);
      if (dur === null || dur < 0)
        throw new FormatError(file, `byte ${piece.offset}`, `${eventLabel(piece, ev)} has no non-negative "dur"`);
      if (dur > MAX_EVENT_DURATION_US)
        throw new FormatError(
          file,
          `byte ${piece.offset}`,
          `${eventLabel(piece, ev)}: dur ${shortNumber(dur)} µs is out of range (must be ≤ ` +
            `${shortNumber(MAX_EVENT_DURATION_US)} µs, a week)`,
        );
      if (Number.isNaN(trace.baseUs)) trace.baseUs = us;
      if (Math.abs(us - trace.baseUs) > MAX_EVENT_OFFSET_US) {
        throw new FormatError(
          file,
          `byte ${piece.offset}`,
          `${eventLabel(piece, ev)}: ts ${us} µs is more than ${shortNumber(MAX_EVENT_OFFSET_US)} µs (a week) ` +
            `from the trace's first event (ts ${trace.baseUs} µs)`,
        );
      }
      const tsNs = (us - trace.baseUs) * 1000 + fracNs;
      const durNs = Math.round(dur * 1000);
      const name = typeof ev.name === 'string' ? ev.name : '';
      const args = ev.args && typeof ev.args === 'object' ? ev.args : undefined;
      if (kind) {
        trace.gpu.push({
          kind,
          name,
          device: intArg(args, 'device'),
          stream: streamOf(args?.stream),
          correlation: exactId(args, 'correlation', piece.text),
          externalId: externalIdOf(args),
          tsNs,
          durNs,
          bytes: num(args?.bytes),
          comm: kind === 'kernel' && host ? commArgsOf(name, args) : null,
          index: piece.index,
        });
      } else if (isRange) {
        const counters: Record<string, number> = {};
        for (const [k, v] of Object.entries(args ?? {}))
          if (typeof v === 'number' && Number.isFinite(v)) counters[k] = v;
        const list = trace.counterRanges.get(name) ?? [];
        list.push(counters);
        trace.counterRanges.set(name, list);
      } else if (isHost) {
        const op: KinetoCpuOp = {
          name,
          cat: cat as KinetoCpuOp['cat'],
          pid: threadOf(file, piece, ev, 'pid'),
          tid: threadOf(file, piece, ev, 'tid'),
          tsNs,
          durNs,
          externalId: intArg(args, 'External id'),
          recordFunctionId: intArg(args, 'Record function id'),
          comm: commArgsOf(name, args),
          index: piece.index,
        };
        trace.cpuOps.push(op);
        const m = STEP.exec(name);
        if (m) trace.steps.push({ name, step: Number(m[1]), tsNs, durNs });
      } else if (isSync) {
        trace.syncs.push({
          kind: typeof args?.cuda_sync_kind === 'string' ? args.cuda_sync_kind : name,
          correlation: exactId(args, 'correlation', piece.text),
          stream: streamOf(args?.stream),
          waitOnStream: streamOf(args?.wait_on_stream),
          waitOnRecordCorrelation: exactId(args, 'wait_on_cuda_event_record_corr_id', piece.text),
          tsNs,
          durNs,
        });
      } else {
        const correlation = exactId(args, 'correlation', piece.text);
        if (correlation === null) {
          skip(`${cat} without correlation`);
          continue;
        }
        trace.runtime.push({
          name,
          tid: threadOf(file, piece, ev, 'tid'),
          tsNs,
          durNs,
          correlation,
          externalId: externalIdOf(args),
          stream: streamOf(args?.stream),
          index: piece.index,
        });
      }
    }
  if (!sawEvents) throw new FormatError(file, '', 'no "traceEvents" array: not a Kineto / PyTorch profiler trace');
  if (Number.isNaN(trace.baseUs)) trace.baseUs = 0;
  if (legacy.size) {
    const said = [...legacy].map(([old, n]) => `${n} "${old}" as ${LEGACY_CATEGORIES[old]}`).join(', ');
    trace.notes.push(`older Kineto event categories read as their current names: ${said}`);
  }
  dropDuplicates(trace);
  for (const call of trace.runtime) {
    if (trace.launches.has(call.correlation)) duplicateCorrelations++;
    else trace.launches.set(call.correlation, call);
  }
  if (duplicateCorrelations)
    trace.notes.push(
      `${duplicateCorrelations} runtime/driver calls repeat a correlation id already seen; the first was kept`,
    );
  attachCounters(trace);
  return trace;
}

/** Same start, duration, name and thread (or stream) and ids: an event written twice. */
function dropRepeats<T extends { tsNs: number; durNs: number; name: string }>(
  list: T[],
  same: (a: T, b: T) => boolean,
): T[] {
  const order = list.map((_, i) => i).sort((a, b) => list[a]!.tsNs - list[b]!.tsNs || a - b);
  const drop = new Set<number>();
  for (let k = 1; k < order.length; k++) {
    // Compare with every earlier event of the same start (a run of equal starts is short).
    for (let j = k - 1; j >= 0 && list[order[j]!]!.tsNs === list[order[k]!]!.tsNs; j--) {
      const a = list[order[j]!]!;
      const b = list[order[k]!]!;
      if (!drop.has(order[j]!) && a.durNs === b.durNs && a.name === b.name && same(a, b)) {
        drop.add(order[k]!);
        break;
      }
    }
  }
  return drop.size ? list.filter((_, i) => !drop.has(i)) : list;
}

/** Removes events written twice (counted in `duplicates`, said in a note). */
function dropDuplicates(trace: KinetoTrace): void {
  const before = trace.cpuOps.length + trace.gpu.length + trace.runtime.length;
  trace.cpuOps = dropRepeats(
    trace.cpuOps,
    (a, b) => a.tid === b.tid && a.pid === b.pid && a.externalId === b.externalId,
  );
  trace.gpu = dropRepeats(
    trace.gpu,
    (a, b) => a.stream === b.stream && a.device === b.device && a.correlation === b.correlation && a.kind === b.kind,
  );
  trace.runtime = dropRepeats(trace.runtime, (a, b) => a.tid === b.tid && a.correlation === b.correlation);
  trace.duplicates = before - (trace.cpuOps.length + trace.gpu.length + trace.runtime.length);
  if (trace.duplicates)
    trace.notes.push(
      `${trace.duplicates} events repeat another exactly (same name, thread or stream, start, duration and ` +
        `ids): each kept once`,
    );
  if (trace.steps.length) {
    const seen = new Set<string>();
    trace.steps = trace.steps.filter((s) => {
      const k = `${s.name}|${s.tsNs}|${s.durNs}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
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
  return best
    ? (deviceOf(trace, best[0]) ?? { id: best[0], name: '' })
    : trace.devices.length === 1
      ? trace.devices[0]!
      : null;
}

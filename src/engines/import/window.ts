/**
 * The measured iteration of a rank: a ProfilerStep#N span (or a window the user gives) from its start to the later
 * of its end and the end of the last GPU kernel, memcpy or memset that starts inside it.
 */
import { InputError } from '../../errors.js';
import type { KinetoStep, KinetoTrace } from '../../formats/kineto/trace.js';
import { wallClockStartMs } from '../../formats/profiles/kineto.js';

export interface MeasuredWindow {
  /** "ProfilerStep#N" or "window START:END". */
  label: string;
  /** The span, ns relative to the trace's base stamp. */
  startNs: number;
  endNs: number;
  /** The measured iteration, ns: from startNs to the later of endNs and the end of the last GPU op starting inside. */
  iterationNs: number;
  /** Wall-clock start, ns since the Unix epoch, when the trace has wall-clock stamps. */
  startUnixNs: bigint | null;
}

function windowOf(trace: KinetoTrace, label: string, startNs: number, endNs: number): MeasuredWindow {
  let last = endNs;
  for (const g of trace.gpu)
    if (g.tsNs >= startNs && g.tsNs < endNs && g.tsNs + g.durNs > last) last = g.tsNs + g.durNs;
  let startUnixNs: bigint | null = null;
  if (trace.baseUs >= 1e15) startUnixNs = BigInt(trace.baseUs) * 1000n + BigInt(startNs);
  else {
    const ms = wallClockStartMs(trace);
    if (ms !== null) startUnixNs = BigInt(Math.round(ms * 1e6)) + BigInt(startNs);
  }
  return { label, startNs, endNs, iterationNs: last - startNs, startUnixNs };
}

export function stepWindow(trace: KinetoTrace, step: KinetoStep): MeasuredWindow {
  return windowOf(trace, step.name, step.tsNs, step.tsNs + step.durNs);
}

/** `--step NAME` (or the longest ProfilerStep when no name is given); null when the trace has no ProfilerStep. */
export function pickStep(trace: KinetoTrace, name?: string): KinetoStep | null {
  if (name !== undefined) {
    const s = trace.steps.find((x) => x.name === name || String(x.step) === name);
    if (!s) {
      throw new InputError(
        `${trace.file}: no ${name} in the trace (it has ` +
          `${trace.steps.length ? trace.steps.map((x) => x.name).join(', ') : 'no ProfilerStep'})`,
      );
    }
    return s;
  }
  let best: KinetoStep | null = null;
  for (const s of trace.steps) if (!best || s.durNs > best.durNs) best = s;
  return best;
}

/**
 * `--window START:END`: µs as the trace writes "ts" (decimals allowed). A span outside the trace's events, or END
 * not after START, is an InputError.
 */
/** First start and last end (ns) over the trace's host ops and GPU events; Infinity / −Infinity when it has none. */
export function eventSpan(trace: KinetoTrace): { first: number; last: number } {
  let first = Infinity;
  let last = -Infinity;
  for (const op of trace.cpuOps) {
    first = Math.min(first, op.tsNs);
    last = Math.max(last, op.tsNs + op.durNs);
  }
  for (const g of trace.gpu) {
    first = Math.min(first, g.tsNs);
    last = Math.max(last, g.tsNs + g.durNs);
  }
  return { first, last };
}

export function userWindow(trace: KinetoTrace, spec: string): MeasuredWindow {
  const m = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(spec);
  if (!m)
    throw new InputError(
      `--window ${spec}: expected START:END in µs as the trace writes "ts" (e.g. 1694128201428000:1694128201442000)`,
    );
  const toNs = (x: string) => {
    const [whole, frac = ''] = x.split('.');
    return (Number(whole) - trace.baseUs) * 1000 + Math.round(Number(`0.${frac || '0'}`) * 1000);
  };
  const startNs = toNs(m[1]!);
  const endNs = toNs(m[2]!);
  if (!(endNs > startNs)) throw new InputError(`--window ${spec}: END must be after START`);
  const { first, last } = eventSpan(trace);
  if (!(endNs > first && startNs < last)) {
    throw new InputError(
      `${trace.file}: --window ${spec} holds no event (the trace's events span "ts" ` +
        `${fmtUs(trace.baseUs, first)} to ${fmtUs(trace.baseUs, last)} µs)`,
    );
  }
  return windowOf(trace, `window ${m[1]}:${m[2]}`, startNs, endNs);
}

const fmtUs = (baseUs: number, ns: number) => {
  const us = Math.floor(ns / 1000);
  const frac = ns - us * 1000;
  return `${baseUs + us}${frac ? `.${String(frac).padStart(3, '0')}` : ''}`;
};

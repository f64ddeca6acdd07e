/**
 * Fits each network dimension's latency and bandwidth to an imported run's measured collectives: least squares on
 * the relative error (modelled − measured) / measured of every collective instance, the modelled time coming from
 * the replay's own collective model (model.ts) under the system file's algorithms.
 *
 * That model is piecewise linear in each dimension's latency and ns-per-byte (a message takes ⌊hops·latency +
 * bytes·ns-per-byte⌋; a phase adds its messages, pipelined chunks take maxima), so the fit is Gauss–Newton: at the
 * current point each parameter's slope is measured on the model itself (a latency step of 64 ns is exact on a linear
 * piece; the ns-per-byte step is 10 % so the whole-ns rounding of messages stays small), the linearised problem is
 * solved with both parameters kept ≥ 0 (non-negative least squares), and the step is taken when the model's own
 * error goes down (halved up to 8 times otherwise). Parameters the measurements cannot pin down — a dimension no
 * measured collective crosses, or a latency and a bandwidth the measured sizes cannot tell apart — are refused by
 * name, with the options that keep them from the network file.
 */
import { Matrix, SingularValueDecomposition } from 'ml-matrix';
import { InputError } from '../../errors.js';
import type { NetworkDim } from '../../formats/astra/index.js';
import type { CollectiveKind } from '../../vocab/collectives.js';
import { nnls } from '../../model/nnls.js';
import type { MeasuredCollective } from './measured.js';
import {
  dimensionsCrossed,
  dimsWith,
  modelledNs,
  modelledOn,
  nsPerByteOf,
  type LinkParams,
  type ModelContext,
} from './model.js';

const LATENCY_STEP_NS = 64;
const NS_PER_BYTE_STEP = 0.1;
const MAX_ITERATIONS = 40;
/** Scaled columns whose Gram matrix has a singular value below this (relative) are taken as not identifiable. */
const IDENTIFIABLE_SV = 1e-6;

export interface FitOptions {
  /** Dimensions whose latency stays as in the network file. */
  keepLatency?: number[];
  /** Dimensions whose bandwidth stays as in the network file. */
  keepBandwidth?: number[];
}

interface Param {
  dim: number;
  what: 'latency' | 'bandwidth';
}

export interface FitOutcome {
  params: LinkParams;
  /** The dimensions as fitted, rounded as written (bandwidth 6 significant digits, latency 0.1 ns). */
  dims: NetworkDim[];
  modelledNs: Float64Array;
  iterations: number;
  /** Which parameters were fitted (the others kept from the file). */
  fitted: Param[];
}

const describeParam = (p: Param, ctx: ModelContext) =>
  `${p.what} of dimension ${p.dim} (${ctx.network.dims[p.dim].topology}, ${ctx.network.dims[p.dim].npus} NPUs)`;

function get(p: LinkParams, q: Param): number {
  return q.what === 'latency' ? p.latencyNs[q.dim] : p.nsPerByte[q.dim];
}
function withValue(p: LinkParams, q: Param, v: number): LinkParams {
  const out = { latencyNs: [...p.latencyNs], nsPerByte: [...p.nsPerByte] };
  if (q.what === 'latency') out.latencyNs[q.dim] = v;
  else out.nsPerByte[q.dim] = v;
  return out;
}

/** Σ ((modelled − measured) / measured)². */
function loss(model: Float64Array, measured: number[]): number {
  let s = 0;
  for (let i = 0; i < measured.length; i++) s += ((model[i] - measured[i]) / measured[i]) ** 2;
  return s;
}

export function fitLinks(collectives: MeasuredCollective[], ctx: ModelContext, o: FitOptions = {}): FitOutcome {
  const unit = ctx.bandwidthUnit;
  const D = ctx.network.dims.length;
  for (const [flag, list] of [
    ['--keep-latency', o.keepLatency],
    ['--keep-bandwidth', o.keepBandwidth],
  ] as const) {
    for (const d of list ?? [])
      if (!(Number.isInteger(d) && d >= 0 && d < D))
        throw new InputError(`${flag}: dimension ${d} is not in ${ctx.network.file} (dimensions 0..${D - 1})`);
  }
  const params: Param[] = [];
  const crossed = dimensionsCrossed(collectives, ctx);
  ctx.network.dims.forEach((d, i) => {
    if (d.npus <= 1) return;
    if (!crossed[i] && !(o.keepLatency?.includes(i) && o.keepBandwidth?.includes(i))) {
      throw new InputError(
        `no measured collective crosses dimension ${i} (${d.topology}, ${d.npus} NPUs): its latency and ` +
          `bandwidth cannot be fitted; ` +
          `keep them from ${ctx.network.file} with --keep-latency ${i} --keep-bandwidth ${i}, or fit on a run ` +
          `whose collectives cross it`,
      );
    }
    if (!o.keepLatency?.includes(i)) params.push({ dim: i, what: 'latency' });
    if (!o.keepBandwidth?.includes(i)) params.push({ dim: i, what: 'bandwidth' });
  });
  const start: LinkParams = {
    latencyNs: ctx.network.dims.map((d) => d.latencyNs),
    nsPerByte: ctx.network.dims.map((d) => nsPerByteOf(d, unit)),
  };
  const measured = collectives.map((c) => c.measuredNs);
  let p = start;
  let model = modelledNs(collectives, ctx, p);
  let err = loss(model, measured);
  let iterations = 0;
  for (; iterations < MAX_ITERATIONS && params.length > 0; iterations++) {
    const { x, y, scale } = linearised(collectives, ctx, p, model, params, measured);
    if (iterations === 0) checkIdentifiable(x, params, ctx);
    const step = nnls(x, y).map((v, j) => v / scale[j]);
    for (const [j, q] of params.entries()) {
      if (q.what === 'bandwidth' && !(step[j] > 0)) {
        throw new InputError(
          `the measured collectives do not grow with size on dimension ${q.dim}: its bandwidth fits as unbounded; ` +
            `keep it from ${ctx.network.file} with --keep-bandwidth ${q.dim}`,
        );
      }
    }
    let accepted = false;
    for (let t = 1, halvings = 0; halvings <= 8; t /= 2, halvings++) {
      let next = p;
      params.forEach((q, j) => (next = withValue(next, q, get(p, q) + t * (step[j] - get(p, q)))));
      const m = modelledNs(collectives, ctx, next);
      const e = loss(m, measured);
      if (e < err) {
        const change = Math.max(...params.map((q) => Math.abs(get(next, q) - get(p, q)) / Math.max(get(p, q), 1e-12)));
        p = next;
        model = m;
        err = e;
        accepted = change > 1e-9;
        break;
      }
    }
    if (!accepted) break;
  }
  ({ p, model } = polish(collectives, ctx, params, p, model, measured));
  // Round as written to the file, and model the rounded values: the errors reported are those of the file.
  const dims = dimsWith(ctx.network, p, unit).map((d) => ({
    ...d,
    bandwidthGBps: Number(d.bandwidthGBps.toPrecision(6)),
    latencyNs: Math.round(d.latencyNs * 10) / 10,
  }));
  return { params: p, dims, modelledNs: modelledOn(collectives, ctx, dims), iterations, fitted: params };
}

/**
 * The slopes are measured across whole-ns roundings and the model has kinks (pipelined chunks), so the Gauss–Newton
 * point can sit a little off the model's own minimum: a pattern search on the model's error (each parameter
 * moved by ±5 % … ±0.1 %, a latency by at least 0.1 ns) takes it the rest of the way.
 */
function polish(
  collectives: MeasuredCollective[],
  ctx: ModelContext,
  params: Param[],
  p: LinkParams,
  model: Float64Array,
  measured: number[],
): { p: LinkParams; model: Float64Array } {
  let err = loss(model, measured);
  for (const rel of [0.05, 0.02, 0.01, 0.005, 0.002, 0.001]) {
    for (let improved = true, rounds = 0; improved && rounds < 50; rounds++) {
      improved = false;
      for (const q of params) {
        const v = get(p, q);
        const h = q.what === 'latency' ? Math.max(v * rel, 0.1) : v * rel;
        for (const next of [v + h, v - h]) {
          if (next < 0 || (q.what === 'bandwidth' && next <= 0)) continue;
          const candidate = withValue(p, q, next);
          const m = modelledNs(collectives, ctx, candidate);
          const e = loss(m, measured);
          if (e < err) {
            ({ p, model, err } = { p: candidate, model: m, err: e });
            improved = true;
            break;
          }
        }
      }
    }
  }
  return { p, model };
}

/**
 * The linearised least-squares problem at `p`: rows (modelled slope / measured), target (measured − modelled +
 * slope·p) / measured, so that x·p′ ≈ y; columns scaled to unit length (scale[j]).
 */
function linearised(
  collectives: MeasuredCollective[],
  ctx: ModelContext,
  p: LinkParams,
  model: Float64Array,
  params: Param[],
  measured: number[],
): { x: number[][]; y: number[]; scale: number[] } {
  const slopes = params.map((q) => {
    const v = get(p, q);
    const h = q.what === 'latency' ? LATENCY_STEP_NS : Math.max(v, 1e-9) * NS_PER_BYTE_STEP;
    const m = modelledNs(collectives, ctx, withValue(p, q, v + h));
    return Array.from(m, (t, i) => (t - model[i]) / h);
  });
  const x = measured.map((d, i) => params.map((_, j) => slopes[j][i] / d));
  const y = measured.map((d, i) => (d - model[i] + params.reduce((s, q, j) => s + slopes[j][i] * get(p, q), 0)) / d);
  const scale = params.map((_, j) => Math.hypot(...x.map((row) => row[j])) || 1);
  for (const row of x) params.forEach((_, j) => (row[j] /= scale[j]));
  return { x, y, scale };
}

/** Refuses parameters no measured collective depends on, or that the measurements cannot tell apart. */
function checkIdentifiable(x: number[][], params: Param[], ctx: ModelContext): void {
  const flat = params.filter((_, j) => x.every((row) => row[j] === 0));
  if (flat.length > 0) {
    throw new InputError(
      `at the starting point (${ctx.network.file}) no measured collective's time depends on the ` +
        `${flat.map((q) => describeParam(q, ctx)).join(' or ')} ` +
        "(its time hides behind the other dimensions' there): start from other values, or keep it with " +
        `${flat.map((q) => `--keep-${q.what} ${q.dim}`).join(' ')}`,
    );
  }
  const svd = new SingularValueDecomposition(new Matrix(x), { autoTranspose: true });
  const sv = svd.diagonal;
  const largest = Math.max(...sv);
  const smallest = sv.indexOf(Math.min(...sv));
  if (sv.length < params.length || sv[smallest] < IDENTIFIABLE_SV * largest) {
    // The parameters the weakest direction moves: those the measurements cannot tell apart.
    const v = sv.length < params.length ? null : svd.rightSingularVectors.getColumn(smallest);
    const tied = v ? params.filter((_, j) => Math.abs(v[j]) > 0.1) : params;
    throw new InputError(
      `the measured collectives cannot tell apart the ${tied.map((q) => describeParam(q, ctx)).join(' and ')}: ` +
        'every one of them depends on these in the same proportion (for one dimension: all its collectives ' +
        'send messages of one size); ' +
        `keep some from ${ctx.network.file} with ${tied.map((q) => `--keep-${q.what} ${q.dim}`).join(' or ')}, ` +
        `or fit on a run with collectives of other sizes or kinds`,
    );
  }
}

export interface TypeErrorRow {
  kind: CollectiveKind;
  instances: number;
  minBytes: number;
  maxBytes: number;
  measuredMeanUs: number;
  modelledMeanUs: number;
  /** Mean of (modelled − measured) / measured, %. */
  meanErrorPct: number;
  meanAbsErrorPct: number;
  maxAbsErrorPct: number;
}

/** Error statistics per collective kind. */
export function errorsByKind(collectives: MeasuredCollective[], model: ArrayLike<number>): TypeErrorRow[] {
  const byKind = new Map<CollectiveKind, number[]>();
  collectives.forEach((c, i) => {
    const l = byKind.get(c.kind);
    if (l) l.push(i);
    else byKind.set(c.kind, [i]);
  });
  return [...byKind].map(([kind, idx]) => {
    const errs = idx.map((i) => (100 * (model[i] - collectives[i].measuredNs)) / collectives[i].measuredNs);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return {
      kind,
      instances: idx.length,
      minBytes: Math.min(...idx.map((i) => collectives[i].bytes)),
      maxBytes: Math.max(...idx.map((i) => collectives[i].bytes)),
      measuredMeanUs: mean(idx.map((i) => collectives[i].measuredNs)) / 1000,
      modelledMeanUs: mean(idx.map((i) => model[i])) / 1000,
      meanErrorPct: mean(errs),
      meanAbsErrorPct: mean(errs.map(Math.abs)),
      maxAbsErrorPct: Math.max(...errs.map(Math.abs)),
    };
  });
}

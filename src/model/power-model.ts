/**
 * Power at one SM clock: P = P0 + Σ_c β_c·u_c with every coefficient ≥ 0 (non-negative least squares).
 * Constant components are dropped, near-collinear ones are dropped (the later of a pair) and a small ridge term
 * is added when the remaining design is still ill-conditioned; every such decision is reported with the fit.
 * Gross outliers (glitched power readings) are removed after a first fit when they lie beyond 6 robust
 * standard deviations, and counted.
 */
import { nnls } from './nnls.js';

export interface PowerPoint {
  utilization: Record<string, number>;
  powerW: number;
  /** Label used in diagnostics. */
  label: string;
}

export interface DroppedComponent {
  component: string;
  reason: 'constant' | 'collinear' | 'absent' | 'too-few-rows';
  /** For collinear drops, the component it duplicates. */
  with?: string;
}

export interface PowerFitStats {
  n: number;
  r2: number;
  mapePct: number;
  rmseW: number;
  outliersRemoved: number;
}

export interface ClockPowerModel {
  smClockMHz: number;
  memClockMHz: number | null;
  /** P0(f): power with every utilization at zero, W (estimate). */
  interceptW: number;
  /** β_c(f): W per unit utilization (0–1). */
  coefficientsW: Record<string, number>;
  dropped: DroppedComponent[];
  ridgeLambda: number;
  fit: PowerFitStats;
  /** Labels of samples removed as outliers (first few). */
  outliers: string[];
}

export function evaluatePower(
  model: Pick<ClockPowerModel, 'interceptW' | 'coefficientsW'>,
  u: Record<string, number>,
): number {
  let p = model.interceptW;
  for (const [c, beta] of Object.entries(model.coefficientsW)) p += beta * (u[c] ?? 0);
  return p;
}

function mean(xs: number[]): number {
  return xs.reduce((s, v) => s + v, 0) / Math.max(1, xs.length);
}

function std(xs: number[]): number {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((v) => (v - m) ** 2)));
}

/** Pearson correlation of two equally long series; 0 when either is constant. */
export function corr(a: number[], b: number[]): number {
  const ma = mean(a);
  const mb = mean(b);
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < a.length; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : 0;
}

/** Which components can be fitted on these points, and why the others cannot. */
export function selectComponents(
  points: PowerPoint[],
  components: string[],
): { kept: string[]; dropped: DroppedComponent[] } {
  const dropped: DroppedComponent[] = [];
  const kept: string[] = [];
  for (const c of components) {
    const col = points.map((p) => p.utilization[c]);
    if (col.every((v) => v === undefined)) {
      dropped.push({ component: c, reason: 'absent' });
      continue;
    }
    const vals = col.map((v) => v ?? 0);
    if (std(vals) < 1e-4) {
      dropped.push({ component: c, reason: 'constant' });
      continue;
    }
    const dup = kept.find(
      (k) =>
        Math.abs(
          corr(
            vals,
            points.map((p) => p.utilization[k] ?? 0),
          ),
        ) > 0.995,
    );
    if (dup) {
      dropped.push({ component: c, reason: 'collinear', with: dup });
      continue;
    }
    kept.push(c);
  }
  return { kept, dropped };
}

function solveOnce(points: PowerPoint[], kept: string[]): { intercept: number; betas: number[]; ridgeLambda: number } {
  const x = points.map((p) => [1, ...kept.map((c) => p.utilization[c] ?? 0)]);
  const y = points.map((p) => p.powerW);
  // Ridge only when the design has fewer rows than a comfortable margin over the unknowns.
  const ridgeLambda = points.length < 3 * (kept.length + 1) ? 1e-2 * points.length : 0;
  const b = nnls(x, y, { ridgeLambda, unpenalised: [0] });
  return { intercept: b[0]!, betas: b.slice(1), ridgeLambda };
}

/**
 * Fits one clock. With fewer rows than unknowns only the most variable components are kept; the others are
 * reported as dropped with the reason "too few rows for this coefficient".
 */
export function fitClockPower(
  points: PowerPoint[],
  components: string[],
  clock: { smClockMHz: number; memClockMHz: number | null },
): ClockPowerModel {
  let { kept, dropped } = selectComponents(points, components);
  if (points.length < kept.length + 2) {
    // Too few rows: keep the most variable components only; the rest are reported as dropped.
    const byVar = [...kept].sort(
      (a, b) => std(points.map((p) => p.utilization[b] ?? 0)) - std(points.map((p) => p.utilization[a] ?? 0)),
    );
    const room = Math.max(0, points.length - 2);
    for (const c of byVar.slice(room)) dropped.push({ component: c, reason: 'too-few-rows' });
    kept = byVar.slice(0, room);
  }
  let used = points;
  let sol = solveOnce(used, kept);
  const outliers: string[] = [];
  if (points.length >= 8) {
    const resid = used.map(
      (p) => p.powerW - (sol.intercept + sol.betas.reduce((s, b, k) => s + b * (p.utilization[kept[k]!] ?? 0), 0)),
    );
    const med = [...resid].sort((a, b) => a - b)[Math.floor(resid.length / 2)]!;
    const mad = [...resid.map((r) => Math.abs(r - med))].sort((a, b) => a - b)[Math.floor(resid.length / 2)]! * 1.4826;
    const keep = used.filter((_, i) => Math.abs(resid[i]! - med) <= 6 * Math.max(mad, 0.5));
    if (keep.length < used.length && keep.length >= kept.length + 2) {
      for (const p of used) if (!keep.includes(p)) outliers.push(p.label);
      used = keep;
      sol = solveOnce(used, kept);
    }
  }
  const coefficientsW: Record<string, number> = {};
  kept.forEach((c, k) => (coefficientsW[c] = sol.betas[k]!));
  const model = { interceptW: sol.intercept, coefficientsW };
  const pred = used.map((p) => evaluatePower(model, p.utilization));
  const ys = used.map((p) => p.powerW);
  const my = mean(ys);
  const ssRes = ys.reduce((s, y, i) => s + (y - pred[i]!) ** 2, 0);
  const ssTot = ys.reduce((s, y) => s + (y - my) ** 2, 0);
  return {
    smClockMHz: clock.smClockMHz,
    memClockMHz: clock.memClockMHz,
    interceptW: sol.intercept,
    coefficientsW,
    dropped,
    ridgeLambda: sol.ridgeLambda,
    fit: {
      n: used.length,
      r2: ssTot > 0 ? 1 - ssRes / ssTot : 1,
      mapePct: 100 * mean(ys.map((y, i) => Math.abs(pred[i]! / y - 1))),
      rmseW: Math.sqrt(ssRes / Math.max(1, ys.length)),
      outliersRemoved: outliers.length,
    },
    outliers: outliers.slice(0, 5),
  };
}

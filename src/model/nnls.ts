/**
 * Non-negative least squares (Lawson–Hanson active set) with an optional ridge term, on top of ml-matrix
 * solves. Minimises ||X·b − y||² + λ·||b_penalised||² subject to b ≥ 0 for the constrained columns.
 */
import { createRequire } from 'node:module';
import type * as MlMatrix from 'ml-matrix';

let ml: typeof MlMatrix | undefined;
/**
 * Loaded on the first solve: annotate's worker threads reach this module but never fit, and loading costs ~70 ms a
 * thread.
 */
function mlMatrix(): typeof MlMatrix {
  return (ml ??= createRequire(import.meta.url)('ml-matrix') as typeof MlMatrix);
}

export interface NnlsOptions {
  /** Ridge weight λ (0 = none). */
  ridgeLambda?: number;
  /** Columns excluded from the ridge penalty (e.g. the intercept). */
  unpenalised?: number[];
  /** Columns allowed to go negative (default: none). */
  unconstrained?: number[];
}

/** Least squares restricted to the columns in `cols`; other coefficients are zero. */
function restrictedSolve(xtx: number[][], xty: number[], cols: number[]): number[] {
  const { Matrix, solve } = mlMatrix();
  const a = new Matrix(cols.map((i) => cols.map((j) => xtx[i]![j]!)));
  const b = Matrix.columnVector(cols.map((i) => xty[i]!));
  // useSVD keeps near-singular systems finite; the caller reports collinearity separately.
  const sol = solve(a, b, true).to1DArray();
  const out = new Array<number>(xty.length).fill(0);
  cols.forEach((c, k) => (out[c] = sol[k]!));
  return out;
}

export function nnls(x: number[][], y: number[], options: NnlsOptions = {}): number[] {
  const p = x[0]?.length ?? 0;
  const lambda = options.ridgeLambda ?? 0;
  const unpen = new Set(options.unpenalised ?? []);
  const free = new Set(options.unconstrained ?? []);
  const xtx: number[][] = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  const xty = new Array<number>(p).fill(0);
  for (let r = 0; r < x.length; r++) {
    const row = x[r]!;
    for (let i = 0; i < p; i++) {
      xty[i]! += row[i]! * y[r]!;
      for (let j = 0; j < p; j++) xtx[i]![j]! += row[i]! * row[j]!;
    }
  }
  for (let i = 0; i < p; i++) if (!unpen.has(i)) xtx[i]![i]! += lambda;

  const passive = new Set<number>(free);
  let b = passive.size ? restrictedSolve(xtx, xty, [...passive]) : new Array<number>(p).fill(0);
  const gradient = (coef: number[]) => xty.map((v, i) => v - xtx[i]!.reduce((s, a, j) => s + a * coef[j]!, 0));
  const tol = 1e-10 * (1 + Math.max(...xty.map(Math.abs)));
  for (let outer = 0; outer < 3 * p + 10; outer++) {
    const w = gradient(b);
    let best = -1;
    let bestW = tol;
    for (let i = 0; i < p; i++) if (!passive.has(i) && w[i]! > bestW) (best = i), (bestW = w[i]!);
    if (best < 0) break;
    passive.add(best);
    for (let inner = 0; inner < 3 * p + 10; inner++) {
      const z = restrictedSolve(
        xtx,
        xty,
        [...passive].sort((a, c) => a - c),
      );
      const negative = [...passive].filter((i) => !free.has(i) && z[i]! <= 0);
      if (negative.length === 0) {
        b = z;
        break;
      }
      let alpha = 1;
      for (const i of negative) alpha = Math.min(alpha, b[i]! / (b[i]! - z[i]!));
      b = b.map((v, i) => v + alpha * (z[i]! - v));
      for (const i of [...passive]) if (!free.has(i) && b[i]! <= 1e-12) passive.delete(i), (b[i] = 0);
    }
  }
  return b.map((v, i) => (free.has(i) ? v : Math.max(0, v)));
}

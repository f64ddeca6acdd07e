/**
 * Operating-point selectors as small strategy objects (in the manner of Zeus' optimum selectors): each validates
 * its arguments on construction and picks one point of a sweep. Points carry their time (s) and energy (J).
 */
import { InputError } from '../../errors.js';

export interface OperatingPoint {
  /** What the point is, e.g. the SM clock in MHz or the network scale. */
  setting: number;
  timeS: number;
  energyJ: number;
}

export interface Selector {
  /** Short name, e.g. "min-energy" or "max-slowdown 10%". */
  readonly name: string;
  /** Picks a point; throws InputError when none qualifies or the list is empty. */
  select(points: readonly OperatingPoint[]): OperatingPoint;
}

function nonEmpty(points: readonly OperatingPoint[], who: string): void {
  if (points.length === 0) throw new InputError(`${who}: no sweep points to choose from`);
}

/** Lowest of `cost`; ties go to the faster point, then to the lower setting. */
function argmin(points: readonly OperatingPoint[], cost: (p: OperatingPoint) => number): OperatingPoint {
  let best = points[0];
  for (const p of points) {
    const c = cost(p);
    const b = cost(best);
    if (c < b || (c === b && (p.timeS < best.timeS || (p.timeS === best.timeS && p.setting < best.setting)))) best = p;
  }
  return best;
}

export function minimumEnergy(): Selector {
  return {
    name: 'min-energy',
    select(points) {
      nonEmpty(points, this.name);
      return argmin(points, (p) => p.energyJ);
    },
  };
}

export function minimumTime(): Selector {
  return {
    name: 'min-time',
    select(points) {
      nonEmpty(points, this.name);
      let best = points[0];
      for (const p of points)
        if (p.timeS < best.timeS || (p.timeS === best.timeS && p.energyJ < best.energyJ)) best = p;
      return best;
    },
  };
}

/** Lowest energy among the points at most `maxSlowdownPct` % slower than the fastest point. */
export function maxSlowdown(maxSlowdownPct: number): Selector {
  if (!Number.isFinite(maxSlowdownPct) || maxSlowdownPct < 0) {
    throw new InputError(`max-slowdown needs a slowdown in percent ≥ 0, got ${maxSlowdownPct}`);
  }
  return {
    name: `max-slowdown ${maxSlowdownPct}%`,
    select(points) {
      nonEmpty(points, this.name);
      const fastest = minimumTime().select(points).timeS;
      const limit = fastest * (1 + maxSlowdownPct / 100);
      return argmin(
        points.filter((p) => p.timeS <= limit * (1 + 1e-12)),
        (p) => p.energyJ,
      );
    },
  };
}

/**
 * Zeus' cost η·E + (1 − η)·P_max·T: η = 1 minimises energy, η = 0 time; P_max (W) converts time to joules
 * (usually the maximum power of the devices).
 */
export function energyTimeCost(eta: number, maxPowerW: number): Selector {
  if (!Number.isFinite(eta) || eta < 0 || eta > 1)
    throw new InputError(`cost selector: η must be within 0..1, got ${eta}`);
  if (!Number.isFinite(maxPowerW) || maxPowerW <= 0)
    throw new InputError(`cost selector: P_max must be a positive power in W, got ${maxPowerW}`);
  return {
    name: `cost η=${eta} P_max=${maxPowerW} W`,
    select(points) {
      nonEmpty(points, this.name);
      return argmin(points, (p) => eta * p.energyJ + (1 - eta) * maxPowerW * p.timeS);
    },
  };
}

/**
 * Parses a selector from the command line: "min-energy", "min-time", "max-slowdown:<pct>", "cost:<η>" (P_max
 * from `defaultMaxPowerW`) or "cost:<η>:<P_max W>".
 */
export function parseSelector(text: string, defaultMaxPowerW?: number): Selector {
  const [name, ...args] = text.split(':');
  const nums = args.map(Number);
  const argCount = (lo: number, hi: number) => {
    if (args.length < lo || args.length > hi || nums.some((x) => !Number.isFinite(x))) {
      throw new InputError(
        `selector "${text}": expected ${name}${lo === hi ? '' : '['}${':<number>'.repeat(hi)}${lo === hi ? '' : ']'}`,
      );
    }
  };
  switch (name) {
    case 'min-energy':
      argCount(0, 0);
      return minimumEnergy();
    case 'min-time':
      argCount(0, 0);
      return minimumTime();
    case 'max-slowdown':
      argCount(1, 1);
      return maxSlowdown(nums[0]);
    case 'cost': {
      argCount(1, 2);
      const pmax = nums[1] ?? defaultMaxPowerW;
      if (pmax === undefined) throw new InputError(`selector "${text}": give P_max as cost:<η>:<watts>`);
      return energyTimeCost(nums[0], pmax);
    }
    default:
      throw new InputError(
        `unknown selector "${text}": use min-energy, min-time, max-slowdown:<pct> or cost:<η>[:<P_max W>]`,
      );
  }
}

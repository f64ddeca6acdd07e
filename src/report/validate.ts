/**
 * Checks result JSON against the shapes in types.ts before the report touches it. A problem is reported as a
 * FormatError naming the file and the field path, e.g. `sweep.json: [0].points[3].energyJ.total: expected a
 * finite number, got "n/a"`. Unknown extra fields are allowed (newer engines may add some).
 */
import { parseJsonText, readTextFile } from '../formats/text-file.js';
import { FormatError } from '../errors.js';
import { RESULT_KINDS, RESULT_SCHEMA_VERSION, type ReportResult } from './types.js';

type Obj = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === undefined) return 'nothing (field missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

class Checker {
  constructor(private readonly file: string) {}

  fail(path: string, problem: string): never {
    throw new FormatError(this.file, path, problem);
  }

  object(value: unknown, path: string): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      this.fail(path, `expected an object, got ${describe(value)}`);
    return value as Obj;
  }

  array(obj: Obj, key: string, path: string, minLength = 0): unknown[] {
    const value = obj[key];
    if (!Array.isArray(value)) this.fail(join(path, key), `expected an array, got ${describe(value)}`);
    if (value.length < minLength)
      this.fail(join(path, key), `expected at least ${minLength} entr${minLength === 1 ? 'y' : 'ies'}, got none`);
    return value;
  }

  number(
    obj: Obj,
    key: string,
    path: string,
    opts: { nullable?: boolean; optional?: boolean; min?: number } = {},
  ): void {
    const value = obj[key];
    if (value === undefined && opts.optional) return;
    if (value === null && opts.nullable) return;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail(join(path, key), `expected a finite number${opts.nullable ? ' or null' : ''}, got ${describe(value)}`);
    }
    if (opts.min !== undefined && value < opts.min)
      this.fail(join(path, key), `expected a number ≥ ${opts.min}, got ${value}`);
  }

  string(obj: Obj, key: string, path: string): void {
    if (typeof obj[key] !== 'string') this.fail(join(path, key), `expected a string, got ${describe(obj[key])}`);
  }

  boolean(obj: Obj, key: string, path: string): void {
    if (typeof obj[key] !== 'boolean') this.fail(join(path, key), `expected true or false, got ${describe(obj[key])}`);
  }

  /** An array whose every entry is a finite number or a string. */
  items(obj: Obj, key: string, path: string, type: 'number' | 'string'): void {
    this.array(obj, key, path).forEach((item, i) => {
      const ok = type === 'number' ? typeof item === 'number' && Number.isFinite(item) : typeof item === 'string';
      if (!ok)
        this.fail(
          `${join(path, key)}[${i}]`,
          `expected ${type === 'number' ? 'a finite number' : 'a string'}, got ${describe(item)}`,
        );
    });
  }

  numbers(obj: Obj, keys: string[], path: string): void {
    for (const key of keys) this.number(obj, key, path);
  }

  /** An energy breakdown with every part of the ledger (a record from before it lacks communication and host). */
  breakdown(obj: Obj, key: string, path: string): void {
    const p = join(path, key);
    const e = this.object(obj[key], p);
    for (const part of ['communication', 'host']) {
      if (e[part] === undefined) {
        this.fail(
          join(p, part),
          'missing: a record written before the energy ledger (its idle held communication time and network static ' +
            'power, its memory was added to node energies): re-run the command that wrote it',
        );
      }
    }
    this.numbers(e, ['compute', 'memory', 'communication', 'network', 'idle', 'host', 'total'], p);
  }

  /** An energy band (energyBandJ), when present: the bounds the report shows. */
  band(obj: Obj, key: string, path: string): void {
    if (obj[key] === undefined) return;
    this.numbers(
      this.object(obj[key], join(path, key)),
      ['computeP10', 'computeP90', 'totalP10', 'totalP90'],
      join(path, key),
    );
  }

  each(obj: Obj, key: string, path: string, minLength: number, fn: (item: Obj, itemPath: string) => void): void {
    this.array(obj, key, path, minLength).forEach((item, i) => {
      const itemPath = `${join(path, key)}[${i}]`;
      fn(this.object(item, itemPath), itemPath);
    });
  }
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function checkResult(c: Checker, r: Obj, p: string): ReportResult {
  const kind = r.kind;
  if (typeof kind !== 'string' || !(RESULT_KINDS as readonly string[]).includes(kind)) {
    c.fail(join(p, 'kind'), `expected one of ${RESULT_KINDS.join(', ')}, got ${describe(kind)}`);
  }
  if (r.schemaVersion !== RESULT_SCHEMA_VERSION) {
    c.fail(
      join(p, 'schemaVersion'),
      `expected ${RESULT_SCHEMA_VERSION} (this tracewatt reads result schema ${RESULT_SCHEMA_VERSION}), got ${describe(r.schemaVersion)}`,
    );
  }
  c.string(r, 'label', p);
  const result = r as unknown as ReportResult;
  switch (result.kind) {
    case 'replay':
      c.numbers(r, ['makespanNs', 'exposedCommNs', 'overlapShare'], p);
      c.breakdown(r, 'energyJ', p);
      c.band(r, 'energyBandJ', p);
      {
        const tp = join(p, 'timeS');
        const t = c.object(r.timeS, tp);
        c.numbers(t, ['makespan', 'compute', 'communication', 'exposedCommunication', 'overlap'], tp);
        c.number(t, 'memory', tp, { optional: true });
        c.number(t, 'idle', tp, { optional: true });
      }
      c.each(r, 'ranks', p, 1, (rank, rp) => {
        c.numbers(rank, ['rank', 'finishNs', 'exposedCommNs', 'waitNs'], rp);
        c.number(rank, 'measuredIterationNs', rp, { nullable: true, optional: true, min: 0 });
        c.breakdown(rank, 'energyJ', rp);
      });
      if (r.mode !== undefined && r.mode !== 'as-measured')
        c.fail(join(p, 'mode'), `expected "as-measured" or no mode, got ${describe(r.mode)}`);
      if (r.powerLog !== undefined) {
        const lp = join(p, 'powerLog');
        const log = c.object(r.powerLog, lp);
        c.string(log, 'file', lp);
        c.each(log, 'ranks', lp, 0, (row, rp) => c.numbers(row, ['rank', 'energyJ'], rp));
        c.items(log, 'notes', lp, 'string');
      }
      c.items(r, 'bytesSentPerDim', p, 'number');
      if (r.networkEnergyPerDimJ !== undefined) c.items(r, 'networkEnergyPerDimJ', p, 'number');
      if (r.dimensionNames !== undefined) c.items(r, 'dimensionNames', p, 'string');
      break;
    case 'gpu-clock-sweep':
      c.numbers(r, ['energyOptimalMHz', 'timeOptimalMHz'], p);
      c.each(r, 'points', p, 1, (pt, pp) => {
        c.number(pt, 'clockMHz', pp, { min: 0 });
        c.number(pt, 'timeS', pp, { min: 0 });
        c.breakdown(pt, 'energyJ', pp);
        c.band(pt, 'energyBandJ', pp);
        c.boolean(pt, 'pareto', pp);
      });
      break;
    case 'network-sweep':
      c.number(r, 'dimension', p, { min: 0 });
      c.each(r, 'points', p, 1, (pt, pp) => {
        c.numbers(pt, ['scale', 'bandwidthGBps', 'energyPerBitPJ', 'voltageRatio', 'makespanNs'], pp);
        c.breakdown(pt, 'energyJ', pp);
        c.items(pt, 'networkByDimensionJ', pp, 'number');
        c.boolean(pt, 'dominated', pp);
        if (pt.marginal !== null) {
          const mp = join(pp, 'marginal');
          const m = c.object(pt.marginal, mp);
          c.numbers(m, ['fromScale', 'deltaEnergyJ', 'deltaTimeS'], mp);
          c.number(m, 'energyPerTimeW', mp, { nullable: true });
          c.number(m, 'energySavedPctPerSlowdownPct', mp, { nullable: true });
        }
      });
      break;
    case 'accuracy':
      c.number(r, 'referenceClockMHz', p, { optional: true });
      c.each(r, 'frequencies', p, 1, (row, rp) => {
        c.numbers(row, ['frequencyMHz', 'timeErrorPct', 'energyErrorPct'], rp);
        c.number(row, 'powerErrorPct', rp, { nullable: true });
        c.number(row, 'n', rp, { min: 0 });
        c.number(row, 'timeCoveragePct', rp, { nullable: true, optional: true });
        c.number(row, 'energyCoveragePct', rp, { nullable: true, optional: true });
      });
      break;
    case 'case-study': {
      c.items(r, 'system', p, 'string');
      c.items(r, 'definitions', p, 'string');
      c.each(r, 'layouts', p, 1, (l, lp) => {
        c.string(l, 'name', lp);
        c.numbers(l, ['dp', 'tp', 'pp', 'microBatches'], lp);
        const np = join(lp, 'nominal');
        const n = c.object(l.nominal, np);
        c.numbers(n, ['makespanS'], np);
        const sp = join(np, 'shares');
        c.numbers(
          c.object(n.shares, sp),
          [
            'networkEnergy',
            'scaleOutEnergy',
            'hiddenCommunication',
            'exposedCommunication',
            'communicationEnergy',
            'idleEnergy',
          ],
          sp,
        );
        c.each(l, 'knobs', lp, 1, (k, kp) => {
          c.string(k, 'name', kp);
          c.number(k, 'nominalSetting', kp);
          c.each(k, 'points', kp, 1, (pt, pp) => {
            c.numbers(pt, ['setting', 'makespanS', 'timeChangePct', 'energyChangePct'], pp);
            c.number(pt, 'energySavedPctPerSlowdownPct', pp, { nullable: true });
            c.number(pt, 'deltaEnergyPerDeltaTimeW', pp, { nullable: true });
          });
        });
        c.each(l, 'ranks', lp, 0, (rk, rp) =>
          c.numbers(rk, ['rank', 'computeS', 'exposedCommS', 'hostS', 'waitS', 'communicationS'], rp),
        );
        c.string(l, 'finding', lp);
      });
      c.string(r, 'finding', p);
      if (r.sensitivity !== undefined) {
        const mp = join(p, 'sensitivity');
        const m = c.object(r.sensitivity, mp);
        c.each(m, 'rows', mp, 1, (row, rp) => {
          c.string(row, 'layout', rp);
          c.numbers(
            row,
            [
              'globalBatchSequences',
              'microBatchesPerPipeline',
              'scaleOutBandwidthGBps',
              'nominalMakespanS',
              'nominalEnergyJ',
              'bestScale',
              'energyChangePct',
              'timeChangePct',
              'networkEnergySharePct',
              'scaleOutEnergySharePct',
              'hiddenCommunicationSharePct',
              'idleEnergySharePct',
            ],
            rp,
          );
          c.number(row, 'deltaEnergyPerDeltaTimeW', rp, { nullable: true });
          c.number(row, 'energySavedPctPerSlowdownPct', rp, { nullable: true });
        });
        c.string(m, 'finding', mp);
      }
      break;
    }
    case 'layer-clock-study': {
      for (const key of ['system', 'definitions', 'limits']) c.items(r, key, p, 'string');
      c.each(r, 'rows', p, 1, (row, rp) => {
        c.string(row, 'layer', rp);
        c.numbers(
          row,
          [
            'seqLen',
            'energySavingPct',
            'runtimePenaltyPct',
            'publishedEnergySavingPct',
            'publishedRuntimePenaltyPct',
            'energySavingDiffPts',
            'runtimePenaltyDiffPts',
            'fastestClockMHz',
            'lowestEnergyClockMHz',
            'fastestTimeUs',
            'fastestPowerW',
            'maxKernelPowerW',
            'bottomWidthPct',
          ],
          rp,
        );
      });
      const mp = join(p, 'meanAbsDifference');
      c.numbers(c.object(r.meanAbsDifference, mp), ['energySavingPts', 'runtimePenaltyPts', 'targetPts'], mp);
      c.each(r, 'observations', p, 1, (o, op) =>
        ['published', 'verdict', 'sentence'].forEach((k) => c.string(o, k, op)),
      );
      // Each layer's sweep is a GPU clock sweep record, checked as one.
      c.each(r, 'layers', p, 1, (l, lp) => checkResult(c, c.object(l.sweep, join(lp, 'sweep')), join(lp, 'sweep')));
      break;
    }
    case 'plan': {
      c.string(r, 'schedule', p);
      c.numbers(r, ['stages', 'microBatches', 'blockingPowerW'], p);
      const point = (o: Obj, op: string) => c.numbers(o, ['timeS', 'energyJ'], op);
      point(c.object(r.baseline, join(p, 'baseline')), join(p, 'baseline'));
      c.each(r, 'frontier', p, 1, (pt, pp) => {
        point(pt, pp);
        c.numbers(pt, ['deadlineS', 'splitEnergyJ'], pp);
      });
      c.each(r, 'splitFrontier', p, 1, point);
      for (const key of ['intrinsic', 'minEnergy', 'envPipe']) {
        const sp = join(p, key);
        const s = c.object(r[key], sp);
        c.numbers(s, ['timeS', 'energyJ', 'savingPct', 'timeChangePct'], sp);
      }
      c.each(r, 'extrinsicCurve', p, 0, (row, rp) =>
        c.numbers(row, ['slowdownFactor', 'savingPct', 'extrinsicSavingPct', 'splitSavingPct'], rp),
      );
      if (r.extrinsic !== undefined) {
        const ep = join(p, 'extrinsic');
        c.numbers(
          c.object(r.extrinsic, ep),
          ['deadlineS', 'slowdownFactor', 'plannedTimeS', 'plannedEnergyJ', 'savingPct', 'extrinsicSavingPct'],
          ep,
        );
      }
      break;
    }
    default: {
      const never: never = result;
      return never;
    }
  }
  return result;
}

/** Validates one parsed results document: a single record or an array of records. */
export function parseResults(json: unknown, file: string): ReportResult[] {
  const c = new Checker(file);
  if (Array.isArray(json)) {
    if (json.length === 0) c.fail('', 'expected at least one result record, got an empty array');
    return json.map((item, i) => checkResult(c, c.object(item, `[${i}]`), `[${i}]`));
  }
  return [checkResult(c, c.object(json, ''), '')];
}

/** Reads and validates results files in order; the first bad file stops with a FormatError naming it. */
export async function loadResults(files: readonly string[]): Promise<ReportResult[]> {
  const all: ReportResult[] = [];
  for (const file of files) {
    all.push(...parseResults(parseJsonText(file, await readTextFile(file)), file));
  }
  return all;
}

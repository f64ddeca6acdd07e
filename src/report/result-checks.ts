/**
 * The checks of each result kind's JSON record (the fields the report reads, types.ts), one function per kind, named
 * by the result-kind registry (kinds.ts). Unknown extra fields are allowed (newer engines may add some).
 */
import { jsonPath, type JsonObject, type JsonShape } from '../formats/json-shape.js';
import { RESULT_SCHEMA_VERSION } from '../engines/replay/types.js';

/** Every record's head: its kind (one of `kinds`), the schema version this tracewatt reads, and a label. */
export function checkRecordHead(c: JsonShape, r: JsonObject, p: string, kinds: readonly string[]): void {
  c.oneOf(r, 'kind', p, kinds);
  if (r.schemaVersion !== RESULT_SCHEMA_VERSION)
    c.expected(
      jsonPath(p, 'schemaVersion'),
      `${RESULT_SCHEMA_VERSION} (this tracewatt reads result schema ${RESULT_SCHEMA_VERSION})`,
      r.schemaVersion,
    );
  c.string(r, 'label', p);
}

const LEDGER_PARTS = ['compute', 'memory', 'communication', 'network', 'idle', 'host', 'total'];

/** An energy breakdown with every part of the ledger (a record from before it lacks communication and host). */
function breakdown(c: JsonShape, obj: JsonObject, key: string, path: string): void {
  const p = jsonPath(path, key);
  const e = c.object(obj[key], p);
  for (const part of ['communication', 'host']) {
    if (e[part] === undefined) {
      c.fail(
        jsonPath(p, part),
        'missing: a record written before the energy ledger (its idle held communication time and network static ' +
          'power, its memory was added to node energies): re-run the command that wrote it',
      );
    }
  }
  c.numbers(e, LEDGER_PARTS, p);
}

/** An energy band (energyBandJ), when present: the bounds the report shows. */
function band(c: JsonShape, obj: JsonObject, key: string, path: string): void {
  if (obj[key] === undefined) return;
  const p = jsonPath(path, key);
  c.numbers(c.object(obj[key], p), ['computeP10', 'computeP90', 'totalP10', 'totalP90'], p);
}

/** `tracewatt replay --json` (modelled or --as-measured). */
export function checkReplay(c: JsonShape, r: JsonObject, p: string): void {
  c.numbers(r, ['makespanNs', 'exposedCommNs', 'overlapShare'], p);
  breakdown(c, r, 'energyJ', p);
  band(c, r, 'energyBandJ', p);
  {
    const tp = jsonPath(p, 'timeS');
    const t = c.object(r.timeS, tp);
    c.numbers(t, ['makespan', 'compute', 'communication', 'exposedCommunication', 'overlap'], tp);
    c.maybeNumber(t, 'memory', tp, { optional: true });
    c.maybeNumber(t, 'idle', tp, { optional: true });
  }
  c.each(r, 'ranks', p, 1, (rank, rp) => {
    c.numbers(rank, ['rank', 'finishNs', 'exposedCommNs', 'waitNs'], rp);
    c.maybeNumber(rank, 'measuredIterationNs', rp, { nullable: true, optional: true, min: 0 });
    breakdown(c, rank, 'energyJ', rp);
  });
  if (r.mode !== undefined && r.mode !== 'as-measured')
    c.expected(jsonPath(p, 'mode'), '"as-measured" or no mode', r.mode);
  if (r.powerLog !== undefined) {
    const lp = jsonPath(p, 'powerLog');
    const log = c.object(r.powerLog, lp);
    c.string(log, 'file', lp);
    c.each(log, 'ranks', lp, 0, (row, rp) => c.numbers(row, ['rank', 'energyJ'], rp));
    c.stringList(log, 'notes', lp);
  }
  c.numberList(r, 'bytesSentPerDim', p);
  if (r.networkEnergyPerDimJ !== undefined) c.numberList(r, 'networkEnergyPerDimJ', p);
  if (r.dimensionNames !== undefined) c.stringList(r, 'dimensionNames', p);
}

/** `tracewatt sweep gpu --json`. */
export function checkGpuClockSweep(c: JsonShape, r: JsonObject, p: string): void {
  c.numbers(r, ['energyOptimalMHz', 'timeOptimalMHz'], p);
  c.each(r, 'points', p, 1, (pt, pp) => {
    c.number(pt, 'clockMHz', pp, { min: 0 });
    c.number(pt, 'timeS', pp, { min: 0 });
    breakdown(c, pt, 'energyJ', pp);
    band(c, pt, 'energyBandJ', pp);
    c.boolean(pt, 'pareto', pp);
  });
}

/** `tracewatt sweep network --json`. */
export function checkNetworkSweep(c: JsonShape, r: JsonObject, p: string): void {
  c.number(r, 'dimension', p, { min: 0 });
  c.each(r, 'points', p, 1, (pt, pp) => {
    c.numbers(pt, ['scale', 'bandwidthGBps', 'energyPerBitPJ', 'voltageRatio', 'makespanNs'], pp);
    breakdown(c, pt, 'energyJ', pp);
    c.numberList(pt, 'networkByDimensionJ', pp);
    c.boolean(pt, 'dominated', pp);
    if (pt.marginal !== null) {
      const mp = jsonPath(pp, 'marginal');
      const m = c.object(pt.marginal, mp);
      c.numbers(m, ['fromScale', 'deltaEnergyJ', 'deltaTimeS'], mp);
      c.maybeNumber(m, 'energyPerTimeW', mp, { nullable: true });
      c.maybeNumber(m, 'energySavedPctPerSlowdownPct', mp, { nullable: true });
    }
  });
}

/** `tracewatt accuracy --json`. */
export function checkAccuracy(c: JsonShape, r: JsonObject, p: string): void {
  c.maybeNumber(r, 'referenceClockMHz', p, { optional: true });
  c.each(r, 'frequencies', p, 1, (row, rp) => {
    c.numbers(row, ['frequencyMHz', 'timeErrorPct', 'energyErrorPct'], rp);
    c.maybeNumber(row, 'powerErrorPct', rp, { nullable: true });
    c.number(row, 'n', rp, { min: 0 });
    c.maybeNumber(row, 'timeCoveragePct', rp, { nullable: true, optional: true });
    c.maybeNumber(row, 'energyCoveragePct', rp, { nullable: true, optional: true });
  });
}

/** `tracewatt case-study` (results.json). */
export function checkCaseStudy(c: JsonShape, r: JsonObject, p: string): void {
  c.stringList(r, 'system', p);
  c.stringList(r, 'definitions', p);
  c.each(r, 'layouts', p, 1, (l, lp) => {
    c.string(l, 'name', lp);
    c.numbers(l, ['dp', 'tp', 'pp', 'microBatches'], lp);
    const np = jsonPath(lp, 'nominal');
    const n = c.object(l.nominal, np);
    c.numbers(n, ['makespanS'], np);
    const sp = jsonPath(np, 'shares');
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
        c.maybeNumber(pt, 'energySavedPctPerSlowdownPct', pp, { nullable: true });
        c.maybeNumber(pt, 'deltaEnergyPerDeltaTimeW', pp, { nullable: true });
      });
    });
    c.each(l, 'ranks', lp, 0, (rk, rp) =>
      c.numbers(rk, ['rank', 'computeS', 'exposedCommS', 'hostS', 'waitS', 'communicationS'], rp),
    );
    c.string(l, 'finding', lp);
  });
  c.string(r, 'finding', p);
  if (r.sensitivity !== undefined) {
    const mp = jsonPath(p, 'sensitivity');
    const m = c.object(r.sensitivity, mp);
    checkRows(
      c,
      m,
      'rows',
      mp,
      'layout',
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
      ['deltaEnergyPerDeltaTimeW', 'energySavedPctPerSlowdownPct'],
    );
    c.string(m, 'finding', mp);
  }
}

/** Checks each row of o[key] (at least one): its string `label`, its `numbers`, then its `nullable` numbers. */
function checkRows(
  c: JsonShape,
  o: JsonObject,
  key: string,
  p: string,
  label: string,
  numbers: string[],
  nullable: string[] = [],
): void {
  c.each(o, key, p, 1, (row, rp) => {
    c.string(row, label, rp);
    c.numbers(row, numbers, rp);
    for (const k of nullable) c.maybeNumber(row, k, rp, { nullable: true });
  });
}

/** `tracewatt case-study a30-layers` (results.json). */
export function checkLayerClockStudy(c: JsonShape, r: JsonObject, p: string): void {
  for (const key of ['system', 'definitions', 'limits']) c.stringList(r, key, p);
  checkRows(c, r, 'rows', p, 'layer', [
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
  ]);
  const mp = jsonPath(p, 'meanAbsDifference');
  c.numbers(c.object(r.meanAbsDifference, mp), ['energySavingPts', 'runtimePenaltyPts', 'targetPts'], mp);
  c.each(r, 'observations', p, 1, (o, op) => ['published', 'verdict', 'sentence'].forEach((k) => c.string(o, k, op)));
  // Each layer's sweep is a GPU clock sweep record, checked as one.
  c.each(r, 'layers', p, 1, (l, lp) => {
    const sp = jsonPath(lp, 'sweep');
    const sweep = c.object(l.sweep, sp);
    checkRecordHead(c, sweep, sp, ['gpu-clock-sweep']);
    checkGpuClockSweep(c, sweep, sp);
  });
}

/** `tracewatt plan --json`. */
export function checkPlan(c: JsonShape, r: JsonObject, p: string): void {
  c.string(r, 'schedule', p);
  c.numbers(r, ['stages', 'microBatches', 'blockingPowerW'], p);
  const point = (o: JsonObject, op: string) => c.numbers(o, ['timeS', 'energyJ'], op);
  point(c.object(r.baseline, jsonPath(p, 'baseline')), jsonPath(p, 'baseline'));
  c.each(r, 'frontier', p, 1, (pt, pp) => {
    point(pt, pp);
    c.numbers(pt, ['deadlineS', 'splitEnergyJ'], pp);
  });
  c.each(r, 'splitFrontier', p, 1, point);
  for (const key of ['intrinsic', 'minEnergy', 'envPipe']) {
    const sp = jsonPath(p, key);
    const s = c.object(r[key], sp);
    c.numbers(s, ['timeS', 'energyJ', 'savingPct', 'timeChangePct'], sp);
  }
  c.each(r, 'extrinsicCurve', p, 0, (row, rp) =>
    c.numbers(row, ['slowdownFactor', 'savingPct', 'extrinsicSavingPct', 'splitSavingPct'], rp),
  );
  if (r.extrinsic !== undefined) {
    const ep = jsonPath(p, 'extrinsic');
    c.numbers(
      c.object(r.extrinsic, ep),
      ['deadlineS', 'slowdownFactor', 'plannedTimeS', 'plannedEnergyJ', 'savingPct', 'extrinsicSavingPct'],
      ep,
    );
  }
}

/**
 * Measured beside modelled in the report, on the H200 GPT run (traces/pytorch-real/h200-gpt, with its nvidia-smi
 * log): the as-measured replay and the modelled replay on `--network none` (one NPU, no hand-written file) are
 * grouped by the measurement they share, and the page sets the measured iteration and the log's energy beside both.
 * The expected figures are the trace's own measured iteration and the log's integral (the engine's JSON), never
 * numbers the report computed before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPytorch } from '../../src/engines/import/index.js';
import { replayFilesAsMeasured } from '../../src/engines/replay/as-measured.js';
import { replayFiles, resolvePower } from '../../src/engines/replay/index.js';
import { buildReport } from '../../src/report/html.js';
import { measuredGroups, measuredHeadline, measuredRows } from '../../src/report/measured-html.js';
import { parseResults } from '../../src/report/validate.js';
import type { ReplayRecord } from '../../src/report/types.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
let asMeasured: ReplayRecord;
let modelled: ReplayRecord;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-report-measured-'));
  const run = shipped('pytorch-real', 'h200-gpt');
  const prefix = path.join(dir, 'h200');
  await importPytorch({ dir: run, out: prefix });
  const am = await replayFilesAsMeasured({
    trace: prefix,
    power: await resolvePower(),
    powerLog: path.join(run, 'nvidia-smi.csv'),
  });
  const mo = await replayFiles({ trace: prefix, network: 'none' });
  // Through JSON and the report's own check, as `tracewatt report` reads them (the CLI adds measuredIterationNs per
  // rank).
  [asMeasured] = parseResults(JSON.parse(JSON.stringify(am)), 'as-measured.json') as ReplayRecord[];
  const withMeasured = {
    ...mo,
    ranks: mo.ranks.map((r) => ({
      ...r,
      measuredIterationNs: am.ranks.find((x) => x.rank === r.rank)!.measuredIterationNs,
    })),
  };
  [modelled] = parseResults(JSON.parse(JSON.stringify(withMeasured)), 'modelled.json') as ReplayRecord[];
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('report: measured beside modelled (H200 GPT, nvidia-smi log)', () => {
  it('groups the as-measured and the modelled replay of one run and sets each beside the measurement', () => {
    const groups = measuredGroups([modelled, asMeasured]);
    expect(groups).toHaveLength(1);
    const g = groups[0]!;
    expect(g.asMeasured).toBe(asMeasured);
    expect(g.modelled).toEqual([modelled]);
    const [row] = measuredRows(g);
    const measuredNs = asMeasured.ranks[0]!.measuredIterationNs!;
    expect(measuredNs).toBeGreaterThan(60e6); // 67.0 ms: ProfilerStep#2
    expect(row!.measuredNs).toBe(measuredNs);
    expect(row!.asMeasuredNs).toBe(asMeasured.ranks[0]!.finishNs);
    expect(row!.modelledNs).toEqual([modelled.ranks[0]!.finishNs]);
    // The log's energy over the iteration (about 10.3 J at 127–199 W) beside the two estimates.
    expect(row!.loggedJ).toBe(asMeasured.powerLog!.ranks[0]!.energyJ);
    expect(row!.loggedJ! / (measuredNs * 1e-9)).toBeGreaterThan(125);
    expect(row!.loggedJ! / (measuredNs * 1e-9)).toBeLessThan(200);
    expect(row!.asMeasuredJ).toBe(asMeasured.energyJ.total);
    expect(row!.modelledJ).toEqual([modelled.energyJ.total]);
    const head = measuredHeadline(g);
    expect(head).toMatch(/^Measured iteration 66\.99 ms; replay error: as-measured 0\.00 %, modelled on one NPU \+\d/);
    expect(head).toContain(`the power log measured ${Number(row!.loggedJ!.toPrecision(4))} J over the iteration`);
  });

  it(
    'the page draws the figure and both tables before the replays, and says these sections compare with ' +
      'measurements',
    async () => {
      const html = await buildReport([asMeasured, modelled]);
      const order = [...html.matchAll(/<section class="result" id="([^"]+)" data-kind="([^"]+)"/g)].map((m) => m[2]);
      expect(order).toEqual(['measured', 'replay', 'replay']);
      expect(html).toContain('data-plot="measured-beside-modelled"');
      expect(html).toContain('<caption>Iteration time per rank</caption>');
      expect(html).toContain('<caption>Energy of the iteration per rank</caption>');
      expect(html).toContain('power log (J, measured)');
      expect(html).toMatch(
        /only the measured-beside-modelled sections and the model-accuracy tables compare with measurements/,
      );
    },
  );

  it('a modelled replay without an as-measured one still gets its section; a replay with no measurement none', async () => {
    const plain = { ...modelled, ranks: modelled.ranks.map(({ measuredIterationNs: _m, ...r }) => r) };
    expect(measuredGroups([plain])).toEqual([]);
    const html = await buildReport([modelled]);
    expect(html).toContain('data-plot="measured-beside-modelled"');
    expect(html).toContain('no power log joined: estimates only');
  });
});

import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../../src/errors.js';
import { loadResults, parseResults } from '../../src/report/validate.js';
import { accuracyFixture, caseStudyFixture, gpuSweepFixture, networkSweepFixture, replayFixture } from './fixtures.js';

const all = () => [replayFixture(), gpuSweepFixture(), networkSweepFixture(), accuracyFixture(), caseStudyFixture()];
const roundTrip = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return (e as Error).message;
  }
  throw new Error('expected a FormatError');
}

describe('parseResults', () => {
  it('accepts every kind after a JSON round trip, alone or as an array', () => {
    for (const r of all()) expect(parseResults(roundTrip(r), 'r.json')).toEqual([r]);
    expect(parseResults(roundTrip(all()), 'all.json').map((r) => r.kind)).toEqual([
      'replay',
      'gpu-clock-sweep',
      'network-sweep',
      'accuracy',
      'case-study',
    ]);
  });

  it('refuses a record from before the energy ledger (no communication or host part), saying to re-run it', () => {
    const r = replayFixture(2);
    const { communication: _c, host: _h, ...old } = r.energyJ;
    expect(messageOf(() => parseResults(roundTrip({ ...r, energyJ: old }), 'old.json'))).toMatch(
      /^old\.json: energyJ\.communication: missing: a record written before the energy ledger .*re-run the command that wrote it/,
    );
  });

  it('keeps extra fields the replay engine writes and accepts a time breakdown without memory and idle', () => {
    const r = replayFixture(2);
    const { memory: _m, idle: _i, ...timeS } = r.timeS;
    const engineStyle = {
      ...r,
      timeS,
      nodes: 812,
      ranks: r.ranks.map((k) => ({ ...k, file: `t.${k.rank}.et`, gpuComputeNs: 9.4e8 })),
    };
    const [parsed] = parseResults(roundTrip(engineStyle), 'replay.json');
    expect(parsed).toEqual(engineStyle);
  });

  it('names the file and field of an unknown kind', () => {
    expect(messageOf(() => parseResults({ ...replayFixture(), kind: 'replays' }, 'run.json'))).toBe(
      'run.json: kind: expected one of replay, gpu-clock-sweep, network-sweep, accuracy, case-study, plan, ' +
        'layer-clock-study, found "replays"',
    );
  });

  it('names the path of a bad field deep inside an array of records', () => {
    const sweep = roundTrip(gpuSweepFixture()) as { points: { energyJ: Record<string, unknown> }[] };
    sweep.points[3]!.energyJ.total = 'n/a';
    expect(messageOf(() => parseResults([accuracyFixture(), sweep], 'sweep.json'))).toBe(
      'sweep.json: [1].points[3].energyJ.total: expected a number, found "n/a"',
    );
  });

  it('says when a required field is missing or a schema version is unknown', () => {
    const { makespanNs: _, ...noMakespan } = replayFixture();
    expect(messageOf(() => parseResults(noMakespan, 'a.json'))).toBe(
      'a.json: makespanNs: expected a number, found nothing (missing)',
    );
    expect(messageOf(() => parseResults({ ...caseStudyFixture(), schemaVersion: 2 }, 'b.json'))).toBe(
      'b.json: schemaVersion: expected 1 (this tracewatt reads result schema 1), found 2',
    );
    const net = roundTrip(networkSweepFixture()) as { points: { networkByDimensionJ: unknown[] }[] };
    net.points[0]!.networkByDimensionJ[1] = null;
    expect(messageOf(() => parseResults(net, 'c.json'))).toBe(
      'c.json: points[0].networkByDimensionJ[1]: expected a number, found null',
    );
  });

  it('rejects an empty array and a non-object', () => {
    expect(messageOf(() => parseResults([], 'e.json'))).toBe(
      'e.json: expected at least one result record, found an empty list',
    );
    expect(messageOf(() => parseResults(42, 'n.json'))).toBe('n.json: expected an object, found 42');
  });
});

describe('loadResults', () => {
  it('reads files in order and names a file that is not JSON', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-validate-'));
    const good = path.join(dir, 'good.json');
    const bad = path.join(dir, 'bad.json');
    await writeFile(good, JSON.stringify([replayFixture(), accuracyFixture()]));
    await writeFile(bad, '{"kind": "replay",');
    expect((await loadResults([good])).map((r) => r.kind)).toEqual(['replay', 'accuracy']);
    await expect(loadResults([good, bad])).rejects.toThrow(/^.*bad\.json: line \d+:\d+: not valid JSON/);
    await expect(loadResults([path.join(dir, 'missing.json')])).rejects.toThrow(
      /missing\.json: cannot read \(ENOENT\)/,
    );
  });
});

/**
 * `tracewatt plan` through runCli: the JSON record (Perseus-comparable frontier in the profile's units), the CSV
 * frontier with units in every header, the files under --out, a report page from the record, and bad input.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { stageProfile } from './perseus.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tracewatt-plan-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const base = [
  'plan',
  '--profile',
  stageProfile('gpt3-175b'),
  '--stages',
  '8',
  '--micro-batches',
  '12',
  '--blocking-power',
  '70.38',
  '--points',
  '60',
];

describe('tracewatt plan', () => {
  it('prints the record with a frontier of {timeS, energyJ} and the plans per computation', async () => {
    const r = await cli([...base, '--straggler-slowdown', '1.2', '--json']);
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.out);
    expect(rec.kind).toBe('plan');
    expect(rec.estimate).toBe(true);
    expect(rec.frontier[0]).toEqual(
      expect.objectContaining({ timeS: expect.any(Number), energyJ: expect.any(Number) }),
    );
    expect(rec.frontier[0].timeS).toBeCloseTo(7.5463, 3);
    expect(rec.intrinsic.savingPct).toBeGreaterThan(11.8);
    expect(rec.extrinsic.slowdownFactor).toBeCloseTo(1.2, 12);
    expect(rec.plans.map((p: { name: string }) => p.name)).toEqual(['intrinsic', 'min-energy', 'deadline']);
    expect(rec.plans[0].computations).toHaveLength(8 * 12 * 2);
    expect(rec.plans[0].computations[0]).toEqual(
      expect.objectContaining({ stage: 0, instruction: 'forward', microBatch: 0, clockMHz: expect.any(Number) }),
    );
    expect(rec.splitPlan).toHaveLength(8 * 12 * 2);
    expect(r.err).toMatch(/note: energies include power drawn while blocked/);
  });
  it('prints the frontier as CSV with units in every header', async () => {
    const r = await cli([...base, '--csv']);
    expect(r.code).toBe(0);
    const header = r.out.split('\n')[0]!;
    expect(header).toBe(
      'iterationTimeS,iterationEnergyJ,deadlineS,computationEnergyJ,blockingEnergyJ,twoClockPlanEnergyAtTheDeadlineJ,savingVsAllMaxClockPct,timeVsAllMaxClockPct',
    );
    expect(r.out.trim().split('\n').length).toBeGreaterThan(10);
  });
  it('writes the record and its tables under --out, and a report from the record', async () => {
    const out = path.join(dir, 'gpt3');
    const r = await cli([...base, '--deadline-s', '8', '--out', out]);
    expect(r.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      'extrinsic.csv',
      'frontier.csv',
      'plan-deadline.csv',
      'plan-intrinsic.csv',
      'plan-min-energy.csv',
      'plan.json',
      'split-frontier.csv',
      'split-plan-intrinsic.csv',
    ]);
    expect((await readFile(path.join(out, 'plan-intrinsic.csv'), 'utf8')).split('\n')[0]).toBe(
      'stage,instruction,microBatch,smClockMHz,timeS,energyJ',
    );
    const html = path.join(dir, 'report.html');
    expect((await cli(['report', path.join(out, 'plan.json'), '--out', html])).code).toBe(0);
    const page = await readFile(html, 'utf8');
    expect(page).toContain('data-plot="plan-frontier"');
    // The frontier plot carries the baseline and EnvPipe-style points beside the plans.
    const plot = page.slice(page.indexOf('data-plot="plan-frontier"'), page.indexOf('data-plot="plan-extrinsic"'));
    for (const marker of ['all max clock', 'EnvPipe-style', 'no slowdown (intrinsic)', 'lowest energy'])
      expect(plot).toContain(marker);
    expect(page).toContain('Clock plan');
  });
  it('plans a GPipe schedule from a profile read with --format perseus', async () => {
    const r = await cli([...base, '--format', 'perseus', '--schedule', 'gpipe', '--json']);
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.out);
    expect(rec.schedule).toBe('gpipe');
    expect(rec.plans[0].computations).toHaveLength(8 * 12 * 2);
    expect(rec.intrinsic.savingPct).toBeGreaterThan(0);
    expect(Math.abs(rec.intrinsic.timeChangePct)).toBeLessThan(1e-3);
    // The frontier starts at its fastest plan (GPT-3's fastest clocks are its highest: the all-max-clock iteration).
    for (const p of rec.frontier) expect(p.timeS).toBeGreaterThanOrEqual(rec.fastest.timeS);
    expect(rec.fastest.timeS).toBeCloseTo(rec.baseline.timeS, 9);
  });
  it('shows the fastest plan when some stages run faster below their highest clock', async () => {
    const capped = path.join('test', 'fixtures', 'perseus', 'capped', 'bloom+a40-capped_bf16.csv');
    const r = await cli(['plan', '--profile', capped, '--format', 'perseus', ...base.slice(3)]);
    expect(r.code).toBe(0);
    const row = r.out.split('\n').find((l) => l.startsWith('fastest, one clock per computation'))!;
    // iteration time, energy, energy saved, time change: faster than the all-max-clock iteration.
    const [timeS, , , changePct] = row
      .replace('fastest, one clock per computation', '')
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(timeS).toBeCloseTo(7.1757, 3);
    expect(changePct).toBeLessThan(-1);
  });
  it('plans from three clocks with the calibration’s power cap', async () => {
    const r = await cli([
      ...base,
      '--fit-frequencies',
      '855,1305,1740',
      '--calibration',
      'calibration/a40.json',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.out);
    expect(rec.source.mode).toBe('fit');
    expect(rec.source.clocksMHz).toHaveLength(60);
    expect(rec.notes[0]).toMatch(/power cap 293\.1 W/);
  });
  it('refuses bad input with one line', async () => {
    const cases: [string[], RegExp][] = [
      [[...base, '--straggler-slowdown', '1.1', '--deadline-s', '9'], /--straggler-slowdown or --deadline-s, not both/],
      [[...base, '--deadline-s', '7'], /--deadline-s 7: faster than the all-max-clock iteration \(7\.546\d+ s\)/],
      [[...base.slice(0, 4), '9', ...base.slice(5)], /no forward samples of stage 8/],
      [[...base, '--schedule', 'zb'], /--schedule: expected one of 1f1b, gpipe, got "zb"/],
      [[...base, '--calibration', 'calibration/a40.json'], /--calibration needs --fit-frequencies: pass it too/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(
        r.err
          .trim()
          .split('\n')
          .filter((l) => !l.includes('note:')),
      ).toHaveLength(1);
    }
  });
  it('refuses a profile that names no stage', async () => {
    const file = path.join(dir, 'bad.csv');
    await writeFile(file, 'stage,instruction,frequency,time,energy\n0,forward,1740,0.1,30\n');
    const r = await cli(['plan', '--profile', file, '--stages', '1', '--micro-batches', '4', '--blocking-power', '70']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no backward samples of stage 0/);
  });
});

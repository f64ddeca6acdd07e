/**
 * A Kineto trace as the profile of predict and annotate, on the shipped real pairs: the clock a Kineto trace lacks is
 * the one the user gives, and what the reader assumed reaches the user (stderr and --json), never only the library.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { shipped } from '../helpers/traces.js';

const addEt = shipped('pytorch-real', 'simple_add', 'et.json.gz');
const addKineto = shipped('pytorch-real', 'simple_add', 'kineto.json.gz');
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-kineto-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a Kineto trace as a profile', () => {
  it('predict: one --reference-frequency is the clock of the samples (the note says so), not the device default', async () => {
    const r = await cli([
      'predict',
      '--calibration',
      'calibration/a100-datasheet.json',
      '--profile',
      addKineto,
      '--reference-frequency',
      '1095',
      '--frequencies',
      '900',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`${addKineto}: note: SM clock 1095 MHz for every sample (given: --reference-frequency)`);
    const rows = JSON.parse(r.out).rows as { frequencyMHz: number }[];
    expect(rows).toHaveLength(4);
    expect(rows.every((x) => x.frequencyMHz === 900)).toBe(true);
  });

  it("annotate: the reader's notes (the assumed clock) are printed and kept in --json", async () => {
    const trace = path.join(dir, 'add');
    expect((await cli(['import', 'pytorch', '--et', addEt, '--kineto', addKineto, '--out', trace])).code).toBe(0);
    const args = [
      'annotate',
      trace,
      '--calibration',
      'calibration/a100-datasheet.json',
      '--profile',
      addKineto,
      '--frequency',
      '1200',
      '--out',
      path.join(dir, 'add-1200'),
    ];
    const text = await cli(args);
    expect(text.code).toBe(0);
    expect(text.err).toMatch(
      new RegExp(
        `${addKineto.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: note: SM clock 1410 MHz assumed for every ` +
          `sample: the maximum boost clock of A100`,
      ),
    );
    const json = await cli([...args, '--json']);
    const notes = JSON.parse(json.out).profileNotes as { profile: string; notes: string[] }[];
    expect(notes).toHaveLength(1);
    expect(notes[0]!.profile).toBe(addKineto);
    expect(notes[0]!.notes[0]).toMatch(/1410 MHz assumed/);
  });
});

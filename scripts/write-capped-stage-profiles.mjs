#!/usr/bin/env node
// Writes the "capped" stage profiles the plan tests use: Perseus' A40 stage measurements (calibration/profiles/
// perseus-sosp24, Apache-2.0) changed to mimic a GPU on which some stages run *faster* at clocks below the maximum
// (as Perseus' A100 measurements do: a power or thermal limit makes the highest requested clocks slower). For each
// listed stage and pass, above a knee clock the measured time at the knee rises linearly to (1 + rise) × itself at
// the highest clock, and the energy keeps the power measured at that clock (energy × new time / measured time).
// Every other row is copied unchanged. Output: test/fixtures/perseus/capped/<model>+a40-capped_bf16.csv, same format.
//   node scripts/write-capped-stage-profiles.mjs
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'test', 'fixtures', 'perseus', 'capped');

/** Per model: [stage, pass, knee clock (MHz), time rise at the highest clock (share)]. Stages not listed are unchanged. */
export const CAPS = {
  'gpt3-175b': [
    [0, 'forward', 1620, 0.012],
    [0, 'backward', 1650, 0.008],
    [1, 'backward', 1590, 0.015],
    [2, 'forward', 1680, 0.006],
    [2, 'backward', 1620, 0.011],
    [4, 'forward', 1605, 0.018],
    [4, 'backward', 1665, 0.009],
    [5, 'backward', 1635, 0.013],
    [7, 'forward', 1650, 0.01],
    [7, 'backward', 1605, 0.016],
  ],
  bloom: [
    [0, 'backward', 1620, 0.011],
    [1, 'backward', 1650, 0.007],
    [1, 'forward', 1500, 0.01],
    [3, 'backward', 1590, 0.016],
    [4, 'backward', 1680, 0.006],
    [6, 'backward', 1635, 0.013],
    [6, 'forward', 1545, 0.008],
    [7, 'backward', 1605, 0.014],
  ],
};

mkdirSync(out, { recursive: true });
for (const [model, caps] of Object.entries(CAPS)) {
  const src = path.join(root, 'calibration', 'profiles', 'perseus-sosp24', `${model}+a40_bf16.csv`);
  const [header, ...lines] = readFileSync(src, 'utf8').trim().split('\n');
  const rows = lines.map((l) => {
    const [stage, instruction, frequency, time, energy] = l.split(',');
    return {
      stage: Number(stage),
      instruction,
      frequency: Number(frequency),
      time: Number(time),
      energy: Number(energy),
      text: l,
    };
  });
  const top = Math.max(...rows.map((r) => r.frequency));
  for (const [stage, pass, knee, rise] of caps) {
    const at = rows.find((r) => r.stage === stage && r.instruction === pass && r.frequency === knee);
    if (!at) throw new Error(`${src}: no ${pass} row of stage ${stage} at ${knee} MHz`);
    for (const r of rows) {
      if (r.stage !== stage || r.instruction !== pass || r.frequency <= knee) continue;
      const time = at.time * (1 + (rise * (r.frequency - knee)) / (top - knee));
      r.text = `${r.stage},${r.instruction},${r.frequency},${time},${(r.energy * time) / r.time}`;
    }
  }
  const file = path.join(out, `${model}+a40-capped_bf16.csv`);
  writeFileSync(file, `${[header, ...rows.map((r) => r.text)].join('\n')}\n`);
  console.log(`wrote ${path.relative(root, file)} (${caps.length} stage passes capped)`);
}

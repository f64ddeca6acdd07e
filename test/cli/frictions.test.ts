/**
 * The small frictions of the own-data path (issue 28), each answered in the output itself: a one-GPU replay needs no
 * network file (`--network none`), the import names the ET ops it could not link, a Kineto trace given where a
 * Chakra trace belongs points at `import kineto`, and `--help` marks the required options.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { shipped } from '../helpers/traces.js';

let dir: string;
let h200: string;
let importText: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-frictions-'));
  h200 = path.join(dir, 'h200');
  const r = await cli(['import', 'pytorch', '--dir', shipped('pytorch-real', 'h200-gpt'), '--out', h200]);
  expect(r.code).toBe(0);
  importText = r.out;
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('own-data frictions', () => {
  it(
    'replay --network none: a one-rank trace replays without a network or system file; more ranks are refused by ' +
      'name',
    async () => {
      const one = await cli(['replay', h200, '--network', 'none', '--json']);
      expect(one.code).toBe(0);
      const j = JSON.parse(one.out);
      expect(j.ranks).toHaveLength(1);
      expect(j.ranks[0].measuredIterationNs).toBeGreaterThan(60e6);
      expect(j.bytesSentPerDim).toEqual([0]);
      const eight = await cli([
        'replay',
        shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'),
        '--network',
        'none',
      ]);
      expect(eight.code).toBe(2);
      expect(eight.err).toMatch(/8 rank file\(s\) but none \(one NPU\) describes 1 NPUs/);
      const noSystem = await cli([
        'replay',
        shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'),
        '--network',
        shipped('configs', 'Switch_8npus.yml'),
      ]);
      expect(noSystem.code).toBe(2);
      expect(noSystem.err).toMatch(/--network none for a one-rank trace/);
      const help = await cli(['replay', '--help']);
      expect(help.out.replace(/\s+/g, ' ')).toMatch(/or "none" for a one-rank trace \(one NPU, no network\)/);
    },
  );

  it('import names the ET ops it could not link (the count and the most frequent names)', () => {
    expect(importText).toMatch(
      /note: 1 ET op has no Kineto op \(kept without a measured duration\): ## process_group:init ## ×1/,
    );
  });

  it('a Kineto trace given to inspect or annotate points at import kineto', async () => {
    const kineto = shipped('pytorch-real', 'h200-gpt', 'rank0.pt.trace.json.gz');
    for (const argv of [
      ['inspect', kineto],
      [
        'annotate',
        kineto,
        '--calibration',
        shipped('..', 'calibration', 'h100-datasheet.json'),
        '--out',
        path.join(dir, 'x'),
      ],
    ]) {
      const r = await cli(argv);
      expect(r.code).toBe(2);
      expect(r.err).toContain(
        `this looks like a Kineto (torch.profiler) trace, not a Chakra .et file: convert it first with ` +
          `\`tracewatt import kineto ${kineto} --out <prefix>\``,
      );
    }
  });

  it('--help marks required options', async () => {
    for (const [cmd, opt] of [
      ['annotate', 'calibration'],
      ['predict', 'profile'],
      ['import pytorch', 'out'],
    ] as const) {
      const help = await cli([...cmd.split(' '), '--help']);
      expect(help.out.replace(/\s+/g, ' ')).toMatch(new RegExp(`--${opt} <[a-z]+> \\(required\\)`));
    }
  });
});

/**
 * Durations from a calibration file's time model at a chosen clock (generate --calibration --frequency):
 * every COMP node's duration is the calibration's estimate for its FLOPs and bytes at that clock.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attrInt } from '../../src/formats/chakra/attrs.js';
import { NodeType } from '../../src/formats/chakra/schema.js';
import { calibratedTimeModel, generateLlmTraces, systemConfig } from '../../src/engines/generate/index.js';
import { estimateFromRoofline, loadCalibration } from '../../src/engines/calibrate/index.js';
import { repoRoot } from '../helpers/shared.js';

describe('generate with a calibrated time model', async () => {
  const cal = await loadCalibration(path.join(repoRoot, 'calibration', 'h100-datasheet.json'));
  const opts = { model: 'llama2-7b', dp: 1, tp: 1, pp: 1, microBatch: 1, globalBatch: 1, seqLen: 512 } as const;
  const at = (mhz: number) => generateLlmTraces({ ...opts, timeModel: calibratedTimeModel(cal, mhz, 'bf16') });

  it('each COMP duration is the calibration estimate at the clock (whole µs), and lower clocks are never faster', () => {
    const fast = at(1980)
      .nodesOf(0)
      .filter((n) => n.type === NodeType.COMP_NODE);
    const slow = at(990)
      .nodesOf(0)
      .filter((n) => n.type === NodeType.COMP_NODE);
    expect(slow.length).toBe(fast.length);
    let longer = 0;
    for (let i = 0; i < fast.length; i++) {
      const flops = Number(attrInt(fast[i], 'num_ops') ?? 0n);
      const bytes = Number(attrInt(fast[i], 'tensor_size') ?? 0n);
      if (flops === 0 && bytes === 0) continue;
      const want = estimateFromRoofline(cal, { flops, bytes, precision: 'fp16Tensor' }, 1980).durationNs / 1000;
      expect(Math.abs(Number(fast[i].durationMicros) - want)).toBeLessThanOrEqual(1);
      expect(slow[i].durationMicros).toBeGreaterThanOrEqual(fast[i].durationMicros);
      if (slow[i].durationMicros > fast[i].durationMicros) longer++;
    }
    expect(longer).toBeGreaterThan(0);
  });

  it("the system.json written beside it replays the durations instead of ASTRA-sim's fixed-peak roofline", () => {
    const set = at(1410);
    expect(systemConfig(set.plan)['roofline-enabled']).toBeFalsy();
  });

  it("a clock outside the device's range is refused up front", () => {
    expect(() => calibratedTimeModel(cal, 99_999, 'bf16')).toThrow(/MHz/);
  });
});

describe('generate llm --calibration --frequency (CLI)', () => {
  it(
    'writes traces whose durations come from the calibration at the clock, and refuses one option without the ' +
      'other',
    async () => {
      const { runCli } = await import('../../src/cli/program.js');
      const { mkdtemp } = await import('node:fs/promises');
      const os = await import('node:os');
      const { readTraceFile } = await import('../../src/formats/chakra/reader.js');
      const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-gencal-'));
      const io = { out: () => undefined, err: () => undefined, isTTY: false };
      const base = ['generate', 'llm', '--model', 'llama2-7b', '--global-batch', '1', '--seq', '512'];
      expect(
        await runCli(
          [
            ...base,
            '--calibration',
            'calibration/h100-datasheet.json',
            '--frequency',
            '990',
            '--out',
            path.join(dir, 'slow'),
          ],
          io,
        ),
      ).toBe(0);
      expect(await runCli([...base, '--out', path.join(dir, 'preset')], io)).toBe(0);
      const slow = (await readTraceFile(path.join(dir, 'slow.0.et'))).nodes.filter(
        (n) => n.type === NodeType.COMP_NODE,
      );
      const preset = (await readTraceFile(path.join(dir, 'preset.0.et'))).nodes.filter(
        (n) => n.type === NodeType.COMP_NODE,
      );
      const total = (ns: typeof slow) => ns.reduce((s, n) => s + n.durationMicros, 0n);
      expect(total(slow)).toBeGreaterThan(total(preset));
      expect(await runCli([...base, '--frequency', '990', '--out', path.join(dir, 'x')], io)).toBe(2);
    },
  );
});

/** The Kineto reader as a profile source, on the real traces shipped in traces/pytorch-real. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { FormatError, InputError } from '../../src/errors.js';
import { readJsonPieces } from '../../src/formats/json-stream.js';
import { readKinetoTrace } from '../../src/formats/kineto/trace.js';
import { detectFormat, readProfile } from '../../src/formats/profiles/index.js';
import { shipped } from '../helpers/traces.js';
import { fixture, tmpFile } from './helpers.js';

const add = shipped('pytorch-real', 'simple_add', 'kineto.json.gz');
const dlrm = (r: number) =>
  shipped(
    'pytorch-real',
    'dlrm',
    readdirSync(shipped('pytorch-real', 'dlrm')).find((f) => f.startsWith(`worker${r}_`))!,
  );

describe('Kineto profile reader', () => {
  it('is detected in .json.gz and .json, and a PyTorch execution trace is told apart', async () => {
    expect(await detectFormat(add)).toEqual({ kind: 'profile', format: 'kineto' });
    expect(await detectFormat(dlrm(0))).toEqual({ kind: 'profile', format: 'kineto' });
    expect(await detectFormat(shipped('pytorch-real', 'simple_add', 'et.json.gz'))).toEqual({ kind: 'pytorch-et' });
    await expect(readProfile(shipped('pytorch-real', 'simple_add', 'et.json.gz'))).rejects.toThrow(
      /PyTorch execution trace.*import pytorch/,
    );
  });

  it(
    'simple add: 4 kernels with name, duration, stream, correlation, device and rank; the A100 default clock, ' +
      'said',
    async () => {
      const t = await readProfile(add);
      expect(t.format).toBe('kineto');
      expect(t.device).toBe('NVIDIA A100-PG509-200');
      expect(t.samples).toHaveLength(4);
      expect(t.samples.map((s) => s.durationNs)).toEqual([5000, 5000, 3000, 3000]);
      expect(t.samples.every((s) => s.smClockMHz === 1410)).toBe(true);
      expect(t.samples[0]!.extra).toMatchObject({ kind: 'kernel', stream: 7, correlationId: 22, device: 0, rank: 0 });
      expect(t.notes[0]).toMatch(/1410 MHz assumed.*maximum boost clock of A100/);
      const given = await readProfile(add, { referenceClockMHz: 1095 });
      expect(given.samples.every((s) => s.smClockMHz === 1095)).toBe(true);
      expect(given.notes[0]).toMatch(/given: --reference-frequency/);
    },
  );

  it('a device with no default clock: every sample is kept, with a null clock and a note saying how to give one', async () => {
    const f = tmpFile(
      'unknown-gpu.json',
      JSON.stringify({
        schemaVersion: 1,
        deviceProperties: [{ id: 0, name: 'Some Future GPU' }],
        traceEvents: [
          {
            ph: 'X',
            cat: 'kernel',
            name: 'k',
            pid: 0,
            tid: 7,
            ts: 100,
            dur: 3,
            args: { device: 0, stream: 7, correlation: 1 },
          },
          {
            ph: 'X',
            cat: 'gpu_memset',
            name: 'Memset (Device)',
            pid: 0,
            tid: 7,
            ts: 104,
            dur: 1,
            args: { device: 0, stream: 7, correlation: 2, bytes: 64 },
          },
        ],
      }),
    );
    const t = await readProfile(f);
    expect(t.samples.map((s) => [s.kernelName, s.smClockMHz, s.durationNs])).toEqual([
      ['k', null, 3000],
      ['Memset (Device)', null, 1000],
    ]);
    expect(t.notes[0]).toMatch(/^NO SM CLOCK: .*"Some Future GPU".*pass --reference-frequency/);
    const given = await readProfile(f, { referenceClockMHz: 1500 });
    expect(given.samples.every((s) => s.smClockMHz === 1500)).toBe(true);
  });

  it('DLRM rank 3: kernels, memcpy and memset, V100-SXM2 at 1530 MHz, rank from distributedInfo', async () => {
    const t = await readProfile(dlrm(3));
    const kinds = t.samples.map((s) => s.extra!.kind);
    expect(kinds.filter((k) => k === 'kernel')).toHaveLength(315);
    expect(kinds.filter((k) => k === 'memcpy')).toHaveLength(16);
    expect(kinds.filter((k) => k === 'memset')).toHaveLength(6);
    expect(t.samples.every((s) => s.smClockMHz === 1530 && s.extra!.rank === 3)).toBe(true);
    expect(t.samples.find((s) => s.extra!.kind === 'memcpy')!.extra!.bytes).toBeGreaterThan(0);
    expect(t.notes).toContain(
      '315 kernels, 16 memcpy and 6 memset events of rank 3 on Tesla V100-SXM2-32GB (compute capability 7.0, ' +
        '80 SMs, 31.7 GiB)',
    );
  });

  it('joins a power log (real nvidia-smi samples) with the sensor caveats in the notes', async () => {
    const t = await readProfile(dlrm(0), {
      power: fixture('xypp3__gpu_glasses__nvidia_smi.csv'),
      powerOffsetNs: 2e9,
      gpuIndex: 0,
    });
    expect(t.samples.every((s) => s.powerW !== null && s.powerW > 70 && s.powerW < 80)).toBe(true);
    expect(t.notes.join('\n')).toMatch(/sensor update period/);
    expect(t.notes.join('\n')).toMatch(/shorter than the sensor period were aggregated/);
  });

  it('joins a Zeus monitor CSV the same way (one power-log reader for every source)', async () => {
    const t = await readProfile(dlrm(0), {
      power: fixture('ml-energy__zeus__zeus_monitor_sample.csv'),
      powerOffsetNs: 0,
    });
    expect(t.samples.length).toBeGreaterThan(0);
    expect(t.samples.every((s) => s.powerW !== null && s.powerW > 0)).toBe(true);
    const notes = t.notes.join('\n');
    expect(notes).toMatch(/Zeus monitor: Power column in mW/);
    expect(notes).toMatch(/sensor update period .* ms \(estimated from reading changes\)/);
    expect(notes).toMatch(/shorter than the sensor period were aggregated/);
  });

  it('CUPTI counter ranges become utilizations of the kernel of the same name', async () => {
    const f = tmpFile(
      'ranges.json',
      JSON.stringify({
        schemaVersion: 1,
        deviceProperties: [{ id: 0, name: 'NVIDIA H100 80GB HBM3' }],
        traceEvents: [
          {
            ph: 'X',
            cat: 'kernel',
            name: 'k',
            pid: 0,
            tid: 7,
            ts: 1700000000000000.5,
            dur: 10.25,
            args: { device: 0, stream: 7, correlation: 1 },
          },
          {
            ph: 'X',
            cat: 'cuda_profiler_range',
            name: 'k',
            pid: 0,
            tid: 0,
            ts: 1700000000000000,
            dur: 10,
            args: {
              'sm__cycles_active.avg.pct_of_peak_sustained_elapsed': 80,
              'sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active': 40,
            },
          },
        ],
      }),
    );
    const t = await readProfile(f);
    expect(t.samples[0]!.utilization).toEqual({ sm_active: 0.8, tensor_active: 0.4 });
    expect(t.samples[0]!.durationNs).toBe(10250);
    expect(t.samples[0]!.smClockMHz).toBe(1980);
    const k = await readKinetoTrace(f);
    expect(k.gpu[0]!.tsNs).toBe(500); // the .5 µs kept exactly, from the text
    expect(k.baseUs).toBe(1700000000000000);
  });

  it('bad input: JSON cut short, a corrupt gzip stream and a non-object are errors naming the byte', async () => {
    const cut = tmpFile(
      'cut.json',
      '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2}, {"ph": "X"',
    );
    await expect(readKinetoTrace(cut)).rejects.toThrow(FormatError);
    await expect(readKinetoTrace(cut)).rejects.toThrow(/ends early/);
    const gz = tmpFile('x.json.gz', '');
    writeFileSync(gz, gzipSync(Buffer.from('{"traceEvents": []}')).subarray(0, 12));
    await expect(readKinetoTrace(gz)).rejects.toThrow(/gzip|ends early/);
    await expect(readKinetoTrace(tmpFile('arr.json', '[1, 2]'))).rejects.toThrow(/byte 0: expected '\{'/);
    await expect(readKinetoTrace('/nonexistent/trace.json')).rejects.toThrow(InputError);
  });

  it('splits elements correctly across chunk boundaries, escapes and nesting', async () => {
    const events = Array.from({ length: 3000 }, (_, i) => ({
      name: `k\\"${'x'.repeat(i % 700)}"]}{\\`,
      v: [i, { a: [i] }],
    }));
    const f = tmpFile('big.json', JSON.stringify({ a: 1, traceEvents: events, b: { c: [1, 2] } }));
    const got: unknown[] = [];
    const values: Record<string, unknown> = {};
    for await (const p of readJsonPieces(f, new Set(['traceEvents']))) {
      if (p.kind === 'element') got.push(JSON.parse(p.text));
      else if (p.kind === 'value') values[p.key] = p.value;
    }
    expect(got).toEqual(events);
    expect(values).toEqual({ a: 1, b: { c: [1, 2] } });
  });
});

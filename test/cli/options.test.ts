/**
 * Typed options (src/cli/options.ts): the one parser of numbers, lists and ranges, defaults, deprecated names,
 * requires.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { parseOptions, parseRange, type TypedOption } from '../../src/cli/options.js';
import { cli } from '../helpers/cli.js';

describe('parseRange', () => {
  it('includes both ends of start:stop:step without float drift', () => {
    const r = parseRange('0.5:1.0:0.05');
    expect(r.length).toBe(11);
    expect(r[0]).toBe(0.5);
    expect(r.at(-1)).toBe(1);
    expect(r).toContain(0.85);
  });
  it('gives every 15 MHz of 210:1980:15', () => {
    const r = parseRange('210:1980:15');
    expect(r.length).toBe((1980 - 210) / 15 + 1);
    r.forEach((v, i) => expect(v).toBe(210 + 15 * i));
  });
  it('sorts and de-duplicates comma lists', () => {
    expect(parseRange('1,0.5,0.75,0.5')).toEqual([0.5, 0.75, 1]);
  });
  it.each(['0.5:1', '1:0.5:0.1', '0.5:1:0', 'a:1:0.1', '0.5:1:x'])('rejects %s', (t) => {
    expect(() => parseRange(t, '--scale')).toThrow(InputError);
  });
});

const TABLE = [
  { name: 'workers', type: 'int', min: 0, description: 'd' },
  { name: 'idle-power', type: 'number', min: 0, unit: 'W', description: 'd' },
  { name: 'frequencies', type: 'list', unit: 'MHz', positive: true, keyword: 'all', default: 'all', description: 'd' },
  { name: 'scale', type: 'range', default: '0.5:1:0.25', description: 'd' },
  { name: 'scaling', type: 'choice', choices: ['ratio', 'offset'], default: 'ratio', description: 'd' },
  { name: 'profile', type: 'string', repeatable: true, description: 'd' },
  { name: 'power-log', type: 'string', deprecatedNames: ['power'], description: 'd' },
  { name: 'gpu-index', type: 'int', min: 0, requires: 'power-log', description: 'd' },
  { name: 'bands', type: 'boolean', description: 'd' },
] as const satisfies readonly TypedOption[];

function parse(raw: Record<string, unknown>) {
  const notes: string[] = [];
  return { opts: parseOptions(TABLE, raw, (n) => notes.push(n)), notes };
}

describe('parseOptions', () => {
  it('fills defaults by type when nothing is given', () => {
    expect(parse({}).opts).toEqual({
      workers: undefined,
      idlePower: undefined,
      frequencies: 'all',
      scale: [0.5, 0.75, 1],
      scaling: 'ratio',
      profile: [],
      powerLog: undefined,
      gpuIndex: undefined,
      bands: false,
    });
  });
  it('parses each value by its type', () => {
    const { opts } = parse({ workers: '0', idlePower: '55.5', frequencies: '870,1710', profile: 'a', bands: true });
    expect(opts).toMatchObject({ workers: 0, idlePower: 55.5, frequencies: [870, 1710], profile: ['a'], bands: true });
  });
  it.each([
    [{ workers: '-1' }, '--workers: expected a whole number ≥ 0, got "-1"'],
    [{ idlePower: 'x' }, '--idle-power: expected a number ≥ 0 of W, got "x"'],
    [{ frequencies: '870,0' }, `--frequencies: expected MHz values separated by commas or 'all', got "870,0"`],
    [{ scaling: 'ratios' }, '--scaling: expected one of ratio, offset, got "ratios"'],
    [{ gpuIndex: '1' }, '--gpu-index needs --power-log: pass it too'],
    [{ power: 'a', powerLog: 'b' }, 'give --power-log or --power (deprecated), not both'],
  ])('refuses %o naming the flag', (raw, message) => {
    expect(() => parse(raw)).toThrow(new InputError(message));
  });
  it('takes a deprecated name with a note', () => {
    const { opts, notes } = parse({ power: 'log.csv', gpuIndex: '1' });
    expect(opts.powerLog).toBe('log.csv');
    expect(opts.gpuIndex).toBe(1);
    expect(notes).toEqual(['--power is deprecated: use --power-log']);
  });
});

describe('the CLI: --power-config and --power-log, the deprecated --power, choices', () => {
  const replay = [
    'replay',
    'traces/astra-sim/all_reduce/8npus_1MB/all_reduce',
    '--system',
    'traces/configs/sys_ring_example.json',
    '--network',
    'traces/configs/Switch_8npus.yml',
    '--json',
  ];
  it('replay --power still works for one release, with a one-line note; --power-config gives the same result', async () => {
    const now = await cli([...replay, '--power-config', 'v100-cluster']);
    const old = await cli([...replay, '--power', 'v100-cluster']);
    expect(now.code).toBe(0);
    expect(now.err).not.toMatch(/deprecated/);
    expect(old.code).toBe(0);
    expect(old.err).toBe(`note: --power is deprecated: use --power-config\n${now.err}`);
    expect(old.out).toBe(now.out);
    expect(JSON.parse(now.out).energyJ.total).not.toBe(JSON.parse((await cli(replay)).out).energyJ.total);
  });
  it('both names at once are refused', async () => {
    const r = await cli([...replay, '--power', 'v100-cluster', '--power-config', 'h100-cluster']);
    expect(r).toMatchObject({
      code: 2,
      err: 'tracewatt: error: give --power-config or --power (deprecated), not both\n',
    });
  });
  it('help lists --power-config and --power-log, not the deprecated --power', async () => {
    const help = (await cli(['replay', '--help'])).out;
    expect(help).toMatch(/--power-config <file\|preset>/);
    expect(help).not.toMatch(/--power </);
    expect((await cli(['predict', '--help'])).out).toMatch(/--power-log <file>/);
    expect((await cli(['predict', '--help'])).out).toMatch(/choices: "nvidia-smi"/);
  });
  it('a misspelt choice exits 2 with one line naming the choices', async () => {
    const r = await cli([
      'annotate',
      'traces/astra-sim/all_reduce/8npus_1MB/all_reduce',
      '--calibration',
      'calibration/a40.json',
      '--out',
      'out/never',
      '--roofline-precision',
      'fp16',
    ]);
    expect(r).toMatchObject({
      code: 2,
      out: '',
      err: 'tracewatt: error: --roofline-precision: expected one of fp16Tensor, fp32, fp64, got "fp16"\n',
    });
  });
});

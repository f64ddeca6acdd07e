/**
 * Numbers and shapes of the config files are range-checked where they are read, with the limit and its unit in the
 * one-line error (issue 26), each reproduced first: a bandwidth of 1e-300 GB/s or a latency of 1e300 ns replayed to
 * Infinity (`sweep network` wrote null energies, exit 0); preferred-dataset-splits 1e9 or 1e308 crashed (exit 3:
 * "Array buffer allocation failed"); a YAML alias bomb, a calibration nested 100,000 deep and a model with hidden_size
 * 1e308 crashed (exit 3); ASTRA-sim's own hgx_h100 system files were refused on track-local-mem; a 300-digit number
 * was quoted whole. Every case starts from a real config shipped in traces/configs, calibration/ or a model preset.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toJson } from '../../src/formats/json.js';
import { Diagnostics } from '../../src/diagnostics.js';
import { loadNetworkConfig, loadSystemConfig } from '../../src/formats/astra/index.js';
import { MAX_YAML_ALIAS_NODES } from '../../src/formats/yaml-text.js';
import { MAX_NESTING } from '../../src/formats/text-file.js';
import { cli } from '../helpers/cli.js';
import { recordedLog } from '../helpers/astra-reference.js';
import { repoRoot } from '../helpers/shared.js';
import { shipped } from '../helpers/traces.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tw-config-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const put = (name: string, data: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, data);
  return p;
};
const trace = shipped('astra-sim', 'all_reduce', '4npus_1MB', 'all_reduce');
const ring4 = shipped('configs', 'Ring_4npus.yml');
const sysPure = shipped('configs', 'sys_ring_pure.json');
const network = readFileSync(ring4, 'utf8');
const system = readFileSync(sysPure, 'utf8');

/** The one line a failed command prints, and its exit code. */
async function refused(...argv: string[]): Promise<string> {
  const r = await cli(argv);
  expect(r.code, r.err).toBe(2);
  expect(r.out).toBe('');
  const lines = r.err.trimEnd().split('\n');
  expect(lines.filter((l) => l.startsWith('tracewatt: '))).toHaveLength(1);
  return lines.at(-1)!;
}

describe('network and system numbers are range-checked at read time, limit and unit named', () => {
  const bw = put('bw.yml', network.replace('[ 50.0 ]', '[ 1e-300 ]'));
  const lat = put('lat.yml', network.replace('[ 500.0 ]', '[ 1e300 ]'));
  it.each([
    [bw, `bandwidth[0]: must be ≥ 1e-6 GB/s and ≤ 1e12 GB/s, found 1e-300`],
    [lat, `latency[0]: must be ≥ 0 ns and ≤ 1e12 ns, found 1e300`],
  ])('%s: replay and sweep network refuse it before replaying', async (file, problem) => {
    expect(await refused('replay', trace, '--system', sysPure, '--network', file)).toBe(
      `tracewatt: error: ${file}: ${problem}`,
    );
    expect(
      await refused(
        'sweep',
        'network',
        trace,
        '--system',
        sysPure,
        '--network',
        file,
        '--dimension',
        '0',
        '--scale',
        '0.5,1',
        '--json',
      ),
    ).toBe(`tracewatt: error: ${file}: ${problem}`);
  });

  it.each(['1000000000', '1e308'])(
    'preferred-dataset-splits %s: replay, energy and sweep network refuse it (crashed with exit 3)',
    async (v) => {
      const f = put(
        `splits-${v}.json`,
        system.replace('"preferred-dataset-splits": 1', `"preferred-dataset-splits": ${v}`),
      );
      const problem =
        `tracewatt: error: ${f}: preferred-dataset-splits: must be ≥ 1 splits and ≤ 4096 splits, found ` +
        (v === '1e308' ? '1e308' : '1e9');
      expect(await refused('replay', trace, '--system', f, '--network', ring4)).toBe(problem);
      const log = recordedLog('all_reduce_4npus_1MB__sys_ring_pure__Ring_4npus.txt');
      expect(await refused('energy', '--astra-sim-log', log, trace, '--system', f, '--network', ring4)).toBe(problem);
      expect(
        await refused('sweep', 'network', trace, '--system', f, '--network', ring4, '--dimension', '0', '--scale', '1'),
      ).toBe(problem);
    },
  );

  it('more NPUs than the limit, in all', async () => {
    const f = put(
      'huge.yml',
      'topology: [ Ring, Ring ]\nnpus_count: [ 2048, 1024 ]\nbandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n',
    );
    await expect(loadNetworkConfig(f)).rejects.toThrow(
      `${f}: npus_count: describes 2097152 NPUs in all; at most 1048576 NPUs are simulated`,
    );
  });

  it('no figure of an output is ever NaN or Infinity: JSON output refuses one, naming the field', () => {
    expect(() => toJson({ points: [{ energyJ: { total: 1 } }, { energyJ: { total: Infinity } }] })).toThrow(
      "the result's points[1].energyJ.total would be Infinity, not a finite number (an input is out of range)",
    );
    expect(toJson({ a: null, b: [1, 2n ** 64n] })).toBe(
      '{\n  "a": null,\n  "b": [\n    1,\n    18446744073709551616\n  ]\n}',
    );
  });
});

describe('sizes that could exhaust memory or the stack have named limits', () => {
  it(`a YAML alias bomb in network.yml: at most ${MAX_YAML_ALIAS_NODES} nodes through aliases`, async () => {
    const lines = ['a0: &a0 [1,1,1,1,1,1,1,1,1,1]'];
    for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [${new Array(10).fill(`*a${i - 1}`).join(',')}]`);
    const f = put('bomb.yml', `${lines.join('\n')}\n${network}`);
    expect(await refused('replay', trace, '--system', sysPure, '--network', f)).toBe(
      `tracewatt: error: ${f}: YAML aliases expand to more than 100 nodes (the limit on alias expansion: ` +
        `anchors nested in anchors grow exponentially)`,
    );
  });

  it('YAML anchors and aliases used as intended are read; unknown tags and unset anchors are refused by name', async () => {
    const ok = put(
      'anchors.yml',
      'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: &bw [ 50.0 ]\nlatency: [ 500.0 ]\nunused: *bw\n',
    );
    await expect(loadNetworkConfig(ok)).rejects.toThrow(/unused: unknown key/);
    const anchored = put(
      'anchors2.yml',
      'topology: [ &t Ring, *t ]\nnpus_count: [ &n 2, *n ]\nbandwidth: [ &b 50, *b ]\nlatency: [ 500, 500 ]\n',
    );
    expect((await loadNetworkConfig(anchored)).dims).toEqual([
      { topology: 'Ring', npus: 2, bandwidthGBps: 50, latencyNs: 500 },
      { topology: 'Ring', npus: 2, bandwidthGBps: 50, latencyNs: 500 },
    ]);
    const tag = put('tag.yml', network.replace('[ 50.0 ]', '[ !gbps 50.0 ]'));
    await expect(loadNetworkConfig(tag)).rejects.toThrow(
      `${tag}: line 3:14: YAML tag !gbps is not one tracewatt reads (plain YAML: maps, lists, strings and numbers)`,
    );
    const alias = put('alias.yml', network.replace('[ 50.0 ]', '[ *nowhere ]'));
    await expect(loadNetworkConfig(alias)).rejects.toThrow(
      `${alias}: not valid YAML: an alias names an anchor not set before it (*nowhere)`,
    );
  });

  it(
    `JSON and YAML nested deeper than ${MAX_NESTING} levels: the calibration nested 100,000 deep crashed (exit ` + `3)`,
    async () => {
      const cal = JSON.parse(readFileSync(path.join(repoRoot, 'calibration', 'a40.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      const deep = put(
        'deep-cal.json',
        JSON.stringify({ ...cal, provenance: '@@' }).replace('"@@"', `${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      );
      const profile = path.join(repoRoot, 'calibration', 'profiles', 'perseus-sosp24', 'gpt3-175b+a40_bf16.csv');
      expect(
        await refused(
          'predict',
          '--calibration',
          deep,
          '--profile',
          profile,
          '--reference-frequency',
          '1740',
          '--frequencies',
          '1200',
        ),
      ).toMatch(
        new RegExp(
          `^tracewatt: error: ${deep.replace(/[.]/g, '\\.')}: line 1:\\d+: nested more than 64 levels deep ` +
            `\\(the limit for tracewatt's text inputs\\)$`,
        ),
      );
      const yml = put('deep.yml', `topology: ${'['.repeat(2000)}${']'.repeat(2000)}\n`);
      await expect(loadNetworkConfig(yml)).rejects.toThrow(
        `${yml}: line 1:75: nested more than 64 levels deep (the limit for tracewatt's text inputs)`,
      );
      const block = put('deep-block.yml', `topology: ${'- '.repeat(3000)}Ring\n`);
      await expect(loadNetworkConfig(block)).rejects.toThrow(/nested more than 64 levels deep|not valid YAML/);
    },
  );

  it('a model with hidden_size 1e308 (generate crashed on Infinity): the field, its limit', async () => {
    const model = put(
      'model.json',
      JSON.stringify({
        hidden_size: 1e308,
        intermediate_size: 11008,
        num_hidden_layers: 4,
        num_attention_heads: 32,
        num_key_value_heads: 32,
        vocab_size: 32000,
        hidden_act: 'silu',
      }),
    );
    expect(
      await refused(
        'generate',
        'llm',
        '--model',
        model,
        '--tp',
        '2',
        '--pp',
        '2',
        '--global-batch',
        '4',
        '--seq',
        '512',
        '--out',
        path.join(dir, 'g'),
      ),
    ).toBe(`tracewatt: error: ${model}: hidden_size: must be ≥ 1 and ≤ 1048576, found 1e308`);
  });

  it('a 300-digit number is quoted cut short, with its length', async () => {
    const digits = '9'.repeat(300);
    const line = await refused(
      'sweep',
      'network',
      trace,
      '--system',
      sysPure,
      '--network',
      ring4,
      '--dimension',
      digits,
    );
    expect(line).toBe(
      `tracewatt: error: --dimension: expected a whole number ≥ 0, got "${'9'.repeat(24)}…${'9'.repeat(15)} ` +
        `(300 characters)"`,
    );
    const f = put('big-string.yml', network.replace('[ 50.0 ]', `[ "${digits}" ]`));
    expect((await refused('replay', trace, '--system', sysPure, '--network', f)).replace(f, '<file>')).toBe(
      `tracewatt: error: <file>: bandwidth[0]: expected a number, found "${'9'.repeat(24)}…${'9'.repeat(15)} ` +
        `(300 characters)"`,
    );
  });
});

describe("every key ASTRA-sim's parsers read is known", () => {
  // The keys of ASTRA-sim's inputs/system/analytical/hgx_h100_8gpu.json (astra-sim 518bd51), values of our own.
  const hgx = {
    'scheduling-policy': 'LIFO',
    'endpoint-delay': 1,
    'active-chunks-per-dimension': 2,
    'preferred-dataset-splits': 4,
    'all-reduce-implementation': ['ring'],
    'all-gather-implementation': ['ring'],
    'reduce-scatter-implementation': ['ring'],
    'all-to-all-implementation': ['ring'],
    'collective-optimization': 'localBWAware',
    'local-mem-bw': 3000,
    'boost-mode': 0,
    'track-local-mem': 1,
    'roofline-enabled': 1,
    'peak-perf': 500,
    'local-mem-trace-filename': 'mem_trace/local_memory_trace',
  };
  it(
    'track-local-mem and local-mem-trace-filename (refused before): accepted, with a warning that tracewatt ' +
      'writes no memory trace',
    async () => {
      const f = put('hgx.json', JSON.stringify(hgx, null, 2));
      const d = new Diagnostics();
      const s = await loadSystemConfig(f, d);
      expect(s.rooflineEnabled).toBe(true);
      expect(d.summary().map((x) => [x.code, x.samples[0]?.message])).toEqual([
        [
          'system.ignored-key',
          `${f}: "track-local-mem", "local-mem-trace-filename" ask ASTRA-sim for its own logs or local memory ` +
            `trace; tracewatt does not write them (ignored, no figure changes)`,
        ],
      ]);
      const quiet = new Diagnostics();
      await loadSystemConfig(
        put('hgx0.json', JSON.stringify({ ...hgx, 'track-local-mem': 0, 'local-mem-trace-filename': undefined })),
        quiet,
      );
      expect(quiet.summary()).toEqual([]);
    },
  );

  it.each([
    [
      { 'all-reduce-implementation-custom': ['x/custom_allreduce'] },
      /all-reduce-implementation-custom: custom collective implementations \(Chakra ETs run as collectives\) are not modelled/,
    ],
    [
      { 'per-node-custom-implementation': 'x.yml' },
      /per-node-custom-implementation: custom collective implementations/,
    ],
    [{ 'model-shared-bus': 1 }, /model-shared-bus: the shared memory bus \(LogGP L, o, g, G\) is not modelled/],
    [
      { 'scheduling-policy': 'EXPLICIT' },
      /scheduling-policy: "EXPLICIT" \(priorities from the trace\) is not modelled/,
    ],
    [{ 'all-reduce-implementation': ['oneRing'] }, /"oneRing" is an ASTRA-sim implementation tracewatt does not model/],
    [{ 'all-reduce-implementation': ['direct8'] }, /"direct8" is an ASTRA-sim implementation tracewatt does not model/],
    [{ 'all-reduce-implementation': ['rings'] }, /"rings" is not an implementation ASTRA-sim knows/],
  ])('what ASTRA-sim reads and tracewatt does not model is refused by name: %j', async (change, message) => {
    await expect(loadSystemConfig(put('x.json', JSON.stringify({ ...hgx, ...change })))).rejects.toThrow(message);
  });
});

describe('power config (--power JSON): every number has an upper limit, named with its unit', () => {
  const power = JSON.parse(
    readFileSync(path.join(repoRoot, 'calibration', 'power', 'h100-cluster.json'), 'utf8'),
  ) as Record<string, any>;
  const sys8 = shipped('configs', 'sys_ring_example.json');
  const switch8 = shipped('configs', 'Switch_8npus.yml');
  const trace8 = shipped('astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce');
  it.each([
    [
      'gpu.activePowerW',
      (p: any) => (p.gpu.activePowerW = 1e300),
      'gpu.activePowerW: must be ≥ 0 W and ≤ 1e4 W, found 1e300',
    ],
    ['gpu.idlePowerW', (p: any) => (p.gpu.idlePowerW = 1e6), 'gpu.idlePowerW: must be ≥ 0 W and ≤ 1e4 W, found 1e6'],
    ['gpu.commPowerW', (p: any) => (p.gpu.commPowerW = 2e4), 'gpu.commPowerW: must be ≥ 0 W and ≤ 1e4 W, found 2e4'],
    [
      'gpu.frequencyMHz',
      (p: any) => (p.gpu.frequencyMHz = 1e9),
      'gpu.frequencyMHz: must be ≥ 0 MHz and ≤ 1e5 MHz, found 1e9',
    ],
    [
      'gpu.componentPowersW',
      (p: any) => (p.gpu.componentPowersW = { sm: 1e7 }),
      'gpu.componentPowersW.sm: must be ≥ 0 W and ≤ 1e4 W, found 1e7',
    ],
    [
      'memory.energyPjPerBit',
      (p: any) => (p.memory.energyPjPerBit = 1e300),
      'memory.energyPjPerBit: must be ≥ 0 pJ/bit and ≤ 1e6 pJ/bit, found 1e300',
    ],
    [
      'memory.remoteEnergyPjPerBit',
      (p: any) => (p.memory.remoteEnergyPjPerBit = 1e7),
      'memory.remoteEnergyPjPerBit: must be ≥ 0 pJ/bit and ≤ 1e6 pJ/bit, found 1e7',
    ],
    [
      'network[1].energyPjPerBit',
      (p: any) => (p.network[1].energyPjPerBit = 1e9),
      'network[1].energyPjPerBit: must be ≥ 0 pJ/bit and ≤ 1e6 pJ/bit, found 1e9',
    ],
    [
      'network[0].bandwidthGBps',
      (p: any) => (p.network[0].bandwidthGBps = 1e300),
      'network[0].bandwidthGBps: must be ≥ 0 GB/s and ≤ 1e12 GB/s, found 1e300',
    ],
    [
      'networkIdlePowerWPerRank',
      (p: any) => (p.networkIdlePowerWPerRank = 1e300),
      'networkIdlePowerWPerRank: must be ≥ 0 W and ≤ 1e5 W, found 1e300',
    ],
    [
      'hostPowerWPerRank',
      (p: any) => (p.hostPowerWPerRank = 1e6),
      'hostPowerWPerRank: must be ≥ 0 W and ≤ 1e5 W, found 1e6',
    ],
  ])('%s: replay refuses it in one line', async (name, change, problem) => {
    const p = structuredClone(power);
    change(p);
    const f = put(`power-${name}.json`, JSON.stringify(p));
    expect(await refused('replay', trace8, '--system', sys8, '--network', switch8, '--power', f)).toBe(
      `tracewatt: error: ${f}: ${problem}`,
    );
  });
});

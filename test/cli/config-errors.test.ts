/**
 * Config and profile errors (issue 14), each reproduced first: malformed or tab-indented YAML gave 3–4 lines; a
 * binary network.yml was dumped into the message; a missing `topology` said "found undefined undefined";
 * `local-mem-bw: 0` said "must be ≥ 5e-324"; a JSON config with a UTF-8 BOM was refused with an invisible character
 * in the message; "no clock has enough rows with power to fit a power model" named no file and no columns.
 * Every case starts from a real config shipped in traces/configs or a vendored profile.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliArgs as cli } from '../helpers/cli.js';
import { loadNetworkConfig, loadPowerConfig, loadSystemConfig } from '../../src/formats/astra/index.js';
import { loadCalibration } from '../../src/model/calibration.js';
import { loadColumnMapping } from '../../src/formats/profiles/index.js';
import { FormatError } from '../../src/errors.js';
import { repoRoot } from '../helpers/shared.js';
import { fixture } from '../profiles/helpers.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tw-config-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const configs = path.join(repoRoot, 'traces', 'configs');
const network = readFileSync(path.join(configs, 'Ring_4npus.yml'), 'utf8');
const system = readFileSync(path.join(configs, 'sys_ring_example.json'), 'utf8');
const calibration = readFileSync(path.join(repoRoot, 'calibration', 'rtx8000.json'), 'utf8');
const put = (name: string, data: string | Buffer) => {
  const p = path.join(dir, name);
  writeFileSync(p, data);
  return p;
};

async function message(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(Error);
  return (e as Error).message;
}

describe('YAML and JSON syntax: one line with file and line:column', () => {
  it('tab-indented network.yml', async () => {
    const f = put('tabs.yml', network.replace('topology: [ Ring ]', 'topology:\n\t- Ring'));
    const m = await message(loadNetworkConfig(f));
    expect(m).toBe(`${f}: line 2:1: not valid YAML: Tabs are not allowed as indentation (indent with spaces)`);
  });
  it('malformed network.yml', async () => {
    const f = put('bad.yml', network.replace('[ 4 ]', '[ 4'));
    const m = await message(loadNetworkConfig(f));
    expect(m.split('\n')).toHaveLength(1);
    expect(m).toMatch(new RegExp(`^${f.replace(/[.]/g, '\\.')}: line \\d+:\\d+: not valid YAML: `));
  });
  it('malformed system.json and calibration JSON', async () => {
    const s = put('sys.json', system.replace('"endpoint-delay": 10,', '"endpoint-delay": 10'));
    expect(await message(loadSystemConfig(s))).toBe(
      `${s}: line 4:3: not valid JSON: Expected ',' or '}' after property value`,
    );
    const c = put('cal.json', calibration.slice(0, 200));
    const m = await message(loadCalibration(c));
    expect(m).toMatch(new RegExp(`^${c.replace(/[.]/g, '\\.')}: line \\d+:\\d+: not valid JSON: `));
    expect(m.split('\n')).toHaveLength(1);
  });
  it('the CLI prints it on one line, exit 2', async () => {
    const f = put('tabs2.yml', network.replace('topology: [ Ring ]', 'topology:\n\t- Ring'));
    const r = await cli(
      'replay',
      path.join(repoRoot, 'traces', 'astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce'),
      '--system',
      path.join(configs, 'sys_ring_example.json'),
      '--network',
      f,
    );
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split('\n')).toEqual([
      `tracewatt: error: ${f}: line 2:1: not valid YAML: Tabs are not allowed as indentation (indent with spaces)`,
    ]);
  });
});

describe('binary input is named, never dumped', () => {
  it('a binary network.yml, system.json, calibration and mapping', async () => {
    const bytes = readFileSync(
      path.join(repoRoot, 'traces', 'astra-sim', 'all_reduce', '8npus_1MB', 'all_reduce.0.et'),
    );
    for (const [name, load] of [
      ['net.yml', loadNetworkConfig],
      ['sys.json', loadSystemConfig],
      ['cal.json', loadCalibration],
      ['map.yaml', loadColumnMapping],
    ] as const) {
      const f = put(`binary-${name}`, bytes);
      const m = await message((load as (f: string) => Promise<unknown>)(f));
      expect(m).toMatch(
        new RegExp(`^${f.replace(/[.]/g, '\\.')}: binary data \\(byte \\d+ is 0x[0-9a-f]{2}\\), not a text file$`),
      );
    }
  });
});

describe('a profile that is no text at all says so', () => {
  it('a binary or empty profile is named as such, not as a header that was not recognised', async () => {
    const elf = put(
      'binary-profile.csv',
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00]),
    );
    const r = await cli('calibrate', elf, '--out', path.join(dir, 'never.json'));
    expect(r.err).toBe(`tracewatt: error: ${elf}: binary data (byte 7 is 0x00), not a profile (CSV or JSON text)\n`);
    expect(r.code).toBe(2);
    const empty = put('empty-profile.csv', '');
    const e = await cli(
      'predict',
      '--calibration',
      path.join(repoRoot, 'calibration', 'rtx8000.json'),
      '--profile',
      empty,
      '--reference-frequency',
      '1710',
      '--frequencies',
      '1110',
    );
    expect(e.err).toBe(`tracewatt: error: ${empty}: empty file, not a profile\n`);
    expect(e.code).toBe(2);
  });
});

describe('a UTF-8 byte-order mark is accepted everywhere', () => {
  it('system.json, network.yml, calibration JSON', async () => {
    const bom = '\ufeff';
    expect((await loadSystemConfig(put('bom-sys.json', bom + system))).localMemBandwidthGBps).toBe(1600);
    expect((await loadNetworkConfig(put('bom-net.yml', bom + network))).dims).toHaveLength(1);
    expect((await loadCalibration(put('bom-cal.json', bom + calibration))).device.name).toBe(
      JSON.parse(calibration).device.name,
    );
    const power = readFileSync(path.join(repoRoot, 'calibration', 'power', 'h100-cluster.json'), 'utf8');
    expect((await loadPowerConfig(put('bom-power.json', bom + power))).name).toBe(JSON.parse(power).name);
  });
});

describe('missing keys and absurd values', () => {
  it('a missing topology is named', async () => {
    const f = put('notopo.yml', network.replace('topology: [ Ring ]\n', ''));
    expect(await message(loadNetworkConfig(f))).toBe(
      `${f}: topology: expected a list of Ring | Switch | FullyConnected, one per dimension, found nothing (missing)`,
    );
    const g = put('nolat.yml', network.replace(/latency.*\n/, ''));
    expect(await message(loadNetworkConfig(g))).toBe(
      `${g}: latency: expected a list of numbers, one per dimension, found nothing (missing)`,
    );
  });
  it('every missing key is named in one message, not one key per run', async () => {
    const f = put('topology-only.yml', 'topology: [ Ring ]\n');
    expect(await message(loadNetworkConfig(f))).toBe(
      `${f}: npus_count, bandwidth, latency: expected each a list of numbers, one per dimension, found nothing ` +
        `(missing)`,
    );
    const g = put('latency-only.yml', 'latency: [ 1 ]\n');
    expect(await message(loadNetworkConfig(g))).toBe(
      `${g}: topology, npus_count, bandwidth: expected topology: a list of Ring | Switch | FullyConnected, one ` +
        `per dimension; npus_count: a list of numbers, one per dimension; bandwidth: a list of numbers, one per ` +
        `dimension, found nothing (missing)`,
    );
    const h = put(
      'no-splits-no-bw.json',
      JSON.stringify({ ...JSON.parse(system), 'preferred-dataset-splits': undefined, 'local-mem-bw': undefined }),
    );
    expect(await message(loadSystemConfig(h))).toBe(
      `${h}: preferred-dataset-splits, local-mem-bw: expected preferred-dataset-splits: an integer ≥ 1; ` +
        `local-mem-bw: a number > 0 GB/s, found nothing (missing)`,
    );
  });
  it('a calibration without its schema key says "missing", never "undefined"', async () => {
    const f = put('no-schema-cal.json', JSON.stringify({ ...JSON.parse(calibration), schema: undefined }));
    expect(await message(loadCalibration(f))).toBe(
      `${f}: schema: expected tracewatt-calibration, found nothing (missing)`,
    );
  });
  it('local-mem-bw: 0 and bandwidth 0 state the accepted range', async () => {
    const f = put('zero-bw.json', system.replace('"local-mem-bw": 1600', '"local-mem-bw": 0'));
    const e = await loadSystemConfig(f).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FormatError);
    expect((e as Error).message).toBe(`${f}: local-mem-bw: must be ≥ 1e-6 GB/s and ≤ 1e12 GB/s, found 0`);
    const g = put('zero-net.yml', network.replace('[ 50.0 ]', '[ 0 ]'));
    expect(await message(loadNetworkConfig(g))).toBe(
      `${g}: bandwidth[0]: must be ≥ 1e-6 GB/s and ≤ 1e12 GB/s, found 0`,
    );
    const h = put('neg-lat.yml', network.replace('[ 500.0 ]', '[ -1 ]'));
    expect(await message(loadNetworkConfig(h))).toBe(`${h}: latency[0]: must be ≥ 0 ns and ≤ 1e12 ns, found -1`);
  });
});

describe('calibrate with no power model to fit names the file and the columns needed', () => {
  it('on the real AccelWattch table (one clock, not recorded in the file)', async () => {
    const f = fixture('accel-sim__accel-sim-framework__hw_power_validation_volta.csv');
    const r = await cli('calibrate', f, '--out', path.join(dir, 'never.json'));
    expect(r.code).toBe(2);
    const line = r.err.trimEnd().split('\n').pop()!;
    expect(line).toMatch(
      new RegExp(
        `^tracewatt: error: ${f.replace(/[.+]/g, '\\$&')}: no clock has enough rows with power to fit a power ` +
          `model: each SM clock needs at least 2 kernels with an SM clock and a power reading \\(a power column, ` +
          `or energy and duration columns\\); found 0 kernel-clock points, 0 with power \\(read as ` +
          `accelwattch\\)$`,
      ),
    );
  });
});

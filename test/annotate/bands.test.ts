/**
 * `annotate --bands` (issue 18): each profiled node carries its 10–90 % band from the calibration's band model
 * (energy_j_p10/p90, duration_ns_p10/p90), the same band predictKernelBand gives; without bands the attributes are
 * absent and the bytes those of a run before bands existed (the annotation, stripped, gives back the input).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { annotateTrace, buildPlan, stripAnnotation } from '../../src/engines/annotate/index.js';
import { ANNOTATION_ATTRS } from '../../src/vocab/attributes.js';
import { loadCalibration, type Calibration } from '../../src/engines/calibrate/index.js';
import {
  attrNumber,
  attrString,
  emptyNode,
  encodeTrace,
  makeAttr,
  NodeType,
  readTraceFile,
  writeTraceFile,
} from '../../src/formats/chakra/index.js';
import type { ProfileTable } from '../../src/vocab/kernel-sample.js';
import { readProfile } from '../../src/formats/profiles/index.js';
import { kernelKey } from '../../src/model/kernels.js';
import { predictKernelBand } from '../../src/model/predict-band.js';
import { describeShared, repoRoot, shared } from '../helpers/shared.js';

const BAND_ATTRS = [
  ANNOTATION_ATTRS.energyJP10,
  ANNOTATION_ATTRS.energyJP90,
  ANNOTATION_ATTRS.durationNsP10,
  ANNOTATION_ATTRS.durationNsP90,
];

describeShared('annotate --bands', () => {
  let cal: Calibration;
  /** The RTX 8000 real kernels profiled at one clock (1710 MHz): predictions elsewhere carry a band. */
  let profile: ProfileTable;
  let dir: string;
  let prefix: string;
  const names: string[] = [];

  beforeAll(async () => {
    cal = await loadCalibration(path.join(repoRoot, 'calibration', 'rtx8000.json'));
    const all = await readProfile(shared('profiles', 'nv-dvfs-benchmark', 'rtx8000-dvfs-real-profile.csv'));
    profile = { ...all, samples: all.samples.filter((s) => s.smClockMHz === 1710) };
    names.push(...[...new Set(profile.samples.map((s) => s.kernelName))].slice(0, 12));
    dir = await mkdtemp(path.join(os.tmpdir(), 'tw-annotate-bands-'));
    prefix = path.join(dir, 'k');
    const nodes = names.map((n, i) => {
      const node = emptyNode(BigInt(i), n, NodeType.COMP_NODE);
      node.durationMicros = 100n;
      node.attrs = [makeAttr('is_cpu_op', 'bool_val', false)];
      return node;
    });
    await writeTraceFile(
      `${prefix}.0.et`,
      { version: '', attrs: [makeAttr('schema', 'string_val', '1.0.2-chakra.0.0.4')] },
      nodes,
    );
  });

  it('writes the band predictKernelBand gives, around the point value, only when asked', async () => {
    expect(cal.uncertainty).toBeTruthy();
    const opts = {
      trace: prefix,
      calibration: cal,
      profiles: [profile],
      frequenciesMHz: [870],
      referenceClockMHz: 1710,
    };
    const banded = await annotateTrace({ ...opts, out: path.join(dir, 'b'), bands: true });
    const plain = await annotateTrace({ ...opts, out: path.join(dir, 'p') });
    const b = await readTraceFile(banded.ranks[0]!.perFrequency[0]!.file);
    const p = await readTraceFile(plain.ranks[0]!.perFrequency[0]!.file);
    let widened = 0;
    b.nodes.forEach((n, i) => {
      expect(attrString(n, ANNOTATION_ATTRS.estimatedFrom)).toBe('profile');
      const samples = profile.samples.filter((s) => kernelKey(s) === n.name);
      const want = predictKernelBand(cal, samples, 870).band!;
      expect(attrNumber(n, ANNOTATION_ATTRS.energyJP10)).toBeCloseTo(want.energyJ.p10, 12);
      expect(attrNumber(n, ANNOTATION_ATTRS.energyJP90)).toBeCloseTo(want.energyJ.p90, 12);
      expect(attrNumber(n, ANNOTATION_ATTRS.durationNsP10)).toBeCloseTo(want.durationNs.p10, 6);
      expect(attrNumber(n, ANNOTATION_ATTRS.durationNsP90)).toBeCloseTo(want.durationNs.p90, 6);
      const e = attrNumber(n, ANNOTATION_ATTRS.energyJ)!;
      expect(attrNumber(n, ANNOTATION_ATTRS.energyJP10)!).toBeLessThanOrEqual(e);
      expect(attrNumber(n, ANNOTATION_ATTRS.energyJP90)!).toBeGreaterThanOrEqual(e);
      if (attrNumber(n, ANNOTATION_ATTRS.energyJP90)! > attrNumber(n, ANNOTATION_ATTRS.energyJP10)!) widened++;
      // The same point figures with and without bands; no band attribute unless asked.
      expect(attrNumber(n, ANNOTATION_ATTRS.energyJ)).toBe(attrNumber(p.nodes[i]!, ANNOTATION_ATTRS.energyJ));
      for (const a of BAND_ATTRS) expect(attrNumber(p.nodes[i]!, a)).toBeUndefined();
    });
    expect(widened).toBe(b.nodes.length);
    // Stripping the annotation, bands included, gives back the input.
    for (const n of b.nodes) stripAnnotation(n, cal.components);
    expect(Buffer.compare(encodeTrace(b.metadata, b.nodes), readFileSync(`${prefix}.0.et`))).toBe(0);
  });

  it('a plan without bands encodes the attributes it encoded before (no band, same order)', () => {
    const plan = buildPlan(cal, [profile], { frequenciesMHz: [870], referenceClockMHz: 1710 });
    const names0 = plan.entries[0]!.perFreq[0]!.attrs.map((a) => a.name);
    expect(names0).toEqual([
      'energy_j',
      'energy_memory_j',
      'power_w',
      ...cal.components.map((c) => `util_${c}`),
      'frequency_mhz',
      ...(names0.includes('frequency_effective_mhz') ? ['frequency_effective_mhz'] : []),
      'frequency_ref_mhz',
      'estimated_from',
    ]);
  });
});

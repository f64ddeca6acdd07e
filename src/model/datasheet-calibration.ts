/**
 * Datasheet-default calibrations for devices with no profiles at hand (H100, A100): NOT fitted. One power model at
 * the maximum SM clock: P0 = idle power (measured or published, see the idle block), and the active-minus-idle power
 * split over components by assumption
 * (SM activity 35%, tensor pipe 45%, DRAM 20%, so a kernel saturating all three draws the active power; FP32 and
 * FP64 pipes 20% and 30% as alternatives to the tensor pipe). Lower clocks follow a generic V–f model (knee at 60%
 * of the maximum clock, +0.5 V/V per GHz above it, idle power split 50/50 constant/static).
 */
import { CALIBRATION_SCHEMA, CALIBRATION_VERSION, type Calibration, type IdleFacts } from './calibration.js';
import { DATASHEETS, datasheetFor } from './datasheets.js';
import { InputError } from '../errors.js';
import { voltageAt } from './vf-model.js';

/**
 * The datasheet-default calibration of a device. Its idle block is `idle` (an idle measurement) or the device's
 * published figure; P0 at the maximum clock is that idle power there (static ∝ V from the figure's clock).
 */
export function datasheetCalibration(deviceName: string, idle?: IdleFacts): Calibration {
  const d = datasheetFor(deviceName);
  if (!d)
    throw new InputError(`no datasheet facts for "${deviceName}" (known: ${DATASHEETS.map((x) => x.name).join(', ')})`);
  const kneeMHz = Math.round(0.6 * d.facts.maxSmClockMHz);
  const slopePerGHz = 0.5;
  const vAt = (mhz: number) => voltageAt({ kneeMHz, slopePerGHz }, mhz);
  const vMax = vAt(d.facts.maxSmClockMHz);
  const idleBlock: IdleFacts = idle ?? {
    powerW: d.idle.powerW,
    smClockMHz: d.idle.smClockMHz,
    basis: 'published',
    source: d.idle.source,
    perClock: [{ smClockMHz: d.idle.smClockMHz, memClockMHz: null, powerW: d.idle.powerW, samples: 1 }],
  };
  const f = { ...d.facts, idlePowerW: Number(((idleBlock.powerW * vMax) / vAt(idleBlock.smClockMHz)).toPrecision(6)) };
  const span = f.activePowerW - f.idlePowerW;
  const dynAtMax = vMax * vMax * (f.maxSmClockMHz / 1000);
  return {
    schema: CALIBRATION_SCHEMA,
    version: CALIBRATION_VERSION,
    device: {
      name: d.name,
      kind: 'datasheet',
      note:
        'DATASHEET DEFAULTS, not fitted: active/idle power, peak FLOP/s and memory bandwidth from the datasheet; ' +
        'component split and V–f shape are assumptions. Every prediction is a rough estimate.',
    },
    clocks: { smClocksMHz: [f.maxSmClockMHz], memClocksMHz: [] },
    components: ['sm_active', 'tensor_active', 'dram_active', 'fp32_active', 'fp64_active'],
    counterFree: false,
    power: {
      perClock: [
        {
          smClockMHz: f.maxSmClockMHz,
          memClockMHz: null,
          interceptW: f.idlePowerW,
          coefficientsW: {
            sm_active: 0.35 * span,
            tensor_active: 0.45 * span,
            dram_active: 0.2 * span,
            fp32_active: 0.2 * span,
            fp64_active: 0.3 * span,
          },
          dropped: [],
          ridgeLambda: 0,
          fit: { n: 0, r2: 0, mapePct: 0, rmseW: 0, outliersRemoved: 0 },
          outliers: [],
        },
      ],
    },
    time: {
      memoryCeiling: [{ smClockMHz: f.maxSmClockMHz, memClockMHz: null, dramActiveMax: 0.9 }],
      share: { w0: -5, w1: 7, feature: 'dram_active/ceiling' },
      launchOverheadNs: 3000,
      fit: [],
    },
    vf: {
      kneeMHz,
      slopePerGHz,
      constW: 0.5 * f.idlePowerW,
      staticW: (0.5 * f.idlePowerW) / vMax,
      dynamicWPerGHz: 0,
      fit: { rmseW: 0, n: 0 },
    },
    powerCap: {
      detected: false,
      powerW: f.tdpW,
      source: 'datasheet',
      evidence:
        `board power limit ${f.tdpW} W (datasheet TDP); dynamic shape at the maximum clock V²f = ` +
        dynAtMax.toFixed(3),
    },
    datasheet: { ...f },
    idle: idleBlock,
    sanity: [],
    provenance: {
      inputs: [],
      command: `datasheet defaults for ${d.name}`,
      createdAt: new Date().toISOString(),
      tool: 'tracewatt',
    },
  };
}

/**
 * Datasheet-level facts per device, as calibrations hold them: the rows of the device table (vocab/devices.ts) that
 * have power facts, each with its published idle figure and, where one was at hand, the lowest clock of its clock
 * table. Used for roofline estimates, as the only content of the datasheet-default calibrations (H100, A100, A30),
 * and as the idle figure of a calibration given no idle measurement.
 */
import { DEVICES, type DeviceFacts, type PublishedIdle } from '../vocab/devices.js';
import type { DatasheetFacts } from './calibration.js';

export interface DeviceSheet {
  match: RegExp;
  name: string;
  facts: DatasheetFacts;
  idle: PublishedIdle;
}

/** A device row as a calibration's datasheet block (active power = TDP, idle power = the published idle figure). */
function sheetOf(d: DeviceFacts): DeviceSheet | null {
  if (!d.match || d.tdpW === undefined || d.maxSmClockMHz === undefined || !d.idle) return null;
  const facts: DatasheetFacts = {
    tdpW: d.tdpW,
    idlePowerW: d.idle.powerW,
    activePowerW: d.tdpW,
    maxSmClockMHz: d.maxSmClockMHz,
    ...(d.minSmClockMHz === undefined ? {} : { minSmClockMHz: d.minSmClockMHz }),
    memoryBandwidthBytesPerS: d.memoryBandwidthBytesPerS,
    peakFlopsPerS: { ...d.peakFlopsPerS },
    source: d.source,
  };
  return { match: d.match, name: d.name, facts, idle: d.idle };
}

export const DATASHEETS: DeviceSheet[] = Object.values(DEVICES as Record<string, DeviceFacts>)
  .map(sheetOf)
  .filter((s): s is DeviceSheet => s !== null);

export function datasheetFor(deviceName: string | null): DeviceSheet | null {
  if (!deviceName) return null;
  return DATASHEETS.find((d) => d.match.test(deviceName)) ?? null;
}

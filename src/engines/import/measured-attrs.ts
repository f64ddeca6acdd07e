/**
 * Writes the measured timeline (measured.ts) onto Chakra nodes and the trace's metadata (formats/chakra/measured.ts).
 */
import { makeAttr, type Attribute } from '../../formats/chakra/index.js';
import { MEASURED_META_ATTRS, MEASURED_NODE_ATTRS } from '../../formats/chakra/measured.js';
import type { MeasuredResult } from './measured.js';
import type { MeasuredWindow } from './window.js';

/** The measured duration, delay and launch offset of node i, as attributes. */
export function measuredAttrs(m: MeasuredResult, i: number): Attribute[] {
  const attrs = [
    makeAttr(MEASURED_NODE_ATTRS.durationNs, 'int64_val', BigInt(m.durationNs[i]!)),
    makeAttr(MEASURED_NODE_ATTRS.delayNs, 'int64_val', BigInt(m.delayNs[i]!)),
  ];
  const off = m.launchOffsetNs[i]!;
  if (!Number.isNaN(off)) attrs.push(makeAttr(MEASURED_NODE_ATTRS.launchOffsetNs, 'int64_val', BigInt(off)));
  return attrs;
}

/** The measured iteration as global metadata attributes. */
export function measuredMetadata(w: MeasuredWindow, device: string | null): Attribute[] {
  return [
    makeAttr(MEASURED_META_ATTRS.iterationNs, 'int64_val', BigInt(w.iterationNs)),
    makeAttr(MEASURED_META_ATTRS.step, 'string_val', w.label),
    ...(w.startUnixNs !== null ? [makeAttr(MEASURED_META_ATTRS.startUnixNs, 'int64_val', w.startUnixNs)] : []),
    ...(device ? [makeAttr(MEASURED_META_ATTRS.device, 'string_val', device)] : []),
  ];
}

/**
 * Whether two device names (a calibration's, a profile's or trace's) name the same GPU. Names differ in vendor and
 * brand words, memory size and type ("NVIDIA H100 80GB HBM3" is the "NVIDIA H100 SXM5" a Kineto trace names), so
 * they are compared by model ("h100", "v100", "rtx 8000", "titan x") and, where both say it, by form factor (SXM
 * and PCIe boards of one chip differ in power cap and clocks).
 */
/** Diagnostic code of a device mismatch (counted, printed as a warning by every command). */
export const DEVICE_MISMATCH = 'device-mismatch';

const NOISE = new Set([
  'nvidia',
  'tesla',
  'geforce',
  'quadro',
  'gtx',
  'graphics',
  'gpu',
  'hbm',
  'hbm2',
  'hbm2e',
  'hbm3',
  'hbm3e',
  'gddr5',
  'gddr5x',
  'gddr6',
  'gddr6x',
]);
const FORM = /^(sxm\d*|pcie?|nvl)$/;

export interface DeviceKey {
  /** The model words, e.g. "v100", "rtx 8000", "titan x"; empty when the name says nothing recognisable. */
  model: string;
  /** "sxm", "pcie", "nvl" or null. */
  form: string | null;
}

/** A model number: v100, h100, a40, l40s, t4, 2080, 8000; "x", "v", "xp" after "titan". */
const MODEL = /^[a-z]{0,2}\d{1,4}[a-z]?$/;
const SERIES = new Set(['rtx', 'gtx', 'titan']);
const SUFFIX = new Set(['ti', 'super']);

export function deviceKey(name: string): DeviceKey {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  let form: string | null = null;
  const rest: string[] = [];
  for (const w of words) {
    if (FORM.test(w)) form = w.startsWith('sxm') ? 'sxm' : w.startsWith('pci') ? 'pcie' : w;
    else if (!NOISE.has(w) && !/^\d+(gb|g|gib)$/.test(w)) rest.push(w);
  }
  // The first model number, with its series word before and its suffix after; board part numbers after it
  // ("A100-PG509-200") are not the model.
  const i = rest.findIndex((w, k) => MODEL.test(w) || (rest[k - 1] === 'titan' && /^(x|v|xp)$/.test(w)));
  if (i < 0) return { model: '', form };
  const model = [
    ...(i > 0 && SERIES.has(rest[i - 1]!) ? [rest[i - 1]!] : []),
    rest[i]!,
    ...(SUFFIX.has(rest[i + 1] ?? '') ? [rest[i + 1]!] : []),
  ];
  return { model: model.join(' '), form };
}

/**
 * Null when the names may be the same GPU (or one says nothing recognisable); otherwise why they differ, in words
 * ("model v100 sxm2 vs v100 pcie", …).
 */
export function deviceDifference(a: string, b: string): string | null {
  const ka = deviceKey(a);
  const kb = deviceKey(b);
  if (!ka.model || !kb.model) return null;
  if (ka.model !== kb.model) return 'another GPU model';
  if (ka.form && kb.form && ka.form !== kb.form)
    return (
      `the same chip on another board, ${ka.form.toUpperCase()} vs ${kb.form.toUpperCase()}: power cap and ` +
      `clocks differ`
    );
  return null;
}

/**
 * The warning when a profile or trace names a device other than the calibration's; null when they agree (or the
 * input names none).
 */
export function deviceMismatchWarning(
  calibrationDevice: string,
  input: { what: string; device: string | null },
  consequence = "the calibration's power model, clock range, power cap and idle power are another GPU's",
): string | null {
  if (!input.device) return null;
  const why = deviceDifference(calibrationDevice, input.device);
  if (!why) return null;
  return (
    `DEVICE MISMATCH: ${input.what} was recorded on "${input.device}", the calibration is for "` +
    `${calibrationDevice}" (${why}): ${consequence} (pass --device-mismatch ok if this is intended)`
  );
}

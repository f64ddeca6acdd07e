/**
 * Default SM clock of a GPU, by the device name a profiler writes: the maximum boost clock from NVIDIA's
 * specifications, the clock GPU Boost runs kernels at unless a power or temperature limit pulls it down. Used for
 * profiles that record no clock (Kineto traces); readers say so in a note, and `--reference-frequency` overrides it.
 * More specific patterns come first.
 */
const DEFAULT_CLOCKS: [RegExp, number, string][] = [
  [/H100.*PCIe/i, 1755, 'H100 PCIe'],
  [/H100.*NVL/i, 1785, 'H100 NVL'],
  [/H100|H200|GH200/i, 1980, 'H100/H200 SXM'],
  [/A100/i, 1410, 'A100'],
  [/A40\b/i, 1740, 'A40'],
  [/A30\b/i, 1440, 'A30'],
  [/A10\b/i, 1695, 'A10'],
  [/L40S/i, 2520, 'L40S'],
  [/L40\b/i, 2490, 'L40'],
  [/\bL4\b/i, 2040, 'L4'],
  [/V100S/i, 1597, 'V100S PCIe'],
  [/V100.*SXM|V100-SXM/i, 1530, 'V100 SXM2'],
  [/V100/i, 1380, 'V100 PCIe'],
  [/P100/i, 1480, 'P100 SXM2'],
  [/\bT4\b/i, 1590, 'T4'],
  [/RTX 8000/i, 1770, 'Quadro RTX 8000'],
  [/RTX 6000 Ada/i, 2505, 'RTX 6000 Ada'],
  [/RTX 6000/i, 1770, 'Quadro RTX 6000'],
  [/2080 Ti/i, 1545, 'GeForce RTX 2080 Ti'],
  [/3090/i, 1695, 'GeForce RTX 3090'],
  [/4090/i, 2520, 'GeForce RTX 4090'],
];

/** The device's maximum boost SM clock (MHz) and which entry gave it, or null for an unknown device. */
export function defaultSmClockMHz(deviceName: string | null): { mhz: number; entry: string } | null {
  if (!deviceName) return null;
  for (const [re, mhz, entry] of DEFAULT_CLOCKS) if (re.test(deviceName)) return { mhz, entry };
  return null;
}

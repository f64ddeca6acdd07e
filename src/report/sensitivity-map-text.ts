/**
 * The case study's sensitivity map as terminal text (within 100 columns): per layout a batch × bandwidth grid of the
 * best scale-out DVFS setting's ΔE % against s = 1, then the sentence naming where it exceeds the threshold.
 */
import type { SensitivityMap } from '../engines/studies/types.js';
import { formatTable, signedFixed, wrapText, type Cell, type Column } from './tables.js';

const signed = signedFixed(2);

export function sensitivityMapText(m: SensitivityMap | undefined): string[] {
  if (!m) return [];
  const layouts = [...new Set(m.rows.map((r) => r.layout))];
  const columns: Column[] = [
    { header: 'layout', align: 'left' },
    { header: 'batch (sequences)' },
    ...m.scaleOutBandwidthsGBps.map((b) => ({ header: `${b} GB/s`, align: 'right' as const })),
  ];
  const rows: Cell[][] = layouts.flatMap((name) =>
    m.batchesSequences.map((B) => [
      name,
      B,
      ...m.scaleOutBandwidthsGBps.map((bw) => {
        const r = m.rows.find(
          (x) => x.layout === name && x.globalBatchSequences === B && x.scaleOutBandwidthGBps === bw,
        );
        if (!r) return '';
        return (
          `${signed(r.energyChangePct)}${Math.abs(r.energyChangePct) > m.thresholdPct ? '*' : ' '}` +
          (r.realBatchPoint ? '★' : ' ')
        );
      }),
    ]),
  );
  return [
    '',
    wrapText(
      `Sensitivity map: ΔE (%) of the best scale-out DVFS setting (s in ${m.scales.join(', ')}) against s = 1, ` +
        `per global batch and ` +
        `scale-out link bandwidth (estimated; * beyond ±${m.thresholdPct} %, ★ the real batch; every cell's ` +
        `best s, ΔT and shares in results.json)`,
    ),
    formatTable(columns, rows).replace(/\n$/, ''),
    wrapText(m.finding),
  ];
}

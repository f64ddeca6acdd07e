/**
 * The case study's sensitivity-map section: the sentence naming where scale-out DVFS moves energy by more than the
 * threshold, the heat map (real-batch point marked), and every cell with the three shares that explain it.
 * html.ts hands in its table and figure builders (see a30-layers-html.ts), so the section looks like the page.
 */
import type { SensitivityMap } from '../engines/studies/types.js';
import type { HtmlParts } from './a30-layers-html.js';
import { sensitivityMapSpec } from './plots/sensitivity-map.js';
import { renderSvg } from './plots/render.js';
import { fixed, signedFixed, significant, sweepNote, SWEEP_EDGE_DEFINITION } from './tables.js';

const signed = signedFixed(2);

export async function sensitivityMapSection(m: SensitivityMap | undefined, h: HtmlParts): Promise<string> {
  if (!m) return '';
  const heat = await renderSvg(sensitivityMapSpec(m));
  const real = m.rows.filter((r) => r.realBatchPoint);
  return [
    '<h3>Where scale-out DVFS pays: batch × bandwidth × layout</h3>',
    `<p class="finding"><strong>Sensitivity map.</strong> ${h.escape(m.finding)}</p>`,
    h.figure(
      'case-sensitivity-map',
      heat,
      `Each cell: the lowest-energy scale-out DVFS setting (s in ${m.scales.join(', ')}) against s = 1 at that ` +
        `batch and bandwidth, ΔE %; ` +
        "blue saves, orange costs. ★ and the black outline: the case study's own point (its global batch at " +
        'the preset bandwidth).',
      `Real batch: ` +
        `${real.map((r) => `${r.layout} ${signed(r.energyChangePct)} % at s = ${r.bestScale}`).join(', ')}; ` +
        `largest saving anywhere ${signed(Math.min(...m.rows.map((r) => r.energyChangePct)))} %.`,
    ),
    '<details><summary>Every cell of the map, with the shares that explain it</summary>',
    h.table(
      [
        { header: 'layout' },
        { header: 'global batch (sequences)' },
        { header: 'scale-out bandwidth (GB/s)' },
        { header: 'best s (× nominal)' },
        { header: 'ΔE (%)', format: signed },
        { header: 'ΔT (%)', format: signed },
        { header: 'ΔE/ΔT (W)', format: significant(3) },
        { header: 'energy saved per 1 % slowdown (%)', format: fixed(2) },
        { header: 'direct network energy (% of total)', format: fixed(2) },
        { header: 'comm. hidden (% of comm. time)', format: fixed(1) },
        { header: 'idle energy (% of total)', format: fixed(2) },
        { header: 'note' },
      ],
      m.rows.map((r) => [
        r.layout,
        r.globalBatchSequences,
        r.scaleOutBandwidthGBps,
        r.bestScale,
        r.energyChangePct,
        r.timeChangePct,
        r.deltaEnergyPerDeltaTimeW,
        r.energySavedPctPerSlowdownPct ?? (r.timeChangePct <= 0 && r.energyChangePct <= 0 ? '—' : null),
        r.networkEnergySharePct,
        r.hiddenCommunicationSharePct,
        r.idleEnergySharePct,
        sweepNote({ realBatch: r.realBatchPoint, atEdge: r.bestAtEdge }),
      ]),
      `Sensitivity map: best scale-out DVFS setting per cell and the shares at s = 1 that explain it ` +
        `(estimated); —: faster and cheaper, no slowdown to save per; ${SWEEP_EDGE_DEFINITION}`,
    ),
    '</details>',
    `<ul class="notes">${m.definitions.map((d) => `<li>${h.escape(d)}</li>`).join('')}</ul>`,
  ].join('\n');
}

/**
 * The case study as terminal text (fits 100 columns) and as rows for --csv: per layout the nominal breakdown and
 * the three knobs' marginal efficiency against nominal. Every figure is an estimate.
 */
import type { CaseStudyRecord, Knob } from '../engines/studies/types.js';
import {
  formatTable,
  signedFixed,
  significant,
  sweepNote,
  SWEEP_EDGE_DEFINITION,
  wrapText,
  type Cell,
  type Column,
} from './tables.js';
import type { RowSet } from './text.js';
import { sensitivityMapText } from './sensitivity-map-text.js';

/** Wraps text to 100 columns (see tables.ts); kept under this name for the case study's callers. */
export const wrap = wrapText;

const settingCell = (k: Knob, s: number) => (k.settingUnit === 'MHz' ? `${s} MHz` : `${s.toFixed(2)} ×`);

/**
 * The note beside a knob setting: nominal, or the lowest-energy one (and whether it is at the edge of the range swept).
 */
export function knobNote(k: Knob, setting: number): string {
  return setting === k.nominalSetting
    ? sweepNote({ nominal: true })
    : setting === k.best.setting
      ? sweepNote({ lowestEnergy: true, atEdge: k.best.atEdge })
      : '';
}

/**
 * A knob setting's figures against nominal, in the order of the case study's tables (terminal, CSV and HTML): ΔT, ΔE,
 * ΔE's 10 % and 90 % band, energy saved per 1 % slower, ΔE/ΔT.
 */
export function knobPointFigures(p: Knob['points'][number]): (number | null)[] {
  return [
    p.timeChangePct,
    p.energyChangePct,
    p.energyChangeBandPct[0],
    p.energyChangeBandPct[1],
    p.energySavedPctPerSlowdownPct,
    p.deltaEnergyPerDeltaTimeW,
  ];
}

/** One row per knob setting of every layout (nominal included), for the table and --csv. */
export function caseStudyRows(r: CaseStudyRecord, o: { layoutColumn?: boolean } = {}): RowSet {
  const columns: Column[] = [
    ...(o.layoutColumn === false ? [] : [{ header: 'layout', align: 'left' as const }]),
    { header: 'knob', align: 'left' },
    { header: 'setting', align: 'left' },
    { header: 'ΔT (%)', format: signedFixed(2) },
    { header: 'ΔE (%)', format: signedFixed(2) },
    { header: 'ΔE band lo (%)', format: signedFixed(2) },
    { header: 'ΔE band hi (%)', format: signedFixed(2) },
    { header: 'saved/slowdown (%/%)', format: signedFixed(2, '') },
    { header: 'ΔE/ΔT (W)', format: significant(3) },
    { header: 'note', align: 'left' },
  ];
  const rows: Cell[][] = r.layouts.flatMap((l) =>
    l.knobs.flatMap((k) =>
      k.points.map((p) => {
        const note = knobNote(k, p.setting);
        return [
          ...(o.layoutColumn === false ? [] : [l.name]),
          k.name,
          settingCell(k, p.setting),
          ...knobPointFigures(p),
          note,
        ];
      }),
    ),
  );
  return { columns, rows };
}

const pct = (x: number, d = 1) => `${(100 * x).toFixed(d)} %`;

/** Network energy no dimension holds (the ports' static power), J. */
function networkStatic(l: CaseStudyRecord['layouts'][number]): number {
  const rest = l.nominal.energyJ.network - l.nominal.networkByDimensionJ.reduce((a, x) => a + x, 0);
  return rest > 1e-9 * l.nominal.energyJ.network ? rest : 0;
}

/** The whole case study as text, every line within 100 columns. */
export function caseStudyText(r: CaseStudyRecord): string {
  const parts: string[] = [
    wrap(`${r.label} (all figures estimated)`),
    ...r.system.map((s) => wrap(`  ${s}`, 100, '    ')),
  ];
  for (const l of r.layouts) {
    const n = l.nominal;
    const e = n.energyJ;
    const x = l.extrapolation;
    parts.push(
      '',
      wrap(
        `${l.name}: ${l.microBatches} micro-batches per pipeline; nominal ${n.makespanS.toFixed(2)} s, ` +
          `${(e.total / 1e6).toFixed(3)} MJ ` +
          `per iteration; traffic ${n.bytesSentPerDimGB.map((b, i) => `dim ${i} ${b.toFixed(0)} GB`).join(', ')}`,
      ),
      wrap(
        `  energy: compute ${pct(e.compute / e.total)}, memory ${pct(e.memory / e.total)}, communication ` +
          `${pct(e.communication / e.total)}, ` +
          `scale-up links ${pct((n.networkByDimensionJ[0] ?? 0) / e.total, 2)}, scale-out links ` +
          `${pct(n.shares.scaleOutEnergy, 2)}, ` +
          (networkStatic(l) > 0 ? `network static ${pct(networkStatic(l) / e.total, 2)}, ` : '') +
          `idle ${pct(n.shares.idleEnergy)}, host ${pct(e.host / e.total)}`,
        100,
        '    ',
      ),
      wrap(
        `  communication time: ${pct(n.shares.hiddenCommunication)} hidden behind compute, ` +
          `${pct(n.shares.exposedCommunication)} exposed ` +
          '(running with no GPU compute)',
        100,
        '    ',
      ),
      wrap(
        `  full batch extrapolated from ${x.replayedMicroBatches.join(' and ')} micro-batches; checked at ` +
          `${x.checkMicroBatches}: ` +
          `time ${x.makespanErrorPct.toExponential(1)} %, energy ${x.energyErrorPct.toExponential(1)} %`,
        100,
        '    ',
      ),
    );
    const t = caseStudyRows({ ...r, layouts: [l] }, { layoutColumn: false });
    // The two band columns as one "lo … hi" column keeps the table narrow.
    // Short knob names, the band in one column and no ΔE/ΔT column (in --csv and the report) keep it within 100
    // columns.
    const columns: Column[] = [
      t.columns[0]!,
      t.columns[1]!,
      t.columns[2]!,
      t.columns[3]!,
      { header: 'ΔE band (%)', align: 'left' },
      t.columns[6]!,
      t.columns[8]!,
    ];
    const sf = signedFixed(2);
    const short = (name: Cell) => String(name).replace(' network DVFS', ' DVFS');
    const rows = t.rows.map((c) => [short(c[0]), c[1]!, c[2]!, c[3]!, `${sf(c[4]!)} … ${sf(c[5]!)}`, c[6]!, c[8]!]);
    parts.push(formatTable(columns, rows).replace(/\n$/, ''));
    if (t.rows.some((c) => /edge/.test(String(c[8])))) parts.push(wrap(`  ${SWEEP_EDGE_DEFINITION}`, 100, '    '));
    parts.push(wrap(l.finding));
  }
  parts.push(...sensitivityMapText(r.sensitivity));
  parts.push(
    '',
    wrap(r.finding),
    '',
    'Definitions:',
    ...[...r.definitions, ...(r.sensitivity?.definitions ?? [])].map((d) => wrap(`  - ${d}`, 100, '    ')),
    '',
  );
  return parts.join('\n');
}

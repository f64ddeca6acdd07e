/** The case study's findings in plain sentences, from the layout records (no replays here). */
import type { CaseStudyLayout, Knob } from './types.js';

const pct = (share: number, digits = 1) => `${(100 * share).toFixed(digits)} %`;
const signed = (x: number, digits = 2) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)} %`;
const band = (b: [number, number], digits = 2) => `${signed(b[0], digits)} … ${signed(b[1], digits)}`;

function knobOf(l: Pick<CaseStudyLayout, 'knobs'>, id: Knob['id']): Knob {
  const k = l.knobs.find((x) => x.id === id);
  if (!k) throw new Error(`case study: no ${id} knob`);
  return k;
}

/**
 * Below this change of the iteration's energy (%) an effect is called negligible: the model errors not in the
 * bands (roofline kernel times, a congestion-unaware network) are larger than that.
 */
export const NEGLIGIBLE_PCT = 0.5;

const settingText = (k: Knob, s: number) => (k.settingUnit === 'MHz' ? `${s} MHz` : `s = ${s}`);

/**
 * One knob's best point in a clause: "s = 1.25 (top of the range swept) changes energy by −0.31 % (band …) and time by
 * −1.2 %".
 */
export function bestClause(k: Knob): string {
  const b = k.best;
  if (b.setting === k.nominalSetting) return `no ${k.name} setting uses less energy than nominal`;
  const edge = b.atEdge ? ` — the ${b.atEdge} of the range swept, so the optimum may lie beyond it` : '';
  const ratio =
    b.timeChangePct > 0
      ? `, ${(-b.energyChangePct / b.timeChangePct).toFixed(2)} % saved per 1 % slowdown`
      : b.timeChangePct < 0
        ? ', and faster'
        : '';
  return (
    `${k.name} at ${settingText(k, b.setting)}${edge}: energy ${signed(b.energyChangePct)} (band ` +
    `${band(b.energyChangeBandPct)}), time ${signed(b.timeChangePct)}${ratio}`
  );
}

/** Does raising the scale-out links' V–f save energy here (the poster's finding), and why, for one layout. */
export function layoutFinding(l: Omit<CaseStudyLayout, 'finding' | 'reproducesPoster'>): {
  finding: string;
  reproducesPoster: boolean;
} {
  const so = knobOf(l, 'scale-out');
  const s = l.nominal.shares;
  const b = so.best;
  const reproducesPoster = b.setting > so.nominalSetting && b.energyChangePct < 0;
  const robust = b.energyChangeBandPct[1] < 0;
  const negligible = Math.abs(b.energyChangePct) < NEGLIGIBLE_PCT;
  const size = negligible
    ? `but the effect is negligible: under ${NEGLIGIBLE_PCT} % of the iteration's energy, smaller than the model ` +
      `errors the band leaves out (roofline kernel times, congestion-unaware network)`
    : robust
      ? 'and the whole band is a saving'
      : 'but the band reaches zero or above, so the sign is not certain';
  const why =
    `direct network energy is ${pct(s.networkEnergy, 2)} of the total (scale-out links ${pct(s.scaleOutEnergy, 2)}), ` +
    `${pct(s.hiddenCommunication)} of communication time is hidden behind compute, and the GPUs' power while ` +
    `only communication runs ` +
    `makes up ${pct(s.communicationEnergy)} of the energy (idle ${pct(s.idleEnergy)})`;
  let answer: string;
  if (reproducesPoster) {
    answer =
      `${l.name}: reproduces the poster's finding${negligible ? ' in direction, not in size' : ''}. Running ` +
      `the scale-out links faster (${bestClause(so)}) saves energy, ` +
      `${size}. ` +
      `Why: ${why}; the scale-out transfers sit on the critical path, so faster links shorten the iteration ` +
      `and save more ` +
      `communication-time and idle energy than their higher energy per bit costs.`;
  } else if (b.setting < so.nominalSetting && b.energyChangePct < 0) {
    answer =
      `${l.name}: does not reproduce the poster's finding: slower scale-out links save energy (` +
      `${bestClause(so)}), ${size}. ` +
      `Why: ${why}; the link energy saved outweighs the communication-time and idle energy of the longer iteration.`;
  } else {
    answer = `${l.name}: does not reproduce the poster's finding: ${bestClause(so)}. Why: ${why}.`;
  }
  const others = (['scale-up', 'gpu-clock'] as const).map((id) => bestClause(knobOf(l, id)));
  return { finding: `${answer} For comparison: ${others.join('; ')}.`, reproducesPoster };
}

/** Over all layouts: where the poster's finding holds and where not. */
export function overallFinding(layouts: readonly CaseStudyLayout[]): string {
  const yes = layouts.filter((l) => l.reproducesPoster).map((l) => l.name);
  const no = layouts.filter((l) => !l.reproducesPoster).map((l) => l.name);
  const head =
    yes.length === 0
      ? `The poster's finding (raising the scale-out network's voltage and frequency gives an efficiency gain) ` +
        `does not reproduce for any layout here (${no.join(', ')}).`
      : `The poster's finding (raising the scale-out network's voltage and frequency gives an efficiency gain) ` +
        `reproduces for ${yes.join(' and ')}` +
        `${no.length ? ` but not for ${no.join(' and ')}` : ''}.`;
  const small = layouts.every((l) => Math.abs(knobOf(l, 'scale-out').best.energyChangePct) < NEGLIGIBLE_PCT);
  const gains = layouts.map((l) => {
    const so = knobOf(l, 'scale-out');
    const clock = knobOf(l, 'gpu-clock');
    return (
      `${l.name}: scale-out DVFS at best ${signed(so.best.energyChangePct)}, GPU clock at best ` +
      `${signed(clock.best.energyChangePct)} ` +
      `(${settingText(clock, clock.best.setting)}, time ${signed(clock.best.timeChangePct)})`
    );
  });
  const scale = small
    ? ` At the full global batch the scale-out links carry little and their effect is negligible (under ` +
      `${NEGLIGIBLE_PCT} % of the energy) in every layout; the SM clock and the scale-up links are the knobs that ` +
      `matter.`
    : '';
  return `${head}${scale} Best setting of each knob against nominal — ${gains.join('; ')}. All figures are estimates.`;
}

import { describe, expect, it } from 'vitest';
import {
  accuracySpec,
  energyBreakdownSpec,
  energyVsClockSpec,
  networkSweepSpec,
  paretoSpec,
  renderPlot,
  renderSvg,
} from '../../src/report/plots/index.js';
import { DOMINATED_GREY } from '../../src/report/plots/render.js';
import { accuracyFixture, gpuSweepFixture, networkSweepFixture, replayFixture } from './fixtures.js';
import { fillOf, markGroups, markItems } from './svg.js';

async function render(spec: Parameters<typeof renderPlot>[0]): Promise<string> {
  const { svg, warnings } = await renderPlot(spec);
  expect(warnings).toEqual([]);
  expect(svg.startsWith('<svg')).toBe(true);
  return svg;
}

describe('energy breakdown bars', () => {
  it('draws one segment per rank and component, with units on the axis', async () => {
    const replay = replayFixture(8);
    const svg = await render(
      energyBreakdownSpec(
        replay.ranks.map((r) => ({ label: String(r.rank), energyJ: r.energyJ })),
        { title: 'per rank', categoryTitle: 'rank' },
      ),
    );
    const bars = markItems(svg, 'energy_bars');
    expect(bars).toHaveLength(8 * 6); // compute, memory, communication, network, idle, host
    expect(bars.filter((b) => fillOf(b) === '#f58518')).toHaveLength(8); // one network segment per rank
    expect(svg).toContain('energy (J, estimated)');
  });

  it('splits the network segment per dimension when asked', async () => {
    const sweep = networkSweepFixture();
    const svg = await render(
      energyBreakdownSpec(
        sweep.points.map((p) => ({
          label: p.scale.toFixed(2),
          energyJ: p.energyJ,
          networkByDimensionJ: p.networkByDimensionJ,
        })),
        { title: 'per scale', categoryTitle: 'scale (× nominal)' },
      ),
    );
    // compute, memory, communication, 2 dimensions, idle, host
    expect(markItems(svg, 'energy_bars')).toHaveLength(11 * 7);
    expect(svg).toContain('network dim 1');
  });
});

describe('energy vs clock', () => {
  it('draws the total as points, an energy line per part and the total, and both optimal clocks', async () => {
    const sweep = gpuSweepFixture();
    const svg = await render(
      energyVsClockSpec(sweep.points, {
        title: 'U',
        energyOptimalMHz: sweep.energyOptimalMHz,
        timeOptimalMHz: sweep.timeOptimalMHz,
      }),
    );
    expect(markItems(svg, 'energy_points')).toHaveLength(sweep.points.length);
    expect(markGroups(svg, 'energy_lines')).toBe(7);
    expect(markItems(svg, 'optimum_rules')).toHaveLength(2);
    expect(svg).toContain(`energy-optimal ${sweep.energyOptimalMHz} MHz`);
    expect(svg).toContain('SM clock (MHz)');
  });
});

describe('Pareto front', () => {
  it('greys exactly the dominated points and joins the front with one line', async () => {
    const sweep = gpuSweepFixture();
    const note = (mhz: number) =>
      mhz === sweep.energyOptimalMHz ? 'energy-optimal' : mhz === sweep.timeOptimalMHz ? 'time-optimal' : undefined;
    const points = sweep.points.map((p) => ({
      label: `${p.clockMHz} MHz`,
      timeS: p.timeS,
      energyJ: p.energyJ.total,
      pareto: p.pareto,
      note: note(p.clockMHz),
    }));
    const svg = await render(paretoSpec(points, { title: 'front', labelTitle: 'SM clock' }));
    const symbols = markItems(svg, 'pareto_points');
    expect(symbols).toHaveLength(points.length);
    const dominated = points.filter((p) => !p.pareto).length;
    expect(dominated).toBeGreaterThan(0);
    expect(symbols.filter((s) => fillOf(s) === DOMINATED_GREY)).toHaveLength(dominated);
    expect(markItems(svg, 'pareto_front')).toHaveLength(1);
    expect([...markItems(svg, 'pareto_notes_above'), ...markItems(svg, 'pareto_notes_below')]).toHaveLength(2);
    expect(svg).toContain('time (s, estimated)');
  });
});

describe('network sweep', () => {
  it('draws one point per scale in the energy and the makespan panel, dominated ones grey', async () => {
    const sweep = networkSweepFixture();
    const svg = await render(networkSweepSpec(sweep.points, { title: 'sweep', dimension: sweep.dimension }));
    const energy = markItems(svg, 'sweep_energy_points');
    const makespan = markItems(svg, 'sweep_makespan_points');
    expect(energy).toHaveLength(11);
    expect(makespan).toHaveLength(11);
    const dominated = sweep.points.filter((p) => p.dominated).length;
    expect(dominated).toBeGreaterThan(0);
    expect(dominated).toBeLessThan(11);
    expect(energy.filter((s) => fillOf(s) === DOMINATED_GREY)).toHaveLength(dominated);
    expect(svg).toContain('makespan (s, estimated)');
  });
});

describe('accuracy per frequency', () => {
  it('draws grouped bars for time, power and energy error, leaving out unmeasured power', async () => {
    const table = accuracyFixture();
    const svg = await render(accuracySpec(table.frequencies, { title: 'accuracy' }));
    const missing = table.frequencies.filter((r) => r.powerErrorPct === null).length;
    expect(markItems(svg, 'error_bars')).toHaveLength(table.frequencies.length * 3 - missing);
    expect(svg).toContain('mean absolute error (%, MAPE)');
  });
});

describe('renderSvg', () => {
  it('is deterministic: the same spec gives the same bytes', async () => {
    const spec = accuracySpec(accuracyFixture().frequencies, { title: 'accuracy' });
    expect(await renderSvg(spec)).toBe(await renderSvg(spec));
  });
});

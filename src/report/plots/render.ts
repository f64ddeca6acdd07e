/**
 * Renders vega-lite specs to SVG text in Node, without a browser: vega-lite compiles the spec to a vega spec, a
 * headless vega View renders it to an SVG string. Text is measured by vega's built-in estimate (no canvas
 * package), so the same spec and data give byte-identical SVG on every machine. vega and vega-lite are loaded by the
 * first render, not with this module: about 0.5 s of start-up that commands printing no plot never pay.
 */
import type { Spec } from 'vega';
import type { TopLevelSpec } from 'vega-lite';

/** Look shared by every tracewatt plot. */
export const PLOT_CONFIG = {
  font: 'sans-serif',
  background: 'white',
  padding: 8,
  axis: { labelFontSize: 11, titleFontSize: 12, grid: true, gridColor: '#e5e5e5' },
  // Vega cuts a legend label wider than labelLimit (default 160 px by its width estimate, 8.8 px a character at
  // 11 px) with "…": 300 px keeps names such as "compute + memory + host" whole.
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 300 },
  header: { labelFontSize: 12, titleFontSize: 12 },
  text: { fontSize: 11 },
  title: { fontSize: 14, anchor: 'start' as const },
  view: { stroke: '#ccc' },
};

/**
 * A quantitative field of a plot (an axis, a tooltip line): its title carries the unit, and "estimated" where the
 * figure is modelled; `scale` as vega-lite takes it.
 */
export function quantitative(field: string, title: string | null, scale?: Record<string, unknown>) {
  return scale
    ? { field, type: 'quantitative' as const, title, scale }
    : { field, type: 'quantitative' as const, title };
}

/**
 * A colour channel over a nominal field: each name of `domain` drawn in the colour at the same place of `range`;
 * `legend` as vega-lite takes it.
 */
export function colourBy(
  field: string,
  title: string | null,
  domain: string[],
  range: string[],
  legend?: Record<string, unknown>,
) {
  return legend
    ? { field, type: 'nominal' as const, title, scale: { domain, range }, legend }
    : { field, type: 'nominal' as const, title, scale: { domain, range } };
}

/** {@link colourBy} over parts that each carry their name and colour. */
export function colourByParts(
  field: string,
  title: string | null,
  parts: readonly { name: string; colour: string }[],
  legend?: Record<string, unknown>,
) {
  return colourBy(
    field,
    title,
    parts.map((p) => p.name),
    parts.map((p) => p.colour),
    legend,
  );
}

/** Colours of the energy components, the same in every plot. */
export const COMPONENT_COLOURS: Record<string, string> = {
  compute: '#4c78a8',
  memory: '#72b7b2',
  communication: '#9d755d',
  network: '#f58518',
  idle: '#bab0ac',
  host: '#b279a2',
};

/** Colour of points that are not worth taking (dominated). */
export const DOMINATED_GREY = '#b0b0b0';

export interface RenderedPlot {
  svg: string;
  /** Warnings vega-lite raised while compiling (an empty list for a well-formed spec). */
  warnings: string[];
}

/** Compiles and renders one spec, returning the SVG and any compile warnings. */
export async function renderPlot(spec: TopLevelSpec): Promise<RenderedPlot> {
  const warnings: string[] = [];
  const collect = (...args: unknown[]) => {
    warnings.push(args.map(String).join(' '));
    return logger;
  };
  const quiet = () => logger;
  const logger = {
    level: () => 0,
    error: collect,
    warn: collect,
    info: quiet,
    debug: quiet,
  };
  const [{ parse, View }, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  // vega-lite's logger type is vega-util's LoggerInterface; this one has every method it calls.
  // biome-ignore lint/suspicious/noExplicitAny: the interface is not exported by vega-lite's typings
  const vgSpec = compile(spec, { logger: logger as any }).spec as Spec;
  const view = new View(parse(vgSpec), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return { svg, warnings };
  } finally {
    view.finalize();
  }
}

/** SVG text of a vega-lite spec. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  return (await renderPlot(spec)).svg;
}

/** Base of every spec: width, height, config. */
export function baseSpec(title: string, width: number, height: number) {
  return { title, width, height, config: PLOT_CONFIG } as const;
}

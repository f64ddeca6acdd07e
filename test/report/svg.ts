/** Counting the marks vega wrote into an SVG string, by the names the plot builders give their layers. */

/** Items (path/line/text/rect elements) in every `<g class="mark-… role-mark NAME_marks">` group. */
export function markItems(svg: string, name: string): string[] {
  const items: string[] = [];
  const open = new RegExp(`<g class="mark-[a-z]+ role-mark ${name}_marks"[^>]*>`, 'g');
  for (const m of svg.matchAll(open)) {
    const start = m.index! + m[0].length;
    const end = svg.indexOf('</g>', start);
    items.push(...(svg.slice(start, end).match(/<(path|line|text|rect)\b[^>]*>/g) ?? []));
  }
  return items;
}

/** Number of `role-mark` groups carrying NAME (a faceted line gives one group per series). */
export function markGroups(svg: string, name: string): number {
  return [...svg.matchAll(new RegExp(`<g class="mark-[a-z]+ role-mark ${name}_marks"`, 'g'))].length;
}

export function fillOf(item: string): string | undefined {
  return /fill="([^"]+)"/.exec(item)?.[1];
}

/** A text label's box in the SVG's coordinates (estimated from its font size and length) and its font size, px. */
export interface TextBox {
  text: string;
  fontPx: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Average glyph width of a sans-serif font, em (a lower estimate: fails only where labels clearly collide). */
const GLYPH_EM = 0.5;

/**
 * Every visible `<text>` of a vega SVG with its box: nested `<g transform="translate(…)">` offsets added up, the
 * text's own translate, anchor (start/middle/end) and rotation (±90°: box turned) applied.
 */
export function textBoxes(svg: string): TextBox[] {
  const out: TextBox[] = [];
  const stack: [number, number][] = [[0, 0]];
  const tag = /<(\/?)(g|text)\b([^>]*)>([^<]*)/g;
  for (const m of svg.matchAll(tag)) {
    const [, close, name, attrs, content] = m;
    const top = stack[stack.length - 1]!;
    const t = /transform="translate\(([-\d.e]+),([-\d.e]+)\)/.exec(attrs!);
    const dx = t ? Number(t[1]) : 0;
    const dy = t ? Number(t[2]) : 0;
    if (name === 'g') {
      if (close) stack.pop();
      else if (!attrs!.endsWith('/')) stack.push([top[0] + dx, top[1] + dy]);
      continue;
    }
    if (close) continue;
    const text = (content ?? '').trim();
    if (!text || /opacity="0"/.test(attrs!)) continue;
    const fontPx = Number(/font-size="([\d.]+)px"/.exec(attrs!)?.[1] ?? 11);
    const w = GLYPH_EM * fontPx * [...text].length;
    const h = fontPx * 0.8;
    const anchor = /text-anchor="(\w+)"/.exec(attrs!)?.[1] ?? 'start';
    const x = top[0] + dx;
    const y = top[1] + dy;
    const rotated = /rotate\((-?90|270)\)/.test(attrs!);
    const along = anchor === 'middle' ? [-w / 2, w / 2] : anchor === 'end' ? [-w, 0] : [0, w];
    out.push(
      rotated
        ? { text, fontPx, x0: x - h, x1: x, y0: y - along[1]!, y1: y - along[0]! }
        : { text, fontPx, x0: x + along[0]!, x1: x + along[1]!, y0: y - h, y1: y },
    );
  }
  return out;
}

/** Pairs of text boxes that overlap by more than `tolerancePx` both ways. */
export function overlappingLabels(boxes: readonly TextBox[], tolerancePx = 1): [TextBox, TextBox][] {
  const pairs: [TextBox, TextBox][] = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      const ox = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      const oy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (ox > tolerancePx && oy > tolerancePx) pairs.push([a, b]);
    }
  }
  return pairs;
}

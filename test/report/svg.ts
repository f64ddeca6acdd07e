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

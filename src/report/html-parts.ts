/**
 * The page's builders for a table, a figure, a list of definitions and escaped text: every section of the HTML
 * report is made of them, so the sections look alike.
 */
import type { HtmlParts } from './a30-layers-html.js';
import { formatRows, type Cell, type Column } from './tables.js';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function htmlTable(columns: readonly Column[], rows: readonly (readonly Cell[])[], caption?: string): string {
  const { text, align } = formatRows(columns, rows);
  const cls = (i: number) => (align[i] === 'right' ? ' class="num"' : '');
  const head = columns.map((c, i) => `<th${cls(i)}>${escapeHtml(c.header)}</th>`).join('');
  const body = text
    .map((r) => `<tr>${r.map((cell, i) => `<td${cls(i)}>${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  // Wide tables scroll inside their own box instead of running off the card.
  return (
    `<div class="table-scroll"><table>${caption ? `<caption>${escapeHtml(caption)}</caption>` : ''}<thead><tr>` +
    `${head}</tr></thead>\n<tbody>\n${body}\n</tbody></table></div>`
  );
}

/** Definitions printed under a table: a titled list. */
export function definitionList(title: string, lines: readonly string[]): string {
  return (
    `<details class="definitions" open><summary>${escapeHtml(title)}: definitions</summary><ul>` +
    `${lines.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul></details>`
  );
}

/** A plot with its caption below and, when given, its one-line takeaway above. */
export function figure(id: string, svg: string, caption: string, takeaway?: string): string {
  const head = takeaway ? `<p class="takeaway">${escapeHtml(takeaway)}</p>` : '';
  return (
    `<figure class="plot" data-plot="${escapeHtml(id)}">${head}${svg}<figcaption>${escapeHtml(caption)}` +
    `</figcaption></figure>`
  );
}

/** The builders as one object, for the sections that take them as an argument. */
export const HTML_PARTS: HtmlParts = { table: htmlTable, figure, escape: escapeHtml };

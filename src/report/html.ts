/**
 * One self-contained HTML page for a list of results: inline CSS, inline SVG plots, no scripts and no external
 * URLs, so it opens from disk or an e-mail attachment. Output depends only on the inputs and options. Each result's
 * section comes from its kind's entry in the result-kind registry (kinds.ts).
 */
import { escapeHtml, HTML_PARTS } from './html-parts.js';
import { viewsOf } from './kinds.js';
import { measuredGroups, measuredSection, type MeasuredGroup } from './measured-html.js';
import type { ReportResult } from './types.js';
import { tracewattVersion } from './version.js';

export { escapeHtml };

export interface ReportOptions {
  /** Default: "tracewatt report". */
  title?: string;
  /** Default: the version in package.json. */
  version?: string;
  /** Shown in the header when given (left out by default so the page is reproducible). */
  generatedAt?: string;
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;margin:0;background:#fafafa}
header,main,footer{max-width:1180px;margin:0 auto;padding:0 20px}
header{padding-top:10px}
h1{font-size:22px;margin:0 0 2px}
h2{font-size:19px;margin:0 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#666;margin:0 0 4px}
.estimates{background:#fff6e0;border-left:4px solid #f0a500;padding:4px 10px;margin:4px 0;font-size:13px}
nav ol{margin:6px 0 14px;padding-left:22px}
section.result{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:10px 18px;margin:10px 0;min-width:0}
.headline{font-size:17px;font-weight:600;margin:4px 0 6px;color:#123}
details.method{border-top:1px solid #ddd;padding-top:6px;margin-top:12px}
.kind{color:#888;font-weight:normal;font-size:14px}
table{border-collapse:collapse;margin:8px 16px 12px 0;font-size:13px;background:#fff}
caption{text-align:left;font-weight:600;padding:2px 0 4px}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
td.num,td:first-child{white-space:nowrap}
th{min-width:4.5em;max-width:16em}
th{background:#f2f2f2;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.tables{display:flex;flex-wrap:wrap;align-items:flex-start}
.table-scroll{max-width:100%;overflow-x:auto}
.takeaway{font-weight:600;margin:10px 0 2px;color:#234}
.finding.layout{background:#f5f8ee;border-left-color:#54a24b}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
figure.plot{margin:8px 0;max-width:100%;overflow-x:auto}
figure.plot svg{display:block;max-width:none}
figcaption{color:#555;font-size:12px;margin-top:2px}
details{margin:6px 0}
summary{cursor:pointer;color:#345}
.finding{background:#eef5ff;border-left:4px solid #4c78a8;padding:8px 12px}
footer{color:#888;font-size:12px;padding-bottom:24px}
`;

/** One section of the page: a result, or an imported run's measurement beside its replays. */
interface PageSection {
  id: string;
  kind: string;
  kindTitle: string;
  label: string;
  body: string;
}

/**
 * The run a group of replays shares: the as-measured label without " as measured", else a modelled one without " on
 * <network>".
 */
function measuredGroupLabel(g: MeasuredGroup): string {
  return g.asMeasured ? g.asMeasured.label.replace(/ as measured$/, '') : g.modelled[0]!.label.replace(/ on .+$/, '');
}

/**
 * The whole page as one HTML string. Sections follow the order of `results`; an imported run's measured-beside-modelled
 * section comes before its first replay.
 */
export async function buildReport(results: readonly ReportResult[], options: ReportOptions = {}): Promise<string> {
  const title = options.title ?? 'tracewatt report';
  const version = options.version ?? tracewattVersion();
  const groups = measuredGroups(results);
  const [bodies, groupBodies] = await Promise.all([
    Promise.all(results.map((r) => viewsOf(r.kind).html(r))),
    Promise.all(groups.map((g) => measuredSection(g, HTML_PARTS))),
  ]);
  const page: PageSection[] = [];
  results.forEach((r, i) => {
    groups.forEach((g, j) => {
      if (g.indexes[0] === i)
        page.push({
          id: `measured-${j + 1}`,
          kind: 'measured',
          kindTitle: 'Measured beside modelled',
          label: measuredGroupLabel(g),
          body: groupBodies[j]!,
        });
    });
    page.push({
      id: `result-${i + 1}`,
      kind: r.kind,
      kindTitle: viewsOf(r.kind).title,
      label: r.label,
      body: bodies[i]!,
    });
  });
  const sections = page.map(
    (s) =>
      `<section class="result" id="${s.id}" data-kind="${s.kind}">\n` +
      `<h2>${escapeHtml(s.label)} <span class="kind">· ${s.kindTitle}</span></h2>\n${s.body}\n</section>`,
  );
  const toc = page.map(
    (s) => `<li><a href="#${s.id}">${escapeHtml(s.label)}</a> <span class="kind">${s.kindTitle}</span></li>`,
  );
  return (
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" ` +
    `content="width=device-width, initial-scale=1">
<meta name="generator" content="tracewatt ` +
    `${escapeHtml(version)}">
<title>${escapeHtml(title)}</title>
<style>${CSS}` +
    `</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="meta">tracewatt ` +
    `${escapeHtml(version)} · ${results.length} result${results.length === 1 ? '' : 's'}` +
    `${options.generatedAt ? ` · generated ${escapeHtml(options.generatedAt)}` : ''}</p>
<p ` +
    `class="estimates"><strong>Estimates.</strong> Energy, power and time on this page are modelled by tracewatt, ` +
    `not measured
(only ${groups.length ? 'the measured-beside-modelled sections and ' : ''}the model-accuracy ` +
    `tables compare with measurements).</p>
${page.length > 1 ? `<nav><ol>${toc.join('')}</ol></nav>` : ''}` +
    `
</header>
<main>
${sections.join('\n')}
</main>
<footer>Made by tracewatt ${escapeHtml(version)}. ` +
    `Self-contained page: no scripts, no external resources.</footer>
</body>
</html>
`
  );
}

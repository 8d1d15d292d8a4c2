import { countText } from '../html/count-text.ts';

/** HTML-escapes text for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** One line of a chart. */
export interface Series {
  name: string;
  /** A CSS colour; ours, never user input. */
  color: string;
  values: readonly number[];
}

/** The box a chart is drawn for: its width and height (SVG units) and how many dates its x axis names. */
export interface ChartSize {
  width: number;
  height: number;
  dates: number;
}

/** A chart for a wide column (laptops, tablets). */
export const WIDE: ChartSize = { width: 800, height: 240, dates: 5 };
/** A chart for a phone's column, drawn for ~330 px so its text is not scaled down. */
export const NARROW: ChartSize = { width: 360, height: 240, dates: 3 };

/**
 * Round y-axis ticks: a step of 1, 2 or 5 × 10^n giving at most 5 intervals, and the top the first
 * step at or above the largest value (so 0, 10, 20, 30, 40, never 13/25/38).
 */
export function yTicks(max: number): number[] {
  const raw = Math.max(max, 4) / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const top = Math.ceil(Math.max(max, 4) / step) * step;
  return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
}

/** The indexes of `count` labels spread evenly from the first to the last (all of them when fewer). */
function spread(length: number, count: number): number[] {
  if (length <= count) return Array.from({ length }, (_, i) => i);
  return [...new Set(Array.from({ length: count }, (_, i) => Math.round((i * (length - 1)) / (count - 1))))];
}

/**
 * An inline SVG line chart of `series` over `labels` (one point per label), drawn for `size`: a y
 * grid with round ticks, a few dates on the x axis, a legend, and a native tooltip (<title>) on
 * every point. Its text is styled by the page (`.chart text`).
 */
export function lineChart(labels: readonly string[], series: readonly Series[], title: string, size: ChartSize = WIDE, desc?: string): string {
  const W = size.width;
  const H = size.height;
  const ticks = yTicks(Math.max(0, ...series.flatMap((s) => s.values)));
  // Room for the widest y label ("100,000"), about 8 units a character at the page's chart sizes.
  const PAD = { left: Math.max(44, countText(ticks[ticks.length - 1]!).length * 8 + 12), right: 12, top: 30, bottom: 26 };
  const top = ticks[ticks.length - 1]!;
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (labels.length <= 1 ? innerW / 2 : (i * innerW) / (labels.length - 1));
  const y = (n: number) => PAD.top + innerH - (n / top) * innerH;
  const grid = ticks.map(
    (value) => `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" class="grid"/><text x="${PAD.left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${countText(value)}</text>`,
  );
  // Each series also carries a class (s0, s1, ...), so a page's stylesheet can recolour it (a dark scheme).
  const lines = series.map((s, k) => {
    const points = s.values.map((n, i) => `${x(i).toFixed(1)},${y(n).toFixed(1)}`).join(' ');
    const dots = s.values
      .map((n, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(n).toFixed(1)}" r="3" fill="${s.color}" class="s${k}"><title>${escapeHtml(`${labels[i] ?? ''}: ${countText(n)} ${s.name}`)}</title></circle>`)
      .join('');
    return `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2" class="s${k}"/>${dots}`;
  });
  const dates = spread(labels.length, size.dates).map((i, k, all) => {
    const anchor = all.length === 1 ? 'middle' : k === 0 ? 'start' : k === all.length - 1 ? 'end' : 'middle';
    const at = labels.length <= 1 ? x(0) : k === 0 ? PAD.left : k === all.length - 1 ? W - PAD.right : x(i);
    return `<text x="${at.toFixed(1)}" y="${H - 6}" text-anchor="${anchor}">${escapeHtml(labels[i] ?? '')}</text>`;
  });
  const legend = series.map((s, i) => `<rect x="${PAD.left + i * 120}" y="6" width="12" height="12" rx="2" fill="${s.color}" class="s${i}"/><text x="${PAD.left + 18 + i * 120}" y="17">${escapeHtml(s.name)}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(title)}" class="chart"><title>${escapeHtml(title)}</title>${desc === undefined ? '' : `<desc>${escapeHtml(desc)}</desc>`}<g class="y">${grid.join('')}</g>${lines.join('')}<g class="x">${dates.join('')}</g>${legend}</svg>`;
}

/**
 * The chart's numbers as a table, in a closed <details> under it: what a screen reader or a person
 * who wants the exact figures reads instead of the drawing.
 */
export function chartTable(labels: readonly string[], series: readonly Series[], firstColumn: string): string {
  const head = `<tr><th>${escapeHtml(firstColumn)}</th>${series.map((s) => `<th class="n">${escapeHtml(s.name[0]!.toUpperCase() + s.name.slice(1))}</th>`).join('')}</tr>`;
  const rows = labels.map((label, i) => `<tr><td>${escapeHtml(label)}</td>${series.map((s) => `<td class="n">${countText(s.values[i] ?? 0)}</td>`).join('')}</tr>`).join('');
  return `<details><summary>The chart as a table</summary><table><thead>${head}</thead><tbody>${rows}</tbody></table></details>`;
}

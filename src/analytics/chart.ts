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

const W = 800;
const H = 240;
const PAD = { left: 48, right: 16, top: 16, bottom: 28 };

// A round top for the y axis (1, 2, 5 × 10^n), so the grid lines get readable labels.
function niceMax(max: number): number {
  if (max <= 4) return 4;
  const step = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].map((m) => m * step).find((top) => top >= max) ?? 10 * step);
}

/**
 * An inline SVG line chart of `series` over `labels` (one point per label), with a y grid, the
 * first and last labels on the x axis, and a native tooltip (<title>) on every point.
 */
export function lineChart(labels: readonly string[], series: readonly Series[], title: string): string {
  const top = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (labels.length <= 1 ? innerW / 2 : (i * innerW) / (labels.length - 1));
  const y = (n: number) => PAD.top + innerH - (n / top) * innerH;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const value = Math.round(top * f);
    return `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" class="grid"/><text x="${PAD.left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${value}</text>`;
  });
  const lines = series.map((s) => {
    const points = s.values.map((n, i) => `${x(i).toFixed(1)},${y(n).toFixed(1)}`).join(' ');
    const dots = s.values
      .map((n, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(n).toFixed(1)}" r="3" fill="${s.color}"><title>${escapeHtml(`${labels[i] ?? ''}: ${n} ${s.name}`)}</title></circle>`)
      .join('');
    return `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2"/>${dots}`;
  });
  const first = labels[0] ?? '';
  const last = labels[labels.length - 1] ?? '';
  const axis = `<text x="${PAD.left}" y="${H - 8}">${escapeHtml(first)}</text><text x="${W - PAD.right}" y="${H - 8}" text-anchor="end">${escapeHtml(last)}</text>`;
  const legend = series.map((s, i) => `<rect x="${PAD.left + 10 + i * 110}" y="4" width="10" height="10" fill="${s.color}"/><text x="${PAD.left + 24 + i * 110}" y="13">${escapeHtml(s.name)}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(title)}" class="chart"><title>${escapeHtml(title)}</title>${grid.join('')}${lines.join('')}${axis}${legend}</svg>`;
}

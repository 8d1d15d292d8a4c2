// The look of the link pages (html/page.ts), widened for a dashboard. Colours are variables so that
// the dark scheme (prefers-color-scheme) is one block; the chart's series colours are overridden
// there too (their SVG attributes are only defaults). The chart comes in two drawings, one for wide
// columns and one for phones, so its text is never scaled below ~11px. Long labels wrap anywhere
// inside table cells, so no panel is wider than a 390 px phone.
/** The stats page's whole stylesheet, inlined and allowed by its hash. */
export const STATS_CSS = `*{box-sizing:border-box}:root{color-scheme:light dark;--bg:#f6f8fa;--card:#fff;--text:#1f2328;--muted:#59636e;--line:#d0d7de;--soft:#eef1f4;--link:#0969da;--accent:#1f883d;--up:#1a7f37;--down:#cf222e;--note:#fff8c5;--s0:#0969da;--s1:#1f883d}
@media(prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--text:#e6edf3;--muted:#9198a1;--line:#3d444d;--soft:#262c36;--link:#4493f8;--accent:#238636;--up:#3fb950;--down:#f85149;--note:#3b2e00;--s0:#4493f8;--s1:#3fb950}}
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:var(--bg);color:var(--text)}
main{max-width:1040px;margin:0 auto;padding:24px}h1{font-size:1.4rem;margin:0 0 4px;overflow-wrap:anywhere}h2{font-size:15px;margin:0}a{color:var(--link)}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:16px;margin:0 0 16px;min-width:0}.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px}.grid .card{margin:0}
.muted{color:var(--muted);font-size:13px}.live{margin:0 0 12px;color:var(--muted)}.dot{display:inline-block;width:8px;height:8px;border-radius:50%;background:var(--up);margin-right:6px}
.periods{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 12px}.periods a,.tabs a{padding:4px 10px;border:1px solid var(--line);border-radius:999px;text-decoration:none;font-size:13px}
.periods a[aria-current],.tabs a[aria-current]{background:var(--link);border-color:var(--link);color:#fff}
.totals{display:flex;flex-wrap:wrap;gap:16px 32px;margin:0 0 8px}.totals b{display:block;font-size:26px}.figure .name{font-size:12px;font-weight:600;text-transform:uppercase;color:var(--muted)}
.change{font-size:13px;display:block}.change.up{color:var(--up)}.change.down{color:var(--down)}.change.none{color:var(--muted)}
.head{display:flex;justify-content:space-between;align-items:baseline;gap:8px;margin:0 0 8px}.tabs{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 8px}.crumbs{font-size:13px;margin:0 0 8px;overflow-wrap:anywhere}
table{width:100%;border-collapse:collapse;table-layout:fixed}th{font-size:12px;font-weight:600;color:var(--muted);text-align:left;padding:0 0 4px;border-bottom:1px solid var(--line)}
td{padding:4px 0;border-bottom:1px solid var(--soft);overflow-wrap:anywhere}.n{text-align:right;white-space:nowrap;padding-left:12px;width:7.5em}
form{display:flex;gap:8px;flex-wrap:wrap;align-items:end}label{display:flex;flex-direction:column;font-size:13px}
input,button,.btn{font:inherit;padding:6px 8px;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--text)}button,.btn{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer;text-decoration:none;display:inline-block}
.actions{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;margin:12px 0 0}
.note{background:var(--note);border-color:#d4a72c}.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
details{margin:8px 0 0}summary{cursor:pointer;font-size:13px;color:var(--muted)}
.chart{display:block;width:100%;height:auto}.chart text{fill:var(--muted)}.chart.wide text{font-size:14px}.chart.narrow text{font-size:13px}.chart .grid{stroke:var(--soft)}
.chart .s0{stroke:var(--s0)}.chart circle.s0,.chart rect.s0{fill:var(--s0)}.chart .s1{stroke:var(--s1)}.chart circle.s1,.chart rect.s1{fill:var(--s1)}
.chart.narrow{display:none}@media(max-width:700px){main{padding:12px}.chart.wide{display:none}.chart.narrow{display:block}.totals{gap:12px 24px}}`;

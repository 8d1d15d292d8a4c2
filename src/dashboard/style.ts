import { STATS_CSS } from '../analytics/stats-page-style.ts';

// The stats page's stylesheet (variables, light and dark, cards, tables, charts), and what the
// dashboard adds: a bar of links, stacked forms with their messages, a table that scrolls inside its
// card on a phone rather than the page, and visible focus. Contrast: white on --accent and on the
// danger red is at least 4.5:1 in both schemes; --muted on --card too, and placeholders take
// --muted (Chromium's own grey is 3.75:1 on the dark card).
const DASHBOARD_EXTRA = `header.top{background:var(--card);border-bottom:1px solid var(--line)}header.top nav{max-width:1040px;margin:0 auto;padding:8px 24px;display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}
header.top .brand{font-weight:700;margin-right:auto;color:var(--text);text-decoration:none}header.top form{display:inline}
.skip{position:absolute;left:-9999px;top:8px}.skip:focus{left:8px;background:var(--card);padding:8px;z-index:9}
:focus-visible{outline:3px solid var(--link);outline-offset:2px}
form.stack{display:block}.field{display:flex;flex-direction:column;gap:4px;margin:0 0 12px;font-size:14px}.field>span{font-weight:600}
.field input,.field select,.field textarea{width:100%}select,textarea{font:inherit;padding:6px 8px;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--text);max-width:100%}
.field .err,.err{color:var(--down);font-size:13px;margin:0}.field [aria-invalid=true]{border-color:var(--down)}.hint{color:var(--muted);font-size:13px}
.row{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:0 16px}fieldset{border:1px solid var(--line);border-radius:8px;margin:0 0 12px;padding:8px 12px;min-width:0}legend{font-weight:600;font-size:14px;padding:0 4px}
.alert{border-color:var(--down)}.ok{border-color:var(--up)}button.danger{background:#cf222e;border-color:#cf222e;color:#fff}button.plain,.plain{background:none;border:none;color:var(--link);padding:0;text-decoration:underline;cursor:pointer}
button.secondary,.btn.secondary{background:var(--card);color:var(--text);border-color:var(--line)}
.scroll{overflow-x:auto;max-width:100%}.links{table-layout:auto;min-width:0}.links td,.links th{padding:6px 8px 6px 0;vertical-align:top}.links .pick{width:2em}
.toolbar{display:flex;flex-wrap:wrap;gap:8px;align-items:end;margin:0 0 12px}.toolbar label{font-size:13px}.toolbar>*{min-width:0;max-width:100%}.toolbar select{display:block;max-width:100%}
main p{overflow-wrap:anywhere}.pages{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:12px 0 0}
.qr{display:block;width:200px;max-width:100%;height:auto;background:#fff;border:1px solid var(--line);border-radius:8px}.short{font-weight:600;overflow-wrap:anywhere}
fieldset>label{flex-direction:row;gap:6px;align-items:center;font-size:14px}[hidden]{display:none!important}
.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:4px 12px;font-size:14px}.checks label{display:flex;gap:6px;align-items:center}
form.acting{max-width:1040px;margin:8px auto 0;padding:8px 24px;background:var(--note);border:1px solid #d4a72c;border-radius:8px}code.secret{display:block;overflow-wrap:anywhere;padding:8px;border:1px solid var(--line);border-radius:6px;user-select:all}
header.top details.more summary{cursor:pointer;color:var(--link)}header.top details.more[open]{flex-basis:100%}header.top details.more>div{display:flex;flex-wrap:wrap;gap:8px 16px;padding:8px 0 0}
dl.facts{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:4px 12px;margin:0 0 8px}dl.facts>div{display:contents}dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}.btn.danger{background:#cf222e;border-color:#cf222e;color:#fff}
.field>span.hint{font-weight:400}.field.check>label{display:flex;flex-direction:row;gap:6px;align-items:center;font-weight:600}.field.check input{width:auto}.checks label{flex-direction:row}.field input[type=color]{width:4em;height:2.4em;padding:2px}

.tiles{list-style:none;padding:0;margin:0 0 12px;display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:16px}.tiles li{display:flex;flex-direction:column;gap:4px;min-width:0;overflow-wrap:anywhere}.tiles a{display:flex;flex-direction:column;gap:6px}.tiles .qr{width:96px}
label.check{display:flex;gap:6px;align-items:center;font-size:14px;margin:0 0 12px}input[type=color]{width:64px;height:36px;padding:2px}.nowrap{white-space:nowrap}
::placeholder{color:var(--muted);opacity:1}`;

/** The dashboard's whole stylesheet, inlined and allowed by its hash. */
export const DASHBOARD_CSS = STATS_CSS + DASHBOARD_EXTRA;

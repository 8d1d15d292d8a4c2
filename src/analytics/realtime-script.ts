import { countText } from '../html/count-text.ts';

/** How often the stats page's script asks for the realtime visitors again, ms. */
export const REALTIME_REFRESH_MS = 30_000;

/** The realtime line of the stats page: "3 visitors in the last 5 minutes". */
export function realtimeText(visitors: number): string {
  return `${countText(visitors)} ${visitors === 1 ? 'visitor' : 'visitors'} in the last 5 minutes`;
}

/**
 * The stats page's one script (allowed by its hash): every REALTIME_REFRESH_MS it reads the realtime
 * line from the page's realtime route (data-src, with the page's token in a header when it has one)
 * and shows it. Without it the line stays as of the page load; a failed read keeps the last one.
 */
export const REALTIME_SCRIPT = `(function(){var e=document.getElementById('realtime');if(!e||!window.fetch)return;var t=e.querySelector('[data-text]'),h={accept:'application/json'};if(e.dataset.token)h['x-stats-token']=e.dataset.token;setInterval(function(){fetch(e.dataset.src,{headers:h,cache:'no-store',credentials:'same-origin'}).then(function(r){return r.ok?r.json():null}).then(function(j){if(j&&typeof j.text==='string')t.textContent=j.text}).catch(function(){})},${REALTIME_REFRESH_MS})})();`;

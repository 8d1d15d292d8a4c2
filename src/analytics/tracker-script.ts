/**
 * The tracking script served at /js/script.js. Embed it as
 * `<script src="https://<server>/js/script.js" data-dnt="true" defer></script>`: it sends a
 * pageview on load and on history navigation, offers `window.pa.track('Signup', {plan: 'pro'})`
 * (a custom event with properties) and `window.pa.track({name, value, unit, properties})`,
 * and with `data-dnt="true"` sends nothing when the browser asks not to be tracked. Bodies go
 * as text/plain, so neither sendBeacon nor fetch needs a CORS preflight.
 */
export const TRACKER_SCRIPT = `(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || !window.JSON) return;
  var endpoint = new URL('../api/event', script.src).href; // beside /js/, also under a path prefix
  var dnt = navigator.doNotTrack === '1' || navigator.doNotTrack === 'yes' || window.doNotTrack === '1' || navigator.msDoNotTrack === '1';
  var off = script.getAttribute('data-dnt') === 'true' && dnt;
  var lastPage = null;

  function send(payload) {
    if (off) return;
    var body = JSON.stringify(payload);
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(endpoint, body)) return;
    } catch (e) {}
    if (window.fetch) {
      fetch(endpoint, { method: 'POST', body: body, keepalive: true, credentials: 'omit', headers: { 'content-type': 'text/plain' } }).catch(function () {});
    }
  }

  function base(referrer) {
    return { page: location.href, referrer: referrer, screen_resolution: screen.width + 'x' + screen.height };
  }

  function pageview() {
    if (location.href === lastPage) return;
    var referrer = lastPage === null ? document.referrer : lastPage;
    lastPage = location.href;
    send(base(referrer));
  }

  var pushState = history.pushState;
  if (pushState) {
    history.pushState = function () {
      var result = pushState.apply(this, arguments);
      pageview();
      return result;
    };
  }
  window.addEventListener('popstate', pageview);

  // Property values go as they are when the server takes them (text, finite numbers, booleans), else as text.
  function properties(given) {
    if (!given || typeof given !== 'object') return null;
    var out = {};
    var any = false;
    for (var key in given) {
      if (!Object.prototype.hasOwnProperty.call(given, key) || given[key] == null) continue;
      var value = given[key];
      out[key] = typeof value === 'boolean' || (typeof value === 'number' && isFinite(value)) ? value : String(value);
      any = true;
    }
    return any ? out : null;
  }

  window.pa = {
    track: function (event, props) {
      if (typeof event === 'string') event = { name: event, properties: props };
      if (!event || !event.name) return;
      var payload = base(document.referrer);
      payload.event = { name: String(event.name), value: typeof event.value === 'number' ? event.value : event.value == null ? null : String(event.value), unit: event.unit == null ? null : String(event.unit) };
      var kept = properties(event.properties);
      if (kept) payload.event.properties = kept;
      send(payload);
    }
  };

  if (document.visibilityState === 'prerender') {
    document.addEventListener('visibilitychange', function once() {
      if (document.visibilityState === 'prerender') return;
      document.removeEventListener('visibilitychange', once);
      pageview();
    });
  } else {
    pageview();
  }
})();
`;

/**
 * The inbox page's own stylesheet and script (served as /static/inbox.css and /static/inbox.js by ./server.ts): constant text, no
 * value from a server or a person in it.
 */
export const INBOX_CSS = `
:root { font-family: system-ui, sans-serif; color: #1b1f24; background: #f4f5f7; }
body { max-width: 52rem; margin: 0 auto; padding: 1rem; }
.top { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; }
.top h1 { font-size: 1.4rem; margin: 0; }
.live { color: #667; font-size: .85rem; }
.notice { background: #e6f4ea; border: 1px solid #9bd3a8; padding: .5rem .75rem; border-radius: 6px; }
.problem, .form-error { background: #fdecea; border: 1px solid #f1a9a0; padding: .5rem .75rem; border-radius: 6px; }
.empty { color: #667; }
.request { background: #fff; border: 1px solid #d7dbe0; border-radius: 8px; padding: .75rem 1rem; margin: 1rem 0; }
.request.unreachable { border-color: #e0b252; background: #fffaf0; }
.meta { display: flex; gap: .75rem; flex-wrap: wrap; font-size: .85rem; color: #445; }
.meta .tool { font-weight: 600; color: #1b1f24; }
.meta .left { margin-left: auto; }
.prompt { font-size: 1.05rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.field { margin: .6rem 0; }
.field > label { display: block; font-weight: 600; }
.field.boolean > label { display: inline; }
.description, .hint { margin: .1rem 0; color: #556; font-size: .85rem; }
.required { color: #b3261e; margin-left: .15rem; }
fieldset.multi { border: 1px solid #d7dbe0; border-radius: 6px; }
.field > label.choice { display: block; font-weight: normal; }
input[type=text], input[type=email], input[type=url], input[type=number], input[type=date], input[type=datetime-local],
select { padding: .3rem; min-width: 16rem; }
.field-error { color: #b3261e; font-size: .85rem; margin: .2rem 0; }
.link .host strong { font-size: 1.15rem; }
.link .url { display: block; overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
.link.unsafe .url { color: #b3261e; }
.actions { display: flex; gap: .5rem; margin-top: .75rem; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: .75rem 0; font-size: .85rem; }
.filters input, .filters select { min-width: 7rem; padding: .2rem; }
.arguments pre, .result { white-space: pre-wrap; overflow-wrap: anywhere; font-size: .8rem; background: #f4f5f7; padding: .4rem; }
.no-worker { color: #8a5a00; font-size: .85rem; }
.resolution .by { font-weight: 600; }
.pager { text-align: center; }
button { padding: .35rem .9rem; border-radius: 6px; border: 1px solid #aab; background: #fff; cursor: pointer; }
button.primary { background: #2456c8; color: #fff; border-color: #2456c8; }
`;

/**
 * Live updates and countdowns. Answering works without it (plain form posts). It merges the list it
 * fetches by row key: rows that stay keep what a person typed; new rows appear; answered ones disappear.
 * It builds nothing from strings: rows come from the server's escaped HTML, parsed inert by DOMParser.
 */
export const INBOX_JS = `
(function () {
  'use strict';
  var live = document.getElementById('live');
  function left(iso) {
    if (!iso) return 'no expiry';
    var ms = Date.parse(iso) - Date.now();
    if (!(ms > 0)) return 'expired';
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    if (d > 0) return d + ' d ' + h + ' h';
    if (h > 0) return h + ' h ' + m + ' min';
    if (m > 0) return m + ' min ' + (s % 60) + ' s';
    return s + ' s';
  }
  function tick() {
    var times = document.querySelectorAll('time[data-expires-at]');
    for (var i = 0; i < times.length; i++) times[i].textContent = left(times[i].getAttribute('data-expires-at'));
  }
  function merge(next) {
    var current = document.getElementById('rows');
    if (!current || !next) return;
    var keep = {};
    var olds = current.querySelectorAll('article[data-entry]');
    for (var i = 0; i < olds.length; i++) keep[olds[i].getAttribute('data-entry')] = olds[i];
    var fresh = [];
    var news = next.querySelectorAll('article[data-entry]');
    for (var j = 0; j < news.length; j++) {
      var key = news[j].getAttribute('data-entry');
      fresh.push(keep[key] || document.importNode(news[j], true));
      delete keep[key];
    }
    while (current.firstChild) current.removeChild(current.firstChild);
    var extras = next.querySelectorAll('#rows > p');
    for (var k = 0; k < extras.length; k++) current.appendChild(document.importNode(extras[k], true));
    for (var n = 0; n < fresh.length; n++) current.appendChild(fresh[n]);
    current.setAttribute('data-count', next.getAttribute('data-count') || '0');
    tick();
  }
  var busy = false, refreshes = 0;
  function updated() {
    document.documentElement.setAttribute('data-refreshes', String(++refreshes));
    if (live) live.textContent = 'live: updated ' + new Date().toLocaleTimeString();
  }
  function refresh() {
    if (busy) return;
    busy = true;
    fetch('/fragment' + location.search, { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, 'text/html');
        merge(doc.getElementById('rows'));
        updated();
      })
      .catch(function (e) { if (live) live.textContent = 'live updates paused: ' + e.message; })
      .then(function () { busy = false; });
  }
  if (live) live.textContent = 'live';
  tick();
  setInterval(tick, 1000);
  // Pushed by the inbox's one refresh loop (server-sent events); a browser without EventSource polls the fragment.
  var params = new URLSearchParams(location.search);
  params.delete('answered'); params.delete('action'); params.delete('cursor');
  var view = params.toString();
  if (typeof EventSource === 'function' && !new URLSearchParams(location.search).get('cursor')) {
    var events = new EventSource('/events' + (view ? '?' + view : ''));
    events.addEventListener('rows', function (e) {
      merge(new DOMParser().parseFromString(e.data, 'text/html').getElementById('rows'));
      updated();
    });
    events.addEventListener('same', updated);
    events.onerror = function () { if (live) live.textContent = 'live updates paused: reconnecting'; };
  } else {
    setInterval(refresh, 5000);
  }
})();
`;

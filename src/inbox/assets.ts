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
.gone-note { background: #fff4e0; border: 1px solid #e0b252; padding: .4rem .6rem; border-radius: 6px; font-size: .85rem; }
.link .host strong { font-size: 1.15rem; }
.link .url { display: block; overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
.link.unsafe .url { color: #b3261e; }
.actions { display: flex; gap: .5rem; margin-top: .75rem; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: .75rem 0; font-size: .85rem; }
.filters input, .filters select { min-width: 7rem; padding: .2rem; }
.approval { border-left: 3px solid #b26a00; padding-left: .5rem; margin: .5rem 0; }
.approval .trust { color: #555; font-size: .85rem; }
.arguments pre, .approval-args, .result { white-space: pre-wrap; overflow-wrap: anywhere; font-size: .8rem; background: #f4f5f7; padding: .4rem; }
.approval-args { max-height: 24rem; overflow: auto; }
.approval-json code { display: block; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .75rem; max-height: 12rem; overflow: auto; }
.no-worker { color: #8a5a00; font-size: .85rem; }
.resolution .by { font-weight: 600; }
.pager { text-align: center; }
button { padding: .35rem .9rem; border-radius: 6px; border: 1px solid #aab; background: #fff; cursor: pointer; }
button.primary { background: #2456c8; color: #fff; border-color: #2456c8; }
`;

/**
 * Live updates and countdowns. Answering works without it (plain form posts). It merges the list it
 * fetches by row key: a row that stays is left in place, untouched (what a person typed, the focus, a button being
 * pressed); new rows appear; answered ones disappear, but one a person works in stays, with a note; only rows whose
 * order changed move.
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
  // Put node at its place in parent, before ref: a node already there is not touched (taking a row out and back,
  // even at once, blurs what has focus and drops a click pressed on it); moveBefore, where the browser has it, keeps focus.
  function place(parent, node, ref) {
    if (node === ref) return;
    if (node.parentNode === parent && typeof parent.moveBefore === 'function') parent.moveBefore(node, ref);
    else parent.insertBefore(node, ref);
  }
  // A row a person works in: the focus is in it, or a field differs from what the page came with.
  function edited(row) {
    if (row.contains(document.activeElement)) return true;
    var controls = row.querySelectorAll('input, select, textarea');
    for (var i = 0; i < controls.length; i++) {
      var c = controls[i];
      if (c.type === 'checkbox' || c.type === 'radio') { if (c.checked !== c.defaultChecked) return true; }
      else if (c.tagName === 'SELECT') { for (var o = 0; o < c.options.length; o++) if (c.options[o].selected !== c.options[o].defaultSelected) return true; }
      else if (c.value !== c.defaultValue) return true;
    }
    return false;
  }
  // A row that left the list while a person works in it stays, with a note, until they are done with it.
  function markGone(row, gone) {
    var note = row.querySelector('.gone-note');
    if (!gone) { if (note) row.removeChild(note); return; }
    if (note) return;
    note = document.createElement('p');
    note.className = 'gone-note';
    note.setAttribute('role', 'status');
    note.textContent = 'This request has left the list (answered elsewhere, expired, or moved to another page). ' +
      'What you typed is kept: submit it and the inbox tells you whether it still waits.';
    row.insertBefore(note, row.firstElementChild ? row.firstElementChild.nextElementSibling : null);
  }
  function merge(next) {
    var current = document.getElementById('rows');
    if (!current || !next) return;
    var keep = {}, lines = [], olds = [];
    for (var old = current.firstElementChild; old; old = old.nextElementSibling) {
      var oldKey = old.getAttribute('data-entry');
      if (oldKey === null) lines.push(old);
      else { keep[oldKey] = old; olds.push(old); }
    }
    // The rows in the server's order: a row that stays is the same node (what was typed, the focus, a press on its
    // button all stay); the lines around them (a problem, "no pending requests", the next-page link) too when unchanged.
    var wanted = [];
    for (var n = next.firstElementChild; n; n = n.nextElementSibling) {
      var key = n.getAttribute('data-entry');
      var same = null;
      if (key !== null && Object.prototype.hasOwnProperty.call(keep, key)) {
        same = keep[key];
        delete keep[key];
        markGone(same, false);
      } else if (key === null) {
        for (var l = 0; l < lines.length && !same; l++) if (lines[l] && lines[l].isEqualNode(n)) { same = lines[l]; lines[l] = null; }
      }
      wanted.push(same || document.importNode(n, true));
    }
    // Rows that left: gone, unless a person works in one; that one keeps its place after the row it followed.
    var after = -1;
    for (var r = 0; r < olds.length; r++) {
      var stays = wanted.indexOf(olds[r]);
      if (stays >= 0) { after = Math.max(after, stays); continue; }
      if (!edited(olds[r])) { current.removeChild(olds[r]); continue; }
      markGone(olds[r], true);
      wanted.splice(++after, 0, olds[r]);
    }
    for (var g = 0; g < lines.length; g++) if (lines[g]) current.removeChild(lines[g]);
    var focused = document.activeElement;
    var at = current.firstElementChild;
    for (var w = 0; w < wanted.length; w++) {
      if (wanted[w] === at) at = at.nextElementSibling;
      else place(current, wanted[w], at);
    }
    // A browser without moveBefore blurs a row it moved: give the focus back.
    var blurred = focused && focused !== document.activeElement && current.contains(focused);
    if (blurred && typeof focused.focus === 'function') focused.focus({ preventScroll: true });
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

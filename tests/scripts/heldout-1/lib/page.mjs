// Helpers the site templates use to render one variant of a page, and the logger every page carries.
// Nothing here is visible to ouro as a DOM attribute: the judge's keys live in a closure of the page's script.

// A stable short hash (FNV-1a), used for CSS-modules-like names and for the wizard's booking reference.
export function hash(s, len = 5) {
  let h = 0x811c9dc5;
  for (const ch of s) { h ^= ch.codePointAt(0); h = Math.imul(h, 0x01000193) >>> 0; }
  return h.toString(36).padStart(len, '0').slice(-len);
}

export const VARIANTS = ['original', 'unchanged', 'renamed', 'reordered', 'wrapped', 'reworded', 'moved'];

// v.id('email') → the id in this variant; v.c('btn primary') → classes; v.w(html) → wrappers; v.ord(a, b, …) → order;
// v.say('Sign in', 'Log in') → the reworded text.
export function variant(name, site) {
  const v = { name, [name]: true };
  v.id = (n) => (name === 'renamed' ? `${site.slice(0, 2)}_${hash(site + '#' + n)}` : n);
  v.c = (ns) => ns.split(/\s+/).filter(Boolean).map((n) => (name === 'renamed' ? `css-${hash(site + '.' + n, 6)}` : n)).join(' ');
  v.w = (html) => (name === 'wrapped' ? `<div class="${v.c('wrap-a')}"><div class="${v.c('wrap-b')}" role="presentation">${html}</div></div>` : html);
  v.ord = (...parts) => (name === 'reordered' ? parts.slice().reverse() : parts).join('\n');
  v.say = (a, b) => (name === 'reworded' ? b : a);
  return v;
}

// The logger: window.__log (every click, input, change, submit and the site's own effects), each also POSTed to
// /log with the session id (?sid=… on the first page, then a cookie), and the oracle's helpers (__boxOf, __textOf).
export const LOGGER = String.raw`<script>
(function () {
  var q = new URLSearchParams(location.search), sid = q.get('sid');
  if (sid) document.cookie = 'hsid=' + encodeURIComponent(sid) + '; path=/';
  else { var m = document.cookie.match(/(?:^|; )hsid=([^;]+)/); sid = m ? decodeURIComponent(m[1]) : 'none'; }
  var regs = [], keys = new WeakMap(), seq = 0;
  window.__log = [];
  window.__key = function (el, k) { if (el) { keys.set(el, k); regs.push([el, k]); } return el; };
  function keyOf(n) { for (var e = n; e; e = e.parentNode || e.host) if (keys.has(e)) return keys.get(e); return null; }
  function rec(type, target, extra) {
    var e = { seq: seq++, t: Date.now(), type: type, k: target ? keyOf(target) : null,
      tag: target && target.tagName ? target.tagName.toLowerCase() : null, page: location.pathname.split('/').pop() };
    for (var x in extra || {}) e[x] = extra[x];
    window.__log.push(e);
    // Synchronous, so that the event has reached the fixture server before the action that caused it returns
    // (an asynchronous POST can still be queued when the run ends and the browser closes).
    var body = JSON.stringify({ sid: sid, e: e });
    try { var x = new XMLHttpRequest(); x.open('POST', '/log', false); x.setRequestHeader('content-type', 'text/plain'); x.send(body); }
    catch (_) { try { fetch('/log', { method: 'POST', keepalive: true, headers: { 'content-type': 'text/plain' }, body: body }).catch(function () {}); } catch (__) {} }
  }
  window.__rec = rec;
  window.__effect = function (name, data) { rec('effect', null, { name: name, data: data }); };
  function origin(ev) { return ev.composedPath ? ev.composedPath()[0] : ev.target; }
  document.addEventListener('click', function (ev) { rec('click', origin(ev), { trusted: ev.isTrusted }); }, true);
  ['input', 'change'].forEach(function (t) {
    document.addEventListener(t, function (ev) { var el = origin(ev);
      rec(t, el, { value: el.type === 'checkbox' || el.type === 'radio' ? el.checked : el.value }); }, true);
  });
  document.addEventListener('submit', function (ev) { rec('submit', origin(ev)); }, true);
  rec('load', null, {});
  // Oracle helpers (fixture-check only drives pages through these; ouro never needs them).
  function find(k) { for (var i = 0; i < regs.length; i++) if (regs[i][1] === k && regs[i][0].isConnected) return regs[i][0]; return null; }
  window.__boxOf = function (k) {
    var el = find(k);
    if (el) { el.scrollIntoView({ block: 'center' }); var r = el.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; }
    var fs = document.querySelectorAll('iframe');
    for (var i = 0; i < fs.length; i++) { try { var w = fs[i].contentWindow; if (!w.__boxOf) continue; fs[i].scrollIntoView({ block: 'center' });
      var b = w.__boxOf(k); if (b) { var fr = fs[i].getBoundingClientRect(); return { x: b.x + fr.x + fs[i].clientLeft, y: b.y + fr.y + fs[i].clientTop }; } } catch (_) {} }
    return null;
  };
  window.__el = function (k) { var el = find(k); if (el) return el;
    var fs = document.querySelectorAll('iframe'); for (var i = 0; i < fs.length; i++) { try { el = fs[i].contentWindow.__el(k); if (el) return el; } catch (_) {} } return null; };
  window.__textOf = function (k) { var el = window.__el(k); return el ? el.innerText.trim() : null; };
  // ?probe=1 (the runner's selector probe only): mark registered elements so querySelectorAll shows the key.
  if (q.get('probe') || /(?:^|; )hprobe=1/.test(document.cookie)) {
    if (q.get('probe')) document.cookie = 'hprobe=1; path=/';
    // An element takes the key of its nearest registered ancestor (or its own), so '.plan-team .price' shows T:team.
    window.__markKeys = function () { regs.forEach(function (r) { [r[0]].concat([].slice.call(r[0].querySelectorAll('*'))).forEach(function (d) {
      var k = keyOf(d); if (k) d.setAttribute('data-judge-key', k); }); }); };
    setTimeout(window.__markKeys, 0);
  }
})();
</script>`;

const BASE_CSS = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222}header,footer,aside,main,nav{padding:10px 16px}
header{background:#f3f4f8;display:flex;gap:16px;align-items:center}footer{background:#f6f6f6;margin-top:24px}
label{display:block;margin-top:8px}input,select,textarea{font:inherit;padding:4px 6px;margin:2px 0}button{font:inherit;padding:5px 12px;margin:6px 6px 0 0;cursor:pointer}
nav a{display:inline-block;margin-right:10px}
.layout{display:flex;gap:16px}.layout>main{flex:1}.layout>aside{width:260px;background:#fafafa}`;

// A whole page: the logger first (so the page's own script can register keys), then the body and the page's script.
export function doc({ title, css = '', body, script = '' }) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>${BASE_CSS}
${css}</style></head>
<body>
${LOGGER}
${body}
<script>
${script}
if (window.__markKeys) setTimeout(window.__markKeys, 0);
</script>
</body></html>
`;
}

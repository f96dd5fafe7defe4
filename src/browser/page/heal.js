// What identifies an action's target beyond its selector, and finding it again from that.
// Runs in ouro's isolated world after affordances.js and binding.js; reads the engine's element
// facts (__ouroPcd). Deterministic; bounded (strings clipped, at most a few hundred candidates).
//
// API (globalThis.__ouroHeal):
//   identify(el) -> details: {role, name, tag, label?, placeholder?, text?, landmark?: {role, name?},
//       heading?, near?, form?, attrs?: {name, type, href (path), testid, id, aria-*}, frames?,
//       ordinal?: {index, of} among elements of the same role and name, others?: names of
//       same-role elements with a similar name (the decoys the recording saw)}
//   identifySelector(selector) -> details | null
//   check(selector, details) -> {state: 'ok'|'missing'|'mismatch'|'weak', score?, why?}
//   heal(details, verb) -> {ok, selector?, confidence?, candidates: [{role, name, score, selector?}], why?}
(() => {
  if (globalThis.__ouroHeal) return;
  const P = globalThis.__ouroPcd;
  if (!P) return;

  const THRESHOLD = 0.6;  // below this no element is taken
  const MARGIN = 0.1;     // the runner-up must be at least this far behind
  // Text as the page engine reads it (__ouroPcd.text): `key` here is its letters-and-digits form.
  const { norm, alnum: key, similarity: sim } = P.text;
  // Sliced before it is normalised: a page's megabyte of text costs no more than a short one.
  const clip = (s, n = 80) => { s = norm(String(s == null ? '' : s).slice(0, 4 * n + 64)); return s.length > n ? s.slice(0, n) : s; };
  const attr = (el, n) => { try { return el.getAttribute(n); } catch (_) { return null; } };
  const tagOf = el => String(el && el.localName || '').toLowerCase();

  const FAMILY = [
    ['textbox', 'searchbox', 'combobox', 'spinbutton'], ['checkbox', 'switch', 'menuitemcheckbox'], ['radio', 'menuitemradio'],
    ['button', 'link', 'menuitem', 'tab'], ['combobox', 'listbox'], ['option', 'menuitem', 'treeitem'],
  ];
  function roleFit(a, b) {
    if (a === b) return 1;
    if (!a || !b) return 0.7;
    for (const f of FAMILY) if (f.includes(a) && f.includes(b)) return 0.85;
    return 0;
  }
  // What a verb can act on at all.
  function verbOk(verb, el, role) {
    const t = tagOf(el);
    if (verb === 'type' || verb === 'fill-text') {
      if (t === 'textarea' || el.isContentEditable) return true;
      if (t === 'input') return !/^(checkbox|radio|button|submit|reset|image|file|range|color|hidden)$/i.test(attr(el, 'type') || '');
      return ['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(role) && t !== 'select';
    }
    if (verb === 'select') return t === 'select' || role === 'combobox' || role === 'listbox';
    if (verb === 'upload') return t === 'input' && /^file$/i.test(attr(el, 'type') || '');
    return true;
  }

  function labelOf(el) {
    const out = [];
    try {
      if (el.labels) for (const l of el.labels) out.push(l.textContent);
      const ids = attr(el, 'aria-labelledby');
      if (ids) for (const id of ids.trim().split(/\s+/)) { const r = el.ownerDocument.getElementById(id); if (r) out.push(r.textContent); }
    } catch (_) {}
    return clip(out.join(' ').replace(/[\s*:]+$/, ''));
  }
  const LM = { main: 'main', nav: 'navigation', header: 'banner', footer: 'contentinfo', aside: 'complementary', search: 'search',
    dialog: 'dialog', form: 'form' };
  const LM_ROLES = new Set(['main', 'navigation', 'banner', 'contentinfo', 'complementary', 'search', 'dialog', 'alertdialog', 'form', 'region']);
  function landmarkOf(el) {
    for (let cur = el.parentElement, k = 0; cur && k < 40; cur = cur.parentElement, k++) {
      const explicit = (attr(cur, 'role') || '').trim().split(/\s+/)[0];
      const named = !!(attr(cur, 'aria-label') || attr(cur, 'aria-labelledby'));
      let role = LM_ROLES.has(explicit) ? explicit : LM[tagOf(cur)] || '';
      // A form or section is a landmark only when it has a name (ARIA).
      if (role === 'form' && !explicit && !named) role = '';
      if (!role && tagOf(cur) === 'section' && named) role = 'region';
      if (!role) continue;
      let name = attr(cur, 'aria-label') || '';
      const by = attr(cur, 'aria-labelledby');
      if (!name && by) { const r = cur.ownerDocument.getElementById(by.split(/\s+/)[0]); if (r) name = r.textContent; }
      if (!name) { const h = cur.querySelector('h1,h2,h3,h4,h5,h6'); if (h) name = h.textContent; }
      return { role, name: clip(name, 60) };
    }
    return null;
  }
  function headingOf(el) {
    try {
      let cur = el;
      for (let up = 0; cur && up < 8; up++, cur = cur.parentElement) {
        let s = cur.previousElementSibling;
        for (let k = 0; s && k < 6; k++, s = s.previousElementSibling) {
          if (/^h[1-6]$/.test(tagOf(s)) || attr(s, 'role') === 'heading') return clip(s.textContent, 60);
          const hs = s.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]');
          if (hs.length) return clip(hs[hs.length - 1].textContent, 60);
        }
      }
    } catch (_) {}
    return '';
  }
  // The words just before the element in its container (a caption, a field's neighbour text).
  function nearOf(el, own) {
    try {
      let cur = el;
      for (let up = 0; cur && up < 3; up++, cur = cur.parentElement) {
        for (let s = cur.previousSibling, k = 0; s && k < 4; s = s.previousSibling, k++) {
          if (s.nodeType === 1 && s.querySelector && s.querySelector('input,select,textarea,button,a[href]')) break;
          const t = clip(s.textContent, 60);
          if (t && key(t) !== key(own)) return t;
        }
      }
    } catch (_) {}
    return '';
  }
  function formOf(el) {
    const f = el.form || (el.closest && el.closest('form'));
    if (!f) return '';
    let action = '';
    try { action = attr(f, 'action') ? new URL(attr(f, 'action'), location.href).pathname : ''; } catch (_) {}
    return clip(`${attr(f, 'aria-label') || attr(f, 'name') || ''} ${action}`.trim(), 80);
  }
  function hrefPath(el) {
    const h = attr(el, 'href');
    if (!h || /^javascript:/i.test(h)) return '';
    try { const u = new URL(h, location.href); return clip(u.pathname + u.search, 120); } catch (_) { return ''; }
  }
  function framesOf(el) {
    const out = [];
    try {
      let win = el.ownerDocument.defaultView;
      for (let k = 0; win && win.frameElement && k < 10; k++, win = win.parent) {
        const fe = win.frameElement;
        out.unshift(clip(fe.id ? `iframe#${fe.id}` : attr(fe, 'name') ? `iframe[name="${attr(fe, 'name')}"]` : 'iframe', 80));
      }
    } catch (_) {}
    return out;
  }
  function textOf(el) { try { return clip(P.textOf(el)); } catch (_) { return ''; } }

  function facts(el) {
    const role = P.role(el) || '', name = clip(P.accessibleName(el), 120);
    const d = { role, name, tag: tagOf(el) };
    const label = labelOf(el); if (label) d.label = label;
    const ph = attr(el, 'placeholder'); if (ph) d.placeholder = clip(ph);
    const field = /^(input|textarea|select)$/.test(d.tag);
    if (!field) { const t = textOf(el); if (t && t !== name) d.text = t; }
    const lm = landmarkOf(el); if (lm) d.landmark = lm;
    const h = headingOf(el); if (h) d.heading = h;
    const n = nearOf(el, name); if (n) d.near = n;
    const f = formOf(el); if (f) d.form = f;
    const a = {};
    for (const k of ['name', 'type', 'data-testid', 'data-test-id', 'id', 'autocomplete', 'aria-label', 'title', 'alt']) {
      const v = attr(el, k);
      if (v && v.length <= 80) a[k === 'data-test-id' ? 'data-testid' : k] = v;
    }
    const hp = hrefPath(el); if (hp) a.href = hp;
    if (Object.keys(a).length) d.attrs = a;
    const fr = framesOf(el); if (fr.length) d.frames = fr;
    return d;
  }

  function identify(el) {
    if (!el || el.nodeType !== 1) return null;
    try {
      const d = facts(el);
      // Among what the engine sees: the ordinal among the same role and name, and the near-namesakes.
      // Bounded: on a very large page the namesakes are not looked for (the action must not wait).
      let cands = [];
      try { if (el.ownerDocument.getElementsByTagName('*').length <= 5000) cands = P.elements(); } catch (_) {}
      const same = cands.filter(c => c.role === d.role && key(c.name) === key(d.name));
      const i = same.findIndex(c => c.el === el);
      if (same.length > 1 && i >= 0) d.ordinal = { index: i, of: same.length };
      const others = [];
      for (const c of cands) {
        if (c.el === el || roleFit(c.role, d.role) < 0.85 || key(c.name) === key(d.name) || !c.name) continue;
        if (sim(c.name, d.name) >= 0.3 && others.length < 5 && !others.includes(clip(c.name, 80))) others.push(clip(c.name, 80));
      }
      if (others.length) d.others = others;
      return d;
    } catch (e) {
      return { error: String(e && e.message || e).slice(0, 200) };
    }
  }
  function identifySelector(selector) {
    let el = null;
    try { el = P.resolveAll(String(selector))[0] || null; } catch (_) {}
    return el ? identify(el) : null;
  }

  // How well an element fits recorded details: a weighted mean over what was recorded.
  function score(el, role, d, ordinalOf) {
    const fit = roleFit(role, d.role);
    if (!fit) return 0;
    const f = facts(el);
    let sum = 0, weight = 0;
    const add = (w, s) => { sum += w * s; weight += w; };
    if (d.name) add(3, sim(f.name, d.name));
    if (d.label) add(1, Math.max(sim(f.label, d.label), sim(f.name, d.label)));
    if (d.placeholder) add(1, sim(f.placeholder, d.placeholder));
    if (d.text) add(1, Math.max(sim(f.text || f.name, d.text)));
    const ra = d.attrs || {}, fa = f.attrs || {};
    if (ra.name) add(1.5, ra.name === fa.name ? 1 : sim(fa.name, ra.name) * 0.5);
    if (ra.type) add(0.5, (ra.type || '').toLowerCase() === (fa.type || '').toLowerCase() ? 1 : 0);
    if (ra.href) add(1.5, ra.href === fa.href ? 1 : sim(fa.href, ra.href) * 0.6);
    if (ra['data-testid']) add(2, ra['data-testid'] === fa['data-testid'] ? 1 : 0);
    if (ra.id) add(0.5, ra.id === fa.id ? 1 : sim(fa.id, ra.id) * 0.5);
    if (ra.autocomplete) add(0.5, ra.autocomplete === fa.autocomplete ? 1 : 0);
    if (d.landmark) add(1, f.landmark ? (f.landmark.role === d.landmark.role ? 0.6 : 0) + 0.4 * (d.landmark.name ? sim(f.landmark.name, d.landmark.name) : 1) : 0);
    if (d.heading) add(1, sim(f.heading, d.heading));
    if (d.near) add(0.5, sim(f.near, d.near));
    if (d.form) add(0.5, sim(f.form, d.form));
    if (d.ordinal && ordinalOf) add(0.5, ordinalOf(el) === d.ordinal.index ? 1 : 0);
    let s = weight ? sum / weight : 0;
    s *= fit;
    // An element named as one the recording saw beside the target (a decoy) is not the target.
    if ((d.others || []).some(o => key(o) === key(f.name)) && key(f.name) !== key(d.name)) s *= 0.5;
    return Math.round(s * 1000) / 1000;
  }

  function stableSelector(el, role, name) {
    const unique = sel => { try { const all = P.resolveAll(sel); return all.length === 1 && all[0] === el; } catch (_) { return false; } };
    const tries = [];
    if (role && name && name.length <= 120) tries.push(`role=${role}[name=${JSON.stringify(name)}]`);
    const tid = attr(el, 'data-testid'); if (tid) tries.push(`testid=${JSON.stringify(tid)}`);
    if (el.id && /^[A-Za-z][\w-]*$/.test(el.id)) tries.push('#' + el.id);
    const nm = attr(el, 'name'); if (nm && /^[\w.\-\[\]]+$/.test(nm)) tries.push(`${tagOf(el)}[name="${nm}"]`);
    const lb = labelOf(el); if (lb && /^(input|textarea|select)$/.test(tagOf(el))) tries.push(`label=${JSON.stringify(lb)}`);
    const ph = attr(el, 'placeholder'); if (ph) tries.push(`placeholder=${JSON.stringify(ph)}`);
    // A page's value of any length does not become a selector (it goes into events and scripts).
    for (const t of tries) if (t.length <= 200 && unique(t)) return t;
    // A text the step reads (a greeting, a total) often has nothing but its place: its path from
    // the nearest ancestor with an id, by position among its kind.
    if (!role || !name) {
      const parts = [];
      for (let cur = el; cur && cur.nodeType === 1 && cur !== document.documentElement && parts.length < 12; cur = cur.parentElement) {
        if (cur !== el && cur.id && /^[A-Za-z][\w-]*$/.test(cur.id)) { parts.unshift('#' + cur.id); break; }
        let i = 1;
        for (let s = cur.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === cur.localName) i++;
        parts.unshift(`${cur.localName}:nth-of-type(${i})`);
      }
      const path = parts.join(' > ');
      if (path && unique(path)) return path;
    }
    if (role && name) {
      try {
        const all = P.resolveAll(`role=${role}[name=${JSON.stringify(name)}]`);
        const i = all.indexOf(el);
        if (i >= 0) return `role=${role}[name=${JSON.stringify(name)}] >> nth=${i}`;
      } catch (_) {}
    }
    return null;
  }

  function tryElements() { try { return P.elements(); } catch (_) { return []; } }
  function ordinalFn(cands) {
    return el => {
      const c = cands.find(x => x.el === el);
      if (!c) return -1;
      return cands.filter(x => x.role === c.role && key(x.name) === key(c.name)).findIndex(x => x.el === el);
    };
  }

  function check(selector, d) {
    let all;
    try { all = P.resolveAll(String(selector)); } catch (e) { return { state: 'missing', why: String(e && e.message || e).slice(0, 200) }; }
    const el = all[0];
    if (!el) return { state: 'missing', why: 'no element matches the selector' };
    if (!d || (!d.role && !d.tag)) return { state: 'ok' };
    const role = P.role(el) || '';
    if (!roleFit(role, d.role)) return { state: 'mismatch', why: `it matches a ${role || tagOf(el)}, not the ${d.role} the recording acted on` };
    const name = P.accessibleName(el);
    if ((d.others || []).some(o => key(o) === key(name)) && key(name) !== key(d.name))
      return { state: 'mismatch', why: `it matches "${clip(name, 60)}", an element the recording saw beside its target` };
    // The selector now names another element while the recorded one is still on the page under its
    // own name (the page was reordered: `.footer button:last-child` is Cancel now): not this one.
    // A name that is nowhere else is content that changed (another search result), and stays; so
    // does an element that still has the recorded id, name or test id (its label was reworded).
    let cands = null;
    const ra = d.attrs || {};
    const sameIdentity = ['id', 'name', 'data-testid'].some(k => ra[k] && attr(el, k === 'data-testid' && !attr(el, k) ? 'data-test-id' : k) === ra[k]);
    if (d.name && key(name) !== key(d.name) && !sameIdentity) {
      cands = tryElements();
      const elsewhere = cands.find(c => c.el !== el && c.vis && roleFit(c.role, d.role) && key(c.name) === key(d.name));
      if (elsewhere)
        return { state: 'moved', why: `it now names "${clip(name, 60)}", and "${clip(d.name, 60)}" the recording acted on is elsewhere on the page` };
    }
    // The engine's element list only when the ordinal counts (it is the costly part).
    const ord = d.ordinal ? x => ordinalFn(cands || (cands = tryElements()))(x) : null;
    const s = score(el, role, d, ord);
    return { state: s < 0.35 ? 'weak' : 'ok', score: s };
  }

  // What a read (getText, getDOM) may have read: elements of the recorded tag with text, in order.
  // A page this big is not searched (nor is identify's): healing never holds a tab for long.
  const MAX_ELEMENTS = 5000, BUDGET_MS = 400;
  function tooBig() { try { return document.getElementsByTagName('*').length > MAX_ELEMENTS; } catch (_) { return true; } }
  function readCandidates(d, until) {
    const out = [];
    let list = [];
    try { if (d.tag && /^[a-z][a-z0-9-]*$/.test(d.tag)) list = document.querySelectorAll(d.tag); } catch (_) {}
    for (const el of list) {
      if (out.length >= 2000 || performance.now() > until) break;
      const t = (el.textContent || '').trim();
      if (!t || t.length > 5000) continue;
      out.push({ el, role: P.role(el) || '', name: P.accessibleName(el) || '', vis: P.visible(el), order: out.length });
    }
    return out;
  }

  function heal(d, verb) {
    if (!d || typeof d !== 'object' || (!d.role && !(verb === 'read' && d.tag)))
      return { ok: false, why: 'nothing was recorded about the target', candidates: [] };
    if (tooBig()) return { ok: false, why: `the page has over ${MAX_ELEMENTS} elements: too many to search`, candidates: [] };
    const until = performance.now() + BUDGET_MS;
    let cands = [];
    try { cands = verb === 'read' ? readCandidates(d, until) : P.elements(); } catch (e) { return { ok: false, why: String(e && e.message || e), candidates: [] }; }
    const ord = ordinalFn(cands);
    const scored = [];
    for (const c of cands.slice(0, 3000)) {
      if (performance.now() > until) return { ok: false, why: `the page took over ${BUDGET_MS} ms to search`, candidates: [] };
      if (!verbOk(verb, c.el, c.role)) continue;
      // A hidden element cannot be acted on now: it only wins by a clear margin.
      const s = Math.round(score(c.el, c.role, d, ord) * (c.vis ? 1 : 0.9) * 1000) / 1000;
      if (s > 0.2) scored.push({ c, s, vis: c.vis });
    }
    // Visible first on a tie; then document order.
    scored.sort((a, b) => b.s - a.s || (b.vis ? 1 : 0) - (a.vis ? 1 : 0) || a.c.order - b.c.order);
    const top = scored.slice(0, 5).map(x => ({ role: x.c.role, name: clip(x.c.name, 80), score: x.s }));
    const best = scored[0], second = scored[1];
    if (!best) return { ok: false, why: 'no element of a fitting role', candidates: top };
    if (best.s < THRESHOLD) return { ok: false, why: `the best match scores ${best.s}, below the threshold ${THRESHOLD}`, candidates: top };
    if (second && best.s - second.s < MARGIN)
      return { ok: false, why: `the best two are too close (${best.s} and ${second.s}; a margin of ${MARGIN} is needed)`, candidates: top };
    const selector = stableSelector(best.c.el, best.c.role, best.c.name);
    if (!selector) return { ok: false, why: 'the match has no selector that names it alone', candidates: top };
    top[0].selector = selector;
    return { ok: true, selector, confidence: best.s, candidates: top };
  }

  Object.defineProperty(globalThis, '__ouroHeal', {
    value: Object.freeze({ identify, identifySelector, check, heal, sim }),
    enumerable: false,
  });
})();

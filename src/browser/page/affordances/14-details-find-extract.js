  // ---------------------------------------------------------------------------------------------
  // details(), find(), extract()

  function roleSelectorFor(el, ctx) {
    const r = roleOf(el, ctx), name = accessibleName(el, ctx);
    const doc = document;   // engines search same-origin frames too: selectors work from the top
    const tries = [];
    if (r && name && name.length <= 120) tries.push(`role=${r}[name=${JSON.stringify(name)}]`);
    const t = textOf(el, ctx);
    if (t && t.length <= 80) tries.push(`text=${JSON.stringify(t)}`);
    const tid = attr(el, 'data-testid');
    if (tid) tries.push(`testid=${JSON.stringify(tid)}`);
    const lt = labelTexts(el, ctx);
    if (lt[0] && /^(input|textarea|select)$/.test(tagOf(el))) tries.push(`label=${JSON.stringify(lt[0])}`);
    const ph = attr(el, 'placeholder');
    if (ph) tries.push(`placeholder=${JSON.stringify(ph)}`);
    const alt = attr(el, 'alt');
    if (alt) tries.push(`alt=${JSON.stringify(alt)}`);
    const out = [];
    for (const sel of tries) {
      let found = [];
      try { found = runSelector(sel, doc, ctx); } catch (_) { continue; }
      const i = found.indexOf(el);
      if (i < 0) continue;
      out.push(found.length === 1 ? sel : `${sel} >> nth=${i}`);
    }
    return out;
  }

  function details(refsIn) {
    const list = Array.isArray(refsIn) ? refsIn : [refsIn];
    const ctx = newCtx(1e9);
    return list.slice(0, 200).map(ref => {
      const r = String(ref);
      try {
        const el = lookupRef(r, ctx);
        const frames = framePath(el, ctx);
        const prefix = frames.length ? frames.join(' >>> ') + ' >>> ' : '';
        const sels = roleSelectorFor(el, ctx);
        const css = prefix + cssPath(el, ctx);
        const g = geom(el, ctx);
        const d = { ref: r, role: roleOf(el, ctx), name: clip(accessibleName(el, ctx), 200), selector: sels[0] || css,
                    alternates: sels.slice(1).concat(sels[0] ? [css] : []), framePath: frames };
        const lm = landmark(el, ctx);
        if (lm) d.landmark = lm;
        d.rect = { x: Math.round(g.x), y: Math.round(g.y), width: Math.round(g.w), height: Math.round(g.h) };
        d.visible = g.vis;
        d.enabled = !isDisabled(el);
        d.tag = tagOf(el);
        if (el.href && typeof el.href === 'string') d.href = el.href;
        const type = lower(attr(el, 'type') || '');
        if ('value' in el && typeof el.value === 'string' && type !== 'password' && !SECRET.test(`${attr(el, 'name') || ''} ${attr(el, 'autocomplete') || ''}`) && /^(input|textarea|select)$/.test(d.tag))
          d.value = clip(el.value, 200);
        return d;
      } catch (e) {
        return { ref: r, error: String(e && e.message || e) };
      }
    });
  }

  function find(description, opts) {
    const o = opts && typeof opts === 'object' ? opts : {};
    const ctx = newCtx(400);
    try {
      const topK = Math.max(1, Math.min(100, Math.floor(o.topK) || 10));
      const scopeEl = scopeFor(o.within, ctx);
      const q = parseQuery(String(description || ''), o.role);
      if (o.debug) { ctx.marks = {}; ctx.last = ctx.t0; }
      const els = candidates(ctx, scopeEl);
      mark(ctx, 'candidates');
      const cands = prepAll(els, ctx, c => !o.role || c.role === lower(o.role));
      mark(ctx, 'prep');
      const cols = detectCollections(ctx, els, scopeEl);
      const ranked = rank(q, cands, ctx, cols).slice(0, topK);
      mark(ctx, 'rank');
      if (o.debug) return { timings: ctx.marks, n: cands.length };
      return ranked.map(c => {
        const r = { ref: refFor(c.el, ctx), role: c.role, name: c.name };
        if (c.lm) r.landmark = c.lm;
        if (inFold(c.g)) r.fold = true;
        if (c.kind) r.kind = c.kind;
        r.score = c.score;
        return r;
      });
    } catch (e) {
      if (isUserError(e)) throw e;
      return [];
    }
  }

  function extract(opts) {
    const o = opts && typeof opts === 'object' ? opts : {};
    const ctx = newCtx(2000);
    const limit = Math.max(1, Math.min(2000, Math.floor(o.limit) || 500));
    let col = null;
    if (o.collection) {
      const el = resolveAll(String(o.collection), ctx)[0];
      if (!el) throw new Error(`collection '${o.collection}' matches nothing on this page`);
      col = analyzeContainer(el, ctx);
      if (!col) {
        // A ref to an item or a wrapper: look for the nearest collection around or inside it.
        for (let n = el.parentElement, k = 0; n && !col && k < 4; n = n.parentElement, k++) col = analyzeContainer(n, ctx);
        if (!col) { const inner = detectCollections(ctx, [...el.querySelectorAll('a[href],button')].slice(0, 500), el); col = inner[0] || null; }
      }
      if (!col) throw new Error(`'${o.collection}' is not a collection (no repeated items or table rows); snapshot() lists collections`);
      col.name = collectionName(col.el, col.items, col.fields.map(f => f.name), col.table, ctx);
    } else {
      const cols = detectCollections(ctx, candidates(ctx, null), null);
      if (!cols.length) return { collection: null, fields: [], rows: [], total: 0, hint: 'no repeated structure found on this page' };
      col = cols[0];
      if (o.text) {
        const q = parseQuery(String(o.text));
        const sc = c => { const toks = tokenize(`${c.name} ${c.fieldNames.join(' ')}`); return q.words.filter(w => toks.includes(w)).length; };
        const best = cols.slice().sort((a, b) => sc(b) - sc(a) || b.score - a.score)[0];
        if (best && sc(best) > 0) col = best;
      }
    }
    let fields = col.fields;
    if (Array.isArray(o.fields) && o.fields.length) {
      fields = o.fields.map(name => {
        const n = String(name);
        const f = col.fields.find(x => lower(x.name) === lower(n));
        if (f) return f;
        // Unknown name: the first element in the item whose class mentions it.
        const sel = `[class*="${n.replace(/["\\]/g, '')}" i]`;
        return { name: n, get: it => { const e = tryOr(() => it.querySelector(sel), null); return e ? clip(textOf(e, ctx), 300) : null; } };
      });
    }
    const rows = [];
    const items = col.items;
    for (let i = 0; i < items.length && rows.length < limit; i++) {
      const it = items[i];
      const row = {};
      for (const f of fields) {
        let v = null;
        try { v = f.get(it); } catch (_) {}
        if (v != null && v !== '') row[f.name] = v;
      }
      try {
        const main = tagOf(it) === 'a' ? it : it.querySelector('h1 a[href],h2 a[href],h3 a[href],h4 a[href],a[href],button,[role=button],[role=link]');
        if (main) row.ref = refFor(main, ctx);
      } catch (_) {}
      rows.push(row);
    }
    const res = { collection: refFor(col.el, ctx), name: col.name, fields: fields.map(f => f.name), rows, total: collectionTotal(col) };
    if (res.total > rows.length) res.truncated = true;
    if (res.total > items.length) res.hint = `a virtualised list: ${items.length} of ${res.total} items exist now; scroll it to load more and extract again`;
    return res;
  }

  // The cross-origin frames this engine cannot enter (visible, at least 20×20 px; ≤ 10), as refs:
  // the host enters each through its own world (browser/frames.cpp).
  function frames() {
    const ctx = newCtx(1e9);
    return gatherRoots(ctx).cross.filter(f => { const g = geom(f, ctx); return g.vis && g.w >= 20 && g.h >= 20; }).slice(0, 10)
      .map(f => ({ ref: refFor(f, ctx), url: clip(tryOr(() => f.src, '') || attr(f, 'src') || '', 200) }));
  }
  // Where a frame element's content box sits in this world's top-level viewport (with `scroll`,
  // after scrolling it into view when it is outside): the origin of the frame's own coordinates.
  function frameBox(ref, scroll) {
    const ctx = newCtx(1e9);
    const el = lookupRef(String(ref), ctx);
    if (!/^i?frame$/.test(tagOf(el))) throw new Error(`${ref} is not a frame element`);
    let r = el.getBoundingClientRect();
    const view = el.ownerDocument.defaultView;
    if (scroll && (r.bottom <= 0 || r.right <= 0 || r.top >= view.innerHeight || r.left >= view.innerWidth)) {
      el.scrollIntoView({ block: 'center', inline: 'center' });
      ctx.offsets.clear();
    }
    const off = docOffset(el.ownerDocument, ctx);
    r = el.getBoundingClientRect();
    const cs = view.getComputedStyle(el);
    return { x: off.x + r.x + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft),
             y: off.y + r.y + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop) };
  }
  // Set-of-marks for a screenshot: every visible control in the viewport outlined with its ref
  // (the same ref snapshot/find give it), drawn in an overlay that takes no input; marks(false)
  // removes it. Returns the marked elements.
  let markHost = null;
  function marks(on) {
    if (markHost) { tryOr(() => markHost.remove(), null); markHost = null; }
    if (on === false) return [];
    const ctx = newCtx(1000);
    const vw = innerWidth, vh = innerHeight, out = [];
    const host = document.createElement('div');
    host.setAttribute('data-ouro-marks', '');
    host.style.cssText = 'position:fixed;inset:0;pointer-events:none;z-index:2147483647;contain:strict';
    const root = host.attachShadow({ mode: 'closed' });
    for (const el of candidates(ctx, null)) {
      if (out.length >= 150 || over(ctx)) break;
      const g = geom(el, ctx);
      if (!g.vis || g.w < 4 || g.h < 4 || g.x + g.w <= 0 || g.y + g.h <= 0 || g.x >= vw || g.y >= vh) continue;
      const ref = refFor(el, ctx);
      const box = document.createElement('div');
      box.style.cssText = `position:fixed;left:${g.x}px;top:${g.y}px;width:${g.w}px;height:${g.h}px;outline:2px solid #e4007c;box-sizing:border-box`;
      const tag = document.createElement('span');
      tag.textContent = ref;
      tag.style.cssText = 'position:absolute;left:-2px;top:-16px;font:bold 11px/14px monospace;color:#fff;background:#e4007c;padding:0 3px;white-space:nowrap';
      box.appendChild(tag);
      root.appendChild(box);
      out.push({ ref, role: roleOf(el, ctx), name: clip(accessibleName(el, ctx), 60) });
    }
    (document.documentElement || document.body).appendChild(host);
    markHost = host;
    return out;
  }

  // The prefix of the refs this world issues (a cross-origin frame's, e.g. 'f2').
  // The interactive elements and fields with their facts, in document order, for the command
  // binder (binding.js): [{el, role, name, field, kind, order, vis, x, y, w, h, labels}].
  function elements(within) {
    const ctx = newCtx(1500);
    const scopeEl = scopeFor(within, ctx);
    const els = candidates(ctx, scopeEl);
    const out = [];
    for (let i = 0; i < els.length; i++) {
      const c = prep(els[i], ctx, i);
      if (!c) continue;
      const g = geom(c.el, ctx);
      out.push({ el: c.el, role: c.role, name: c.name, field: c.field, kind: c.kind || '', order: i, vis: g.vis, x: g.x, y: g.y,
                 w: g.w, h: g.h, labels: c.field ? labelTexts(c.el, ctx) : [] });
    }
    return out;
  }

  // The words of the collection item (row, card) an element belongs to, without its own name:
  // which "Buy" of three it is ("Green pen $3.50"); "" when it belongs to none.
  function itemWords(el) {
    const ctx = newCtx(300);
    const own = accessibleName(el, ctx);
    const cols = tryOr(() => detectCollections(ctx, candidates(ctx, null), null), []);
    const it = cols.length ? itemOf(el, cols) : null;
    if (it) return itemLabel(it.col.items[it.index], own, ctx);
    const c = tryOr(() => el.parentElement && el.parentElement.closest('tr,li,article,[role=row],[role=listitem],[role=article]'), null);
    return c ? itemLabel(c, own, ctx) : '';
  }

  function usePrefix(p) {
    if (typeof p === 'string' && /^(f\d+)?$/.test(p)) REFS.prefix = p;
    return REFS.prefix;
  }

  Object.defineProperty(globalThis, '__ouroPcd', {
    value: Object.freeze({
      snapshot, details, find, extract, frames, frameBox, usePrefix, marks,
      resolveAll: selector => resolveAll(selector), resolve,
      role: el => roleOf(el, null), accessibleName: el => accessibleName(el, null),
      elements, refOf: el => refFor(el, newCtx()), stateOf, text: TEXT, textOf: el => textOf(el, newCtx()),
      visible: el => geom(el, newCtx()).vis, landmarkOf: el => landmark(el, newCtx()), itemWords,
      version: 1,
    }),
    enumerable: false,
  });
})();

  // ---------------------------------------------------------------------------------------------
  // Refs: short ids stable for the life of a node; a dead one re-resolves through the alternates
  // captured when it was issued.

  const REFS = { seq: 0, prefix: '', byEl: new WeakMap(), byRef: new Map() };
  const REF_RE = /^(?:f\d+)?e\d+$/;

  function isRef(s) { return REF_RE.test(s) || (REFS.prefix && s.startsWith(REFS.prefix) && /^e\d+$/.test(s.slice(REFS.prefix.length))); }

  function refFor(el, ctx) {
    let r = REFS.byEl.get(el);
    if (r && REFS.byRef.has(r)) return r;
    r = REFS.prefix + 'e' + (++REFS.seq);
    REFS.byEl.set(el, r);
    REFS.byRef.set(r, capture(el, ctx));
    if (REFS.byRef.size > 50000) {
      // Forget the oldest refs whose nodes are gone.
      let dropped = 0;
      for (const [k, v] of REFS.byRef) { if (!v.w.deref()) { REFS.byRef.delete(k); if (++dropped > 10000) break; } }
    }
    return r;
  }
  function capture(el, ctx) {
    const rec = { w: new WeakRef(el), tag: tagOf(el), role: roleOf(el, ctx), name: accessibleName(el, ctx).slice(0, 200) };
    try {
      rec.css = cssPath(el, ctx);
      rec.frames = framePath(el, ctx);
      if (el.id) rec.id = el.id;
      const tid = attr(el, 'data-testid') || attr(el, 'data-test-id');
      if (tid) rec.testid = tid;
      if (ACTION_ROLES.has(rec.role) || FIELD_ROLES.has(rec.role)) {
        const t = textOf(el, ctx);
        if (t && t.length <= 80) rec.text = t;
      }
    } catch (_) {}
    return rec;
  }

  // Index among same-tag siblings, cached per parent for the call (keeps 500-row paths linear).
  function typeIndex(el, ctx) {
    const p = el.parentNode;
    let m = ctx.idx.get(p);
    if (!m) {
      m = new Map();
      const counts = new Map();
      for (const c of p.children) {
        const n = (counts.get(c.localName) || 0) + 1;
        counts.set(c.localName, n);
        m.set(c, n);
      }
      m.counts = counts;
      ctx.idx.set(p, m);
    }
    return { i: m.get(el) || 1, of: m.counts.get(el.localName) || 1 };
  }
  function cssEsc(s) { return typeof CSS !== 'undefined' && CSS.escape ? CSS.escape(s) : String(s).replace(/[^\w-]/g, c => '\\' + c); }
  // A CSS path inside the element's own root; shadow content is reached through its host with ' >> '.
  function cssPath(el, ctx) {
    const parts = [];
    let cur = el;
    for (let k = 0; cur && cur.nodeType === 1 && k < 40; k++) {
      const id = cur.id;
      const root = cur.getRootNode();
      if (id && /^[A-Za-z][\w-]*$/.test(id) && tryOr(() => root.querySelectorAll('#' + cssEsc(id)).length === 1, false)) {
        parts.unshift('#' + cssEsc(id));
        cur = null;
        break;
      }
      const t = cur.localName;
      const p = cur.parentNode;
      if (!p || (p.nodeType !== 1 && p.nodeType !== 11)) {
        parts.unshift(t);
        break;
      }
      const { i, of } = typeIndex(cur, ctx);
      parts.unshift(of > 1 ? `${t}:nth-of-type(${i})` : t);
      if (p.nodeType === 11) break;   // the top of a shadow root
      cur = p;
    }
    let path = parts.join(' > ');
    const root = tryOr(() => el.getRootNode(), null);
    if (root && root.host) path = cssPath(root.host, ctx) + ' >> ' + path;
    return path;
  }
  // The iframes from the top document down to the element's document, as selectors.
  function framePath(el, ctx) {
    const out = [];
    let doc = el.ownerDocument;
    for (let k = 0; k < 10; k++) {
      const fe = frameOf(doc);
      if (!fe) break;
      out.unshift(cssPath(fe, ctx));
      doc = fe.ownerDocument;
    }
    return out;
  }

  function goneError(ref, rec) {
    const what = rec ? ` (${rec.role || rec.tag}${rec.name ? ` "${clip(rec.name, 60)}"` : ''})` : '';
    return userError(`element ${ref}${what} is gone: the page changed since the snapshot and it could not be found again. ` +
      'Take a new snapshot() or use find("…") to locate it.');
  }
  function lookupRef(ref, ctx) {
    const rec = REFS.byRef.get(ref);
    const pre = /^(f\d+)e\d+$/.exec(ref);
    if (!rec && pre && pre[1] !== REFS.prefix) {
      throw userError(`unknown ref '${ref}' here: it belongs to frame ${pre[1]} (a cross-origin frame, snapshot separately); ` +
        'take a new snapshot() if that frame has navigated.');
    }
    if (!rec) {
      throw userError(`unknown ref '${ref}': refs come from snapshot() or find() on this page (a cross-origin frame's refs carry ` +
        'its prefix, e.g. f2e12); the page may have navigated since. Take a new snapshot() or use find("…").');
    }
    const el = rec.w.deref();
    if (el && el.isConnected) return el;
    const again = reResolve(rec, ctx);
    if (!again) throw goneError(ref, rec);
    rec.w = new WeakRef(again);
    REFS.byEl.set(again, ref);
    return again;
  }
  // Once, in order: the CSS path (re-rendered equal nodes), role + name, id, test id, text; each hit
  // must have the same role and name as the element the ref was issued for.
  function reResolve(rec, ctx) {
    let scopes = [document];
    try {
      if (rec.frames && rec.frames.length) scopes = resolveAll(rec.frames.join(' >>> ') + ' >>> html', ctx).map(h => h.ownerDocument);
    } catch (_) { return null; }
    const same = el => el && roleOf(el, null) === rec.role && accessibleName(el, null).slice(0, 200) === rec.name && tagOf(el) === rec.tag;
    const tries = [];
    if (rec.css) tries.push(rec.css);
    if (rec.role && rec.name) tries.push(`role=${rec.role}[name=${JSON.stringify(rec.name)}]`);
    if (rec.id) tries.push('#' + cssEsc(rec.id));
    if (rec.testid) tries.push(`testid=${JSON.stringify(rec.testid)}`);
    if (rec.text) tries.push(`text=${JSON.stringify(rec.text)}`);
    for (const sel of tries) {
      for (const scope of scopes) {
        let found = [];
        try { found = runSelector(sel, scope, newCtx()); } catch (_) { continue; }
        const ok = found.filter(same);
        if (ok.length) return ok[0];
      }
    }
    return null;
  }


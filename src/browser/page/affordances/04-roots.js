  // ---------------------------------------------------------------------------------------------
  // Roots: documents, open shadow roots and same-origin frames.

  function frameOf(doc) {
    try { return doc && doc.defaultView ? doc.defaultView.frameElement : null; } catch (_) { return null; }
  }
  function parentAcross(n) {
    if (!n) return null;
    if (n.parentElement) return n.parentElement;
    const root = tryOr(() => n.getRootNode(), null);
    if (root && root.host) return root.host;
    if (root && root.nodeType === 9) return frameOf(root);
    return null;
  }
  function deepContains(a, b) {
    for (let n = b, k = 0; n && k < 64; k++) {
      if (a === n || tryOr(() => a.contains(n), false)) return true;
      const root = tryOr(() => n.getRootNode(), null);
      n = root && root.host ? root.host : root && root.nodeType === 9 ? frameOf(root) : null;
    }
    return false;
  }

  // Open shadow roots below `scope` (a Document, ShadowRoot or Element), nested ones included.
  function shadowRootsUnder(scope, ctx, out) {
    let all;
    try { all = scope.getElementsByTagName ? scope.getElementsByTagName('*') : scope.querySelectorAll('*'); } catch (_) { return; }
    const own = tryOr(() => scope.shadowRoot, null);
    if (own) { out.push(own); shadowRootsUnder(own, ctx, out); }
    const n = all.length;
    for (let i = 0; i < n; i++) {
      if (++ctx.nodes > MAX_NODES) { ctx.partial = true; return; }
      const el = all[i];
      const sr = el.shadowRoot;
      if (sr) { out.push(sr); shadowRootsUnder(sr, ctx, out); }
    }
  }
  // A document's open shadow roots, rescanned only after a mutation in the document or one of
  // its shadow roots (a MutationObserver marks the list stale) or after a few seconds.
  const SHADOWS = new WeakMap();
  // Any mutation in a watched document or shadow root bumps EPOCH; per-element facts computed
  // at one epoch (role, name, kind) are reused until it changes.
  let EPOCH = 0;
  const WATCH = { childList: true, subtree: true, characterData: true, attributes: true,
    attributeFilter: ['role', 'aria-label', 'aria-labelledby', 'aria-hidden', 'hidden', 'href', 'title', 'alt', 'value',
      'placeholder', 'type', 'name', 'for', 'id', 'disabled', 'rel', 'aria-checked', 'aria-pressed', 'aria-selected',
      'aria-expanded', 'contenteditable', 'onclick', 'class'] };
  function docShadowRoots(doc, ctx) {
    let e = SHADOWS.get(doc);
    if (e && !e.dirty && now() - e.t < 3000) return e.roots;
    if (!e) {
      e = { roots: [], dirty: true, t: 0, mo: null };
      try { e.mo = new MutationObserver(() => { e.dirty = true; EPOCH++; }); } catch (_) {}
      SHADOWS.set(doc, e);
    }
    const roots = [];
    shadowRootsUnder(doc, ctx, roots);
    e.roots = roots;
    e.dirty = !!ctx.partial;
    e.t = now();
    if (e.mo) {
      try {
        e.mo.disconnect();
        e.mo.observe(doc, WATCH);
        for (const r of roots) e.mo.observe(r, WATCH);
      } catch (_) { e.dirty = true; }
    }
    return roots;
  }
  function rootsUnder(scope, ctx) {
    let r = ctx.rootsUnder.get(scope);
    if (r) return r;
    const doc = scope.nodeType === 9 ? scope : scope.ownerDocument;
    r = [scope];
    for (const sr of docShadowRoots(doc, ctx)) if (scope.nodeType === 9 || (sr !== scope && deepContains(scope, sr.host))) r.push(sr);
    // Same-origin frames inside are searched too (after the document itself), as refs reach them.
    ctx.frameDepth = (ctx.frameDepth || 0) + 1;
    if (ctx.frameDepth <= 8) {
      for (const root of r.slice()) {
        let frames;
        try { frames = root.querySelectorAll('iframe,frame'); } catch (_) { continue; }
        for (const f of frames) {
          let d = null;
          try { d = f.contentDocument; } catch (_) {}
          if (d && d.documentElement && d !== doc) for (const x of rootsUnder(d, ctx)) r.push(x);
        }
      }
    }
    ctx.frameDepth--;
    ctx.rootsUnder.set(scope, r);
    return r;
  }
  function deepQuery(scope, css, ctx, lightFirst) {
    const out = [];
    const roots = rootsUnder(scope, ctx);
    for (let i = 0; i < roots.length; i++) {
      if (lightFirst && i > 0 && out.length) break;
      const list = roots[i].querySelectorAll(css);
      for (let j = 0; j < list.length; j++) out.push(list[j]);
    }
    return out;
  }

  // Offset of a document's viewport inside the top-level viewport.
  function docOffset(doc, ctx) {
    if (ctx.offsets.has(doc)) return ctx.offsets.get(doc);
    let off = { x: 0, y: 0 };
    const fe = frameOf(doc);
    if (fe) {
      try {
        const p = docOffset(fe.ownerDocument, ctx), r = fe.getBoundingClientRect();
        const cs = fe.ownerDocument.defaultView.getComputedStyle(fe);
        off = { x: p.x + r.x + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft),
                y: p.y + r.y + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop) };
      } catch (_) {}
    }
    ctx.offsets.set(doc, off);
    return off;
  }

  // Every query root of the page this engine can enter, plus the frames it cannot.
  function gatherRoots(ctx) {
    if (ctx.all) return ctx.all;
    const roots = [], cross = [], seen = new Set();
    const visit = (doc, depth) => {
      if (!doc || seen.has(doc) || depth > 8) return;
      seen.add(doc);
      const rs = [doc].concat(docShadowRoots(doc, ctx));   // its own roots; frames are visited below
      for (const r of rs) roots.push(r);
      for (const r of rs) {
        let frames;
        try { frames = r.querySelectorAll('iframe,frame'); } catch (_) { continue; }
        for (const f of frames) {
          let cd = null;
          try { cd = f.contentDocument; } catch (_) {}
          if (cd && cd.documentElement) visit(cd, depth + 1);
          else cross.push(f);
        }
      }
    };
    visit(document, 0);
    ctx.all = { roots, cross };
    return ctx.all;
  }


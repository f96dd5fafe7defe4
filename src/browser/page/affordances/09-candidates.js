  // ---------------------------------------------------------------------------------------------
  // Candidates

  // Few simple selectors match much faster than one per role on big pages; prep() filters roles.
  const CAND_SEL = 'a[href],area[href],button,input,select,textarea,summary,[contenteditable],[role],[onclick]';
  const CAND_ROLES = new Set(['button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'checkbox', 'radio',
    'switch', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'option', 'treeitem']);
  const STD_TAGS = new Set(['a', 'area', 'button', 'input', 'select', 'textarea', 'summary']);
  const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio', 'slider', 'spinbutton', 'switch']);
  const ACTION_ROLES = new Set(['button', 'link', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem']);

  // What depends only on the DOM (the candidate list, collections, landmarks) is kept while no
  // mutation has been seen, for a few seconds (geometry is always measured again).
  const STRUCT = { epoch: -1, t: 0, els: null, cols: null, lms: null };
  const structValid = () => STRUCT.epoch === EPOCH && now() - STRUCT.t < 3000;

  function candidates(ctx, scopeEl) {
    if (!scopeEl && structValid() && STRUCT.els) return STRUCT.els;
    const out = candidatesFresh(ctx, scopeEl);
    if (!scopeEl && !ctx.partial) Object.assign(STRUCT, { epoch: EPOCH, t: now(), els: out, cols: null, lms: null });
    return out;
  }
  function candidatesFresh(ctx, scopeEl) {
    const { roots } = gatherRoots(ctx);
    const out = [];
    for (const root of roots) {
      if (scopeEl && !(root === scopeEl || deepContains(scopeEl, root.host || root.documentElement || root) || deepContains(root.host || root, scopeEl))) continue;
      let list;
      try { list = root.querySelectorAll(CAND_SEL); } catch (_) { continue; }
      // The budget is wall time: on a starved CPU the roots' walk alone can spend it, and the
      // first candidates of each root are still read (a partial answer, never an empty one).
      for (let i = 0; i < list.length; i++) {
        if (out.length >= MAX_CANDIDATES || (i > 0 && (i & 127) === 0 && over(ctx))) { ctx.partial = true; break; }
        const el = list[i];
        try {
          if (scopeEl && !deepContains(scopeEl, el)) continue;
          const r = el.getAttribute('role');
          if (r && !CAND_ROLES.has(lower(r).trim().split(WS)[0]) && !/^(a|area|button|input|select|textarea|summary)$/.test(el.localName) && !el.hasAttribute('onclick')) continue;
        } catch (_) { continue; }
        out.push(el);
      }
    }
    return out;
  }

  // The accessible name without its machinery for the common case: a link or button holding only text.
  function quickName(el, t, ctx) {
    if ((t === 'a' || t === 'button') && !el.firstElementChild && !hasAttr(el, 'aria-labelledby')) {
      const al = norm(attr(el, 'aria-label'));
      if (al) return al;
      const tx = norm(el.textContent);
      if (tx) return tx;
    }
    return accessibleName(el, ctx);
  }
  function fieldKind(el, name, role) {
    if (role === 'searchbox' || /\bsearch\b|\bsuche\b|\bbuscar\b/i.test(name) || /^(q|query|search|s|keywords?)$/i.test(attr(el, 'name') || '')) return 'search';
    return '';
  }
  // Geometry is the expensive part (layout queries): only for the candidates worth it.
  function deep(c, ctx) {
    if (!c.g) c.g = geom(c.el, ctx);
    return c;
  }
  // How promising a candidate looks before its geometry is known.
  function priorScore(c) {
    let s = c.kind ? (IMPORTANT.has(c.kind) ? 3 : 1.5) : 0;
    s += { dialog: 4, header: 1.2, search: 1.5, main: 0.5, nav: 0.6, footer: -1.5 }[c.lm] || 0;
    if (!c.name) s -= 3;
    if (c.order < 300) s += 1;
    return s - c.order / 4000;
  }

  // The cheap facts about one candidate; null when it is not worth listing.
  const PREP = new WeakMap();
  function prep(el, ctx, order) {
    // The cache holds the facts ({epoch, role, name, field, kind, lm?, toks?}), or {epoch, none}.
    const b = PREP.get(el);
    if (b && b.epoch === EPOCH) return b.none ? null : { el, role: b.role, name: b.name, g: null, order, field: b.field, kind: b.kind, lm: b.lm, b };
    const c = prepFresh(el, ctx, order);
    if (c) c.b = { epoch: EPOCH, role: c.role, name: c.name, field: c.field, kind: c.kind };
    PREP.set(el, c ? c.b : { epoch: EPOCH, none: true });
    return c;
  }
  function prepFresh(el, ctx, order) {
    try {
      const t = tagOf(el);
      let role = roleOf(el, null);
      const std = STD_TAGS.has(t);
      let editable = false;
      if (!std && (!role || role === 'generic')) {
        const ce = attr(el, 'contenteditable');
        if (ce != null && /^(|true|plaintext-only)$/i.test(ce)) { role = 'textbox'; editable = true; }
        else if (hasAttr(el, 'onclick')) {
          // A clickable wrapper whose only job is to hold a real control is not a separate action.
          if (el.querySelector('a[href],button,input,select,textarea')) return null;
          role = 'button';
        }
      }
      if (!role) return null;
      const field = FIELD_ROLES.has(role) || (t === 'input' && role !== 'button') || t === 'textarea' || t === 'select' || editable;
      if (!field && !ACTION_ROLES.has(role)) return null;
      if (t === 'input' && lower(attr(el, 'type') || '') === 'hidden') return null;
      const name = clip(quickName(el, t, ctx));
      const c = { el, role, name, g: null, order, field };
      c.kind = c.field ? fieldKind(el, name, role) : kindOf(el, name, role, ctx);
      return c;
    } catch (_) { return null; }
  }


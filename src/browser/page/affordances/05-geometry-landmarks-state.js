  // ---------------------------------------------------------------------------------------------
  // Geometry, landmarks, state

  function geom(el, ctx) {
    if (ctx.vis.has(el)) return ctx.vis.get(el);
    let g = { vis: false, x: 0, y: 0, w: 0, h: 0 };
    try {
      const r = el.getBoundingClientRect();
      const off = docOffset(el.ownerDocument, ctx);
      let vis = r.width > 0 && r.height > 0;
      if (vis && el.checkVisibility) vis = el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
      if (!vis && el.labels && el.labels.length) {
        // Custom checkboxes hide the input and show its label.
        const lr = el.labels[0].getBoundingClientRect();
        if (lr.width > 0 && lr.height > 0) vis = true;
      }
      g = { vis, x: r.x + off.x, y: r.y + off.y, w: r.width, h: r.height };
    } catch (_) {}
    ctx.vis.set(el, g);
    return g;
  }
  const inFold = g => g.vis && g.y < innerHeight * 1.2 && g.y + g.h > 0;

  const LM_SEL = 'main,nav,header,footer,aside,search,dialog,[role=main],[role=navigation],[role=banner],' +
    '[role=contentinfo],[role=complementary],[role=search],[role=dialog],[role=alertdialog]';
  const LM_ROLE = { main: 'main', navigation: 'nav', banner: 'header', contentinfo: 'footer', complementary: 'aside',
    search: 'search', dialog: 'dialog', alertdialog: 'dialog' };
  const LM_NAMES = { main: 'main', nav: 'nav', navigation: 'nav', header: 'header', banner: 'header', footer: 'footer',
    contentinfo: 'footer', aside: 'aside', complementary: 'aside', search: 'search', dialog: 'dialog' };
  function landmarkKind(el) {
    const r = explicitRole(el);
    if (r) return LM_ROLE[r] || '';
    const t = tagOf(el);
    if (t === 'header' || t === 'footer') return inSectioning(el) ? '' : t;
    if (t === 'dialog') return hasAttr(el, 'open') ? 'dialog' : '';
    return LM_NAMES[t] || '';
  }
  function landmarkEl(el, ctx) {
    let cur = el;
    for (let k = 0; cur && k < 40; k++) {
      const hit = tryOr(() => cur.closest(LM_SEL), null);
      if (hit) {
        if (landmarkKind(hit)) return hit;
        cur = hit.parentElement || parentAcross(hit);
        continue;
      }
      const root = tryOr(() => cur.getRootNode(), null);
      cur = root && root.host ? root.host : root && root.nodeType === 9 ? frameOf(root) : null;
    }
    return null;
  }
  function landmark(el, ctx) {
    if (ctx.lm.has(el)) return ctx.lm.get(el);
    // Controls are not landmarks themselves: siblings share their parent's answer.
    const p = el.parentElement;
    const shared = p && !landmarkKind(el) ? p : null;
    if (shared && ctx.lm.has(shared)) { const k = ctx.lm.get(shared); ctx.lm.set(el, k); return k; }
    const l = landmarkEl(el, ctx);
    const k = l ? landmarkKind(l) : '';
    ctx.lm.set(el, k);
    if (shared) ctx.lm.set(shared, k);
    return k;
  }

  function isDisabled(el) {
    try {
      if (el.disabled === true) return true;
      if (el.closest && el.closest('fieldset:disabled') && /^(input|select|textarea|button)$/.test(tagOf(el))) return true;
      for (let n = el, k = 0; n && k < 20; n = n.parentElement, k++) if (attr(n, 'aria-disabled') === 'true') return true;
    } catch (_) {}
    return false;
  }
  function stateOf(el, name) {
    const t = tagOf(el);
    switch (name) {
      case 'checked': {
        if (t === 'input' && /^(checkbox|radio)$/i.test(attr(el, 'type') || '')) return el.indeterminate ? 'mixed' : !!el.checked;
        const a = attr(el, 'aria-checked');
        return a === 'mixed' ? 'mixed' : a === 'true';
      }
      case 'pressed': { const a = attr(el, 'aria-pressed'); return a === 'mixed' ? 'mixed' : a === 'true'; }
      case 'disabled': return isDisabled(el);
      case 'expanded': {
        if (t === 'summary' && el.parentElement && tagOf(el.parentElement) === 'details') return !!el.parentElement.open;
        return attr(el, 'aria-expanded') === 'true';
      }
      case 'selected': return t === 'option' ? !!el.selected : attr(el, 'aria-selected') === 'true';
      case 'level': {
        const m = /^h([1-6])$/.exec(t);
        const a = parseInt(attr(el, 'aria-level') || '', 10);
        return a > 0 ? a : m ? +m[1] : 0;
      }
    }
    return undefined;
  }


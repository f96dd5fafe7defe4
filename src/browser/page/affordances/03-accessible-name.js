  // ---------------------------------------------------------------------------------------------
  // Accessible name (W3C accname 1.2, §4.3 steps 2A–2I), with a node budget per element.

  const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'sectionhead', 'switch',
    'tab', 'tooltip', 'treeitem', 'term', 'caption']);
  const SKIP_TAGS = new Set(['script', 'style', 'template', 'noscript', 'head', 'title', 'meta', 'link']);
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'i', 'kbd', 'label',
    'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'img', 'font']);
  const TEXT_INPUT_ROLES = new Set(['textbox', 'searchbox']);
  const RANGE_ROLES = new Set(['slider', 'spinbutton', 'progressbar', 'scrollbar', 'meter']);

  function byId(el, id) {
    try {
      const root = el.getRootNode();
      const found = root && root.getElementById ? root.getElementById(id) : null;
      return found || el.ownerDocument.getElementById(id);
    } catch (_) { return null; }
  }
  function hiddenForName(el) {
    if (SKIP_TAGS.has(tagOf(el))) return true;
    if (attr(el, 'aria-hidden') === 'true' || hasAttr(el, 'hidden')) return true;
    try { if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return tagOf(el) !== 'slot'; } catch (_) {}
    return false;
  }
  function selectedText(el) {
    try {
      if (tagOf(el) === 'select') return [...el.selectedOptions].map(o => o.label || o.text).join(' ');
    } catch (_) {}
    return norm(attr(el, 'aria-valuetext') || '') || tryOr(() => String(el.value ?? ''), '');
  }

  function nameStep(el, st, mode /* 'root' | 'ref' | 'content' */) {
    if (--st.budget < 0 || st.chars > 600) return '';
    if (st.visited.has(el)) return '';
    if (mode === 'content' && !st.hiddenOk && hiddenForName(el)) return '';
    // A hidden node referenced by aria-labelledby is named from all of its content (accname 2A).
    if (mode === 'ref' && hiddenForName(el)) st.hiddenOk = true;
    st.visited.add(el);
    // 2B aria-labelledby (not followed again inside a labelledby traversal).
    if (mode !== 'ref') {
      const ids = attr(el, 'aria-labelledby');
      if (ids && ids.trim()) {
        const parts = [];
        for (const id of ids.trim().split(WS).slice(0, 10)) {
          const ref = byId(el, id);
          if (ref === el) parts.push(norm(attr(el, 'aria-label')) || contentName(el, st));   // self-reference: its own label or content
          else if (ref && !st.visited.has(ref)) parts.push(nameStep(ref, st, 'ref'));
        }
        const s = norm(parts.join(' '));
        if (s) return s;
      }
    }
    const r = roleOf(el, st.ctx);
    const t = tagOf(el);
    // 2C embedded control inside another element's label or content.
    if (mode !== 'root' && el !== st.root) {
      if (TEXT_INPUT_ROLES.has(r) && (t === 'input' || t === 'textarea')) return tryOr(() => String(el.value || ''), '');
      if (r === 'combobox' || r === 'listbox') return selectedText(el);
      if (RANGE_ROLES.has(r)) return norm(attr(el, 'aria-valuetext') || attr(el, 'aria-valuenow') || tryOr(() => String(el.value ?? ''), ''));
    } else if (mode !== 'root' && el === st.root && (t === 'input' || t === 'textarea' || t === 'select')) {
      return '';   // a control inside its own label does not name itself
    }
    // 2D aria-label
    const al = norm(attr(el, 'aria-label'));
    if (al) return al;
    // 2E host-language label
    if (r !== 'presentation' && r !== 'none') {
      const n = nativeName(el, st, t, mode);
      if (n) return n;
    }
    // 2F name from content
    if (mode !== 'root' || NAME_FROM_CONTENT.has(r) || (t === 'label' || t === 'legend' || t === 'caption' || t === 'figcaption')) {
      const c = contentName(el, st);
      if (c) return c;
    }
    // 2I tooltip, then placeholder (HTML-AAM)
    const title = norm(attr(el, 'title'));
    if (title) return title;
    if (mode === 'root' && (t === 'input' || t === 'textarea' || r === 'textbox' || r === 'searchbox' || r === 'combobox'))
      return norm(attr(el, 'placeholder') || attr(el, 'aria-placeholder'));
    return '';
  }

  function nativeName(el, st, t, mode) {
    if (t === 'input') {
      const type = lower(attr(el, 'type') || '');
      if (type === 'button' || type === 'submit' || type === 'reset') {
        const v = norm(attr(el, 'value'));
        return v || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      }
      if (type === 'image') return norm(attr(el, 'alt')) || norm(attr(el, 'value')) || 'Submit';
    }
    if (t === 'input' || t === 'textarea' || t === 'select' || t === 'meter' || t === 'progress' || t === 'output' || t === 'button') {
      let labels = null;
      try { labels = el.labels; } catch (_) {}
      if (labels && labels.length) {
        const parts = [];
        for (const l of [...labels].slice(0, 4)) parts.push(nameStep(l, st, 'content'));
        const s = norm(parts.join(' '));
        if (s) return s;
      }
    }
    if (t === 'fieldset') {
      const lg = [...el.children].find(c => tagOf(c) === 'legend');
      if (lg) return nameStep(lg, st, 'content');
    }
    if (t === 'figure') {
      const fc = [...el.children].find(c => tagOf(c) === 'figcaption');
      if (fc) return nameStep(fc, st, 'content');
    }
    if (t === 'table') {
      const cap = tryOr(() => el.caption, null);
      if (cap) return nameStep(cap, st, 'content');
    }
    if (t === 'img' || t === 'area') return norm(attr(el, 'alt'));
    if (t === 'svg') {
      const ti = [...el.children].find(c => tagOf(c) === 'title');
      if (ti) return norm(ti.textContent);
    }
    return '';
  }

  function contentName(el, st) {
    const out = [];
    const walk = parent => {
      let children;
      if (tagOf(parent) === 'slot') {
        children = tryOr(() => parent.assignedNodes({ flatten: true }), []);
        if (!children.length) children = parent.childNodes;
      } else {
        const sr = tryOr(() => parent.shadowRoot, null);
        children = sr ? sr.childNodes : parent.childNodes;
      }
      for (let i = 0; i < children.length; i++) {
        if (st.budget < 0 || st.chars > 600) return;
        const c = children[i];
        if (c.nodeType === 3) { const d = c.data; out.push(d); st.chars += d.length; continue; }
        if (c.nodeType !== 1) continue;
        const inline = INLINE.has(tagOf(c));
        const s = nameStep(c, st, 'content');
        if (s) out.push(inline ? s : ' ' + s + ' ');
      }
    };
    walk(el);
    return norm(out.join(''));
  }

  function accessibleName(el, ctx) {
    if (!isEl(el)) return '';
    if (ctx && ctx.names.has(el)) return ctx.names.get(el);
    let n = '';
    try {
      n = nameStep(el, { budget: 200, chars: 0, visited: new Set(), root: el, ctx }, 'root');
      // The content of a link or button with only an icon: fall back to its image text, then its title-ish hints.
      if (!n && (tagOf(el) === 'a' || tagOf(el) === 'button')) {
        const img = el.querySelector('img[alt]:not([alt=""]),svg title,[aria-label]');
        if (img) n = norm(tagOf(img) === 'img' ? attr(img, 'alt') : img.textContent || attr(img, 'aria-label'));
      }
    } catch (_) {}
    if (ctx) ctx.names.set(el, n);
    return n;
  }

  // Normalized text content (cheap, cached per call); used by the text engine and collections.
  function textOf(el, ctx) {
    if (ctx.text.has(el)) return ctx.text.get(el);
    let s = '';
    try {
      s = el.textContent || '';
      if (s.length > 8000) s = s.slice(0, 8000);   // containers: the start is enough
      s = norm(s);
    } catch (_) {}
    if (s.length > 2000) s = s.slice(0, 2000);
    ctx.text.set(el, s);
    return s;
  }


// Page affordances for ouro (issue 9; seed 002 §4–§8, §11, §14): a compact map of what a page
// lets you do (snapshot), short stable refs for its elements, one selector language, a
// deterministic ranking of elements for a plain description (find) and rows out of its repeated
// structures (extract). Loaded next to helpers.js into the same isolated world of every document;
// helpers' resolveAll() delegates here. No dependencies, no build step; every function returns
// JSON-safe values and survives hostile pages (each element is handled inside try/catch, work is
// bounded by counts and a time budget).
//
// API (globalThis.__ouroPcd):
//   snapshot(opts?) -> {
//     url, title, login: 'in'|'out'|'unknown', landmarks: ['header','nav','main',…],
//     actions:     [{ref, role, name, kind?, landmark?, fold?: true (in the first 1.2 viewports),
//                    n?: how many items of collection `col` carry this same action, col?,
//                    score?: with opts.text}],
//     forms:       [{ref, purpose?, landmark?, fields: [{ref, label, type, name?, req?: true,
//                    value?: (non-secret, short), checked?: true, options?: [first labels]}],
//                    moreFields?: N, submit?: {ref, name}}],
//     collections: [{ref, name, fields: ['title','link','price',…], count, shown?: items present
//                    when a virtualised list announces more, landmark?}],
//     frames:      [{ref, url, cross: true}]   cross-origin frames this engine cannot enter,
//     more?:       {actions, forms, collections}  how many were left out,
//     hint?, partial?: true (time budget hit) }
//     opts: {kind?: 'action'|'form'|'collection'|a kind such as 'search', 'login', 'add-to-cart';
//            text?: rank by this text and return the best matches; topK?: overrides the caps
//            (30 actions / 20 forms / 20 collections); within?: landmark name, ref or selector;
//            refPrefix?: prepended to refs issued by this engine (e.g. 'f2' → 'f2e12');
//            debug?: adds {timings, counts}}
//     Throws only for the caller's mistakes (a `within` that matches nothing); page trouble gives
//     a partial answer or {url, title, error}.
//   details(refs) -> [{ref, role, name, selector, alternates: [...], framePath: [...], landmark?,
//                     rect: {x, y, width, height} (top-level viewport), visible, enabled, tag,
//                     href?, value?} | {ref, error}]
//   resolveAll(selector) -> Element[];  resolve(selector) -> Element | null  (grammar: "Selectors"
//     below); throws an Error naming the bad part for an invalid selector, and "… is gone …" for a
//     ref whose element died and could not be found again through its alternates
//   find(description, {topK = 10, role?, within?}) -> [{ref, role, name, landmark?, fold?, kind?,
//     score (0..1, 2 decimals)}], best first, over every interactive element and field
//   extract({collection?, text?, fields?, limit = 500 (≤ 2000)}) ->
//     {collection, name, fields, rows: [{field: value, …, ref}], total, truncated?}
//   role(el) -> string;  accessibleName(el) -> string
(() => {
  if (globalThis.__ouroPcd) return;

  const CAPS = { actions: 30, forms: 20, collections: 20 };
  const MAX_CHARS = 16000;           // serialized snapshot budget (~4,000 tokens)
  const NAME_MAX = 80;
  const TIME_BUDGET = 400;           // ms of DOM work per call before we stop scanning more
  const MAX_CANDIDATES = 8000;       // interactive candidates considered per call
  const MAX_NODES = 400000;          // elements looked at for shadow roots per call

  const now = () => performance.now();
  const WS = /\s+/g;
  const norm = s => (s == null ? '' : String(s)).replace(WS, ' ').trim();
  const clip = (s, n = NAME_MAX) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const lower = s => s.toLowerCase();
  const tagOf = el => (el && typeof el.localName === 'string' ? el.localName : '');
  const isEl = n => !!n && n.nodeType === 1;
  function attr(el, name) {
    try { return el.getAttribute(name); } catch (_) { return null; }
  }
  function hasAttr(el, name) {
    try { return el.hasAttribute(name); } catch (_) { return false; }
  }
  function tryOr(fn, fallback) {
    try { return fn(); } catch (_) { return fallback; }
  }

  // One call's context: caches and the time budget.
  function newCtx(budget = TIME_BUDGET) {
    return { t0: now(), budget, partial: false, nodes: 0, text: new Map(), names: new Map(), roles: new Map(),
             lm: new Map(), vis: new Map(), rootsUnder: new Map(), offsets: new Map(), idx: new Map() };
  }
  const over = ctx => now() - ctx.t0 > ctx.budget;
  // Phase timings for snapshot({debug: true}).
  function mark(ctx, name) {
    if (!ctx.marks) return;
    const t = now();
    ctx.marks[name] = Math.round((t - ctx.last) * 10) / 10;
    ctx.last = t;
  }

  // ---------------------------------------------------------------------------------------------
  // Roles (WAI-ARIA 1.2, HTML-AAM implicit roles)

  const ROLES = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code ' +
    'columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed ' +
    'figure form generic grid gridcell group heading img image insertion link list listbox listitem log main mark ' +
    'marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph ' +
    'presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator ' +
    'slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer ' +
    'toolbar tooltip tree treegrid treeitem').split(' '));
  const INPUT_ROLES = { button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    color: 'button', checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
    hidden: '' };
  const LIST_INPUTS = new Set(['', 'text', 'search', 'tel', 'url', 'email']);

  function explicitRole(el) {
    const r = attr(el, 'role');
    if (!r) return '';
    for (const t of lower(r).trim().split(WS)) if (ROLES.has(t)) return t === 'image' ? 'img' : t;
    return '';
  }
  function hasOwnName(el) {
    return !!(norm(attr(el, 'aria-label')) || norm(attr(el, 'aria-labelledby')) || norm(attr(el, 'title')));
  }
  function inSectioning(el) {
    const p = el.parentElement;
    return !!(p && p.closest('article,aside,main,nav,section,[role=article],[role=complementary],[role=main],[role=navigation],[role=region]'));
  }
  function implicitRole(el) {
    const t = tagOf(el);
    switch (t) {
      case 'a': case 'area': return hasAttr(el, 'href') ? 'link' : '';
      case 'button': case 'summary': return 'button';
      case 'input': {
        const type = lower(attr(el, 'type') || '');
        if (hasAttr(el, 'list') && LIST_INPUTS.has(type)) return 'combobox';
        return type in INPUT_ROLES ? INPUT_ROLES[type] : 'textbox';
      }
      case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'img': return attr(el, 'alt') === '' && !hasOwnName(el) ? 'presentation' : 'img';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'header': return inSectioning(el) ? '' : 'banner';
      case 'footer': return inSectioning(el) ? '' : 'contentinfo';
      case 'aside': return 'complementary';
      case 'form': return hasOwnName(el) ? 'form' : '';
      case 'section': return hasOwnName(el) ? 'region' : '';
      case 'search': return 'search';
      case 'article': return 'article';
      case 'dialog': return 'dialog';
      case 'table': return 'table';
      case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
      case 'tr': return 'row';
      case 'td': return tryOr(() => (el.closest('table') && /grid/.test(explicitRole(el.closest('table')))) ? 'gridcell' : 'cell', 'cell');
      case 'th': {
        const scope = lower(attr(el, 'scope') || '');
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        const row = el.parentElement;
        if (row && row.parentElement && tagOf(row.parentElement) !== 'thead' && row.firstElementChild === el &&
            [...row.children].some(c => tagOf(c) === 'td')) return 'rowheader';
        return 'columnheader';
      }
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'dt': return 'term';
      case 'dd': return 'definition';
      case 'fieldset': case 'details': case 'optgroup': return 'group';
      case 'option': return 'option';
      case 'datalist': return 'listbox';
      case 'figure': return 'figure';
      case 'hr': return 'separator';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'blockquote': return 'blockquote';
      case 'dfn': return 'term';
      case 'time': return 'time';
      case 'html': return 'document';
    }
    return '';
  }
  function roleOf(el, ctx) {
    if (!isEl(el)) return '';
    if (ctx && ctx.roles.has(el)) return ctx.roles.get(el);
    let r = '';
    try { r = explicitRole(el) || implicitRole(el) || ''; } catch (_) {}
    if (ctx) ctx.roles.set(el, r);
    return r;
  }

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

  // ---------------------------------------------------------------------------------------------
  // Kinds: what an action or form is for (keyword sets; short names only).

  const KINDS = [
    ['logout', /\b(sign|log)\s*-?\s*out\b|\blogout\b|\babmelden\b|\bdéconnexion\b/i],
    ['login', /\b(sign|log)\s*-?\s*in\b|\blogin\b|\bsignin\b|\banmelden\b|\bconnexion\b|\biniciar sesi[oó]n\b/i],
    ['signup', /\bsign\s*-?\s*up\b|\bregister\b|\bcreate (an |your |new )?account\b|\bjoin (now|free|us|today)\b|\bregistrieren\b/i],
    ['add-to-cart', /\badd (it )?to (cart|bag|basket|trolley)\b|\bbuy now\b|\bin den warenkorb\b|\bajouter au panier\b/i],
    ['checkout', /\bcheck\s*-?\s*out\b|\bproceed to (checkout|payment)\b|\bplace (your )?order\b|\bpay now\b|\bkasse\b/i],
    ['cart', /\b(shopping )?(cart|basket|bag|trolley)\b|\bwarenkorb\b|\bpanier\b/i],
    ['reject', /\b(reject|decline|deny|refuse)( all)?\b|\bonly (necessary|essential|required)\b|\b(necessary|essential) only\b|\bablehnen\b|\brefuser\b/i],
    ['accept', /\baccept( all)?( cookies)?\b|\bi agree\b|\bagree\b|\ballow (all|cookies)\b|\bakzeptieren\b|\baccepter\b/i],
    ['next', /^(›|»|→|>|>>|older|older posts|more results)$|^next\b(?!-)|\bnext (page|results?)\b/i],
    ['prev', /^(‹|«|←|<|<<|newer|newer posts)$|^prev(ious)?\b(?!-)|\bprev(ious)? (page|results?)\b/i],
    ['load-more', /\b(load|show|see|view) more\b/i],
    ['search', /\bsearch\b|\bsuche\b|\bbuscar\b|\brecherche\b|^find$|^go$|🔍|🔎/i],
    ['dismiss', /^(×|✕|✖|✗|x|close|dismiss|no,? thanks|not now|skip|maybe later|cancel)$|\bclose\b|\bdismiss\b/i],
    ['download', /\bdownload\b|\bexport\b|\.(pdf|csv|xlsx?|zip)\b/i],
    ['delete', /\b(delete|remove|trash|discard)\b/i],
    ['share', /\bshare\b|\btweet\b/i],
    ['filter', /\bfilters?\b|\brefine\b/i],
    ['sort', /\bsort( by)?\b|\border by\b/i],
    ['menu', /^(☰|≡|⋮|⋯|…|menu|main menu|open menu|more options|navigation)$|\bmenu\b|\bhamburger\b/i],
    ['language', /\blanguages?\b|^(english|deutsch|español|français|italiano|português|nederlands|polski|日本語|中文|русский)$/i],
    ['subscribe', /\bsubscribe\b|\bnewsletter\b|\bsign me up\b/i],
    ['account', /\bmy account\b|\baccount\b|\bprofile\b|\bsettings\b|\bdashboard\b|^(hi|hello|welcome),? \S/i],
    ['wishlist', /\bwish\s*list\b|\bfavou?rites?\b|\bsave for later\b/i],
    ['contact', /\bcontact( us)?\b/i],
    ['help', /\bhelp\b|\bsupport\b|\bfaq\b/i],
    ['home', /^(home|home page|homepage)$/i],
    ['edit', /\bedit\b/i],
    ['submit', /^(submit|send|save|continue|apply|confirm|ok|done|go|update|post|reply|next step)$/i],
  ];
  const HREF_KINDS = [
    ['logout', /\/(logout|log-out|signout|sign-out)\b/i], ['login', /\/(login|log-in|signin|sign-in)\b/i],
    ['signup', /\/(signup|sign-up|register|join)\b/i], ['checkout', /\/checkout\b/i], ['cart', /\/(cart|basket|bag)\b/i],
    ['search', /\/search\b/i], ['account', /\/(account|profile|settings)\b/i], ['help', /\/(help|support|faq)\b/i],
  ];
  // Words that can start a kind match: names without any of them (and with letters) skip the regexes.
  const KIND_WORDS = new Set(('sign log login logout signin signup signout register create join add buy check checkout ' +
    'proceed place pay kasse cart basket bag trolley shopping warenkorb panier reject decline deny refuse only necessary ' +
    'essential ablehnen refuser accept agree allow akzeptieren accepter next prev previous older newer more load show see ' +
    'view search suche buscar recherche find go close dismiss no not skip maybe cancel x download export pdf csv xls xlsx ' +
    'zip delete remove trash discard share tweet filter filters refine sort order menu main open hamburger navigation ' +
    'language languages english deutsch español français italiano português nederlands polski subscribe newsletter ' +
    'account profile settings dashboard hi hello welcome wish wishlist favorite favourite favorites favourites save ' +
    'contact help support faq home homepage edit submit send continue apply confirm ok done update post reply abmelden ' +
    'anmelden registrieren connexion déconnexion iniciar in den ajouter au i my step').split(' '));
  const mayKind = name => {
    const l = lower(name);
    if (!/[a-zà-ÿ0-9]/.test(l)) return true;   // only symbols: ›, ×, ☰ …
    for (const w of l.split(/[^a-zà-ÿ]+/)) if (w && KIND_WORDS.has(w)) return true;
    return false;
  };
  const HREF_ANY = new RegExp(HREF_KINDS.map(k => `(?:${k[1].source})`).join('|'), 'i');
  const IMPORTANT = new Set(['search', 'login', 'logout', 'signup', 'next', 'prev', 'add-to-cart', 'checkout', 'cart',
    'menu', 'dismiss', 'accept', 'reject', 'submit', 'load-more']);
  const KIND_NAMES = new Set(KINDS.map(k => k[0]).concat(['page', 'payment', 'address', 'comment']));

  function kindOf(el, name, role, ctx) {
    try {
      if (tagOf(el) === 'a') {
        const rel = lower(attr(el, 'rel') || '');
        if (/\bnext\b/.test(rel)) return 'next';
        if (/\bprev\b/.test(rel)) return 'prev';
      }
      if (name && name.length <= 40 && mayKind(name)) for (const [k, re] of KINDS) if (re.test(name)) return k;
      const type = lower(attr(el, 'type') || '');
      if (type === 'search' || role === 'searchbox') return 'search';
      if (tagOf(el) === 'a') {
        const href = attr(el, 'href') || '';
        if (href && href.length < 300 && HREF_ANY.test(href)) for (const [k, re] of HREF_KINDS) if (re.test(href)) return k;
        if (/^\d{1,4}$/.test(name) && tryOr(() => el.closest('nav,[class*=pagin],[class*=pager],[aria-label*=agin]'), null)) return 'page';
      }
      if (!name || name.length <= 2) {
        const hint = `${attr(el, 'id') || ''} ${typeof el.className === 'string' ? el.className : ''} ${attr(el, 'data-action') || ''}`;
        if (/close|dismiss/i.test(hint)) return 'dismiss';
        if (/search/i.test(hint)) return 'search';
        if (/menu|hamburger|burger/i.test(hint)) return 'menu';
        if (/cart|basket/i.test(hint)) return 'cart';
      }
      if (attr(el, 'aria-haspopup') && /^(true|menu)$/.test(attr(el, 'aria-haspopup')) && role === 'button') return 'menu';
      if (type === 'submit' || (tagOf(el) === 'button' && !type && tryOr(() => !!el.form, false))) return 'submit';
    } catch (_) {}
    return '';
  }

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
    return new Error(`element ${ref}${what} is gone: the page changed since the snapshot and it could not be found again. ` +
      'Take a new snapshot() or use find("…") to locate it.');
  }
  function lookupRef(ref, ctx) {
    const rec = REFS.byRef.get(ref);
    const pre = /^(f\d+)e\d+$/.exec(ref);
    if (!rec && pre && pre[1] !== REFS.prefix) {
      throw new Error(`unknown ref '${ref}' here: it belongs to frame ${pre[1]} (a cross-origin frame, snapshot separately); ` +
        'take a new snapshot() if that frame has navigated.');
    }
    if (!rec) {
      throw new Error(`unknown ref '${ref}': refs come from snapshot() or find() on this page (a cross-origin frame's refs carry ` +
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

  // ---------------------------------------------------------------------------------------------
  // Selectors
  //
  //   selector := part ( ('>>' | '>>>') part )*
  //     A >> B     B searched inside each match of A (descendants, open shadow roots included)
  //     A >>> B    A must be same-origin frames; B is searched in their documents
  //   part :=
  //     e12 | f2e12                 a ref (dead ones re-resolve once through their alternates)
  //     role=R[filters]             R an ARIA role (implicit or explicit); filters:
  //                                 [name="x"] whole name, case-insensitive, spaces normalized
  //                                 ("x"s case-sensitive), [name*="x"] contains, [name=/re/i],
  //                                 [checked] [checked=false|mixed] [pressed] [disabled] [expanded]
  //                                 [selected] [level=2] [include-hidden]
  //     text="x" | text=x | text=/re/  whole text | contains (case-insensitive) | regex; the
  //                                 smallest element, lifted to its clickable ancestor
  //     label=… placeholder=… alt=… title=… testid=…   same value forms as text=
  //     nth=N                       the Nth of the matches so far (0-based, -1 = last)
  //     within=main|nav|header|footer|aside|search|dialog|<ref>   scope to a landmark or element
  //     xpath=… | //…               XPath in the scope's document (light DOM only)
  //     css=… | any other text      CSS; when the light DOM has no match, open shadow roots and
  //                                 same-origin frames are searched too
  //   Engines other than CSS always search open shadow roots and same-origin frames (the document
  //   first), so a selector from details() works from the top document.

  const ACCEPTED = 'Accepted forms: CSS (e.g. "button.primary"); a ref from snapshot()/find() ("e12", "f2e12"); ' +
    'role=button[name="Sign in"] (name="…" exact, name*="…" contains, name=/re/i; states [checked] [pressed] ' +
    '[disabled] [expanded] [selected] [level=2]); text="Exact" or text=contains or text=/re/i; label=…, ' +
    'placeholder=…, alt=…, title=…, testid=…; xpath=… (or //…); "A >> B" finds B inside A; ">> nth=0" (nth=-1 is the last); ' +
    '"within=main|nav|header|footer|aside|search|dialog|e12"; "iframe#x >>> B" enters a same-origin frame.';
  const bad = (part, why) => new Error(`invalid selector part '${clip(String(part), 100)}': ${why}. ${ACCEPTED}`);

  // Splits at top-level '>>' and '>>>' (outside quotes, brackets, parentheses and /regex/).
  function splitSelector(sel) {
    const out = [];
    let cur = '', q = '', depth = 0, re = false, op = null;
    for (let i = 0; i < sel.length; i++) {
      const c = sel[i];
      if (q) { cur += c; if (c === '\\') { cur += sel[++i] || ''; } else if (c === q) q = ''; continue; }
      if (re) { cur += c; if (c === '\\') { cur += sel[++i] || ''; } else if (c === '/') re = false; continue; }
      if (c === '"' || c === "'") { q = c; cur += c; continue; }
      if (c === '/' && /=\s*$/.test(cur)) { re = true; cur += c; continue; }
      if (c === '[' || c === '(') depth++;
      if ((c === ']' || c === ')') && depth > 0) depth--;
      if (!depth && c === '>' && sel[i + 1] === '>') {
        const triple = sel[i + 2] === '>';
        out.push({ op, part: cur.trim() });
        op = triple ? '>>>' : '>>';
        cur = '';
        i += triple ? 2 : 1;
        continue;
      }
      cur += c;
    }
    if (q) throw bad(sel, 'unterminated quote');
    out.push({ op, part: cur.trim() });
    for (const p of out) if (!p.part) throw bad(sel, `empty part around '${p.op || '>>'}'`);
    return out;
  }

  // A text matcher: "quoted" = whole string (normalized, case-insensitive; "…"s case-sensitive),
  // /re/flags = regex, bare = contains (case-insensitive).
  function parseMatch(body, part) {
    const s = body.trim();
    if (!s) throw bad(part, 'empty value');
    const q = s[0];
    if (q === '"' || q === "'") {
      let i = 1, v = '';
      for (; i < s.length && s[i] !== q; i++) v += s[i] === '\\' ? s[++i] : s[i];
      if (i >= s.length) throw bad(part, 'unterminated quote');
      const flag = s.slice(i + 1).trim();
      if (flag && flag !== 'i' && flag !== 's') throw bad(part, `unexpected '${flag}' after the quoted value`);
      const value = norm(v);
      if (flag === 's') return { mode: 'exact', value, cs: true, test: t => norm(t) === value };
      const lv = lower(value);
      return { mode: 'exact', value: lv, test: t => lower(norm(t)) === lv };
    }
    if (q === '/') {
      const end = s.lastIndexOf('/');
      if (end <= 0) throw bad(part, 'unterminated /regex/');
      let re;
      try { re = new RegExp(s.slice(1, end), s.slice(end + 1)); } catch (e) { throw bad(part, `bad regex: ${e.message}`); }
      return { mode: 're', re, test: t => { re.lastIndex = 0; return re.test(norm(t)); } };
    }
    const lv = lower(norm(s));
    return { mode: 'sub', value: lv, test: t => lower(norm(t)).includes(lv) };
  }

  const ENGINE_RE = /^(role|text|label|placeholder|alt|title|testid|css|xpath|nth|within|ref)\s*=\s*([\s\S]*)$/i;
  function parsePart(part) {
    const m = ENGINE_RE.exec(part);
    if (m) {
      const engine = lower(m[1]), body = m[2].trim();
      if (!body) throw bad(part, `'${engine}=' needs a value`);
      if (engine === 'nth') {
        if (!/^-?\d+$/.test(body)) throw bad(part, 'nth needs an integer (0-based, -1 = last)');
        return { engine, n: parseInt(body, 10) };
      }
      if (engine === 'role') return parseRole(body, part);
      if (engine === 'css' || engine === 'xpath' || engine === 'within' || engine === 'ref') return { engine, body: body.replace(/^(["'])(.*)\1$/, '$2') };
      return { engine, m: parseMatch(body, part) };
    }
    if (isRef(part)) return { engine: 'ref', body: part };
    if (part.startsWith('//') || part.startsWith('(//')) return { engine: 'xpath', body: part };
    return { engine: 'css', body: part };
  }

  const STATE_NAMES = new Set(['checked', 'pressed', 'disabled', 'expanded', 'selected', 'level', 'include-hidden']);
  function parseRole(body, part) {
    const m = /^([a-zA-Z-]+)\s*/.exec(body);
    if (!m) throw bad(part, 'role= needs a role name such as button, link, textbox, checkbox, heading');
    const role = lower(m[1]);
    const sel = { engine: 'role', role, states: [], name: null, hidden: false };
    let rest = body.slice(m[0].length);
    while (rest.length) {
      if (rest[0] !== '[') throw bad(part, `expected '[' at '${clip(rest, 30)}'`);
      // Find the closing bracket outside quotes and regex.
      let i = 1, q = '', re = false;
      for (; i < rest.length; i++) {
        const c = rest[i];
        if (q) { if (c === '\\') i++; else if (c === q) q = ''; continue; }
        if (re) { if (c === '\\') i++; else if (c === '/') re = false; continue; }
        if (c === '"' || c === "'") q = c;
        else if (c === '/' && /[=]\s*$/.test(rest.slice(0, i))) re = true;
        else if (c === ']') break;
      }
      if (i >= rest.length) throw bad(part, 'unclosed [');
      const inner = rest.slice(1, i).trim();
      rest = rest.slice(i + 1).trim();
      const a = /^([a-zA-Z-]+)\s*(\*?=)?\s*([\s\S]*)$/.exec(inner);
      if (!a) throw bad(part, `bad attribute [${inner}]`);
      const key = lower(a[1]), op = a[2], val = a[3].trim();
      if (key === 'name') {
        if (!op || !val) throw bad(part, 'name needs a value: [name="…"], [name*="…"] or [name=/…/i]');
        if (op === '*=') {
          const lv = lower(norm(val.replace(/^(["'])([\s\S]*)\1$/, '$2')));
          sel.name = { mode: 'sub', value: lv, test: t => lower(norm(t)).includes(lv) };
        } else if (val[0] === '"' || val[0] === "'" || val[0] === '/') {
          sel.name = parseMatch(val, part);
        } else {
          const lv = lower(norm(val));
          sel.name = { mode: 'exact', value: lv, test: t => lower(norm(t)) === lv };
        }
        continue;
      }
      if (!STATE_NAMES.has(key)) throw bad(part, `unknown role filter [${key}] (name, checked, pressed, disabled, expanded, selected, level, include-hidden)`);
      if (key === 'include-hidden') { sel.hidden = true; continue; }
      let want = true;
      if (op) {
        const v = lower(val.replace(/^(["'])(.*)\1$/, '$2'));
        if (key === 'level') { want = parseInt(v, 10); if (!(want > 0)) throw bad(part, 'level needs a number'); }
        else if (v === 'true') want = true;
        else if (v === 'false') want = false;
        else if (v === 'mixed') want = 'mixed';
        else throw bad(part, `[${key}] takes true, false or mixed`);
      } else if (key === 'level') throw bad(part, 'level needs a number: [level=2]');
      sel.states.push([key, want]);
    }
    return sel;
  }

  const ROLE_CSS = {
    button: 'button,input[type=button],input[type=submit],input[type=reset],input[type=image],input[type=file],input[type=color],summary',
    link: 'a[href],area[href]', textbox: 'input,textarea', searchbox: 'input[type=search]', combobox: 'select,input[list]',
    listbox: 'select,datalist', checkbox: 'input[type=checkbox]', radio: 'input[type=radio]', slider: 'input[type=range]',
    spinbutton: 'input[type=number]', heading: 'h1,h2,h3,h4,h5,h6', img: 'img', presentation: 'img', navigation: 'nav',
    main: 'main', banner: 'header', contentinfo: 'footer', complementary: 'aside', form: 'form', region: 'section',
    search: 'search', article: 'article', dialog: 'dialog', table: 'table', row: 'tr', cell: 'td', gridcell: 'td',
    columnheader: 'th', rowheader: 'th', rowgroup: 'thead,tbody,tfoot', list: 'ul,ol,menu', listitem: 'li',
    group: 'fieldset,details,optgroup', option: 'option', figure: 'figure', separator: 'hr', progressbar: 'progress',
    meter: 'meter', status: 'output', paragraph: 'p', term: 'dt,dfn', definition: 'dd', time: 'time', document: 'html',
    blockquote: 'blockquote',
  };
  const CONTROLS = 'input:not([type=hidden]),textarea,select,[contenteditable=""],[contenteditable=true],[role=textbox],' +
    '[role=searchbox],[role=combobox],[role=checkbox],[role=radio],[role=switch],[role=slider],[role=spinbutton],' +
    '[role=listbox],meter,progress,output';
  const INTERACTIVE_SEL = 'a,button,[role=button],[role=link],[role=tab],[role=menuitem],[role=menuitemcheckbox],' +
    '[role=menuitemradio],[role=option],[role=checkbox],[role=radio],[role=switch],[role=treeitem],summary,label,' +
    'input,select,textarea';

  function renderedForSelector(el) {
    try {
      if (attr(el, 'aria-hidden') === 'true') return false;
      return el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : true;
    } catch (_) { return true; }
  }

  // Cheap text to rule an element out before computing its accessible name.
  function mayHaveName(el, m) {
    if (m.mode === 're') return true;
    if (hasAttr(el, 'aria-labelledby')) return true;
    if (tryOr(() => el.labels && el.labels.length, 0)) return true;
    const hay = lower(`${tryOr(() => el.textContent, '') || ''} ${attr(el, 'aria-label') || ''} ${attr(el, 'title') || ''} ` +
      `${attr(el, 'alt') || ''} ${attr(el, 'value') || ''} ${attr(el, 'placeholder') || ''}`).replace(WS, ' ');
    const v = m.value;
    if (m.mode === 'sub') return hay.includes(v);
    // exact: every word of the value must appear somewhere
    return v.split(' ').every(w => hay.includes(w));
  }

  function roleEngine(scope, sel, ctx) {
    const css = '[role]' + (ROLE_CSS[sel.role] ? ',' + ROLE_CSS[sel.role] : '');
    const out = [];
    for (const el of deepQuery(scope, css, ctx)) {
      if (roleOf(el, ctx) !== sel.role) continue;
      if (sel.name && !mayHaveName(el, sel.name)) continue;
      let ok = true;
      for (const [k, want] of sel.states) {
        const v = stateOf(el, k);
        if (v !== want) { ok = false; break; }
      }
      if (!ok) continue;
      if (sel.name && !sel.name.test(accessibleName(el, ctx))) continue;
      if (!sel.hidden && !renderedForSelector(el)) continue;
      out.push(el);
    }
    return out;
  }

  const CLICKABLE = 'a[href],button,[role=button],[role=link],[role=tab],[role=menuitem],[role=menuitemcheckbox],' +
    '[role=menuitemradio],[role=option],[role=checkbox],[role=radio],[role=switch],[role=treeitem],summary,label,' +
    '[onclick]';
  // text=: the smallest element whose text matches, lifted to its clickable ancestor (a button's
  // inner span gives the button).
  function textEngine(scope, m, ctx) {
    const hits = [];
    const seen = new Set();
    const add = el => {
      let target = el;
      const c = tryOr(() => el.closest(CLICKABLE), null);
      const inside = c && (scope.nodeType !== 1 || (c !== scope && scope.contains(c)));
      if (inside && c !== el && textOf(c, ctx).length <= Math.max(40, 2 * textOf(el, ctx).length + 10)) target = c;
      if (!seen.has(target)) { seen.add(target); hits.push(target); }
    };
    const roots = rootsUnder(scope, ctx);
    const spaced = m.mode === 'sub' && m.value.includes(' ');
    for (const root of roots) {
      const doc = root.ownerDocument || root;
      let tw;
      try { tw = doc.createTreeWalker(root, 4 /* SHOW_TEXT */); } catch (_) { continue; }
      let n, steps = 0;
      while ((n = tw.nextNode())) {
        if (++steps > 300000) { ctx.partial = true; break; }
        const d = n.data;
        if (!d || d.length > 20000) continue;
        let el = n.parentElement;
        if (!el || SKIP_TAGS.has(tagOf(el))) continue;
        if (m.mode === 'sub') {
          if (!lower(d).includes(m.value) && !(spaced && lower(norm(d)).includes(m.value))) continue;
          add(el);
        } else {
          const nd = m.cs ? norm(d) : lower(norm(d));
          if (!nd) continue;
          if (m.mode === 'exact' && !m.value.includes(nd)) continue;
          for (let k = 0; el && k < 6; k++) {
            const t = textOf(el, ctx);
            if (m.test(t)) { add(el); break; }
            if (m.mode === 'exact' && t.length > m.value.length + 2) break;
            if (m.mode === 're' && t.length > 400) break;
            el = el.parentElement;
            if (el === scope.parentElement) break;
          }
        }
      }
      // Button-like inputs carry their text in value.
      for (const inp of root.querySelectorAll('input[type=button],input[type=submit],input[type=reset]'))
        if (m.test(attr(inp, 'value') || '')) add(inp);
    }
    // Text split over several nodes ("Sign <b>in</b>"): the smallest elements whose whole text matches.
    if (!hits.length && m.mode === 'sub') {
      for (const root of roots) {
        const all = root.querySelectorAll('*');
        for (let i = 0; i < all.length && i < 30000; i++) {
          const el = all[i];
          if (SKIP_TAGS.has(tagOf(el)) || !lower(textOf(el, ctx)).includes(m.value)) continue;
          let child = false;
          for (const c of el.children) if (lower(textOf(c, ctx)).includes(m.value)) { child = true; break; }
          if (!child) add(el);
        }
      }
    }
    const scoped = scope.nodeType === 1 ? hits.filter(h => h !== scope) : hits;
    const shown = scoped.filter(renderedForSelector);
    return shown.length ? shown : scoped;
  }

  function labelTexts(el, ctx) {
    const out = [];
    try {
      if (el.labels) for (const l of el.labels) out.push(accessibleNameOfLabel(l, el, ctx));
      const ids = attr(el, 'aria-labelledby');
      if (ids) out.push(norm(ids.trim().split(WS).map(id => { const r = byId(el, id); return r ? r.textContent : ''; }).join(' ')));
      const al = attr(el, 'aria-label');
      if (al) out.push(norm(al));
      if (!out.length) {
        const fs = el.closest('fieldset');
        const lg = fs && [...fs.children].find(c => tagOf(c) === 'legend');
        if (lg && fs.querySelectorAll(CONTROLS).length === 1) out.push(norm(lg.textContent));
      }
    } catch (_) {}
    return out.filter(Boolean).map(s => s.replace(/[\s*:]+$/, ''));
  }
  function accessibleNameOfLabel(label, control, ctx) {
    return nameStep(label, { budget: 100, chars: 0, visited: new Set(), root: control, ctx }, 'content');
  }

  function attrEngine(scope, css, names, m, ctx) {
    const out = [];
    for (const el of deepQuery(scope, css, ctx)) if (names.some(a => { const v = attr(el, a); return v != null && m.test(v); })) out.push(el);
    return out;
  }

  function withinEngine(scope, body, ctx) {
    const v = lower(body.trim());
    if (isRef(body.trim())) {
      const el = lookupRef(body.trim(), ctx);
      return scope.nodeType === 9 || deepContains(scope, el) ? [el] : [];
    }
    const kind = LM_NAMES[v];
    if (!kind) throw bad(`within=${body}`, 'within takes a landmark (main, nav, header, footer, aside, search, dialog) or a ref');
    return deepQuery(scope, LM_SEL, ctx).filter(el => landmarkKind(el) === kind);
  }

  function cssEngine(scope, css, ctx) {
    let light;
    try { light = Array.from(scope.querySelectorAll(css)); } catch (e) { throw bad(css, 'not valid CSS and not one of the engines'); }
    if (light.length) return light;
    return deepQuery(scope, css, ctx);
  }

  function applyEngine(p, scope, ctx) {
    switch (p.engine) {
      case 'css': return cssEngine(scope, p.body, ctx);
      case 'ref': {
        const el = lookupRef(p.body, ctx);
        return scope.nodeType === 9 && scope === document ? [el] : deepContains(scope, el) && el !== scope ? [el] : [];
      }
      case 'role': return roleEngine(scope, p, ctx);
      case 'text': return textEngine(scope, p.m, ctx);
      case 'label': return deepQuery(scope, CONTROLS, ctx).filter(el => labelTexts(el, ctx).some(t => p.m.test(t)));
      case 'placeholder': return attrEngine(scope, '[placeholder],[aria-placeholder]', ['placeholder', 'aria-placeholder'], p.m, ctx);
      case 'alt': return attrEngine(scope, '[alt]', ['alt'], p.m, ctx);
      case 'title': return attrEngine(scope, '[title]', ['title'], p.m, ctx);
      case 'testid': return attrEngine(scope, '[data-testid],[data-test-id],[data-test]', ['data-testid', 'data-test-id', 'data-test'], p.m, ctx);
      case 'within': return withinEngine(scope, p.body, ctx);
      case 'xpath': {
        const doc = scope.nodeType === 9 ? scope : scope.ownerDocument;
        let r;
        try { r = doc.evaluate(p.body, scope, null, 7 /* ORDERED_NODE_SNAPSHOT_TYPE */, null); } catch (e) { throw bad(`xpath=${p.body}`, 'not a valid XPath expression'); }
        const out = [];
        for (let i = 0; i < r.snapshotLength && i < 100000; i++) { const n = r.snapshotItem(i); if (isEl(n) && n !== scope) out.push(n); }
        return out;
      }
    }
    return [];
  }

  function runSelector(selector, start, ctx) {
    const parts = splitSelector(String(selector).trim());
    let current = [start];
    for (const { op, part } of parts) {
      if (op === '>>>') {
        const docs = [];
        for (const f of current) {
          let d = null;
          try { d = f.contentDocument; } catch (_) {}
          if (!d) {
            const cross = f && /^(iframe|frame)$/.test(tagOf(f));
            throw new Error(`cannot look inside '${clip(describe(f), 80)}': ${cross ? 'a cross-origin frame (its elements have refs with the frame prefix from snapshot(); address them by those refs)' : 'not a frame'}`);
          }
          docs.push(d);
        }
        current = docs;
      }
      const p = parsePart(part);
      if (p.engine === 'nth') {
        const i = p.n < 0 ? current.length + p.n : p.n;
        current = i >= 0 && i < current.length ? [current[i]] : [];
        continue;
      }
      const next = [], seen = new Set();
      for (const scope of current) for (const el of applyEngine(p, scope, ctx)) if (!seen.has(el)) { seen.add(el); next.push(el); }
      current = next;
      if (!current.length) break;
    }
    return current.filter(n => n && n.nodeType === 1);
  }

  function resolveAll(selector, ctx) {
    if (typeof selector !== 'string' || !selector.trim()) throw bad(String(selector), 'empty selector');
    return runSelector(selector, document, ctx || newCtx(1e9));
  }
  function resolve(selector) { return resolveAll(selector)[0] || null; }

  function describe(el) {
    if (!isEl(el)) return String(el && el.nodeName || el);
    let s = tagOf(el);
    if (el.id) s += '#' + el.id;
    return s;
  }

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
      for (let i = 0; i < list.length; i++) {
        if (out.length >= MAX_CANDIDATES || ((i & 127) === 0 && over(ctx))) { ctx.partial = true; break; }
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

  // ---------------------------------------------------------------------------------------------
  // Collections: repeated sibling structures and tables.

  const ITEM_SKIP = new Set(['p', 'br', 'hr', 'script', 'style', 'option', 'td', 'th', 'h1', 'h2', 'h3', 'h4', 'h5',
    'h6', 'label', 'input', 'dt', 'dd', 'source', 'link', 'meta', 'template', 'col', 'optgroup', 'select', 'textarea',
    'button', 'summary', 'iframe', 'img', 'svg', 'form']);
  const CONTAINER_SKIP = new Set(['p', 'span', 'b', 'i', 'em', 'strong', 'small', 'label', 'h1', 'h2', 'h3', 'h4',
    'h5', 'h6', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'select', 'head', 'svg', 'figcaption', 'button', 'a',
    'cite', 'sup', 'sub', 'code', 'pre', 'blockquote', 'dl']);
  const STATE_CLASS = /^(is-|has-|js-)|^(active|selected|current|open|first|last|odd|even|hidden|visible|disabled|new|featured|sale)$/;

  function signature(el) {
    let cls = '';
    const c = attr(el, 'class');
    if (c) for (const tok of c.split(WS)) if (tok && !STATE_CLASS.test(tok) && !/\d{2,}/.test(tok)) { cls = tok; break; }
    return tagOf(el) + '.' + cls + '.' + (attr(el, 'role') || '');
  }

  // The dominant repeated children of `parent` (≥ 3 of the same tag+class signature).
  function repeatedItems(parent) {
    const n = parent.childElementCount;
    if (n < 3 || CONTAINER_SKIP.has(tagOf(parent))) return null;
    const groups = new Map();
    const kids = parent.children;
    const scan = Math.min(kids.length, 5000);
    for (let i = 0; i < scan; i++) {
      const c = kids[i];
      if (ITEM_SKIP.has(c.localName)) continue;
      const s = signature(c);
      let g = groups.get(s);
      if (!g) groups.set(s, g = []);
      g.push(c);
    }
    let best = null;
    for (const g of groups.values()) if (g.length >= 3 && (!best || g.length > best.length)) best = g;
    if (!best) return null;
    // A very long list: the rest of its items by the same signature.
    if (kids.length > scan) {
      const sig = signature(best[0]);
      for (let i = scan, end = Math.min(kids.length, 200000); i < end; i++) if (signature(kids[i]) === sig) best.push(kids[i]);
    }
    // Items are records: structured, or links/buttons with their own text, not inline prose.
    const t = tagOf(best[0]);
    if (INLINE.has(t) && t !== 'a') return null;
    if (t === 'a' && best.slice(0, 5).every(a => a.childElementCount < 2)) {
      if (!tryOr(() => parent.closest('ul,ol,[role=list],nav,[class*=tag],[class*=chip]'), null) && tagOf(parent) !== 'div') return null;
    }
    return best;
  }

  // "Order date" → "orderDate": field names a program can use as keys.
  function fieldName(text) {
    const words = lower(norm(text)).replace(/[^\p{L}\p{N}]+/gu, ' ').trim().split(' ').filter(Boolean).slice(0, 5);
    return words.map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w)).join('').slice(0, 40);
  }
  function tableInfo(table, ctx) {
    try {
      if (/presentation|none/.test(attr(table, 'role') || '')) return null;
      const rows = [...table.rows];
      if (rows.length < 3) return null;
      let headerRow = null;
      if (table.tHead && table.tHead.rows.length) headerRow = table.tHead.rows[table.tHead.rows.length - 1];
      else if (rows[0].cells.length && [...rows[0].cells].every(c => tagOf(c) === 'th')) headerRow = rows[0];
      const thead = table.tHead, body = [];
      for (const r of rows) {
        if (r === headerRow || (thead && r.parentElement === thead)) continue;
        const cells = r.cells;
        for (let i = 0; i < cells.length; i++) if (cells[i].localName === 'td') { body.push(r); break; }
      }
      if (body.length < 2) return null;
      let headers = headerRow ? [...headerRow.cells].map(c => fieldName(textOf(c, ctx))) : [];
      const width = Math.max(...body.slice(0, 5).map(r => r.cells.length));
      // A key/value table (infobox): the row headers are its fields.
      if (!headerRow && body.every(r => r.cells.length <= 2 && tagOf(r.cells[0]) === 'th')) return { table, rows: body, kv: true, headers: [] };
      const used = new Map();
      const names = [];
      for (let i = 0; i < width; i++) {
        let h = headers[i] || `col${i + 1}`;
        const u = (used.get(h) || 0) + 1;
        used.set(h, u);
        names.push(u > 1 ? `${h}${u}` : h);
      }
      return { table, rows: body, headers: names };
    } catch (_) { return null; }
  }

  const CURRENCY = /(?:[$€£¥₹₩₽]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN)\b|\bRs\.?)\s?-?\d[\d.,\s]*\d|\d[\d.,]*\s?(?:[€£₽]|kr|zł|Kč|\b(?:USD|EUR|GBP|CHF)\b)|(?:[$€£¥₹])\d/;
  const DATE_RE = /\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}\b|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{4}\b|\b\d+ (?:second|minute|hour|day|week|month|year)s? ago\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/i;
  const RATING_RE = /(\d(?:[.,]\d)?)\s*(?:out of|\/|of)\s*(?:5|10)\b|(\d(?:[.,]\d)?)\s*stars?\b/i;

  // Parses "$1,299.00", "1.299,00 €", "4.5 out of 5", "1.2k", "(123)" into a number.
  function parseNumber(s) {
    if (s == null) return null;
    if (typeof s === 'number') return s;
    const str = String(s);
    let m = RATING_RE.exec(str);
    if (m) return parseFloat((m[1] || m[2]).replace(',', '.'));
    m = /(-?\d[\d.,\s]*)\s*([kKmMbB])?\b/.exec(str.replace(/\u00a0/g, ' '));
    if (!m) return null;
    let num = m[1].replace(/\s/g, '');
    const lastDot = num.lastIndexOf('.'), lastComma = num.lastIndexOf(',');
    if (lastDot >= 0 && lastComma >= 0) {
      num = lastComma > lastDot ? num.replace(/\./g, '').replace(',', '.') : num.replace(/,/g, '');
    } else if (lastComma >= 0) {
      num = /,\d{1,2}$/.test(num) && (num.match(/,/g) || []).length === 1 ? num.replace(',', '.') : num.replace(/,/g, '');
    } else if ((num.match(/\./g) || []).length > 1) {
      num = num.replace(/\./g, '');
    }
    let v = parseFloat(num);
    if (!isFinite(v)) return null;
    const mult = m[2] ? { k: 1e3, m: 1e6, b: 1e9 }[lower(m[2])] : 1;
    return Math.round(v * mult * 1000) / 1000;
  }

  const absUrl = a => tryOr(() => a.href || '', '');

  // Class words that name what a built-in field already extracts.
  const FIELD_SYNONYMS = { description: /desc|snippet|summary|excerpt|teaser|blurb/, author: /author|byline|user|writer/,
    price: /price|amount|cost/, rating: /rating|stars?$/, date: /date|time|ago|posted/, title: /title|name|headline|heading/,
    comments: /comment/, reviews: /review/, points: /point|vote|score|like/, image: /image|img|photo|thumb|picture/,
    link: /link|url|href/ };
  // Field extractors inferred from a sample of items: [{name, get(item) → value}].
  function inferFields(items, ctx) {
    const sample = items.slice(0, 6);
    const fields = [];
    const share = fn => sample.filter(it => { try { return fn(it) != null && fn(it) !== ''; } catch (_) { return false; } }).length / sample.length;
    const heading = it => it.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]');
    const mainLink = it => {
      if (tagOf(it) === 'a' && hasAttr(it, 'href')) return it;
      const h = heading(it);
      const inH = h && h.querySelector('a[href]');
      if (inH) return inH;
      if (h) { const up = h.closest('a[href]'); if (up && it.contains(up)) return up; }
      for (const a of it.querySelectorAll('a[href]')) if (textOf(a, ctx).length >= 3) return a;
      return it.querySelector('a[href]');
    };
    const classed = (it, re) => { for (const e of it.querySelectorAll('[class]')) if (re.test(typeof e.className === 'string' ? e.className : '')) return e; return null; };
    const leafMatching = (it, re) => {
      const all = it.querySelectorAll('*');
      for (let i = 0; i < all.length && i < 300; i++) {
        const e = all[i];
        if (e.childElementCount > 1) continue;
        const t = textOf(e, ctx);
        if (t.length < 60 && re.test(t)) return t;
      }
      return null;
    };
    const title = it => {
      const h = heading(it);
      if (h) return clip(textOf(h, ctx), 300);
      const c = classed(it, /title|name|headline/i);
      if (c) return clip(textOf(c, ctx), 300);
      const a = mainLink(it);
      if (a && textOf(a, ctx)) return clip(textOf(a, ctx), 300);
      return null;
    };
    fields.push({ name: 'title', get: title });
    fields.push({ name: 'link', get: it => { const a = mainLink(it); return a ? absUrl(a) : null; } });
    fields.push({ name: 'price', num: true, get: it => {
      const c = classed(it, /price|amount|cost/i);
      if (c) { const m = CURRENCY.exec(textOf(c, ctx)) || /\d[\d.,]*/.exec(textOf(c, ctx)); if (m) return parseNumber(m[0]); }
      const t = leafMatching(it, CURRENCY);
      return t ? parseNumber(CURRENCY.exec(t)[0]) : null;
    } });
    fields.push({ name: 'rating', num: true, get: it => {
      const c = classed(it, /rating|stars|score-stars/i);
      const s = c ? `${attr(c, 'aria-label') || ''} ${attr(c, 'title') || ''} ${textOf(c, ctx)}` : null;
      let v = s ? parseNumber(RATING_RE.exec(s) ? RATING_RE.exec(s)[0] : s) : null;
      if (v == null) { const l = leafMatching(it, RATING_RE); if (l) v = parseNumber(RATING_RE.exec(l)[0]); }
      if (v == null) { const e = it.querySelector('[aria-label*="out of"],[title*="out of"]'); if (e) v = parseNumber(attr(e, 'aria-label') || attr(e, 'title')); }
      return v != null && v <= 10 ? v : null;
    } });
    // Counts named by their noun: "(123 reviews)", "45 comments", "1.2k points".
    for (const [name, noun] of [['reviews', 'reviews?|ratings?'], ['comments', 'comments?|repl(?:y|ies)|answers?'], ['points', 'points?|votes?|likes?'], ['views', 'views?']]) {
      const re = new RegExp(`([\\d][\\d,.]*\\s*[kKmM]?)\\s*(?:${noun})\\b`, 'i');
      fields.push({ name, num: true, get: it => { const l = leafMatching(it, re); return l ? parseNumber(re.exec(l)[1]) : null; } });
    }
    fields.push({ name: 'date', get: it => {
      const tm = it.querySelector('time');
      if (tm) return attr(tm, 'datetime') || textOf(tm, ctx);
      return leafMatching(it, DATE_RE);
    } });
    fields.push({ name: 'author', get: it => { const c = it.querySelector('[rel=author],[class*=author],[class*=byline],[class*=user]'); return c ? clip(textOf(c, ctx), 100) : null; } });
    fields.push({ name: 'image', get: it => { const i = it.querySelector('img'); return i ? tryOr(() => i.currentSrc || i.src, '') || null : null; } });
    fields.push({ name: 'description', get: it => {
      const c = it.querySelector('p,[class*=desc],[class*=snippet],[class*=summary],[class*=excerpt]');
      return c ? clip(textOf(c, ctx), 300) : null;
    } });
    const kept = fields.filter(f => share(f.get) >= 0.5);
    // Fields named by the page's own classes on leaf text (sku, brand, score…), when consistent.
    if (kept.length < 8) {
      const counts = new Map();
      for (const it of sample) {
        const seen = new Set();
        const all = it.querySelectorAll('[class]');
        for (let i = 0; i < all.length && i < 200; i++) {
          const e = all[i];
          if (e.childElementCount > 0 || !textOf(e, ctx) || textOf(e, ctx).length > 80 || /^(button|a|input|select|textarea|label|option)$/.test(tagOf(e))) continue;
          const tok = (typeof e.className === 'string' ? e.className : '').trim().split(WS)[0] || '';
          const word = lower(tok.replace(/^.*?(?:__|--)/, '').replace(/[^a-zA-Z]+/g, ' ').trim().split(' ').pop() || '');
          if (word.length < 3 || word.length > 16 || seen.has(word) || kept.some(f => f.name === word || lower(f.name).startsWith(word) || (FIELD_SYNONYMS[f.name] && FIELD_SYNONYMS[f.name].test(word))) ||
              /^(title|name|price|link|text|item|card|btn|button|icon|label|wrap|wrapper|inner|container|content|row|col|cell|meta|info|small|image|img|desc)$/.test(word)) continue;
          seen.add(word);
          counts.set(word, { n: ((counts.get(word) || {}).n || 0) + 1, tok });
        }
      }
      for (const [word, { n, tok }] of counts) {
        if (n / sample.length < 0.6 || kept.length >= 8) continue;
        const sel = '.' + cssEsc(tok);
        const numeric = sample.every(it => { const e = it.querySelector(sel); return !e || /^[\s$€£(]*[\d.,]+\s*[kKmM]?[)%]?\s*\w{0,10}$/.test(textOf(e, ctx)); });
        kept.push({ name: word, num: numeric, get: it => { const e = it.querySelector(sel); return e ? (numeric ? parseNumber(textOf(e, ctx)) : clip(textOf(e, ctx), 300)) : null; } });
      }
    }
    if (!kept.some(f => f.name === 'title')) kept.unshift({ name: 'text', get: it => clip(textOf(it, ctx), 300) || null });
    return kept;
  }

  function tableFields(info, ctx) {
    if (info.kv) {
      return [{ name: 'key', get: r => clip(textOf(r.cells[0], ctx), 100) }, { name: 'value', get: r => r.cells[1] ? clip(textOf(r.cells[1], ctx), 300) : null }];
    }
    const sample = info.rows.slice(0, 12);
    const fields = info.headers.map((h, i) => {
      const cells = sample.map(r => r.cells[i]).filter(Boolean).map(c => textOf(c, ctx)).filter(Boolean);
      const numeric = cells.length > 0 && cells.filter(t => /^[\s$€£¥+\-−(]*\d[\d.,\s]*\s*(%|[kKmMbB]|[€£]|\w{0,3})?\)?$/.test(t) || CURRENCY.test(t) && t.length < 20).length >= 0.8 * cells.length;
      return { name: h, num: numeric, get: r => { const c = r.cells[i]; if (!c) return null; const t = textOf(c, ctx); return numeric ? parseNumber(t.replace('−', '-')) : clip(t, 300); } };
    });
    if (sample.filter(r => r.querySelector('a[href]')).length >= 0.5 * sample.length)
      fields.push({ name: 'link', get: r => { const a = r.querySelector('a[href]'); return a ? absUrl(a) : null; } });
    return fields;
  }

  const NAME_HINTS = [[/result|search/i, 'results'], [/product|item-card|shop|sku/i, 'products'], [/comment/i, 'comments'],
    [/reference|citation|footnote/i, 'references'], [/\btoc\b|table-of-contents|contents/i, 'contents'],
    [/story|stories|news|article|post|feed|entry/i, 'articles'], [/review/i, 'reviews'], [/job/i, 'jobs'],
    [/message|mail|inbox/i, 'messages'], [/repo/i, 'repositories'], [/video/i, 'videos'], [/user|member|people/i, 'people'],
    [/menu|nav/i, 'menu'], [/card/i, 'cards'], [/row/i, 'rows']];
  function collectionName(container, items, fieldNames, isTable, ctx) {
    // Its own label, or that of the grid/list wrapping it (a rowgroup inside role=grid).
    for (let n = container, k = 0; n && k < 3; n = n.parentElement, k++) {
      if (k > 0 && !/^(grid|treegrid|table|list|listbox|feed|tree)$/.test(attr(n, 'role') || '') && !/^(table|ul|ol)$/.test(tagOf(n))) continue;
      const al = norm(attr(n, 'aria-label'));
      if (al) return clip(al, 50);
    }
    const lb = attr(container, 'aria-labelledby');
    if (lb) { const r = byId(container, lb.trim().split(WS)[0]); if (r) return clip(textOf(r, ctx), 50); }
    if (isTable) { const cap = tryOr(() => container.caption, null); if (cap && textOf(cap, ctx)) return clip(textOf(cap, ctx), 50); }
    // The nearest heading before it (its own previous siblings, then its ancestors').
    let cur = container;
    for (let up = 0; cur && up < 3; up++, cur = cur.parentElement) {
      let s = cur.previousElementSibling;
      for (let k = 0; s && k < 3; k++, s = s.previousElementSibling) {
        const h = /^h[1-6]$/.test(tagOf(s)) || attr(s, 'role') === 'heading' ? s : s.querySelector && s.querySelector('h1,h2,h3,h4,h5,h6');
        if (h && textOf(h, ctx)) return clip(textOf(h, ctx), 50);
      }
      if (up < 2 && cur.parentElement) {
        const first = cur.parentElement.firstElementChild;
        if (first && first !== cur && /^h[1-6]$/.test(tagOf(first)) && textOf(first, ctx)) return clip(textOf(first, ctx), 50);
      }
    }
    const hint = `${container.id || ''} ${typeof container.className === 'string' ? container.className : ''} ${items[0] && typeof items[0].className === 'string' ? items[0].className : ''}`;
    for (const [re, n] of NAME_HINTS) if (re.test(hint)) return n === 'products' && !fieldNames.includes('price') ? 'items' : n;
    if (fieldNames.includes('price')) return 'products';
    if (isTable) return 'rows';
    if (fieldNames.includes('date') && fieldNames.includes('title')) return 'articles';
    return 'items';
  }

  // Builds the collection record for a container element, or null.
  function analyzeContainer(container, ctx) {
    if (tagOf(container) === 'table') {
      const info = tableInfo(container, ctx);
      if (!info) return null;
      const fields = tableFields(info, ctx);
      return { el: container, items: info.rows, fields, table: true, kv: !!info.kv };
    }
    const items = repeatedItems(container);
    if (!items) return null;
    // Records carry text or links; a row of icons is not a collection.
    const rich = items.slice(0, 5).filter(it => textOf(it, ctx).length >= 2 || it.querySelector('a[href],img,button')).length;
    if (rich < Math.min(3, items.length)) return null;
    return { el: container, items, fields: inferFields(items, ctx), table: false };
  }

  function collectionTotal(col) {
    let total = col.items.length;
    const n = v => { const x = parseInt(v || '', 10); return x > 0 ? x : 0; };
    total = Math.max(total, n(attr(col.el, 'aria-rowcount')), n(attr(col.items[0], 'aria-setsize')));
    const grid = tryOr(() => col.el.closest('[aria-rowcount]'), null);
    if (grid) total = Math.max(total, n(attr(grid, 'aria-rowcount')));
    return total;
  }

  function detectCollections(ctx, cands, scopeEl) {
    const cacheable = !scopeEl && cands === STRUCT.els && structValid();
    const wasPartial = ctx.partial;
    ctx.partial = false;
    const cols = cacheable && STRUCT.cols ? STRUCT.cols : detectStructure(ctx, cands, scopeEl);
    if (cacheable && !ctx.partial) STRUCT.cols = cols;   // a cut-short scan is not kept
    ctx.partial = ctx.partial || wasPartial;
    for (const c of cols) {
      const g = geom(c.el, ctx);
      c.g = g;
      c.score = c.base + (g.vis ? 2 : -3) + (inFold(g) ? 1 : 0);
    }
    cols.sort((a, b) => b.score - a.score);
    return cols;
  }
  function detectStructure(ctx, cands, scopeEl) {
    const { roots } = gatherRoots(ctx);
    const found = new Map();
    const consider = el => {
      if (found.has(el) || (scopeEl && !deepContains(scopeEl, el))) return;
      const c = tryOr(() => analyzeContainer(el, ctx), null);
      found.set(el, c);
    };
    for (const root of roots) {
      let tables;
      try { tables = root.querySelectorAll('table'); } catch (_) { continue; }
      for (let i = 0; i < tables.length && i < 200; i++) consider(tables[i]);
    }
    // Parents of the candidates' ancestors (up to 7 levels) and of visible list-like containers.
    const parents = new Set();
    for (const el of cands) {
      let cur = el;
      for (let k = 0; k < 7 && cur; k++) {
        const p = cur.parentElement;
        if (!p || parents.has(p)) break;
        parents.add(p);
        cur = p;
      }
      if (parents.size > 4000) break;
    }
    for (const root of roots) {
      let lists;
      try { lists = root.querySelectorAll('ul,ol,[role]'); } catch (_) { continue; }
      for (let i = 0, n = 0; i < lists.length && n < 500; i++) {
        const l = lists[i];
        if (l.localName === 'ul' || l.localName === 'ol' || /^(list|feed|grid|listbox|rowgroup|treegrid|table)$/.test(l.getAttribute('role'))) { parents.add(l); n++; }
      }
    }
    let k = 0;
    for (const p of parents) {
      if ((++k & 63) === 0 && over(ctx)) { ctx.partial = true; break; }
      if (p.childElementCount >= 3 && !CONTAINER_SKIP.has(tagOf(p))) consider(p);
    }
    let cols = [...found.values()].filter(Boolean);
    // Nested repeats: keep the one with more items (a grid of products, not each product's stars;
    // sections of a front page give way to the stories inside them).
    const owner = new Map();
    for (const c of cols) for (const it of c.items) owner.set(it, c);
    const dropped = new Set();
    for (const c of cols) {
      for (let n = c.el, depth = 0; n && depth < 30; n = n.parentElement, depth++) {
        const o = owner.get(n);
        if (o && o !== c) {
          if (c.items.length > o.items.length && !o.table) dropped.add(o); else dropped.add(c);
          break;
        }
      }
    }
    cols = cols.filter(c => !dropped.has(c));
    for (const c of cols) {
      c.fieldNames = c.fields.map(f => f.name);
      c.count = collectionTotal(c);
      c.name = collectionName(c.el, c.items, c.fieldNames, c.table, ctx);
      c.landmark = landmark(c.el, ctx);
      // Menus (lists of plain links in nav/header/footer) are navigation: their links stay actions.
      c.menu = !c.table && /^(nav|header|footer)$/.test(c.landmark) && c.fieldNames.every(n => /^(title|link|text)$/.test(n));
      c.base = (c.menu ? -3 : 0) + Math.log2(c.count + 1) + c.fields.length * 0.5 +
        (c.landmark === 'main' ? 1.5 : c.landmark === 'nav' || c.landmark === 'footer' || c.landmark === 'header' ? -1.5 : 0) +
        (c.fieldNames.includes('price') ? 1 : 0) + (c.kv ? -2 : 0) + (c.name === 'menu' ? -1 : 0);
    }
    return cols;
  }

  // The collection item an element belongs to: {col, index}.
  function itemOf(el, cols) {
    if (!cols.itemMap) {
      cols.itemMap = new Map();
      for (const c of cols) c.items.forEach((it, i) => cols.itemMap.set(it, { col: c, index: i }));
    }
    for (let n = el, k = 0; n && k < 14; n = n.parentElement, k++) {
      const hit = cols.itemMap.get(n);
      if (hit) return hit;
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // Forms

  const SECRET = /pass|pwd|card|cc-|cvv|cvc|csc|ssn|secret|token|otp|one-time|pin\b|iban|account.?num/i;
  function fieldType(el, role) {
    const t = tagOf(el);
    if (t === 'input') return lower(attr(el, 'type') || 'text');
    if (t === 'select') return el.multiple ? 'select-multiple' : 'select';
    if (t === 'textarea') return 'textarea';
    if (hasAttr(el, 'contenteditable')) return 'richtext';
    return role;
  }
  function fieldSummary(c, ctx, refs) {
    const el = c.el, type = fieldType(el, c.role);
    const f = { ref: refs(el), label: clip(c.name || labelTexts(el, ctx)[0] || norm(attr(el, 'name')) || '', 60), type };
    const nm = attr(el, 'name');
    if (nm && nm.length <= 40 && lower(nm) !== lower(f.label)) f.name = nm;
    if (tryOr(() => el.required, false) || attr(el, 'aria-required') === 'true') f.req = true;
    const secret = type === 'password' || SECRET.test(`${nm || ''} ${attr(el, 'autocomplete') || ''} ${attr(el, 'id') || ''}`);
    if (type === 'checkbox' || type === 'radio' || c.role === 'checkbox' || c.role === 'switch' || c.role === 'radio') {
      if (stateOf(el, 'checked') === true) f.checked = true;
    } else if (!secret) {
      let v = '';
      if (type === 'select' || type === 'select-multiple') v = selectedText(el);
      else if (type === 'richtext') v = textOf(el, ctx);
      else v = tryOr(() => String(el.value ?? ''), '');
      v = norm(v);
      if (v && v.length <= 60) f.value = v;
      else if (v) f.value = clip(v, 40);
    }
    if (tagOf(el) === 'select') {
      const opts = tryOr(() => [...el.options], []);
      if (opts.length) f.options = opts.slice(0, 6).map(o => clip(norm(o.label || o.text), 24));
      if (opts.length > 6) f.nOptions = opts.length;
    }
    return f;
  }
  const SUBMIT_WORDS = /^(search|go|submit|send|sign in|log in|login|sign up|register|continue|next|subscribe|apply|save|create account|join|ok|find|post|reply)$/i;
  function formPurpose(key, fields, submitName) {
    const el = key;
    const types = fields.map(f => f.type);
    const hay = lower(`${attr(el, 'aria-label') || ''} ${el.id || ''} ${typeof el.className === 'string' ? el.className : ''} ` +
      `${attr(el, 'action') || ''} ${attr(el, 'name') || ''} ${attr(el, 'role') || ''} ${submitName || ''} ` +
      fields.map(f => `${f.label} ${f.name || ''}`).join(' '));
    const passwords = types.filter(t => t === 'password').length;
    if (passwords) return passwords > 1 || /sign\s*up|register|create|join/.test(hay) ? 'signup' : 'login';
    if (types.includes('search') || tagOf(el) === 'search' || attr(el, 'role') === 'search' || /search|\bq\b|query|suche/.test(hay)) return 'search';
    if (/sign\s*in|log\s*in|login/.test(hay)) return 'login';
    if (/sign\s*up|register|create account/.test(hay)) return 'signup';
    if (/card.?number|\bcvc\b|\bcvv\b|payment|expir/.test(hay)) return 'payment';
    if (/subscribe|newsletter/.test(hay) && fields.length <= 3) return 'subscribe';
    if (/profile|settings|account|preferences/.test(hay)) return 'profile';
    if (/filter|refine/.test(hay) || (types.filter(t => t === 'checkbox').length >= 3)) return 'filter';
    if (/address|postal|zip/.test(hay)) return 'address';
    if (/comment|reply/.test(hay) && types.includes('textarea')) return 'comment';
    if (/contact|message/.test(hay) && types.includes('textarea')) return 'contact';
    if (fields.length === 1 && /select/.test(types[0]) && /sort|order/.test(hay)) return 'sort';
    return '';
  }

  function formKey(el) {
    try {
      if (el.form) return el.form;
      const k = el.closest('form,[role=form],[role=search],search,fieldset,dialog,[role=dialog]');
      if (k) return k;
      // Loose fields: the nearest small container that also holds a button.
      let cur = el.parentElement;
      for (let i = 0; cur && i < 4; i++, cur = cur.parentElement) {
        if (cur.getElementsByTagName('*').length > 300) break;   // only small containers are "near"
        const n = cur.querySelectorAll('button,input[type=submit],input[type=button],[role=button]').length;
        if (n > 4) break;
        if (n) return cur;
        if (/^(main|body)$/.test(tagOf(cur))) break;
      }
      return tagOf(el.parentElement) === 'label' ? el.parentElement : el;
    } catch (_) { return el; }
  }
  function findSubmit(key, ctx) {
    try {
      const own = [...key.querySelectorAll('button,input[type=submit],input[type=image],[role=button]')];
      if (tagOf(key) === 'form') {
        for (const b of tryOr(() => [...key.elements], [])) if (!own.includes(b) && /^(button|input)$/.test(tagOf(b))) own.push(b);
      }
      const visible = own.filter(b => geom(b, ctx).vis);
      const isForm = tagOf(key) === 'form';
      const typed = visible.find(b => (isForm && tagOf(b) === 'button' && lower(attr(b, 'type') || 'submit') === 'submit') || /^(submit|image)$/i.test(attr(b, 'type') || ''));
      if (typed) return typed;
      return visible.find(b => SUBMIT_WORDS.test(accessibleName(b, ctx)) || /^(submit|search|login|signup|subscribe)$/.test(kindOf(b, accessibleName(b, ctx), 'button', ctx))) ||
        (!isForm && visible.length === 1 ? visible[0] : null) || null;
    } catch (_) { return null; }
  }

  // ---------------------------------------------------------------------------------------------
  // Ranking for find() and snapshot({text}): BM25 over name + context, substring, trigram fuzzy,
  // kind and role fit, priors (seed 002 §8.2).

  const STOP = new Set('a an the to of on in at for and or with by from into this that it its my me i you your please click tap press hit select choose go open use find get want need should can item element thing one'.split(' '));
  const ROLE_WORDS = [
    [/\bbuttons?\b|\bbtn\b/, ['button']], [/\blinks?\b/, ['link']],
    [/\b(fields?|box|input|textbox|text box|textarea|search bar|searchbar)\b/, ['textbox', 'searchbox', 'combobox']],
    [/\bcheck\s*box(es)?\b|\btick\b/, ['checkbox', 'switch']], [/\b(dropdown|drop-down|select|combo\s*box|picker)\b/, ['combobox', 'listbox']],
    [/\bradio\b/, ['radio']], [/\btabs?\b/, ['tab']], [/\b(toggle|switch)\b/, ['switch', 'checkbox', 'button']],
    [/\bmenu ?items?\b/, ['menuitem']], [/\bslider\b/, ['slider']], [/\boptions?\b/, ['option']],
  ];
  const ROLE_TOKENS = new Set(['button', 'buttons', 'btn', 'link', 'links', 'field', 'fields', 'box', 'input', 'textbox', 'textarea', 'checkbox', 'dropdown', 'select', 'radio', 'tab', 'tabs', 'toggle', 'switch', 'slider', 'icon', 'bar', 'picker', 'option']);
  const ORDINALS = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4, fifth: 5, '5th': 5,
    sixth: 6, '6th': 6, seventh: 7, '7th': 7, eighth: 8, '8th': 8, ninth: 9, '9th': 9, tenth: 10, '10th': 10 };
  const QUERY_KINDS = [['add-to-cart', /\badd\b.*\b(cart|bag|basket|trolley)\b|\bbuy\b/i], ['next', /\bnext\b|\bolder\b/i],
    ['prev', /\bprev(ious)?\b|\bnewer\b/i], ['login', /\b(sign|log)\s*-?\s*in\b|\blogin\b/i], ['search', /\bsearch\b/i],
    ['dismiss', /\bclose\b|\bdismiss\b/i]];

  // Words: split at ASCII and general punctuation and spaces; a plural 's' is dropped.
  const SPLIT = /[\s!-\/:-@\[-`{-~\u00a0-\u00bf\u2000-\u206f\u3000-\u303f]+/;
  const SYNONYMS = { remember: ['keep', 'stay'], cart: ['basket', 'bag', 'trolley'], basket: ['cart', 'bag'], bag: ['cart', 'basket'],
    register: ['signup', 'sign', 'create', 'join'], signup: ['register', 'create', 'join'], search: ['find', 'query'],
    find: ['search'], delete: ['remove', 'trash'], remove: ['delete'], email: ['mail'], mail: ['email'],
    phone: ['tel', 'mobile', 'telephone'], telephone: ['phone'], mobile: ['phone'], zip: ['postal', 'postcode'], postal: ['zip'],
    buy: ['purchase', 'checkout'], purchase: ['buy'], close: ['dismiss'], dismiss: ['close'], next: ['more', 'older'],
    previou: ['prev', 'back', 'newer'], prev: ['previous', 'back'], back: ['previous', 'prev'], username: ['user', 'login', 'email'],
    setting: ['preferences', 'options'], preference: ['settings'], help: ['support', 'faq'], profile: ['account'],
    account: ['profile'], password: ['passcode', 'pwd'], checkout: ['buy', 'pay'], logout: ['sign', 'log'] };
  const tokenize = s => {
    const out = [];
    for (const w of lower(s).split(SPLIT)) if (w) out.push(w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);
    return out;
  };
  function trigrams(s) {
    const t = ' ' + lower(s).replace(/[^\p{L}\p{N}]+/gu, ' ').trim() + ' ';
    const out = new Set();
    for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
    return out;
  }
  function trigramSim(a, b) {
    if (!a.size || !b.size) return 0;
    let inter = 0;
    for (const g of a) if (b.has(g)) inter++;
    return inter / (a.size + b.size - inter);
  }
  function editClose(a, b) {
    // Within one edit, for tokens of 4+ letters (typos: "serch", "sigin").
    if (Math.abs(a.length - b.length) > 1 || a.length < 4) return false;
    let i = 0, j = 0, edits = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) { i++; j++; continue; }
      if (++edits > 1) return false;
      if (a.length > b.length) i++; else if (b.length > a.length) j++; else { i++; j++; }
    }
    return edits + (a.length - i) + (b.length - j) <= 1;
  }

  function parseQuery(description, roleOpt) {
    const d = lower(norm(description));
    const roles = new Set(roleOpt ? [lower(roleOpt)] : []);
    if (!roleOpt) for (const [re, rs] of ROLE_WORDS) if (re.test(d)) rs.forEach(r => roles.add(r));
    const kinds = new Set();
    for (const [k, re] of KINDS) if (re.test(d)) kinds.add(k);
    for (const [k, re] of QUERY_KINDS) if (re.test(d)) kinds.add(k);
    if (kinds.has('add-to-cart')) kinds.delete('cart');
    if (kinds.has('next') || kinds.has('prev')) kinds.delete('submit');
    let ordinal = 0;
    for (const w of d.split(/\s+/)) if (ORDINALS[w]) ordinal = ORDINALS[w];
    const num = /(?:\bitem\s+#?|\bproduct\s+#|\brow\s+#?|\bresult\s+#?)(\d{1,4})\b/.exec(d);
    if (num) ordinal = parseInt(num[1], 10);
    if (/\blast\b/.test(d)) ordinal = -1;
    const words = tokenize(d).filter(w => !STOP.has(w) && !ROLE_TOKENS.has(w) && !ORDINALS[w] && w !== 'last');
    const phrase = d.replace(/^(the|a|an)\s+/, '').replace(/\b(button|link|field|box|input|checkbox|dropdown|tab|icon)\b/g, '').replace(WS, ' ').trim();
    return { d, roles, kinds, ordinal, words: [...new Set(words)], phrase, tri: trigrams(phrase) };
  }

  function contextOf(c, ctx) {
    if (c.context != null) return c.context;
    const el = c.el;
    const parts = [];
    try {
      for (const a of ['placeholder', 'title', 'name', 'id', 'aria-label', 'alt', 'data-testid']) { const v = attr(el, a); if (v && v.length < 80) parts.push(v.replace(/[_-]+/g, ' ')); }
      const cls = attr(el, 'class');
      if (cls && cls.length < 120) parts.push(cls.split(WS).slice(0, 3).join(' ').replace(/[_-]+/g, ' '));
      if (tagOf(el) === 'a') {
        const h = attr(el, 'href') || '';
        if (h.length < 200 && !/^javascript:/i.test(h)) parts.push(h.replace(/^https?:\/\/[^/]+/, '').replace(/[/_\-?=&.#]+/g, ' '));
      }
      if (c.field) { const lt = labelTexts(el, ctx); if (lt.length) parts.push(lt.join(' ')); }
    } catch (_) {}
    c.context = parts.join(' ');
    return c.context;
  }
  function nearbyHeading(el, ctx) {
    try {
      let cur = el;
      for (let up = 0; cur && up < 6; up++, cur = cur.parentElement) {
        let s = cur.previousElementSibling;
        for (let k = 0; s && k < 4; k++, s = s.previousElementSibling) {
          if (/^h[1-6]$/.test(tagOf(s))) return textOf(s, ctx).slice(0, 80);
          const hs = s.querySelectorAll('h1,h2,h3,h4,h5,h6');
          if (hs.length) return textOf(hs[hs.length - 1], ctx).slice(0, 80);
        }
      }
    } catch (_) {}
    return '';
  }

  // The words that identify a collection item: its title (or its text for table rows).
  function itemText(col, item, ctx) {
    if (!item) return '';
    if (!col.table) {
      const f = col.fields.find(x => x.name === 'title') || col.fields.find(x => x.name === 'text');
      const v = f ? tryOr(() => f.get(item), '') : '';
      if (v) return String(v).slice(0, 160);
    }
    return textOf(item, ctx).slice(0, 160);
  }
  // Scores candidates against a parsed query; returns them sorted with c.score in 0..1.
  function rank(q, cands, ctx, cols) {
    if (!cands.length) return [];
    // Phase 1: BM25 over name (twice) + attributes + kind, for everyone; document frequencies
    // are only needed for the query's words (and the page's spellings of its typos).
    const N = cands.length;
    const toksOf = new Array(N);
    let totalLen = 0;
    for (let i = 0; i < N; i++) {
      const c = cands[i];
      toksOf[i] = c.b && c.b.toks || tokenize(`${c.name} ${c.name} ${contextOf(c, ctx)} ${c.kind || ''}`);
      if (c.b) c.b.toks = toksOf[i];
      totalLen += toksOf[i].length;
    }
    mark(ctx, 'tokens');
    const avg = totalLen / N || 1;
    const k1 = 1.2, b = 0.75;
    const countDf = words => {
      const df = new Map(words.map(w => [w, 0])), last = new Map();
      for (let i = 0; i < N; i++) for (const t of toksOf[i]) if (df.has(t) && last.get(t) !== i) { last.set(t, i); df.set(t, df.get(t) + 1); }
      return df;
    };
    const df = countDf(q.words);
    // Typo-tolerant matches map a query word to the page's own spelling.
    const missing = q.words.filter(w => !df.get(w) && w.length >= 4);
    const alts = new Map(q.words.map(w => [w, [w]]));
    const weight = new Map();
    // A few synonyms people use for the same control ("remember me" / "keep me signed in").
    for (const w of q.words) for (const syn of SYNONYMS[w] || []) if (!alts.get(w).includes(syn)) { alts.get(w).push(syn); weight.set(syn, 0.6); }
    if (missing.length) {
      const tried = new Set();
      for (let i = 0; i < N && tried.size < 50000; i++) for (const t of toksOf[i]) {
        if (tried.has(t)) continue;
        tried.add(t);
        for (const w of missing) if (editClose(w, t) && alts.get(w).length < 4) alts.get(w).push(t);
      }
    }
    for (const [w, t] of countDf([...new Set([].concat(...[...alts.values()].map(a => a.slice(1))))])) df.set(w, t);
    const idf = w => { const n = df.get(w) || 0; return Math.log(1 + (N - n + 0.5) / (n + 0.5)); };
    const wanted = new Set();
    for (const a of alts.values()) for (const w of a) wanted.add(w);
    let maxB = 0, hits = 0;
    for (let i = 0; i < N; i++) {
      const toks = toksOf[i];
      let tf = null;
      for (const t of toks) if (wanted.has(t)) { if (!tf) tf = new Map(); tf.set(t, (tf.get(t) || 0) + 1); }
      let sc = 0;
      if (tf) {
        hits++;
        for (const a of alts.values()) {
          let best = 0;
          for (const w of a) {
            const f = tf.get(w) || 0;
            if (f) best = Math.max(best, (weight.get(w) || 1) * idf(w) * (f * (k1 + 1)) / (f + k1 * (1 - b + b * toks.length / avg)));
          }
          sc += best;
        }
      }
      cands[i].bm25 = sc;
      if (sc > maxB) maxB = sc;
    }
    // Fuzzy (trigram) similarity for the lexical hits, or for everyone of a similar length when
    // there are few hits (bounded; trigram sets are cached with the element's facts).
    let fuzzyBudget = hits < 20 ? 3000 : 0;
    const plen = q.phrase.length;
    const triOf = (c, ln) => { if (c.b) return c.b.tri || (c.b.tri = trigrams(ln)); return trigrams(ln); };
    for (const c of cands) {
      const ln = lower(c.name);
      const lex = maxB > 0 ? c.bm25 / maxB : 0;
      let sub = 0;
      if (q.phrase && ln) {
        if (ln === q.phrase) sub = 1;
        else if (ln.length >= 3 && (ln.includes(q.phrase) || (q.phrase.includes(ln) && ln.length >= 4))) sub = 0.75;
      }
      const fuzzy = ln && ln.length <= 120 && (c.bm25 > 0 || (fuzzyBudget > 0 && Math.abs(ln.length - plen) <= Math.max(6, plen / 2) && fuzzyBudget--))
        ? trigramSim(q.tri, triOf(c, ln)) : 0;
      const kindM = c.kind && q.kinds.has(c.kind) ? 1 : 0;
      const roleM = q.roles.size ? (q.roles.has(c.role) ? 0.2 : -0.05) : 0.05;
      c.pre = 0.4 * lex + 0.2 * Math.max(sub, fuzzy) + 0.2 * kindM + roleM;
    }
    mark(ctx, 'lexical');
    // Phase 2: context and priors for the best few hundred.
    const top = cands.slice().sort((a, b) => b.pre - a.pre || a.order - b.order).slice(0, 250);
    for (const c of top) {
      const g = deep(c, ctx).g;
      const lm = c.lm != null ? c.lm : (c.lm = landmark(c.el, ctx));
      let extra = 0;
      if (q.words.length && c.pre < 0.5 && c.pre > 0.1) {
        const head = c.b ? (c.b.head != null ? c.b.head : (c.b.head = nearbyHeading(c.el, ctx))) : nearbyHeading(c.el, ctx);
        const h = tokenize(head);
        const hit = q.words.filter(w => h.includes(w)).length;
        extra += 0.1 * hit / q.words.length;
      }
      // In a collection item, the item's own title counts for the controls inside it ("add widget 9
      // to cart"), and an ordinal picks the item ("the second product").
      const it = cols && cols.length ? itemOf(c.el, cols) : null;
      if (it && !it.col.menu && q.words.length) {
        const own = new Set(tokenize(c.name));
        const toks = new Set(tokenize(`${itemText(it.col, it.col.items[it.index], ctx)} ${it.col.name || ''}`));
        const hit = q.words.filter(w => !own.has(w) && toks.has(w)).length;
        extra += 0.3 * hit / q.words.length;
      }
      if (q.ordinal) {
        if (it) {
          const want = q.ordinal < 0 ? it.col.items.length - 1 : q.ordinal - 1;
          extra += it.index === want ? 0.3 : -0.05;
        } else extra -= 0.1;
      }
      if (q.kinds.size && !q.kinds.has(c.kind)) extra -= 0.1;
      c.score = c.pre + extra + (g.vis ? 0.05 : -0.15) + (inFold(g) ? 0.03 : 0) + (lm === 'main' ? 0.02 : lm === 'dialog' ? 0.03 : 0);
    }
    top.sort((a, b) => b.score - a.score || a.order - b.order);
    for (const c of top) c.score = Math.max(0, Math.min(1, Math.round(c.score * 100) / 100));
    return top;
  }

  // ---------------------------------------------------------------------------------------------
  // snapshot()

  function scopeFor(within, ctx) {
    if (!within) return null;
    const w = String(within).trim();
    const els = LM_NAMES[lower(w)] ? withinEngine(document, w, ctx) : resolveAll(w, ctx);
    if (!els.length) throw new Error(`within '${w}' matches nothing on this page`);
    return els[0];
  }

  function loginState(acts, forms) {
    const vis = acts.filter(a => a.g.vis);
    if (vis.some(a => a.kind === 'logout')) return 'in';
    if (vis.some(a => a.kind === 'login' || a.kind === 'signup') || forms.some(f => f.purpose === 'login' || f.purpose === 'signup')) return 'out';
    if (vis.some(a => a.kind === 'account' && /^(hi|hello|welcome)\b|my account|profile/i.test(a.name))) return 'in';
    return 'unknown';
  }

  function actionScore(c) {
    let s = c.g.vis ? 3 : -6;
    if (inFold(c.g)) s += 2;
    s += { main: 1.5, header: 1.2, nav: 0.6, search: 1.5, dialog: 4, aside: 0, footer: -1.5 }[c.lm] || 0;
    if (c.kind) s += IMPORTANT.has(c.kind) ? 3 : 1.5;
    if (c.lm === 'dialog' && /accept|reject|dismiss/.test(c.kind)) s += 2;
    if (!c.name) s -= 4;
    else if (c.name.length > 60) s -= 0.7;
    else if (!c.kind && !/[\p{L}]{2}/u.test(c.name)) s -= 2;   // "^", "[1]", "»" without a known kind
    if (c.role === 'button') s += 0.5;
    if (c.n) s += 2;
    s -= c.order / 4000;
    return s;
  }

  // "https://x.org/docs/a/b?q" → "https://x.org/docs": the cluster key of a link.
  const pathRoot = el => {
    const m = /^([a-z][\w+.-]*:\/\/[^/?#]*)(\/[^/?#]*)?/i.exec(tryOr(() => String(el.href || ''), ''));
    return m ? m[1] + (m[2] || '/') : '';
  };

  const isUserError = e => !!(e && typeof e.message === 'string' && /^(within |invalid selector|unknown ref|element \S+ .*is gone)/.test(e.message));

  // The candidates' facts, as far as the time budget goes (then the answer is partial).
  function prepAll(els, ctx, keep) {
    const cands = [];
    for (let i = 0; i < els.length; i++) {
      if ((i & 127) === 0 && over(ctx)) { ctx.partial = true; break; }
      const c = prep(els[i], ctx, i);
      if (c && keep(c)) cands.push(c);
    }
    return cands;
  }

  function snapshot(opts) {
    const o = opts && typeof opts === 'object' ? opts : {};
    if (typeof o.refPrefix === 'string' && /^[a-z0-9]*$/i.test(o.refPrefix)) REFS.prefix = o.refPrefix;
    const ctx = newCtx();
    const t0 = ctx.t0;
    try {
      return buildSnapshot(o, ctx);
    } catch (e) {
      if (isUserError(e)) throw e;   // a bad `within` is the caller's to fix
      return { url: location.href, title: document.title, error: String(e && e.message || e), ms: Math.round(now() - t0) };
    }
  }

  function buildSnapshot(o, ctx) {
    const refs = el => refFor(el, ctx);
    const scopeEl = scopeFor(o.within, ctx);
    const topK = o.topK > 0 ? Math.min(200, Math.floor(o.topK)) : 0;
    const want = lower(String(o.kind || ''));
    const section = want === 'action' || want === 'actions' ? 'actions' : want === 'form' || want === 'forms' ? 'forms' :
      want === 'collection' || want === 'collections' ? 'collections' : '';
    const kindFilter = !section && want ? want : '';
    const caps = { actions: topK || CAPS.actions, forms: topK || CAPS.forms, collections: topK || CAPS.collections };

    if (o.debug) { ctx.marks = {}; ctx.last = ctx.t0; }
    const els = candidates(ctx, scopeEl);
    mark(ctx, 'candidates');
    const cands = prepAll(els, ctx, () => true);
    mark(ctx, 'prep');
    const cols = detectCollections(ctx, els, scopeEl);
    mark(ctx, 'collections');

    // Forms: fields grouped by their form (or the nearest small container with a button).
    const groups = new Map();
    let nFields = 0;
    for (const c of cands) {
      if (!c.field || ++nFields > 600) continue;
      deep(c, ctx);
      if (!c.g.vis) continue;
      const key = formKey(c.el);
      let g = groups.get(key);
      if (!g) groups.set(key, g = []);
      g.push(c);
    }
    const inForm = new Set();
    const forms = [];
    const looseFields = [];
    for (const [key, fields] of groups) {
      try {
        const submit = findSubmit(key, ctx);
        // A lone control outside any form ("I accept the terms", a toggle) is an action.
        if (!submit && fields.length <= 2 && !/^(form|search|fieldset)$/.test(tagOf(key)) && !/^(form|search)$/.test(attr(key, 'role') || '') &&
            !fields.some(f => f.kind === 'search')) {
          for (const f of fields) looseFields.push(f);
          continue;
        }
        for (const f of fields) inForm.add(f.el);
        if (submit) inForm.add(submit);
        const submitName = submit ? clip(accessibleName(submit, ctx), 40) : '';
        const types = fields.map(f => ({ type: fieldType(f.el, f.role), label: f.name, name: attr(f.el, 'name') || '' }));
        const purpose = formPurpose(key, types, submitName);
        const lm = landmark(key, ctx);
        const g = fields[0].g;
        const score = (inFold(g) ? 2 : 0) + (IMPORTANT.has(purpose) ? 3 : purpose ? 1 : 0) +
          ({ main: 1, header: 1.5, search: 1.5, dialog: 3, footer: -1 }[lm] || 0) + Math.min(fields.length, 5) * 0.2 - (fields[0].order / 4000);
        forms.push({ key, fields, submit, submitName, purpose, lm, score, text: `${purpose} ${types.map(f => `${f.label} ${f.name}`).join(' ')} ${submitName}` });
      } catch (_) {}
    }
    forms.sort((a, b) => b.score - a.score);
    // The summary (and the refs it issues) only for the forms that are shown.
    const formOut = f => {
      const summ = [];
      const radios = new Map();
      for (const c of f.fields) {
        const t = fieldType(c.el, c.role);
        if (t === 'radio') {
          const nm = attr(c.el, 'name') || '';
          const r = radios.get(nm);
          if (r) { r.options.push(clip(c.name, 24)); if (stateOf(c.el, 'checked') === true) r.value = clip(c.name, 40); continue; }
          const fs = tryOr(() => c.el.closest('fieldset,[role=radiogroup]'), null);
          const label = fs ? accessibleName(fs, ctx) : nm;
          const rec = { ref: refs(c.el), label: clip(label || c.name, 60), type: 'radio', options: [clip(c.name, 24)] };
          if (nm) rec.name = nm;
          if (stateOf(c.el, 'checked') === true) rec.value = clip(c.name, 40);
          radios.set(nm, rec);
          summ.push(rec);
        } else summ.push(fieldSummary(c, ctx, refs));
      }
      for (const r of radios.values()) {
        r.options = r.options.filter(Boolean);   // unlabelled radios say nothing
        if (!r.options.length) delete r.options;
        else if (r.options.length > 6) { r.nOptions = r.options.length; r.options = r.options.slice(0, 6); }
        if (!r.value) delete r.value;
      }
      for (const x of summ) if (!x.label) delete x.label;
      const key = f.key;
      const form = { ref: refs(key === document.body || key === document.documentElement ? f.fields[0].el : key) };
      if (f.purpose) form.purpose = f.purpose;
      if (f.lm) form.landmark = f.lm;
      form.fields = summ.slice(0, 12);
      if (summ.length > 12) form.moreFields = summ.length - 12;
      if (f.submit) form.submit = { ref: refs(f.submit), name: f.submitName };
      return form;
    };
    mark(ctx, 'forms');

    // Actions: not a form's field or submit; per-item actions of a collection become one template.
    const acts = [];
    const templates = new Map();
    for (const c of cands.concat(looseFields)) {
      if ((c.field && !looseFields.includes(c)) || inForm.has(c.el)) continue;
      const it = cols.length ? itemOf(c.el, cols) : null;
      if (it && !it.col.menu) {
        const key = it.col.el;
        const tk = `${c.role}|${c.kind || lower(c.name)}`;
        let m = templates.get(key);
        if (!m) templates.set(key, m = new Map());
        let t = m.get(tk);
        if (!t) m.set(tk, t = { first: c, items: new Set(), col: it.col });
        t.items.add(it.index);
        continue;
      }
      acts.push(c);
    }
    for (const m of templates.values()) {
      for (const t of m.values()) {
        if (t.items.size >= 3 && t.items.size >= 0.5 * t.col.items.length) {
          const c = t.first;
          c.n = t.items.size;
          c.col = t.col;
          acts.push(c);
        }
      }
    }
    // Only the most promising few hundred get geometry and a full score (seed §11); the rest
    // are counted and stay reachable through find().
    // Landmarks for the first 600 by kind and order, then the best 200 of those get geometry.
    const byPrior = (a, b) => b.prior - a.prior;
    for (const c of acts) c.prior = priorScore(c) + (c.n ? 3 : 0);
    acts.sort(byPrior);
    const head = acts.slice(0, 600);
    for (const c of head) {
      if (c.lm == null) c.lm = c.b ? (c.b.lm = landmark(c.el, ctx)) : landmark(c.el, ctx);
      c.prior = priorScore(c) + (c.n ? 3 : 0);
    }
    head.sort(byPrior);
    mark(ctx, 'landmarks');
    const deepActs = head.slice(0, 200);
    // Clusters: same role + name (+ path root for links) keep their best.
    const clusters = new Map();
    for (const c of deepActs) {
      deep(c, ctx);
      c.score = actionScore(c);
      const key = `${c.role}|${lower(c.name)}|${c.role === 'link' ? pathRoot(c.el) : ''}|${c.n ? 't' : ''}`;
      const prev = clusters.get(key);
      if (!prev || c.score > prev.score) clusters.set(key, c);
    }
    let actions = [...clusters.values()].filter(c => c.name || c.kind || c.n);
    actions.sort((a, b) => b.score - a.score || a.order - b.order);
    const hiddenActions = acts.length - deepActs.length;
    mark(ctx, 'actions');
    if (o.text) actions = acts.filter(c => c.name || c.kind || c.n);
    let colsOut = cols.filter(c => (c.g.vis || c.count >= 3) && (!c.menu || section === 'collections'));
    let formsOut = forms;

    // Filters: kind name, text ranking.
    if (kindFilter) {
      actions = actions.filter(c => c.kind === kindFilter || (kindFilter === 'pagination' && /^(next|prev|page|load-more)$/.test(c.kind)));
      formsOut = formsOut.filter(f => f.purpose === kindFilter);
      colsOut = [];
    }
    if (o.text) {
      const q = parseQuery(String(o.text));
      const ranked = rank(q, actions, ctx, cols).filter(c => c.score >= 0.2);
      actions = ranked;
      const textScore = s => { const toks = tokenize(s); return q.words.filter(w => toks.some(t => t === w || t.startsWith(w))).length; };
      formsOut = formsOut.filter(f => textScore(f.text) > 0).sort((a, b) => textScore(b.text) - textScore(a.text));
      colsOut = colsOut.filter(c => textScore(`${c.name} ${c.fieldNames.join(' ')}`) > 0);
    }

    if (!structValid() || !STRUCT.lms) {
      STRUCT.lms = [];
      for (const l of tryOr(() => document.querySelectorAll('main,nav,header,footer,aside,search,dialog,[role]'), [])) {
        const k = landmarkKind(l);
        if (k) STRUCT.lms.push([k, l]);
        if (STRUCT.lms.length > 200) break;
      }
    }
    const landmarks = [];
    for (const [k, l] of STRUCT.lms) if (!landmarks.includes(k) && geom(l, ctx).vis) landmarks.push(k);

    const out = { url: location.href, title: clip(norm(document.title), 120) };
    out.login = loginState(deepActs.filter(a => a.g.vis), forms);
    if (landmarks.length) out.landmarks = landmarks;
    const actionList = section && section !== 'actions' ? [] : actions.slice(0, caps.actions);
    const formList = section && section !== 'forms' ? [] : formsOut.slice(0, caps.forms);
    // Three items of bare text are prose (a short list in an article), not a structure to act on;
    // extract() still finds them.
    const colsShown = section === 'collections' ? colsOut : colsOut.filter(c => c.count >= 4 || c.fieldNames.some(n => n !== 'text'));
    const colList = section && section !== 'collections' ? [] : colsShown.slice(0, caps.collections);
    if (!section || section === 'actions') {
      out.actions = actionList.map(c => {
        const a = { ref: refs(c.el), role: c.role, name: c.name };
        if (c.kind) a.kind = c.kind;
        if (c.lm) a.landmark = c.lm;
        if (inFold(c.g)) a.fold = true;
        if (c.n) { a.n = c.n; a.col = refs(c.col.el); }
        if (o.text && c.score != null) a.score = c.score;
        return a;
      });
    }
    if (!section || section === 'forms') out.forms = formList.map(formOut);
    if (!section || section === 'collections') {
      out.collections = colList.map(c => {
        const r = { ref: refs(c.el), name: c.name, fields: c.fieldNames.slice(0, 10), count: c.count };
        if (c.count > c.items.length) r.shown = c.items.length;
        if (c.landmark) r.landmark = c.landmark;
        return r;
      });
    }
    const cross = gatherRoots(ctx).cross.filter(f => { const g = geom(f, ctx); return g.vis && g.w >= 20 && g.h >= 20; }).slice(0, 10);
    if (cross.length) out.frames = cross.map(f => ({ ref: refs(f), url: clip(tryOr(() => f.src, '') || attr(f, 'src') || '', 200), cross: true }));
    const more = { actions: actions.length - actionList.length + (o.text || kindFilter ? 0 : hiddenActions), forms: formsOut.length - formList.length, collections: colsShown.length - colList.length };
    if (section) for (const k of Object.keys(more)) if (k !== section) delete more[k];
    if (more.actions > 0 || more.forms > 0 || more.collections > 0) {
      out.more = more;
      out.hint = 'More via snapshot({text, kind, topK, within}) or find("description"); rows via extract({collection: ref}).';
    }
    if (ctx.partial) out.partial = true;
    mark(ctx, 'output');
    fit(out, o.topK || o.text || o.kind || o.within ? MAX_CHARS : pageBudget(), more);
    if (ctx.marks) { mark(ctx, 'fit'); out.timings = ctx.marks; out.counts = { candidates: els.length, prepped: cands.length, collections: cols.length }; }
    return out;
  }

  // Keeps the serialized snapshot under the budget, dropping the least important detail first.
  // The default snapshot's size: about an eighth of what the page's own accessible content takes
  // (its visible text, and some 40 characters for each control, heading, list item, image and
  // paragraph: what a full accessibility dump of it would be, at least), between 2,000 and
  // MAX_CHARS characters. A map stays a map on every page; options ask for more.
  function pageBudget() {
    const text = tryOr(() => (document.body ? document.body.innerText.length : 0), 0);
    const nodes = tryOr(() => document.querySelectorAll('a[href],button,input,select,textarea,[role],h1,h2,h3,h4,h5,h6,li,img[alt],p').length, 0);
    return Math.max(2000, Math.min(MAX_CHARS, Math.round(0.12 * (text + 40 * nodes))));
  }

  function fit(out, max, more) {
    let size = JSON.stringify(out).length;
    const steps = [
      () => { let ch = false; for (const f of out.forms || []) for (const x of f.fields) if (x.options) { delete x.options; ch = true; } return ch; },
      () => { let ch = false; for (const f of out.forms || []) if (f.fields.length > 6) { f.moreFields = (f.moreFields || 0) + f.fields.length - 6; f.fields = f.fields.slice(0, 6); ch = true; } return ch; },
      () => { let ch = false; for (const a of out.actions || []) if (a.name.length > 40) { a.name = clip(a.name, 40); ch = true; } return ch; },
    ];
    for (const step of steps) { if (size <= max) return; if (step()) size = JSON.stringify(out).length; }
    // Then whole entries, from the end of the list most over its share of the budget: actions
    // are most of a page's map, forms are few and dense, collections are pointers to extract().
    const share = { actions: 0.55, forms: 0.25, collections: 0.2 };
    const keep = { actions: 8, forms: 1, collections: 2 };
    for (let guard = 0; size > max && guard < 500; guard++) {
      const lists = ['collections', 'forms', 'actions'].filter(k => out[k] && out[k].length > keep[k]);
      if (!lists.length) break;
      const over = k => JSON.stringify(out[k]).length / share[k];
      const k = lists.sort((a, b) => over(b) - over(a))[0];
      out[k].pop();
      more[k] = (more[k] || 0) + 1;
      out.more = more;
      size = JSON.stringify(out).length;
    }
  }

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

  function usePrefix(p) {
    if (typeof p === 'string' && /^(f\d+)?$/.test(p)) REFS.prefix = p;
    return REFS.prefix;
  }

  Object.defineProperty(globalThis, '__ouroPcd', {
    value: Object.freeze({
      snapshot, details, find, extract, frames, frameBox, usePrefix, marks,
      resolveAll: selector => resolveAll(selector), resolve,
      role: el => roleOf(el, null), accessibleName: el => accessibleName(el, null),
      elements, refOf: el => refFor(el, newCtx()), stateOf, editClose, textOf: el => textOf(el, newCtx()),
      visible: el => geom(el, newCtx()).vis, landmarkOf: el => landmark(el, newCtx()),
      version: 1,
    }),
    enumerable: false,
  });
})();

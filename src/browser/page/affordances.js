// The page as compact affordances (issue 9, seed 002 §4–§8): ARIA roles and accessible names, the
// MiniPCD snapshot with refs, details of refs, deterministic ranking (find), rows of repeated
// structures (extract), and the one selector language every function that takes a selector uses.
// Loaded with helpers.js into ouro's isolated world of every document: the page cannot see it.
// Every entry point returns JSON-safe values; hostile DOM (throwing getters, cycles, huge trees)
// is bounded by caps and try/catch at the edges.
//
// snapshot(opts) → { url, title, login, landmarks, actions: [{ref, role, name, kind?, landmark?,
//   fold?, n?, col?}], forms: [{ref, purpose?, landmark?, fields: [{ref, label, type, name?, req?,
//   value?}], submit?: {ref, name}}], collections: [{ref, name, fields, count, landmark?}],
//   frames?: [{url, cross: true}], more?: {actions, forms, collections} }
//   ref: "e12" — valid while its node lives; a dead ref is found again once through the
//   alternates taken when it was issued. fold: above the fold. n/col: one action standing for n
//   alike ones in collection col ("Add to cart" ×24).
(() => {
  if (globalThis.__ouroPcd) return;

  const CAPS = { actions: 30, forms: 20, collections: 20, fields: 12 };
  const MAX_NODES = 200000, MAX_CANDIDATES = 5000, NAME_MAX = 80, BUDGET_CHARS = 15000;
  const LANDMARKS = ['main', 'nav', 'header', 'footer', 'aside', 'search', 'form', 'region'];

  const norm = s => String(s ?? '').replace(/\s+/g, ' ').trim();
  const clip = (s, n = NAME_MAX) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const safe = (fn, dflt) => { try { return fn(); } catch (_) { return dflt; } };

  // --- roles ------------------------------------------------------------------------------------
  const INPUT_ROLES = { button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox', radio: 'radio',
                        range: 'slider', number: 'spinbutton', search: 'searchbox', email: 'textbox', tel: 'textbox', text: 'textbox',
                        url: 'textbox', password: 'textbox', file: 'button', color: 'button', date: 'textbox', 'datetime-local': 'textbox',
                        month: 'textbox', time: 'textbox', week: 'textbox' };
  function sectioningAncestor(el) {
    return safe(() => el.parentElement && el.parentElement.closest('article,aside,main,nav,section'), null);
  }
  function role(el) {
    if (!el || el.nodeType !== 1) return '';
    const explicit = safe(() => el.getAttribute('role'), null);
    if (explicit) {
      const first = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (first && first !== 'none' && first !== 'presentation') return first;
    }
    const tag = el.localName;
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'button': return 'button';
      case 'input': {
        const t = (el.getAttribute('type') || 'text').toLowerCase();
        if (t === 'hidden') return '';
        if ((t === 'text' || t === 'search' || t === 'email' || t === 'tel' || t === 'url') && el.hasAttribute('list')) return 'combobox';
        return INPUT_ROLES[t] || 'textbox';
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'option': return 'option';
      case 'summary': return 'button';
      case 'details': return 'group';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'img': return el.getAttribute('alt') === '' ? '' : 'img';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'header': return sectioningAncestor(el) ? '' : 'banner';
      case 'footer': return sectioningAncestor(el) ? '' : 'contentinfo';
      case 'form': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('name') ? 'form' : '';
      case 'search': return 'search';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return 'columnheader';
      case 'ul': case 'ol': return 'list';
      case 'li': return 'listitem';
      case 'dialog': return 'dialog';
      case 'progress': return 'progressbar';
      case 'article': return 'article';
      default: return el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable) ? 'textbox' : '';
    }
  }
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'checkbox', 'radio',
                                     'switch', 'option', 'treeitem', 'heading', 'cell', 'columnheader', 'rowheader', 'row', 'tooltip', 'gridcell']);
  const INTERACTIVE = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
                               'option', 'combobox', 'listbox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem']);
  const FIELD_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio', 'switch', 'slider', 'spinbutton']);
  const CANDIDATES = 'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,[role],[contenteditable=""],' +
                     '[contenteditable=true],[onclick],[tabindex]:not([tabindex="-1"])';

  // --- accessible names (ARIA accname, simplified and bounded) -----------------------------------
  function hiddenForName(el) {
    if (safe(() => el.getAttribute('aria-hidden'), null) === 'true') return true;
    const cs = safe(() => el.ownerDocument.defaultView.getComputedStyle(el), null);
    return !cs || cs.display === 'none' || cs.visibility === 'hidden';
  }
  function textOf(node, depth, budget) {
    if (!node || budget.left <= 0 || depth > 12) return '';
    if (node.nodeType === 3) { budget.left -= node.data.length; return node.data; }
    if (node.nodeType !== 1) return '';
    const el = node;
    if (hiddenForName(el)) return '';
    const tag = el.localName;
    if (tag === 'script' || tag === 'style' || tag === 'noscript' || tag === 'template') return '';
    if (depth > 0) {
      const label = el.getAttribute('aria-label');
      if (label && label.trim()) return ' ' + label + ' ';
      if (tag === 'img' || (tag === 'input' && el.type === 'image')) return ' ' + (el.getAttribute('alt') || el.getAttribute('title') || '') + ' ';
      if (tag === 'input' || tag === 'textarea') return ' ' + (el.value || '') + ' ';
      if (tag === 'select') return ' ' + safe(() => el.selectedOptions[0].textContent, '') + ' ';
    }
    let out = '';
    const kids = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
    for (const k of kids) {
      out += textOf(k, depth + 1, budget);
      if (budget.left <= 0) break;
    }
    if (tag === 'br') out += ' ';
    const cs = depth > 0 ? safe(() => el.ownerDocument.defaultView.getComputedStyle(el).display, 'inline') : 'inline';
    return cs && cs !== 'inline' && cs !== 'contents' ? ' ' + out + ' ' : out;
  }
  function byIds(el, attr) {
    const ids = (el.getAttribute(attr) || '').trim().split(/\s+/).filter(Boolean).slice(0, 8);
    const root = el.getRootNode();
    let out = '';
    for (const id of ids) {
      const ref = safe(() => (root.getElementById ? root.getElementById(id) : root.querySelector('#' + CSS.escape(id))), null);
      if (ref && ref !== el) out += ' ' + textOf(ref, 1, { left: 400 });
    }
    return norm(out);
  }
  function accessibleName(el) {
    if (!el || el.nodeType !== 1) return '';
    return safe(() => {
      const r = role(el);
      let n = byIds(el, 'aria-labelledby');
      if (n) return clip(n, 200);
      n = norm(el.getAttribute('aria-label'));
      if (n) return clip(n, 200);
      const tag = el.localName;
      if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'meter' || tag === 'progress') {
        const t = (el.getAttribute('type') || '').toLowerCase();
        if (tag === 'input' && (t === 'submit' || t === 'reset' || t === 'button'))
          return clip(norm(el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '')), 200);
        if (tag === 'input' && t === 'image') return clip(norm(el.getAttribute('alt') || el.getAttribute('title') || 'Submit'), 200);
        const labels = safe(() => [...(el.labels || [])], []);
        if (labels.length) return clip(norm(labels.map(l => textOf(l, 1, { left: 300 })).join(' ')), 200);
        n = norm(el.getAttribute('title') || el.getAttribute('placeholder'));
        if (n) return clip(n, 200);
      }
      if (tag === 'img' || tag === 'area') return clip(norm(el.getAttribute('alt') || el.getAttribute('title')), 200);
      if (tag === 'fieldset') { const lg = el.querySelector(':scope > legend'); if (lg) return clip(norm(textOf(lg, 1, { left: 300 })), 200); }
      if (tag === 'table') { const c = el.querySelector(':scope > caption'); if (c) return clip(norm(c.textContent), 200); }
      if (tag === 'figure') { const c = el.querySelector(':scope > figcaption'); if (c) return clip(norm(c.textContent), 200); }
      if (NAME_FROM_CONTENT.has(r) || tag === 'label' || tag === 'legend') {
        n = norm(textOf(el, 0, { left: 600 }));
        if (n) return clip(n, 200);
      }
      return clip(norm(el.getAttribute('title') || (r === 'textbox' || r === 'searchbox' ? el.getAttribute('placeholder') : '')), 200);
    }, '');
  }

  // --- where things are ---------------------------------------------------------------------------
  function isVisible(el) {
    return safe(() => {
      if (!el.isConnected) return false;
      if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    }, false);
  }
  function frameOffset(el) {
    let x = 0, y = 0, win = el.ownerDocument.defaultView;
    for (let i = 0; win && win.frameElement && i < 10; i++) {
      const r = win.frameElement.getBoundingClientRect();
      x += r.x; y += r.y;
      win = win.parent;
    }
    return { x, y };
  }
  function rectOf(el) {
    const r = el.getBoundingClientRect(), o = frameOffset(el);
    return { x: Math.round(r.x + o.x), y: Math.round(r.y + o.y), width: Math.round(r.width), height: Math.round(r.height) };
  }
  const LANDMARK_SELECTORS = {
    main: 'main,[role=main]', nav: 'nav,[role=navigation]', search: 'search,[role=search]',
    aside: 'aside,[role=complementary]', header: 'header,[role=banner]', footer: 'footer,[role=contentinfo]',
    form: 'form', region: 'section[aria-label],section[aria-labelledby],[role=region]',
  };
  function landmarkOf(el) {
    let e = el;
    for (let i = 0; e && i < 60; i++) {
      const r = role(e);
      if (r === 'main') return 'main';
      if (r === 'navigation') return 'nav';
      if (r === 'search') return 'search';
      if (r === 'complementary') return 'aside';
      if (r === 'banner') return 'header';
      if (r === 'contentinfo') return 'footer';
      e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null;
    }
    return '';
  }
  function aboveFold(el) {
    const r = safe(() => rectOf(el), null);
    const h = safe(() => top.innerHeight, innerHeight) || 800;
    return !!r && r.y < h * 1.2 && r.y + r.height > 0;
  }

  // Every element under root, open shadow roots and same-origin frames included (bounded). The
  // roots under the document are found once per call into this engine (see entry()).
  let rootsOfDocument = null;
  function collectRoots(root, out = [], seen = { n: 0 }) {
    out.push(root);
    for (const el of root.querySelectorAll('*')) {
      if (++seen.n > MAX_NODES || out.length > 2000) return out;
      if (el.shadowRoot) collectRoots(el.shadowRoot, out, seen);
      if (el.localName === 'iframe' || el.localName === 'frame') {
        const doc = safe(() => el.contentDocument, null);
        if (doc && doc.documentElement) collectRoots(doc, out, seen);
      }
    }
    return out;
  }
  function deepAll(root, selector) {
    const roots = root === document && rootsOfDocument ? rootsOfDocument : collectRoots(root);
    const out = [];
    for (const r of roots) {
      let list;
      try { list = r.querySelectorAll(selector); } catch (e) { throw new Error(`invalid selector '${selector}': ${e.message}`); }
      for (const el of list) { if (out.length >= MAX_CANDIDATES) return out; out.push(el); }
    }
    return out;
  }
  // Each entry point runs with the document's roots found once.
  const entry = fn => (...args) => {
    if (rootsOfDocument) return fn(...args);
    rootsOfDocument = collectRoots(document);
    try { return fn(...args); } finally { rootsOfDocument = null; }
  };
  function crossFrames() {
    const out = [];
    for (const f of safe(() => deepAll(document, 'iframe,frame'), [])) {
      if (out.length >= 10) break;
      if (safe(() => f.contentDocument, null)) continue;
      if (!isVisible(f)) continue;
      out.push({ url: clip(String(f.src || ''), 200), cross: true });
    }
    return out;
  }

  // --- refs -------------------------------------------------------------------------------------
  let refPrefix = '', nextRef = 1;
  const refOf = new WeakMap();           // element -> ref
  const byRef = new Map();               // ref -> { node: WeakRef, alternates: string[] }
  function ref(el) {
    let r = refOf.get(el);
    if (r) return r;
    r = refPrefix + 'e' + nextRef++;
    refOf.set(el, r);
    byRef.set(r, { node: new WeakRef(el), alternates: null });
    if (byRef.size > 20000) for (const k of byRef.keys()) { byRef.delete(k); if (byRef.size <= 15000) break; }
    return r;
  }
  // Alternates are taken when a ref is issued (snapshot/find/details), so a ref whose node a
  // re-render replaced can be found again.
  // Cheap at issue time (a snapshot issues a hundred): what the element was — its role and name,
  // its text, its CSS path; tried in that order when the node is gone.
  function remember(el, r0, name0) {
    const r = ref(el), entry = byRef.get(r);
    if (entry && !entry.alternates) entry.alternates = safe(() => {
      const rl = r0 || role(el), name = name0 ?? accessibleName(el);
      return { role: rl, name, text: norm(el.textContent || '').slice(0, 80), css: el.getRootNode() === el.ownerDocument ? framePrefix(el) + cssPath(el) : '' };
    }, null);
    return r;
  }
  function refind(alt) {
    if (!alt) return null;
    const byCss = alt.css ? safe(() => resolveAll(alt.css), []) : [];
    const same = list => list.length === 1 ? list[0] : list.find(e => byCss.includes(e)) || null;
    if (alt.role && alt.name) {
      const found = same(safe(() => resolveAll(`role=${alt.role}[name=${quote(alt.name)}]`), []));
      if (found) return found;
    }
    if (alt.text && alt.text.length >= 2) {
      const found = same(safe(() => resolveAll(`text=${quote(alt.text)}`), []).filter(e => !alt.role || role(e) === alt.role));
      if (found) return found;
    }
    return byCss.length === 1 && (!alt.role || role(byCss[0]) === alt.role) ? byCss[0] : null;
  }
  const REF_RE = /^(f\d+)?e\d+$/;
  function resolveRef(r) {
    const entry = byRef.get(r);
    if (!entry) throw new Error(`unknown ref '${r}': refs come from snapshot() or find() on this page; the page may have navigated since — take a new snapshot()`);
    const el = entry.node.deref();
    if (el && el.isConnected) return el;
    const found = refind(entry.alternates);
    if (found) {
      refOf.set(found, r);
      entry.node = new WeakRef(found);
      return found;
    }
    throw new Error(`ref '${r}' is gone: the element was removed and nothing like it was found (the page changed since the snapshot); take a new snapshot() or use find()`);
  }

  // --- the selector language ---------------------------------------------------------------------
  // CSS (open shadow roots pierced when the light DOM has no match; "A >>> B" enters frame A),
  // refs (e12), role=button[name="Sign in"] / [name*="sign"] / [name=/sign\s*in/i] and state
  // filters, text="Exact" / text=substring, label=, placeholder=, alt=, title=, testid=,
  // nth=K (0-based, -1 last), within=main|ref, chained with " >> ".
  function splitChain(selector) {
    const parts = [];
    let cur = '', quote = '', depth = 0;
    for (let i = 0; i < selector.length; i++) {
      const c = selector[i];
      if (quote) { cur += c; if (c === '\\' && i + 1 < selector.length) cur += selector[++i]; else if (c === quote) quote = ''; continue; }
      if (c === '"' || c === "'") { quote = c; cur += c; continue; }
      if (c === '[' || c === '(') depth++;
      if (c === ']' || c === ')') depth--;
      if (depth <= 0 && c === '>' && selector[i + 1] === '>' && selector[i + 2] !== '>' && selector[i - 1] !== '>' &&
          /\s/.test(selector[i - 1] || ' ') && /\s/.test(selector[i + 2] || ' ')) {
        parts.push(cur.trim()); cur = ''; i++; continue;
      }
      cur += c;
    }
    parts.push(cur.trim());
    if (parts.some(p => !p)) throw new Error(`invalid selector '${selector}': an empty part around '>>'`);
    return parts;
  }
  function unquote(v) {
    v = v.trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) {
      return { text: v.slice(1, -1).replace(/\\(.)/g, '$1'), exact: true };
    }
    return { text: v, exact: false };
  }
  function matcher(raw, what) {
    const v = raw.trim();
    const re = /^\/(.*)\/([a-z]*)$/s.exec(v);
    if (re) {
      let rx;
      try { rx = new RegExp(re[1], re[2]); } catch (e) { throw new Error(`invalid regular expression in ${what}: ${e.message}`); }
      return s => rx.test(s);
    }
    const { text, exact } = unquote(v);
    const want = norm(text).toLowerCase();
    return exact ? s => norm(s).toLowerCase() === want : s => norm(s).toLowerCase().includes(want);
  }
  function parseRole(spec) {
    const m = /^([a-z]+)\s*((?:\[[^\]]*\]\s*)*)$/i.exec(spec.trim());
    if (!m) throw new Error(`invalid role selector 'role=${spec}': use role=button, role=button[name="Sign in"], [name*="sign"], [name=/sign in/i], [checked], [level=2]`);
    const out = { role: m[1].toLowerCase(), filters: [] };
    const attrs = m[2].match(/\[[^\]]*\]/g) || [];
    for (const a of attrs) {
      const am = /^\[\s*([a-z-]+)\s*(\*?=)?\s*(.*?)\s*\]$/i.exec(a);
      if (!am) throw new Error(`invalid role filter '${a}'`);
      const [, key, op, value] = am;
      if (key === 'name') {
        if (!op) throw new Error(`role filter [name] needs a value: [name="…"], [name*="…"] or [name=/…/i]`);
        const part = norm(unquote(value).text).toLowerCase();
        const test = op === '*=' ? (s => norm(s).toLowerCase().includes(part)) : matcher(value, 'name');
        out.filters.push(el => test(accessibleName(el)));
      } else if (['checked', 'pressed', 'selected', 'expanded', 'disabled'].includes(key)) {
        const want = op ? unquote(value).text !== 'false' : true;
        out.filters.push(el => stateOf(el, key) === want);
      } else if (key === 'level') {
        const want = Number(unquote(value).text);
        out.filters.push(el => levelOf(el) === want);
      } else {
        throw new Error(`unknown role filter '${key}': use name, checked, pressed, selected, expanded, disabled, level`);
      }
    }
    return out;
  }
  function stateOf(el, key) {
    const aria = el.getAttribute('aria-' + key);
    if (aria != null) return aria === 'true' || aria === 'mixed';
    if (key === 'checked') return !!el.checked;
    if (key === 'selected') return !!el.selected;
    if (key === 'disabled') return !!el.disabled || !!safe(() => el.closest('fieldset:disabled'), null);
    if (key === 'expanded') return el.localName === 'details' ? el.open : false;
    return false;
  }
  function levelOf(el) {
    const a = Number(el.getAttribute('aria-level'));
    if (a) return a;
    const m = /^h([1-6])$/.exec(el.localName);
    return m ? Number(m[1]) : 0;
  }
  function ariaHidden(el) {
    for (let e = el, i = 0; e && i < 60; i++, e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null)
      if (e.getAttribute && e.getAttribute('aria-hidden') === 'true') return true;
    return false;
  }
  const INTERACTIVE_ANCESTOR = 'a[href],button,[role=button],[role=link],[role=tab],[role=menuitem],[role=option],[role=checkbox],label,summary';
  function byText(scope, raw) {
    const { text, exact } = unquote(raw);
    const want = norm(text).toLowerCase();
    if (!want) throw new Error(`text= needs some text: text="Next" (exact) or text=next (contains)`);
    const ok = s => (exact ? s === want : s.includes(want));
    const found = new Set();
    const visitRoot = root => {
      const doc = root.ownerDocument || root;
      const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      let n = 0;
      for (let t = walker.nextNode(); t && n < MAX_NODES; t = walker.nextNode(), n++) {
        let el = t.parentElement;
        if (!el || el.localName === 'script' || el.localName === 'style') continue;
        const mine = norm(el.textContent).toLowerCase();
        if (!ok(mine)) {
          if (exact || !mine.includes(want.slice(0, 8))) continue;
          // the text spans siblings: climb a little
          let up = el.parentElement, k = 0;
          while (up && k < 3 && !ok(norm(up.textContent).toLowerCase())) { up = up.parentElement; k++; }
          if (!up || !ok(norm(up.textContent).toLowerCase())) continue;
          el = up;
        }
        const interactive = safe(() => el.closest(INTERACTIVE_ANCESTOR), null);
        found.add(interactive && (exact ? ok(norm(interactive.textContent).toLowerCase()) : true) ? interactive : el);
      }
    };
    for (const r of rootsUnder(scope)) visitRoot(r);
    // The smallest matches: drop an element that contains another match.
    const list = [...found];
    return sortByDocument(list.filter(el => !list.some(o => o !== el && el.contains(o)) && !ariaHidden(el)));
  }
  function rootsUnder(scope) {
    const roots = [scope];
    for (const el of safe(() => scope.querySelectorAll('*'), [])) {
      if (roots.length > 500) break;
      if (el.shadowRoot) roots.push(...rootsUnder(el.shadowRoot));
      if (el.localName === 'iframe') { const d = safe(() => el.contentDocument, null); if (d && d.body) roots.push(...rootsUnder(d.body)); }
    }
    return roots;
  }
  function sortByDocument(list) {
    return list.sort((a, b) => {
      if (a === b) return 0;
      if (a.ownerDocument !== b.ownerDocument || a.getRootNode() !== b.getRootNode()) return 0;
      return a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    });
  }
  function byRole(scope, spec) {
    const { role: want, filters } = parseRole(spec);
    const out = [];
    for (const el of deepAll(scope, CANDIDATES + ',h1,h2,h3,h4,h5,h6,img,nav,main,aside,header,footer,form,table,tr,td,th,ul,ol,li,dialog,article,section,details,option,search')) {
      if (role(el) !== want || ariaHidden(el) || !isVisible(el)) continue;
      if (filters.every(f => safe(() => f(el), false))) out.push(el);
    }
    return [...new Set(out)];
  }
  function byAttr(scope, raw, test) {
    const m = matcher(raw, 'the selector');
    return deepAll(scope, '*').filter(el => safe(() => { const v = test(el); return v != null && v !== '' && m(v); }, false) && !ariaHidden(el));
  }
  function byLabel(scope, raw) {
    const m = matcher(raw, 'label=');
    return deepAll(scope, 'input:not([type=hidden]),select,textarea,[role=textbox],[role=searchbox],[role=combobox],[role=checkbox],[role=radio],[role=switch],[role=slider],[contenteditable=true]')
      .filter(el => {
        const name = accessibleName(el);
        const labels = safe(() => [...(el.labels || [])].map(l => l.textContent).join(' '), '');
        return (name && m(name)) || (labels && m(labels)) || m(el.getAttribute('aria-label') || '');
      });
  }
  function withinScopes(scopes, what) {
    if (REF_RE.test(what)) return [resolveRef(what)];
    const sel = LANDMARK_SELECTORS[what.toLowerCase()];
    if (!sel) throw new Error(`within=${what}: use a landmark (${Object.keys(LANDMARK_SELECTORS).join(', ')}) or a ref`);
    const out = [];
    for (const s of scopes) out.push(...deepAll(s, sel));
    if (!out.length) throw new Error(`within=${what}: the page has no ${what} landmark`);
    return out;
  }
  function cssIn(scope, selector) {
    const parts = String(selector).split('>>>').map(s => s.trim());
    let roots = [scope];
    for (let i = 0; i < parts.length; i++) {
      let found = [];
      for (const root of roots) {
        let list;
        try { list = root.querySelectorAll(parts[i]); } catch (e) { throw new Error(`invalid selector '${parts[i]}': ${e.message}`); }
        found.push(...list);
      }
      if (!found.length && i === parts.length - 1)  // pierce open shadow roots, like Playwright's css engine
        for (const root of roots) for (const el of deepAll(root, parts[i])) found.push(el);
      if (i === parts.length - 1) return [...new Set(found)];
      roots = [];
      for (const f of found) {
        const doc = safe(() => f.contentDocument, null);
        if (!doc) throw new Error(`cannot look inside '${parts[i]}': not a same-origin frame`);
        roots.push(doc);
      }
    }
    return [];
  }
  function step(scopes, part) {
    const eq = part.indexOf('=');
    const engine = eq > 0 && /^[a-z]+$/i.test(part.slice(0, eq)) ? part.slice(0, eq).toLowerCase() : '';
    const arg = engine ? part.slice(eq + 1) : part;
    const all = fn => { const out = []; for (const s of scopes) out.push(...fn(s)); return [...new Set(out)]; };
    switch (engine) {
      case 'role': return all(s => byRole(s, arg));
      case 'text': return all(s => byText(s, arg));
      case 'label': return all(s => byLabel(s, arg));
      case 'placeholder': return all(s => byAttr(s, arg, el => el.getAttribute('placeholder')));
      case 'alt': return all(s => byAttr(s, arg, el => el.getAttribute('alt')));
      case 'title': return all(s => byAttr(s, arg, el => el.getAttribute('title')));
      case 'testid': return all(s => byAttr(s, arg, el => el.getAttribute('data-testid') || el.getAttribute('data-test-id')));
      case 'css': return all(s => cssIn(s, arg));
      case 'ref': return [resolveRef(arg.trim())];
      case 'within': return withinScopes(scopes, unquote(arg).text);
      default: break;
    }
    if (REF_RE.test(part)) return [resolveRef(part)];
    return all(s => cssIn(s, part));
  }
  function resolveAll(selector) {
    selector = String(selector ?? '').trim();
    if (!selector) throw new Error('empty selector: give CSS, a ref (e12), role=…, text=…, label=… or placeholder=…');
    if (selector.length > 4000) throw new Error('selector too long (over 4,000 characters)');
    let scopes = [document], current = null;
    for (const part of splitChain(selector)) {
      const nth = /^nth\s*=\s*(-?\d+)$/.exec(part);
      if (nth) {
        const list = current || [];
        const i = Number(nth[1]);
        const el = i < 0 ? list[list.length + i] : list[i];
        current = el ? [el] : [];
      } else {
        const base = current || scopes;
        current = step(base, part);
        if (part.startsWith('within=')) { scopes = current; current = null; continue; }
      }
      scopes = current;
      if (!current.length) return [];
    }
    return current || scopes.filter(s => s.nodeType === 1);
  }

  // Selectors that find el again: a role selector (with nth when needed), text/label/placeholder,
  // a CSS path.
  function quote(s) { return '"' + s.replace(/["\\]/g, '\\$&') + '"'; }
  function cssPath(el) {
    const parts = [];
    for (let e = el, i = 0; e && e.nodeType === 1 && i < 12; i++, e = e.parentElement) {
      if (e.id && /^[A-Za-z][\w-]*$/.test(e.id)) { parts.unshift('#' + e.id); break; }
      let p = e.localName;
      const parent = e.parentElement;
      if (parent) {
        const same = [...parent.children].filter(c => c.localName === e.localName);
        if (same.length > 1) p += `:nth-of-type(${same.indexOf(e) + 1})`;
      }
      parts.unshift(p);
    }
    return parts.join(' > ');
  }
  function selectorsFor(el) {
    const out = [], r = role(el), name = accessibleName(el);
    if (r && name && name.length <= 120) {
      const sel = `role=${r}[name=${quote(name)}]`;
      const all = safe(() => resolveAll(sel), []);
      const i = all.indexOf(el);
      if (i >= 0) out.push(all.length > 1 ? `${sel} >> nth=${i}` : sel);
    }
    const text = norm(el.innerText || '').slice(0, 80);
    if (text && (r === 'link' || r === 'button' || r === 'tab' || r === 'menuitem')) {
      const sel = `text=${quote(text)}`;
      const all = safe(() => resolveAll(sel), []);
      if (all.length === 1 && all[0] === el) out.push(sel);
    }
    if (FIELD_ROLES.has(r) && name) {
      const sel = `label=${quote(name)}`;
      const all = safe(() => resolveAll(sel), []);
      if (all.length === 1 && all[0] === el) out.push(sel);
    }
    const ph = el.getAttribute('placeholder');
    if (ph) out.push(`placeholder=${quote(ph)}`);
    if (el.getRootNode() === el.ownerDocument) out.push(framePrefix(el) + cssPath(el));
    return out;
  }
  function framePrefix(el) {
    const chain = [];
    for (let win = el.ownerDocument.defaultView, i = 0; win && win.frameElement && i < 10; i++, win = win.parent) chain.unshift(cssPath(win.frameElement));
    return chain.length ? chain.join(' >>> ') + ' >>> ' : '';
  }

  // --- kinds and purposes (keyword sets; no model) ------------------------------------------------
  const KINDS = [
    ['search', /\b(search|find|look ?up|go)\b|^q$/i],
    ['login', /\b(log ?in|sign ?in|signin|login)\b/i],
    ['logout', /\b(log ?out|sign ?out|logout)\b/i],
    ['signup', /\b(sign ?up|register|create (an )?account|join)\b/i],
    ['add-to-cart', /\b(add to (cart|bag|basket)|add to trolley)\b/i],
    ['checkout', /\b(check ?out|place order|buy now|pay now|purchase)\b/i],
    ['cart', /\b(cart|basket|bag)\b/i],
    ['pagination', /^(next|previous|prev|older|newer|more|load more|show more|[«»‹›<>]|\d{1,3})$|\bnext page\b|\bpage \d+\b/i],
    ['download', /\b(download|export|pdf|csv)\b/i],
    ['delete', /\b(delete|remove|discard|trash)\b/i],
    ['share', /\b(share|tweet|facebook|email this)\b/i],
    ['filter', /\b(filter|refine)\b/i],
    ['sort', /\b(sort|order by)\b/i],
    ['dismiss', /^(close|dismiss|×|x|no thanks|not now|reject( all)?|accept( all)?|got it|ok)$/i],
    ['menu', /\b(menu|navigation)\b/i],
    ['language', /\b(language|english|español|deutsch|français)\b/i],
    ['subscribe', /\b(subscribe|newsletter)\b/i],
    ['account', /\b(my account|account|profile|settings)\b/i],
    ['submit', /^(submit|send|save|continue|next step|confirm|apply|update)$/i],
  ];
  function kindOf(el, name, r) {
    const t = (el.getAttribute('type') || '').toLowerCase();
    if (r === 'searchbox' || t === 'search') return 'search';
    if (t === 'submit' && safe(() => el.form && formPurpose(el.form), '') === 'search') return 'search';
    const href = safe(() => (el.href ? new URL(el.href, location.href) : null), null);
    const probe = (el.id || '') + ' ' + (typeof el.className === 'string' ? el.className : '') + ' ' + (el.getAttribute('data-action') || '');
    if (/\bnext\b/i.test(el.getAttribute('rel') || '')) return 'pagination';
    // A long name is a headline or a sentence: what it mentions is not what it does.
    if (name.length <= 40 && name.split(' ').length <= 6) for (const [k, rx] of KINDS) if (rx.test(name)) return k;
    if (href && /[?&](page|p|start|offset)=\d+/i.test(href.search)) return 'pagination';
    if (href && /\/(login|signin|sign-in)\b/i.test(href.pathname)) return 'login';
    if (/\b(add-to-cart|addtocart|add_to_cart)\b/i.test(probe)) return 'add-to-cart';
    return '';
  }
  function fieldType(el) {
    const tag = el.localName;
    if (tag === 'select') return el.multiple ? 'multiselect' : 'select';
    if (tag === 'textarea') return 'textarea';
    if (tag === 'input') return (el.getAttribute('type') || 'text').toLowerCase();
    return role(el) || tag;
  }
  function formFields(form) {
    const els = form.localName === 'form' ? safe(() => [...form.elements], []) : deepAll(form, 'input,select,textarea,[role=textbox],[role=combobox],[role=checkbox],[role=searchbox]');
    return els.filter(el => el.localName !== 'fieldset' && el.localName !== 'object' && el.localName !== 'output' &&
                            !(el.localName === 'input' && /^(hidden|submit|reset|button|image)$/i.test(el.type)) && el.localName !== 'button');
  }
  function formPurpose(form) {
    const fields = formFields(form);
    const types = fields.map(fieldType);
    const text = norm((form.getAttribute('action') || '') + ' ' + (form.id || '') + ' ' + (form.getAttribute('role') || '') + ' ' +
                      (typeof form.className === 'string' ? form.className : '') + ' ' + (form.getAttribute('aria-label') || '') + ' ' +
                      fields.map(f => (f.name || '') + ' ' + accessibleName(f)).join(' ')).toLowerCase();
    const pw = types.filter(t => t === 'password').length;
    if (role(form) === 'search' || safe(() => form.closest('[role=search],search'), null) || types.includes('search') ||
        (/\b(search|query|q)\b/.test(text) && fields.length <= 3 && !pw)) return 'search';
    if (pw >= 2 || (pw && /\b(sign ?up|register|create)\b/.test(text))) return 'signup';
    if (pw === 1) return 'login';
    if (/\b(card|cvc|cvv|expir|billing|payment)\b/.test(text)) return 'payment';
    if (/\b(address|zip|postcode|shipping)\b/.test(text)) return 'address';
    if (/\b(newsletter|subscribe)\b/.test(text) || (fields.length === 1 && types[0] === 'email')) return 'subscribe';
    if (types.includes('textarea') && /\b(email|message|contact)\b/.test(text)) return 'contact';
    if (/\b(comment|reply)\b/.test(text)) return 'comment';
    if (fields.length && fields.every(f => ['select', 'checkbox', 'radio'].includes(fieldType(f)))) return 'filter';
    return '';
  }
  function submitOf(form) {
    const list = safe(() => deepAll(form, 'button,input[type=submit],input[type=image],[role=button]'), []);
    return list.find(b => (b.localName === 'button' && (!b.getAttribute('type') || b.type === 'submit')) || /^(submit|image)$/i.test(b.type || '')) || null;
  }

  // --- collections: repeated structures ----------------------------------------------------------
  function signature(el) {
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(c => c && !/\d{2,}|active|selected|first|last|odd|even/.test(c)).sort().slice(0, 2).join('.') : '';
    return el.localName + (cls ? '.' + cls : '');
  }
  const PRICE_RE = /(?:[$€£¥₹]|\b(?:USD|EUR|GBP|CHF)\b)\s?\d[\d.,]*|\d[\d.,]*\s?(?:[$€£¥₹]|\b(?:USD|EUR|GBP|kr|zł)\b)/;
  const PRICE_BEFORE = /(?:[$€£¥₹]|\b(?:USD|EUR|GBP|CHF)\b)\s?\d[\d.,]*/;  // "$6,499.00" before "2 $" in "Widget 2$6,499.00"
  function priceIn(text) { const m = PRICE_BEFORE.exec(text) || PRICE_RE.exec(text); return m ? m[0] : null; }
  function itemFields(item) {
    const f = [];
    if (safe(() => item.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]'), null)) f.push('title');
    else if (safe(() => item.querySelector('a[href]'), null)) f.push('title');
    if (safe(() => item.querySelector('a[href]'), null) || item.localName === 'a') f.push('link');
    const text = norm(item.textContent).slice(0, 1000);
    if (PRICE_RE.test(text)) f.push('price');
    if (safe(() => item.querySelector('img[alt],img[src]'), null)) f.push('image');
    if (safe(() => item.querySelector('time,[datetime]'), null)) f.push('date');
    if (/\b\d(\.\d)?\s*(out of 5|stars?|\/\s*5)\b/i.test(text) || safe(() => item.querySelector('[aria-label*="star" i],[class*="rating" i]'), null)) f.push('rating');
    const buttons = safe(() => item.querySelectorAll('button,[role=button],input[type=submit]'), []);
    if (buttons.length) f.push('action');
    f.push('text');
    return f;
  }
  function collectionName(parent, items) {
    const label = norm(parent.getAttribute('aria-label') || byIds(parent, 'aria-labelledby'));
    if (label) return clip(label, 40);
    if (parent.localName === 'table' || parent.localName === 'tbody') {
      const cap = safe(() => (parent.closest('table').caption || {}).textContent, '');
      return cap ? clip(norm(cap), 40) : 'rows';
    }
    // the nearest heading before it
    let e = parent;
    for (let i = 0; e && i < 4; i++, e = e.parentElement) {
      let prev = e.previousElementSibling;
      for (let k = 0; prev && k < 3; k++, prev = prev.previousElementSibling) {
        const h = /^h[1-6]$/.test(prev.localName) ? prev : safe(() => prev.querySelector('h1,h2,h3,h4'), null);
        if (h && norm(h.textContent)) return clip(norm(h.textContent), 40);
      }
    }
    const hint = ((parent.id || '') + ' ' + (typeof parent.className === 'string' ? parent.className : '')).toLowerCase();
    for (const w of ['results', 'products', 'items', 'posts', 'articles', 'stories', 'comments', 'reviews', 'news', 'list'])
      if (hint.includes(w.slice(0, -1))) return w;
    const f = itemFields(items[0]);
    return f.includes('price') ? 'products' : items.every(i => i.localName === 'li') ? 'list' : 'items';
  }
  function findCollections() {
    const groups = new Map();  // parent -> Map(signature -> items)
    const consider = el => {
      for (let a = el, depth = 0; a && a.parentElement && depth < 6; depth++, a = a.parentElement) {
        const p = a.parentElement;
        if (p === document.body || p === document.documentElement) break;
        let bySig = groups.get(p);
        if (!bySig) { bySig = new Map(); groups.set(p, bySig); }
        const sig = signature(a);
        if (!bySig.has(sig)) bySig.set(sig, new Set());
        bySig.get(sig).add(a);
      }
    };
    const anchors = safe(() => deepAll(document, 'a[href],button,h2,h3,h4,tr,[itemprop],article'), []).slice(0, 4000);
    for (const a of anchors) consider(a);
    const out = [];
    for (const [parent, bySig] of groups) {
      for (const [sig, itemSet] of bySig) {
        if (itemSet.size < 3) continue;
        const items = [...parent.children].filter(c => signature(c) === sig);
        if (items.length < 3) continue;
        const visible = items.filter(isVisible);
        if (!visible.length) continue;
        const fields = itemFields(items[0]);
        const textual = items.slice(0, 5).every(i => norm(i.textContent).length > 0);
        if (!textual) continue;
        // Records, not layout: an item holding a page's worth of text or links is a column.
        const sample = items.slice(0, 5);
        if (sample.some(i => i.textContent.length > 3000 || safe(() => i.querySelectorAll('a[href],button').length, 0) > 40)) continue;
        // Navigation menus are lists of links too, but the user's data rarely lives there: in a
        // nav, header or footer, plain lists of links stay actions, not collections.
        const lm = landmarkOf(parent);
        if ((lm === 'nav' || lm === 'header' || lm === 'footer') && fields.every(f => f === 'title' || f === 'link' || f === 'text')) continue;
        const richness = fields.length + (fields.includes('price') ? 3 : 0) + (fields.includes('title') && sig.split('.').length > 1 ? 1 : 0);
        const score = Math.log2(items.length + 1) * richness * (lm === 'nav' || lm === 'footer' || lm === 'header' ? 0.3 : 1) *
                      (visible.length ? 1 : 0.5);
        out.push({ parent, items, sig, fields, score, landmark: lm });
      }
    }
    // Tables with header cells are collections with their column names as fields.
    for (const table of safe(() => deepAll(document, 'table'), [])) {
      const rows = safe(() => [...table.querySelectorAll(':scope > tbody > tr, :scope > tr')].filter(r => r.querySelector('td')), []);
      if (rows.length < 3) continue;
      const head = tableHeader(table);
      if (!head.length) continue;
      out.push({ parent: table, items: rows, sig: 'tr', fields: head, table: true, score: Math.log2(rows.length + 1) * (head.length + 2), landmark: landmarkOf(table) });
    }
    // Nested duplicates: keep the outermost-best per parent chain (a grid's inner rows lose).
    out.sort((a, b) => b.score - a.score);
    const kept = [];
    for (const c of out) {
      if (kept.some(k => k.parent === c.parent || (k.table && k.parent.contains(c.parent)) || k.items.some(i => i === c.parent || i.contains(c.parent)))) continue;
      kept.push(c);
    }
    return kept;
  }
  function tableHeader(table) {
    let cells = safe(() => [...table.querySelectorAll(':scope > thead > tr:last-child > th, :scope > thead > tr:last-child > td')], []);
    if (!cells.length) {
      const first = safe(() => table.querySelector('tr'), null);
      if (first && first.querySelector('th') && !first.querySelector('td')) cells = [...first.children];
    }
    const names = cells.map((c, i) => norm(c.textContent).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '_').replace(/^_|_$/g, '').slice(0, 30) || 'col' + (i + 1));
    return names.map((n, i) => (names.indexOf(n) !== i ? n + '_' + (i + 1) : n));
  }

  // --- snapshot -----------------------------------------------------------------------------------
  function interactiveElements() {
    const seen = new Set(), out = [];
    for (const el of safe(() => deepAll(document, CANDIDATES), [])) {
      if (seen.has(el)) continue;
      seen.add(el);
      const r = role(el);
      if (!INTERACTIVE.has(r)) {
        // Clickable generics (onclick, tabindex) count as buttons.
        if (!(el.hasAttribute('onclick') || (el.hasAttribute('tabindex') && el.getAttribute('tabindex') !== '-1')) || r) continue;
      }
      if (r === 'option' && el.localName === 'option') continue;  // <select>'s options belong to it
      out.push(el);
      if (out.length >= MAX_CANDIDATES) break;
    }
    return out;
  }
  function describeAction(el, r, name, kind, lm, fold) {
    const a = { ref: remember(el, r, name), role: r || 'button', name: clip(name) };
    if (kind) a.kind = kind;
    if (lm) a.landmark = lm;
    if (fold) a.fold = true;
    return a;
  }
  function actionScore(el, r, name, kind, lm, fold, visible) {
    let s = visible ? 1 : 0.1;
    if (fold) s += 0.6;
    if (lm === 'main') s += 0.5;
    else if (lm === 'search') s += 0.6;
    else if (lm === 'header') s += 0.3;
    else if (lm === 'nav') s += 0.1;
    else if (lm === 'footer') s -= 0.4;
    if (kind) s += kind === 'search' || kind === 'login' || kind === 'checkout' || kind === 'add-to-cart' || kind === 'pagination' ? 1 : 0.4;
    if (r === 'button') s += 0.3;
    if (!name) s -= 1;
    if (name.length > 60) s -= 0.2;
    return s;
  }
  function matchesQuery(item, opts) {
    if (opts.text) {
      const words = norm(opts.text).toLowerCase().split(' ').filter(Boolean);
      const hay = (item.name + ' ' + (item.kind || '') + ' ' + (item.role || '')).toLowerCase();
      if (!words.some(w => hay.includes(w))) return false;
    }
    return true;
  }
  function snapshot(opts = {}) {
    opts = opts && typeof opts === 'object' ? opts : {};
    if (typeof opts.refPrefix === 'string' && /^(f\d+)?$/.test(opts.refPrefix)) refPrefix = opts.refPrefix;
    const topK = Number(opts.topK) > 0 ? Math.min(500, Math.floor(Number(opts.topK))) : 0;
    const kindWanted = typeof opts.kind === 'string' ? opts.kind.toLowerCase() : '';
    let scope = null;
    if (opts.within) scope = withinScopes([document], String(opts.within))[0];
    const inScope = el => !scope || scope.contains(el) || (el.getRootNode && scope.contains(el.getRootNode().host || null));

    const cols = findCollections().filter(c => inScope(c.parent));
    const colRef = new Map();
    const collections = cols.map(c => {
      const r = remember(c.parent);
      colRef.set(c, r);
      // Every item has its text: the list names what else it has.
      const item = { ref: r, name: collectionName(c.parent, c.items), fields: c.fields.filter(f => f !== 'text'), count: c.items.length };
      if (c.landmark) item.landmark = c.landmark;
      return item;
    });
    const itemOf = el => {
      for (const c of cols) if (c.parent.contains(el)) for (const it of c.items) if (it.contains(el)) return c;
      return null;
    };

    // Forms (and the fields of each), then actions outside them.
    const formEls = safe(() => deepAll(document, 'form,[role=search],[role=form]'), []).filter(f => inScope(f) && isVisible(f));
    const inForm = new Set();
    const forms = [];
    for (const f of formEls) {
      if (forms.length >= 200) break;
      const fields = formFields(f).filter(isVisible);
      if (!fields.length) continue;
      fields.forEach(x => inForm.add(x));
      const submit = submitOf(f);
      if (submit) inForm.add(submit);
      const purpose = formPurpose(f);
      const entry = { ref: remember(f) };
      if (purpose) entry.purpose = purpose;
      const lm = landmarkOf(f);
      if (lm) entry.landmark = lm;
      entry.fields = fields.slice(0, CAPS.fields).map(x => {
        const t = fieldType(x);
        const fd = { ref: remember(x), label: clip(accessibleName(x) || x.getAttribute('name') || '', 60), type: t };
        if (x.name && x.name !== fd.label) fd.name = clip(x.name, 40);
        if (x.required || x.getAttribute('aria-required') === 'true') fd.req = true;
        if (t !== 'password' && typeof x.value === 'string' && x.value && x.value.length <= 40 && !/^(checkbox|radio|submit|button)$/.test(t)) fd.value = x.value;
        if ((t === 'checkbox' || t === 'radio') && x.checked) fd.checked = true;
        return fd;
      });
      if (fields.length > CAPS.fields) entry.moreFields = fields.length - CAPS.fields;
      if (submit) entry.submit = { ref: remember(submit), name: clip(accessibleName(submit) || 'Submit', 40) };
      entry._score = (purpose === 'search' || purpose === 'login' ? 3 : 1) + (aboveFold(f) ? 1 : 0) + (lm === 'main' ? 0.5 : 0);
      forms.push(entry);
    }
    // Fields outside any form: one group.
    const loose = interactiveElements().filter(el => FIELD_ROLES.has(role(el)) && !inForm.has(el) && inScope(el) && isVisible(el));
    if (loose.length) {
      forms.push({ purpose: loose.some(x => fieldType(x) === 'search' || /search|query/i.test(accessibleName(x) + (x.name || ''))) ? 'search' : 'fields',
                   fields: loose.slice(0, CAPS.fields).map(x => ({ ref: remember(x), label: clip(accessibleName(x) || x.getAttribute('name') || '', 60), type: fieldType(x) })),
                   _score: 1.5, ...(loose.length > CAPS.fields ? { moreFields: loose.length - CAPS.fields } : {}) });
      loose.forEach(x => inForm.add(x));
    }

    // Actions: scored, de-duplicated, templated over collections.
    const seenKey = new Map(), templates = new Map(), actions = [];
    for (const el of interactiveElements()) {
      if (inForm.has(el) || !inScope(el)) continue;
      const r = role(el);
      if (FIELD_ROLES.has(r) && r !== 'checkbox' && r !== 'radio' && r !== 'switch') continue;
      const visible = isVisible(el);
      if (!visible) continue;
      const name = accessibleName(el);
      const kind = kindOf(el, name, r);
      const lm = landmarkOf(el), fold = aboveFold(el);
      const col = itemOf(el);
      if (col && name) {
        // One template per (collection, role, name): "Add to cart" × 24.
        const key = colRef.get(col) + '|' + r + '|' + name.toLowerCase();
        const t = templates.get(key);
        if (t) { t.n++; continue; }
        if (r === 'link' && !kind) continue;  // an item's own link is a field of the collection (extract)
        const a = describeAction(el, r, name, kind, lm, fold);
        a.col = colRef.get(col); a.n = 1;
        a._score = actionScore(el, r, name, kind, lm, fold, visible) + 0.5;
        templates.set(key, a);
        actions.push(a);
        continue;
      }
      const href = r === 'link' ? safe(() => new URL(el.href, location.href).pathname.split('/')[1] || '', '') : '';
      const key = r + '|' + name.toLowerCase() + '|' + href;
      const prev = seenKey.get(key);
      if (prev) { prev._dup = (prev._dup || 1) + 1; continue; }
      const a = describeAction(el, r, name, kind, lm, fold);
      a._score = actionScore(el, r, name, kind, lm, fold, visible);
      seenKey.set(key, a);
      actions.push(a);
    }
    for (const a of actions) if (a.n === 1) { delete a.n; }

    // What was asked for.
    let pickA = actions, pickF = forms, pickC = collections;
    if (kindWanted === 'action') { pickF = []; pickC = []; }
    else if (kindWanted === 'form') { pickA = []; pickC = []; }
    else if (kindWanted === 'collection') { pickA = []; pickF = []; }
    else if (kindWanted) {
      pickA = actions.filter(a => a.kind === kindWanted || a.role === kindWanted);
      pickF = forms.filter(f => f.purpose === kindWanted);
      pickC = collections.filter(c => c.name.toLowerCase().includes(kindWanted));
    }
    if (opts.text) {
      pickA = pickA.filter(a => matchesQuery(a, opts));
      pickF = pickF.filter(f => matchesQuery({ name: (f.purpose || '') + ' ' + f.fields.map(x => x.label + ' ' + (x.name || '')).join(' ') }, opts));
      pickC = pickC.filter(c => matchesQuery({ name: c.name + ' ' + c.fields.join(' ') }, opts));
    }
    const capA = topK || CAPS.actions, capF = Math.min(topK || CAPS.forms, 200), capC = Math.min(topK || CAPS.collections, 200);
    pickA = pickA.slice().sort((a, b) => b._score - a._score);
    pickF = pickF.slice().sort((a, b) => b._score - a._score);
    const outA = pickA.slice(0, capA), outF = pickF.slice(0, capF), outC = pickC.slice(0, capC);
    // Page order reads best for the kept actions.
    const order = new Map(actions.map((a, i) => [a, i]));
    outA.sort((a, b) => order.get(a) - order.get(b));

    const clean = o => { const c = { ...o }; delete c._score; delete c._dup; return c; };
    const landmarks = [...new Set(safe(() => deepAll(document, 'main,nav,header,footer,aside,search,[role=main],[role=navigation],[role=banner],[role=contentinfo],[role=complementary],[role=search]'), [])
      .map(landmarkOf).filter(Boolean))];
    const loginState = actions.some(a => a.kind === 'logout') ? 'in' :
      forms.some(f => f.purpose === 'login') || actions.some(a => a.kind === 'login') ? 'out' : 'unknown';
    const result = { url: location.href.slice(0, 300), title: clip(norm(document.title), 120), login: loginState, landmarks,
                     actions: outA.map(clean), forms: outF.map(clean), collections: outC };
    const frames = crossFrames();
    if (frames.length) result.frames = frames;
    const more = {};
    if (pickA.length > outA.length) more.actions = pickA.length - outA.length;
    if (pickF.length > outF.length) more.forms = pickF.length - outF.length;
    if (pickC.length > outC.length) more.collections = pickC.length - outC.length;
    // Stay within the budget: fewer actions, then shorter names.
    let text = JSON.stringify(result);
    while (text.length > BUDGET_CHARS && !topK && result.actions.length > 8) {
      result.actions = result.actions.slice(0, Math.floor(result.actions.length * 0.8));
      more.actions = pickA.length - result.actions.length;
      text = JSON.stringify(result);
    }
    if (text.length > BUDGET_CHARS && !topK) {
      for (const f of result.forms) { f.fields = f.fields.slice(0, 5); }
      result.forms = result.forms.slice(0, 8);
      result.collections = result.collections.slice(0, 10);
    }
    if (Object.keys(more).length) {
      result.more = more;
      result.hint = 'more: snapshot(t, {kind, text, topK}), find(t, "…")';
    }
    return result;
  }

  // --- details --------------------------------------------------------------------------------------
  function details(refs) {
    const list = Array.isArray(refs) ? refs : [refs];
    return list.slice(0, 100).map(r => {
      r = String(r);
      try {
        const el = resolveRef(r);
        const sels = selectorsFor(el);
        const d = { ref: r, role: role(el) || el.localName, name: clip(accessibleName(el), 120), selector: sels[0] || cssPath(el),
                    alternates: sels.slice(1), framePath: [], tag: el.localName, rect: rectOf(el), visible: isVisible(el),
                    enabled: !stateOf(el, 'disabled') };
        for (let win = el.ownerDocument.defaultView, i = 0; win && win.frameElement && i < 10; i++, win = win.parent) d.framePath.unshift(cssPath(win.frameElement));
        const lm = landmarkOf(el);
        if (lm) d.landmark = lm;
        if (el.href) d.href = String(el.href).slice(0, 500);
        if (typeof el.value === 'string' && el.type !== 'password' && el.value) d.value = el.value.slice(0, 200);
        return d;
      } catch (e) {
        return { ref: r, error: e.message };
      }
    });
  }

  // --- find: deterministic ranking (seed 002 §8.2) --------------------------------------------------
  const STOP = new Set(['the', 'a', 'an', 'to', 'of', 'on', 'in', 'for', 'and', 'or', 'with', 'my', 'this', 'that', 'is', 'it', 'at', 'by', 'please', 'click', 'press', 'go']);
  const ROLE_WORDS = { button: ['button'], link: ['link'], field: ['textbox', 'searchbox', 'combobox'], box: ['textbox', 'searchbox', 'combobox'],
                       input: ['textbox', 'searchbox', 'combobox'], textbox: ['textbox'], checkbox: ['checkbox'], tab: ['tab'], menu: ['menuitem', 'button'],
                       dropdown: ['combobox', 'listbox'], select: ['combobox', 'listbox'], radio: ['radio'], toggle: ['switch', 'checkbox'] };
  const tokens = s => norm(s).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(t => t && !STOP.has(t));
  function trigrams(s) {
    const g = new Set(), t = '  ' + s + ' ';
    for (let i = 0; i < t.length - 2; i++) g.add(t.slice(i, i + 3));
    return g;
  }
  function similar(a, b) {
    if (a === b) return 1;
    if (a.length < 3 || b.length < 3) return 0;
    const A = trigrams(a), B = trigrams(b);
    let n = 0;
    for (const x of A) if (B.has(x)) n++;
    return (2 * n) / (A.size + B.size);
  }
  function contextOf(el) {
    const parts = [accessibleName(el), el.getAttribute('placeholder') || '', el.getAttribute('title') || '', el.getAttribute('name') || '',
                   el.id || '', fieldType(el)];
    if (el.href) parts.push(safe(() => new URL(el.href).pathname.replace(/[/_-]+/g, ' '), ''));
    // The nearest heading above it, as context.
    let e = el;
    for (let i = 0; e && i < 5; i++, e = e.parentElement) {
      const h = safe(() => e.querySelector(':scope > h1, :scope > h2, :scope > h3, :scope > h4'), null);
      if (h && !h.contains(el)) { parts.push(norm(h.textContent).slice(0, 80)); break; }
    }
    return parts.join(' ');
  }
  function find(description, opts = {}) {
    opts = opts && typeof opts === 'object' ? opts : {};
    const q = tokens(description);
    if (!q.length) throw new Error('find: describe the element in words ("search box", "next page", "sign in button")');
    const topK = Math.max(1, Math.min(100, Number(opts.topK) || 10));
    const roleHints = new Set();
    for (const t of q) for (const r of ROLE_WORDS[t] || []) roleHints.add(r);
    let scope = opts.within ? withinScopes([document], String(opts.within))[0] : null;
    const cands = [];
    for (const el of interactiveElements()) {
      if (scope && !scope.contains(el)) continue;
      const r = role(el) || 'button';
      if (opts.role && r !== opts.role) continue;
      if (!isVisible(el)) continue;
      cands.push({ el, r, toks: tokens(contextOf(el)), name: accessibleName(el) });
      if (cands.length >= 3000) break;
    }
    if (!cands.length) return [];
    // BM25 over the context strings.
    const df = new Map();
    let avg = 0;
    for (const c of cands) { avg += c.toks.length; for (const t of new Set(c.toks)) df.set(t, (df.get(t) || 0) + 1); }
    avg = avg / cands.length || 1;
    const N = cands.length, k1 = 1.2, b = 0.75;
    const qWords = q.filter(t => !ROLE_WORDS[t] || q.length === 1);
    const want = norm(description).toLowerCase();
    for (const c of cands) {
      let s = 0;
      const tf = new Map();
      for (const t of c.toks) tf.set(t, (tf.get(t) || 0) + 1);
      for (const t of qWords) {
        let f = tf.get(t) || 0, idfTerm = t;
        if (!f) {  // fuzzy: the closest token
          let best = 0, bestTok = '';
          for (const u of tf.keys()) { const sim = similar(t, u); if (sim > best) { best = sim; bestTok = u; } }
          if (best >= 0.5) { f = best * (tf.get(bestTok) || 1); idfTerm = bestTok; }
        }
        if (!f) continue;
        const n = df.get(idfTerm) || 0;
        const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5));
        s += idf * (f * (k1 + 1)) / (f + k1 * (1 - b + (b * c.toks.length) / avg));
      }
      const name = c.name.toLowerCase();
      if (name && name === qWords.join(' ')) s += 3;
      else if (name && qWords.length && name.includes(qWords.join(' '))) s += 1.5;
      if (name && want.includes(name) && name.length > 2) s += 1;
      const kind = kindOf(c.el, c.name, c.r);
      if (kind && q.some(t => kind.includes(t))) s += 1.5;
      if (roleHints.size) s += roleHints.has(c.r) ? 2 : -2;
      const lm = landmarkOf(c.el), fold = aboveFold(c.el);
      if (fold) s += 0.3;
      if (lm === 'main' || lm === 'search') s += 0.3;
      if (lm === 'footer') s -= 0.3;
      c.score = s; c.lm = lm; c.fold = fold;
    }
    cands.sort((a, b) => b.score - a.score);
    const best = cands[0].score > 0 ? cands[0].score : 1;
    return cands.slice(0, topK).filter(c => c.score > 0).map(c => {
      const out = { ref: remember(c.el), role: c.r, name: clip(c.name), score: Math.max(0, Math.round((c.score / best) * 100) / 100) };
      if (c.lm) out.landmark = c.lm;
      if (c.fold) out.fold = true;
      return out;
    });
  }

  // --- extract ------------------------------------------------------------------------------------
  function number(text) {
    const t = norm(text);
    let m = /(-?\d[\d.,\s]*)\s*([kKmM])\b/.exec(t);
    if (m) { const v = parseFloat(m[1].replace(/[,\s]/g, '')); return v * (/k/i.test(m[2]) ? 1e3 : 1e6); }
    m = /-?\d[\d.,]*/.exec(t.replace(/(\d)\s(?=\d{3}\b)/g, '$1'));
    if (!m) return null;
    let s = m[0];
    if (/,\d{1,2}$/.test(s) && !/\.\d/.test(s)) s = s.replace(/\./g, '').replace(',', '.');  // 1.299,00
    else s = s.replace(/,/g, '');
    const v = parseFloat(s);
    return Number.isFinite(v) ? v : null;
  }
  function fieldValue(item, field) {
    const f = field.toLowerCase();
    const q = sel => safe(() => item.querySelector(sel), null);
    switch (f) {
      case 'title': {
        const h = q('h1,h2,h3,h4,h5,h6,[role=heading]') || q('a[href]');
        return h ? clip(norm(h.textContent), 200) : clip(norm(item.textContent), 120);
      }
      case 'link': case 'href': case 'url': {
        const a = item.localName === 'a' ? item : q('a[href]');
        return a ? String(a.href).slice(0, 500) : null;
      }
      case 'price': {
        const m = priceIn(norm(item.textContent));
        return m ? number(m) : null;
      }
      case 'image': { const img = q('img'); return img ? String(img.currentSrc || img.src || '').slice(0, 500) : null; }
      case 'date': { const t = q('time,[datetime]'); return t ? (t.getAttribute('datetime') || norm(t.textContent)) : null; }
      case 'rating': {
        const el = q('[aria-label*="star" i],[class*="rating" i]');
        const src = (el && (el.getAttribute('aria-label') || el.textContent)) || norm(item.textContent);
        const m = /(\d(?:\.\d)?)\s*(?:out of 5|stars?|\/\s*5)/i.exec(src);
        return m ? Number(m[1]) : null;
      }
      case 'action': { const b = q('button,[role=button],input[type=submit]'); return b ? remember(b) : null; }
      case 'text': return clip(norm(item.innerText || item.textContent), 300);
      default: {
        const el = q(`[class*="${CSS.escape(f)}" i],[itemprop="${CSS.escape(f)}" i],[data-field="${CSS.escape(f)}" i],[name="${CSS.escape(f)}" i]`);
        if (!el) return null;
        const v = norm(el.textContent);
        return /price|count|total|amount|qty|quantity|score|votes|rating|num/.test(f) ? number(v) : clip(v, 200);
      }
    }
  }
  function extract(opts = {}) {
    opts = opts && typeof opts === 'object' ? opts : {};
    const limit = Math.max(1, Math.min(2000, Number(opts.limit) || 500));
    let chosen = null;
    const cols = findCollections();
    if (opts.collection) {
      const el = resolveRef(String(opts.collection));
      chosen = cols.find(c => c.parent === el) || cols.find(c => el.contains(c.parent) || c.parent.contains(el)) || null;
      if (!chosen) {
        // A ref of a container we did not see as a collection: its repeated children.
        const kids = [...el.children];
        const sig = kids.length ? signature(kids[0]) : '';
        const items = kids.filter(k => signature(k) === sig);
        if (items.length < 1) throw new Error(`extract: ${opts.collection} has no repeated items`);
        chosen = { parent: el, items, fields: itemFields(items[0]) };
      }
    } else if (opts.text) {
      const words = tokens(opts.text);
      let best = -1;
      for (const c of cols) {
        const hay = tokens(collectionName(c.parent, c.items) + ' ' + c.fields.join(' ') + ' ' + norm(c.items[0].textContent).slice(0, 200));
        const s = words.filter(w => hay.some(h => similar(w, h) >= 0.6)).length + c.score / 100;
        if (s > best) { best = s; chosen = c; }
      }
    } else {
      chosen = cols.slice().sort((a, b) => b.items.length * b.fields.length - a.items.length * a.fields.length)[0] || null;
    }
    if (!chosen) throw new Error('extract: no repeated structure on this page (a list, grid or table of at least 3 alike items); snapshot() lists the collections');
    const fields = Array.isArray(opts.fields) && opts.fields.length ? opts.fields.map(String).slice(0, 30) : chosen.fields;
    const rows = [];
    if (chosen.table) {
      const head = tableHeader(chosen.parent);
      for (const tr of chosen.items.slice(0, limit)) {
        const cells = [...tr.children];
        const row = {};
        for (const f of fields) {
          const i = head.indexOf(f.toLowerCase());
          if (i < 0 || !cells[i]) { row[f] = null; continue; }
          const text = norm(cells[i].textContent);
          const a = cells[i].querySelector('a[href]');
          row[f] = /^[-+]?[$€£¥]?\s?\d[\d.,\s]*%?$/.test(text) ? number(text) : clip(text, 300);
          if (a && /link|url|href/.test(f)) row[f] = String(a.href);
        }
        const link = tr.querySelector('a[href],button');
        if (link) row.ref = remember(link);
        rows.push(row);
      }
    } else {
      for (const item of chosen.items.slice(0, limit)) {
        const row = {};
        for (const f of fields) row[f] = fieldValue(item, f);
        const main = item.localName === 'a' ? item : safe(() => item.querySelector('a[href],button'), null);
        if (main) row.ref = remember(main);
        rows.push(row);
      }
    }
    const out = { collection: remember(chosen.parent), fields, rows, total: chosen.items.length };
    if (chosen.items.length > limit) out.truncated = true;
    return out;
  }

  Object.defineProperty(globalThis, '__ouroPcd', {
    value: Object.freeze({ snapshot: entry(snapshot), details: entry(details), find: entry(find), extract: entry(extract),
                           resolveAll: entry(resolveAll), resolve: entry(s => resolveAll(s)[0] || null), role, accessibleName }),
    enumerable: false,
  });
})();

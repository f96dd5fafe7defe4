// The command binder: a command's target as a person
// wrote it — "the Sign in button", "Email field", "the third link", "alpha" — becomes one element
// of the page, or an answer saying why not: nothing matches, or several match about as well
// (listed, best first). Never a guess below the confidence threshold. Deterministic; runs in
// ouro's isolated world after affordances.js, whose element facts (__ouroPcd.elements) it reads.
//
// API (globalThis.__ouroBind):
//   bind({verb, name?, exact?, roles?: canonical role words, ordinal?: 1-based | -1, all?, within?})
//     -> {ok: true, matches: [{ref, role, name, confidence, how}]}
//      | {ok: false, reason: 'none'|'ambiguous'|'hidden', candidates: [{ref, role, name, score}], reveal?: ref}
//   choose(value, {within?}) -> where a value to pick lives (an option of a list, a radio or checkbox
//     label, a tab, a list item): {ok, kind: 'option'|'control'|'click', ref, option?, role, name, confidence}
//     | {ok: false, reason, candidates}
//   state(ref) -> {tag, role, checked?, value?, selected?: [texts], expanded?, focused, url}
//   submitFor(ref?) -> the submit control of the field's form (or of the page's one form): {ref, name} | null
//   bindKept({...bind's spec, kept?: [{shape, selector, role, name, confidence}], keep?}) -> bind() through
//     the action cache (see bindKept); shape() -> this page's shape for the cache
(() => {
  if (globalThis.__ouroBind) return;
  const P = globalThis.__ouroPcd;
  if (!P) return;

  const THRESHOLD = 0.5;    // below this, no element is taken
  const MARGIN = 0.1;       // a runner-up this close makes the target ambiguous
  const MAX_TEXT_NODES = 20000;

  // A label's forms and typo test: the page engine's, one for the three scripts.
  const { norm, key, alnum, words: wordsOf, editClose: oneEdit } = P.text;  // oneEdit: "serch", "sigin"
  const attr = (el, n) => { try { return el.getAttribute(n); } catch (_) { return null; } };

  const FAMILY = {
    button: ['button'], link: ['link'], textbox: ['textbox', 'searchbox', 'combobox', 'spinbutton'],
    searchbox: ['searchbox', 'textbox', 'combobox'], checkbox: ['checkbox', 'switch', 'menuitemcheckbox'],
    radio: ['radio', 'menuitemradio'], list: ['combobox', 'listbox'], tab: ['tab'],
    option: ['option', 'radio', 'menuitemradio', 'checkbox', 'menuitem', 'treeitem'],
    menuitem: ['menuitem', 'menuitemcheckbox', 'menuitemradio'], menu: ['button', 'menuitem', 'combobox', 'link'],
    box: ['checkbox', 'textbox', 'searchbox', 'combobox', 'spinbutton'], switch: ['switch', 'checkbox'], slider: ['slider'],
    heading: ['heading', 'button', 'tab'], image: ['img', 'button', 'link'], section: ['button', 'tab', 'heading', 'link'],
    spinbutton: ['spinbutton', 'textbox'], textinput: ['textbox', 'searchbox', 'spinbutton'], textarea: ['textbox'],
  };
  // Kinds named by what the element is, not by its label ("a "text" widget"): a stricter test than the role.
  const KIND_TEST = {
    textinput: c => c.el.localName === 'input',
    textarea: c => c.el.localName === 'textarea' || (c.el.isContentEditable && c.el.localName !== 'input'),
  };
  const kindOk = (c, roles) => (roles || []).every(r => !KIND_TEST[r] || KIND_TEST[r](c));
  // What a verb can act on at all (an element outside is never taken for it).
  const TEXT_ROLES = ['textbox', 'searchbox', 'combobox', 'spinbutton'];
  const VERB_ROLES = {
    type: TEXT_ROLES, clear: TEXT_ROLES,
    check: ['checkbox', 'switch', 'menuitemcheckbox', 'radio', 'menuitemradio'],
    uncheck: ['checkbox', 'switch', 'menuitemcheckbox'],
    select: ['combobox', 'listbox'],
  };
  const SYNONYMS = {
    x: ['close', '×', '✕', '✖', 'dismiss'], '×': ['close', 'x'], close: ['×', 'x', '✕', 'dismiss'], ok: ['okay'], okay: ['ok'],
    'sign in': ['log in', 'login', 'signin'], 'log in': ['sign in', 'login', 'signin'], login: ['log in', 'sign in'],
    'sign up': ['register', 'create account'], register: ['sign up'], search: ['go', 'find'], next: ['›', '»', 'continue'],
    previous: ['‹', '«', 'back', 'prev'], cancel: ['no'], yes: ['ok', 'confirm'], submit: ['send', 'go'],
    continue: ['next', 'proceed'], proceed: ['continue', 'next'], 'create account': ['sign up', 'register', 'create my account'],
    'add to cart': ['add to basket', 'add to bag'], 'add to basket': ['add to cart'], checkout: ['check out', 'proceed to checkout'],
    delete: ['remove', 'trash'], remove: ['delete'], save: ['save changes'], 'save changes': ['save'],
    'next page': ['next', '›', '»', 'older'], 'previous page': ['previous', 'prev', '‹', '«', 'newer'],
    username: ['user name', 'email', 'e-mail', 'login', 'user id', 'email address'], 'user name': ['username', 'email'],
    email: ['e-mail', 'email address', 'e-mail address'], 'e-mail': ['email', 'email address'],
    password: ['passcode', 'pass word'], 'zip code': ['zip', 'postal code', 'postcode'], 'postal code': ['zip code', 'postcode', 'zip'],
  };

  function textEntry(c) {
    if (TEXT_ROLES.includes(c.role)) return !(c.el.localName === 'select');
    const t = c.el.localName;
    if (t === 'textarea') return true;
    if (t === 'input') return !/^(checkbox|radio|button|submit|reset|image|file|range|color|hidden)$/i.test(attr(c.el, 'type') || '');
    return false;
  }
  // A button that opens a list of options (a custom dropdown).
  const popupList = c => c.role === 'button' && /^(listbox|true|menu)$/.test(String(attr(c.el, 'aria-haspopup') || '').toLowerCase());
  function allowedFor(verb, c) {
    if (verb === 'type' || verb === 'clear') return textEntry(c);
    if (verb === 'set') return textEntry(c) || c.el.localName === 'select' || c.role === 'listbox' || c.role === 'slider' || popupList(c);
    if (verb === 'select' && popupList(c)) return true;
    if (verb === 'focus') return c.field;
    const v = VERB_ROLES[verb];
    return !v || v.includes(c.role) || (verb === 'select' && c.el.localName === 'select');
  }
  // A control dressed as another kind: a link styled as a tab or a button (class names, a tab list around it).
  function dressedAs(c, roles) {
    try {
      const cls = String(c.el.className || '').toLowerCase();
      for (const r of roles || []) {
        if (r === 'tab' && (/\btab/.test(cls) || c.el.closest('[role=tablist],.tabs,.tablist,.nav-tabs,.tab-list'))) return true;
        if (r === 'button' && (c.role === 'link' || c.pseudo) && /\bbtn|button/.test(cls)) return true;
        if (r === 'link' && c.pseudo && /link/.test(cls)) return true;
      }
    } catch (_) {}
    return false;
  }
  function family(roles) {
    const out = new Set();
    for (const r of roles || []) for (const x of FAMILY[r] || [r]) out.add(x);
    return out;
  }

  // How well an element's texts say `want`: 1 exact … 0.
  function textsOf(c) {
    const el = c.el, out = [[c.name, 1, 'name']];
    for (const l of c.labels || []) out.push([l, 1, 'label']);
    const ph = attr(el, 'placeholder'); if (ph) out.push([ph, 0.95, 'placeholder']);
    const ti = attr(el, 'title'); if (ti) out.push([ti, 0.9, 'title']);
    const al = attr(el, 'aria-label'); if (al) out.push([al, 1, 'label']);
    if (c.el.localName === 'input' && /^(button|submit|reset)$/i.test(attr(el, 'type') || '')) out.push([el.value, 1, 'value']);
    // "the date", "the time", "the search box": a field is also what its type says it takes.
    if (c.el.localName === 'input') {
      const ty = String(attr(el, 'type') || '').toLowerCase();
      // Weaker than any label: two password fields are told apart by theirs, not by their type.
      if (/^(date|time|datetime-local|month|week|search|color|range)$/.test(ty))
        out.push([{ 'datetime-local': 'date and time', range: 'slider' }[ty] || ty, 0.9, 'type']);
    }
    if (!c.field) { const t = c.text != null ? c.text : (c.text = P.textOf(el)); if (t && t.length <= 200) out.push([t, 0.9, 'text']); }
    if (!c.field && c.role !== 'link' || c.pseudo) {
      // A clickable card is named by its heading ("Pro" for the card "Pro · $19/mo · For professionals").
      try { const h = el.querySelector('h1,h2,h3,h4,h5,h6,[class*=title],[class*=name]'); if (h && h !== el) { const ht = norm(h.textContent); if (ht && ht.length <= 80) out.push([ht, 0.95, 'heading']); } } catch (_) {}
    }
    if (c.field && !c.name && !(c.labels || []).length) {
      // A box or field with no label of its own is named by the words beside it (a person reads
      // "☐ Partner offers" as the Partner offers box): its parent's short text.
      try {
        const t = norm(el.parentElement && el.parentElement.textContent);
        if (t && t.length <= 80 && el.parentElement.querySelectorAll('input,select,textarea,button').length === 1) out.push([t, 0.85, 'beside']);
        // In a table: the row's heading cell ("City | [    ]").
        const cell = el.closest('td,th');
        if (!t && cell && cell.querySelectorAll('input,select,textarea').length === 1) {
          const prev = cell.previousElementSibling;
          const pt = prev && !prev.querySelector('input,select,textarea,button') ? norm(prev.textContent) : '';
          if (pt && pt.length <= 60) out.push([pt, 0.85, 'beside']);
        }
      } catch (_) {}
    }
    if (!c.vis) {
      // A control in a closed panel has no accessible name; its label still says what it is.
      try { for (const l of el.labels || []) out.push([norm(l.textContent).slice(0, 200), 1, 'label']); } catch (_) {}
      if (!c.field && !c.name) out.push([norm(el.textContent).slice(0, 200), 0.9, 'text']);
    }
    return out;
  }
  function phraseIn(tw, ww) {
    outer: for (let i = 0; i + ww.length <= tw.length; i++) {
      for (let j = 0; j < ww.length; j++) if (tw[i + j] !== ww[j]) continue outer;
      return true;
    }
    return false;
  }
  function textScore(t, want) {
    const kt = key(t);
    if (!kt) return 0;
    if (kt === want.k) return norm(t).toLowerCase() === want.raw ? 1 : 0.97;
    if (alnum(t) === want.a && want.a) return 0.95;
    const tw = wordsOf(t), ww = want.w;
    if (!ww.length || !tw.length) return 0;
    if (phraseIn(tw, ww)) return 0.6 + 0.3 * (ww.length / tw.length);
    if (ww.every(x => tw.includes(x))) return 0.55 + 0.2 * (ww.length / tw.length);
    // The control says most of what was asked, from its start ("Accept all" for "accept all cookies").
    if (tw.length >= 2 && ww.length === tw.length + 1 && tw.every((x, i) => ww[i] === x)) return 0.5 + 0.2 * (tw.length / ww.length);
    const hit = ww.filter(x => tw.includes(x) || tw.some(y => oneEdit(x, y))).length;
    if (ww.length === 1) return hit && tw.length <= 3 ? 0.5 : 0;
    return hit / ww.length >= 0.6 ? 0.45 * hit / ww.length + 0.1 * (hit / tw.length) : 0;
  }
  const wantOf = (s, weight) => ({ k: key(s), a: alnum(s), w: wordsOf(s), raw: norm(s).toLowerCase(), weight });
  function wants(name) {
    const base = wantOf(name, 1);
    const out = [base];
    for (const s of SYNONYMS[base.a] || SYNONYMS[base.k] || []) out.push(wantOf(s, 0.9));
    return out;
  }
  function nameScore(c, ws, exact) {
    let best = 0, how = '';
    for (const [t, weight, src] of textsOf(c))
      for (const w of ws) {
        let s = textScore(t, w) * weight * w.weight;
        if (exact && s < 0.95) s *= 0.9;   // quoted: exact text first
        if (s > best) { best = s; how = src; }
      }
    if (best < 0.5 && ws[0].w.length) {
      const a = wordsOf(`${attr(c.el, 'id') || ''} ${attr(c.el, 'name') || ''} ${attr(c.el, 'data-testid') || ''}`.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2'));
      if (ws[0].w.every(x => a.includes(x))) { best = 0.55; how = 'attribute'; }
    }
    return [best, how];
  }

  // Page elements styled as controls without being ones (a span.link with a click handler).
  function pseudoControls(scope, known) {
    const out = [];
    let list = [];
    try { list = (scope || document).querySelectorAll('[class*=link],[class*=btn],[class*=button],[class*=click],[class*=tab],[class*=option],[class*=item],[style*=pointer]'); } catch (_) {}
    for (let i = 0; i < list.length && out.length < 500; i++) {
      const el = list[i];
      if (known.has(el)) continue;
      try {
        if (el.querySelector('a[href],button,input,select,textarea')) continue;
        if (getComputedStyle(el).cursor !== 'pointer') continue;
        if (el.parentElement && getComputedStyle(el.parentElement).cursor === 'pointer' && !known.has(el.parentElement)) continue;
        const cls = String(el.className || '').toLowerCase();
        const role = /link/.test(cls) ? 'link' : /tab/.test(cls) ? 'tab' : /option|item/.test(cls) ? 'option' : 'button';
        const r = el.getBoundingClientRect();
        out.push({ el, role, name: norm(el.textContent).slice(0, 80), field: false, kind: '', order: 1e6 + i, vis: r.width > 0 && r.height > 0 && P.visible(el), pseudo: true, labels: [] });
      } catch (_) {}
    }
    return out;
  }

  // The text of the request itself, when the page shows it (a task's instruction box): never a target.
  let INSTRUCTION = null;
  function echoesInstruction(el) {
    if (!INSTRUCTION || INSTRUCTION.size < 2) return false;
    try {
      for (let n = el, k = 0; n && k < 6; n = n.parentElement || (n.getRootNode && n.getRootNode().host) || null, k++) {
        if (n === document.body || n === document.documentElement) break;
        const tw = wordsOf(String(n.textContent || '').slice(0, 600));
        if (tw.length < Math.min(4, INSTRUCTION.size)) continue;
        if (tw.length > 120) break;
        // Mostly the request's words, and most of the request (a product card shares a few words with it; the request shown does not stop there).
        const inside = tw.filter(w => INSTRUCTION.has(w)).length;
        const covered = [...INSTRUCTION].filter(w => tw.includes(w)).length;
        if (inside / tw.length >= 0.8 && covered / INSTRUCTION.size >= 0.6 && inside >= Math.min(4, INSTRUCTION.size)) return true;
      }
    } catch (_) {}
    return false;
  }
  // Open shadow roots of the page (bounded), for text inside web components.
  function shadowRootsOf(root) {
    const out = [];
    try {
      const all = root.querySelectorAll('*');
      for (let i = 0; i < all.length && i < 20000 && out.length < 200; i++) if (all[i].shadowRoot) { out.push(all[i].shadowRoot); out.push(...shadowRootsOf(all[i].shadowRoot)); }
    } catch (_) {}
    return out;
  }
  const parentOf = n => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  // Does `a` hold `b`, across shadow roots?
  function holds(a, b) {
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    return false;
  }

  // Icons: clickable elements without text, named only by a class, a title or an aria-label
  // ("the star icon", "the trash icon", a retweet glyph drawn by CSS).
  function iconControls(name, scope, known) {
    const ww = wordsOf(name);
    if (!ww.length) return [];
    const out = [];
    let list = [];
    try { list = (scope || document).querySelectorAll('[class]'); } catch (_) {}
    for (let i = 0, n = 0; i < list.length && n < 5000 && out.length < 200; i++, n++) {
      const el = list[i];
      if (known.has(el)) continue;
      try {
        const cw = wordsOf(String(el.className && el.className.baseVal != null ? el.className.baseVal : el.className).replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2'));
        if (!cw.length || !ww.some(w => cw.includes(w))) continue;
        if (norm(el.textContent).replace(/[^\p{L}\p{N}]/gu, '').length > 0) continue;
        if (el.querySelector('a[href],button,input,select,textarea')) continue;
        if (getComputedStyle(el).cursor !== 'pointer') continue;
        const r = el.getBoundingClientRect();
        const hint = cw.filter(w => !/^(icon|ico|fa|glyph|btn|button|ui|js|material|symbols|outlined|clicked|active|selected)$/.test(w)).join(' ');
        out.push({ el, role: 'button', name: hint, field: false, kind: '', order: 1.5e6 + i, vis: r.width > 0 && r.height > 0 && P.visible(el), pseudo: true, icon: true, labels: [] });
      } catch (_) {}
    }
    return out;
  }

  // The smallest elements whose own text says `name` (for text that is not a control).
  function textHits(name, scope, anchor) {
    const want = wantOf(name, 1);
    if (!want.k) return [];
    const out = [];
    const root = scope || document.body || document.documentElement;
    if (!root) return out;
    const roots = [root, ...shadowRootsOf(root)];
    let n = 0, node;
    const seen = new Set();
    for (const r of roots) {
    const walker = document.createTreeWalker(r, NodeFilter.SHOW_TEXT);
    while ((node = walker.nextNode()) && n++ < MAX_TEXT_NODES && out.length < 50) {
      const v = node.nodeValue;
      if (!v || !v.trim() || !alnum(v).includes(want.a)) continue;
      let el = node.parentElement;
      if (!el || seen.has(el) || /^(script|style|noscript|template|option)$/.test(el.localName)) continue;
      // The whole text of the element (a name split over inline elements).
      for (let up = 0; up < 3 && el.parentElement && key(el.textContent).length < want.k.length; up++) el = el.parentElement;
      seen.add(el);
      const s = textScore(el.textContent, want);
      if (s < THRESHOLD) continue;
      // Plain text is a target only when it is mostly the words asked for, never a sentence that
      // merely holds them, and never the request itself shown on the page.
      if (!anchor && wordsOf(el.textContent).length > Math.max(4, 2 * want.w.length + 1)) continue;
      if (echoesInstruction(el)) continue;
      let target = el;
      try { const c = el.closest('a,button,[role],[onclick],label,summary'); if (c && norm(c.textContent).length <= Math.max(40, 2 * norm(el.textContent).length + 10)) target = c; } catch (_) {}
      out.push({ el: target, role: P.role(target) || 'text', name: norm(target.textContent).slice(0, 80), field: false, order: 2e6 + out.length, vis: P.visible(target), labels: [], score: s * 0.9, how: 'text' });
    }
    }
    return out;
  }

  function related(a, b) {
    try {
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) return true;
      if (a.el.labels && [...a.el.labels].some(l => l === b.el || l.contains(b.el))) return true;
      if (b.el.labels && [...b.el.labels].some(l => l === a.el || l.contains(a.el))) return true;
    } catch (_) {}
    return false;
  }
  function docOrder(a, b) {
    if (a.el === b.el) return 0;
    try { return a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1; } catch (_) { return a.order - b.order; }
  }
  function modalRoot() {
    try {
      for (const d of document.querySelectorAll('dialog[open],[role=dialog],[role=alertdialog],[aria-modal=true]'))
        if (P.visible(d)) return d;
    } catch (_) {}
    return null;
  }
  function out(c, confidence, how) {
    return { ref: P.refOf(c.el), role: c.role, name: c.name, confidence: Math.round(Math.min(1, confidence) * 100) / 100, how };
  }
  // Candidates as the error lists them; those that share a name (three "Buy" buttons) say which
  // row or card each belongs to.
  function listed(cs) {
    const shown = cs.slice(0, 5);
    const names = new Map();
    for (const c of shown) names.set(c.name, (names.get(c.name) || 0) + 1);
    return shown.map(c => {
      const o = { ref: P.refOf(c.el), role: c.role, name: c.name, score: Math.round((c.score || 0) * 100) / 100 };
      if (names.get(c.name) > 1 && P.itemWords) { const item = P.itemWords(c.el); if (item) o.item = item; }
      return o;
    });
  }

  // The element (tab, summary, toggle) that shows a hidden one.
  function revealer(el) {
    try {
      for (let n = el; n && n !== document.body; n = n.parentElement) {
        if (n.localName === 'details' && !n.open) { const s = n.querySelector(':scope > summary'); if (s) return s; }
        const id = n.id;
        if (id) {
          const esc = CSS.escape(id);
          const c = document.querySelector(`[aria-controls~="${esc}"],a[href="#${esc}"],[data-target="#${esc}"],[data-bs-target="#${esc}"]`);
          if (c && P.visible(c)) return c;
        }
        const lb = attr(n, 'aria-labelledby');
        if (n.getAttribute && attr(n, 'role') === 'tabpanel' && lb) { const t = document.getElementById(lb.split(/\s+/)[0]); if (t && P.visible(t)) return t; }
        // A hidden branch (a folder's files, a submenu, a "more" menu) is shown by what stands just before it.
        if (n !== el && (n.hidden || getComputedStyle(n).display === 'none')) {
          for (let p = n.previousElementSibling, k = 0; p && k < 3; p = p.previousElementSibling, k++) {
            if (!P.visible(p)) continue;
            if (attr(p, 'aria-expanded') === 'false' || attr(p, 'aria-haspopup') || getComputedStyle(p).cursor === 'pointer' || /^(button|summary)$/.test(p.localName)) return p;
          }
        }
      }
    } catch (_) {}
    return null;
  }

  // The candidates closest to a text ("Remove in the row for Bob"): from each place the text is
  // written, the first enclosing element that holds any candidate; its candidates win.
  function nearest(list, text) {
    let hits = textHits(text, null, true).filter(h => h.vis !== false);
    if (!hits.length) return { ok: false, reason: 'none', message: `no "${text}" on the page to look next to`, candidates: [] };
    // Where the text is written as itself ("@nulla"), not where a longer text mentions it.
    const best = Math.max(...hits.map(h => h.score));
    hits = hits.filter(h => h.score >= best - 0.05);
    const won = new Set();

    for (const h of hits) {
      for (let a = h.el; a && a !== document.documentElement; a = parentOf(a)) {
        const inside = list.filter(c => holds(a, c.el) && c.el !== h.el);
        if (inside.length) { for (const c of inside) won.add(c); break; }
      }
    }
    if (!won.size) return { ok: false, reason: 'none', message: `nothing like that next to "${text}"`, candidates: listed(list) };
    return { ok: true, list: list.filter(c => won.has(c)) };
  }

  function bind(spec) {
    const s = spec && typeof spec === 'object' ? spec : {};
    const verb = String(s.verb || 'click');
    INSTRUCTION = s.instruction ? new Set(wordsOf(String(s.instruction).slice(0, 2000))) : INSTRUCTION;
    const name = norm(s.name || '');
    const within = s.within ? (s.within === 'form' ? 'css=form' : s.within) : null;
    let cands;
    try { cands = P.elements(within); } catch (e) { return { ok: false, reason: 'none', message: String(e && e.message || e), candidates: [] }; }
    const known = new Set(cands.map(c => c.el));
    const scopeEl = within ? (P.resolveAll(within === 'dialog' ? 'role=dialog' : within)[0] || null) : null;
    if (verb === 'click' || verb === 'hover' || verb === 'expand' || verb === 'collapse' || verb === 'any') {
      cands = cands.concat(pseudoControls(scopeEl, known));
      if (name) { for (const c of cands) known.add(c.el); cands = cands.concat(iconControls(name, scopeEl, known)); }
    }
    const fam = family(s.roles);
    if (fam.has('listbox')) for (const c of cands) if (popupList(c)) c.role = 'combobox';
    const roleFit = c => {
      if (!fam.size) return 0;
      if (fam.has(c.role)) return 0;
      // "box": whatever the verb takes; "button" also finds links and inputs dressed as buttons.
      return s.roles.includes('button') && (c.role === 'link' || c.pseudo) ? -0.15 : -0.3;
    };
    const ws0 = name ? 1 : 0;
    // Without a name the role words are all there is to go on: "the third link" counts links only.
    cands = cands.filter(c => allowedFor(verb, c) && (!fam.size || (ws0 ? roleFit(c) > -0.3 || verb === 'click' || verb === 'any' : fam.has(c.role) || dressedAs(c, s.roles))));
    // A kind named in quotes ("a "text" widget") is what the element is: nothing else is taken.
    if ((s.roles || []).some(r => KIND_TEST[r])) cands = cands.filter(c => fam.has(c.role) && kindOk(c, s.roles));
    if (verb === 'expand') {
      cands = cands.filter(c => P.stateOf(c.el, 'expanded') === false || c.el.localName === 'summary' || c.role === 'tab' || c.pseudo || attr(c.el, 'aria-expanded') != null);
      // Without a name, what says it is collapsed is what can be expanded.
      const closed = cands.filter(c => c.vis && (attr(c.el, 'aria-expanded') === 'false' || (c.el.localName === 'summary' && P.stateOf(c.el, 'expanded') === false)));
      if (!name && closed.length) cands = closed;
    }
    if (verb === 'collapse') cands = cands.filter(c => P.stateOf(c.el, 'expanded') === true || c.el.localName === 'summary');
    const modal = modalRoot();
    const ws = name ? wants(name) : null;
    for (const c of cands) {
      let sc, how;
      if (ws) [sc, how] = nameScore(c, ws, !!s.exact);
      else {
        sc = fam.size || VERB_ROLES[verb] || verb === 'type' || verb === 'focus' || verb === 'expand' ? 0.8 : 0.3; how = 'role';
        // Of a family, the kind named first wins: "the search box" is the searchbox, not the newsletter's email field.
        if (fam.size && s.roles.length && fam.has(c.role) && c.role !== s.roles[0] && FAMILY[s.roles[0]]) {
          const searchy = s.roles[0] === 'searchbox' && /search/i.test(`${c.name} ${attr(c.el, 'placeholder') || ''} ${attr(c.el, 'type') || ''} ${attr(c.el, 'id') || ''} ${attr(c.el, 'name') || ''}`);
          if (!searchy) sc -= 0.15;
        }
      }
      sc += roleFit(c);
      if (modal && !modal.contains(c.el)) sc -= 0.2;
      if (c.icon) { sc *= 0.85; how = 'icon class'; }
      c.score = sc; c.how = how;
    }
    let pool = cands.filter(c => c.score >= THRESHOLD);
    // Words that name no control may be plain text (a clickable span, a list item).
    if (ws && (verb === 'click' || verb === 'hover' || verb === 'any') && !pool.some(c => c.score >= 0.9))
      for (const h of textHits(name, scopeEl)) if (!pool.some(p => related(p, h))) pool.push(h);
    // "Retweet for @nulla": only what shares the nearest item with that text, shown or not.
    let nearDone = false;
    if (s.near && pool.length) {
      const close = nearest(pool, norm(s.near));
      if (!close.ok) return close;
      pool = close.list;
      nearDone = true;
    }
    const visible = pool.filter(c => c.vis);
    if (!visible.length) {
      const hidden = pool.sort((a, b) => b.score - a.score)[0];
      const rv = hidden ? revealer(hidden.el) : null;
      let near = cands.filter(c => c.vis && c.score > 0.2).sort((a, b) => b.score - a.score);
      // Nothing close: what there is of the kind asked for, so the person can name one.
      if (!near.length && fam.size) near = cands.filter(c => c.vis && fam.has(c.role)).sort(docOrder).map(c => ({ ...c, score: 0 }));
      return { ok: false, reason: hidden ? 'hidden' : 'none', candidates: listed(hidden ? [hidden] : near), reveal: rv ? P.refOf(rv) : undefined,
               hiddenRef: hidden ? P.refOf(hidden.el) : undefined };
    }
    if (s.ordinal) {
      // "the last Remove link": the ones named exactly, when there are any, not "Remove all items".
      const topScore = Math.max(...visible.map(c => c.score));
      const tier = ws && topScore >= 0.95 ? visible.filter(c => c.score >= 0.95) : visible;
      const seq = tier.slice().sort(docOrder);
      // Drop labels/inner parts of the same control.
      const uniq = [];
      for (const c of seq) if (!uniq.some(u => related(u, c))) uniq.push(c);
      // "the third link" counts the page's content, not its menus, when the content has enough of them.
      if (!within && !s.near) {
        let main = null;
        try { main = document.querySelector('main,[role=main]'); } catch (_) {}
        const inMain = main ? uniq.filter(c => main.contains(c.el)) : [];
        if (inMain.length && inMain.length < uniq.length && inMain.length >= Math.abs(s.ordinal)) uniq.splice(0, uniq.length, ...inMain);
      }
      const i = s.ordinal < 0 ? uniq.length + s.ordinal : s.ordinal - 1;
      if (i < 0 || i >= uniq.length) return { ok: false, reason: 'none', message: `there are ${uniq.length}, not ${Math.abs(s.ordinal)}`, candidates: listed(uniq) };
      return { ok: true, matches: [out(uniq[i], Math.min(0.95, uniq[i].score + 0.1), `${s.ordinal < 0 ? 'last' : '#' + s.ordinal} of ${uniq.length}`)] };
    }
    if (s.near && !nearDone) {
      const close = nearest(visible, norm(s.near));
      if (!close.ok) return close;
      visible.splice(0, visible.length, ...close.list);
    }
    visible.sort((a, b) => b.score - a.score || docOrder(a, b));
    if (s.all) {
      const uniq = [];
      for (const c of visible.slice().sort(docOrder)) if (!uniq.some(u => related(u, c))) uniq.push(c);
      return { ok: true, matches: uniq.slice(0, 50).map(c => out(c, c.score, c.how)) };
    }
    const top = visible[0];
    const rivals = visible.slice(1).filter(c => c.score >= top.score - MARGIN && !related(c, top));
    // An exact name beats near-exact ones ("Save" over "Save as…"; "justo" over "justo.").
    const clear = (top.score >= 0.95 && rivals.every(r => r.score < 0.95 - 1e-9)) || (top.score >= 0.999 && rivals.every(r => r.score < 0.999));
    if (rivals.length && !clear && ws) {
      // Equal names that differ only in case: the one written as asked ("Next", not "next").
      const same = [top, ...rivals].filter(c => textsOf(c).some(([t]) => norm(t) === name));
      if (same.length === 1 && top.score >= 0.95) return { ok: true, matches: [out(same[0], same[0].score, same[0].how + ', same case')] };
    }
    if (rivals.length && !clear) {
      return { ok: false, reason: 'ambiguous', candidates: listed([top, ...rivals]) };
    }
    return { ok: true, matches: [out(top, top.score, top.how)] };
  }

  function optionTexts(sel) {
    const out = [];
    try { for (const o of sel.options || []) out.push({ o, t: norm(o.label || o.textContent), v: o.value }); } catch (_) {}
    return out;
  }

  // The name of the group a choice belongs to: the fieldset's legend, the radio group's or the list's label.
  function groupName(c) {
    try {
      const el = c.el;
      if (el.localName === 'select') return norm((c.labels || []).join(' ') || c.name);
      const g = el.closest('fieldset,[role=radiogroup],[role=group],[role=listbox],[role=tablist],[role=menu]');
      if (!g) return '';
      if (g.localName === 'fieldset') { const l = g.querySelector(':scope > legend'); if (l) return norm(l.textContent).slice(0, 120); }
      return norm(P.accessibleName(g)).slice(0, 120);
    } catch (_) { return ''; }
  }
  // "Express shipping" for the radio "Express" of "Shipping speed": the value said with its group's words.
  function withGroup(label, group, want) {
    if (!label) return 0;
    const own = wordsOf(label), gw = wordsOf(group);
    if (!own.length || !want.w.some(w => own.includes(w))) return 0;
    if (!want.w.every(w => own.includes(w) || gw.includes(w))) return 0;
    return 0.85 * Math.max(textScore(`${label} ${group}`, want), textScore(`${group} ${label}`, want), 0.6);
  }

  // "the Pro plan", "the Large size": a card or item says "Pro"; the last word says what kind of thing it is.
  const KIND_NOUNS = /^(plan|plans|option|tier|package|bundle|card|size|version|edition|subscription|account|mode|theme|color|colour|layout|style|model)$/i;
  function choose(value, opts) {
    const r = chooseOne(value, opts);
    const w = norm(value).split(' ');
    if (!r.ok && w.length >= 2 && KIND_NOUNS.test(w[w.length - 1])) {
      const again = chooseOne(w.slice(0, -1).join(' '), opts);
      if (again.ok && again.confidence >= 0.85) return again;
    }
    return r;
  }
  function chooseOne(value, opts) {
    const o = opts && typeof opts === 'object' ? opts : {};
    const within = o.within || null;
    const want = wantOf(value, 1);
    if (!want.k) return { ok: false, reason: 'none', candidates: [] };
    let cands;
    try { cands = P.elements(within); } catch (e) { return { ok: false, reason: 'none', message: String(e && e.message || e), candidates: [] }; }
    const found = [];
    for (const c of cands) {
      if (!c.vis) continue;
      if (c.el.localName === 'select') {
        let best = 0, bestText = '';
        const group = groupName(c);
        for (const { t, v } of optionTexts(c.el)) {
          const s = Math.max(textScore(t, want), key(v) === want.k ? 0.95 : 0, group ? withGroup(t, group, want) : 0);
          if (s > best) { best = s; bestText = t; }
        }
        if (best >= THRESHOLD) found.push({ c, kind: 'option', option: bestText, score: best });
        continue;
      }
      if (['checkbox', 'radio', 'switch', 'option', 'menuitem', 'menuitemradio', 'menuitemcheckbox', 'tab', 'treeitem'].includes(c.role)) {
        let [s] = nameScore(c, [want], false);
        const group = s < 0.9 ? groupName(c) : '';
        if (group) s = Math.max(s, withGroup(c.name || (c.labels || [])[0] || '', group, want));
        if (s >= THRESHOLD) found.push({ c, kind: c.role === 'checkbox' || c.role === 'radio' || c.role === 'switch' ? 'control' : 'click', score: s + 0.02 });
      }
    }
    if (!found.some(f => f.score >= 0.9)) {
      const r = bind({ verb: 'click', name: value, within });
      if (r.ok) return { ok: true, kind: 'click', ...r.matches[0] };
      if (!found.length) return r;
    }
    found.sort((a, b) => b.score - a.score);
    const top = found[0];
    const rivals = found.slice(1).filter(f => f.score >= top.score - MARGIN && !related(f.c, top.c));
    if (rivals.length && !(top.score >= 0.95 && rivals.every(r => r.score < 0.95)))
      return { ok: false, reason: 'ambiguous', candidates: listed([top, ...rivals].map(f => ({ ...f.c, score: f.score }))) };
    const m = out(top.c, top.score, top.kind === 'option' ? 'option of a list' : 'label');
    return { ok: true, kind: top.kind, option: top.option, ...m };
  }

  function state(ref) {
    const el = P.resolve(ref);
    if (!el) return null;
    const r = { tag: el.localName, type: el.localName === 'input' ? String(el.type || 'text').toLowerCase() : '', role: P.role(el), focused: false, url: location.href };
    try {
      r.focused = el === document.activeElement || el.contains(document.activeElement) || (el.shadowRoot && !!el.shadowRoot.activeElement);
      const c = P.stateOf(el, 'checked');
      if (el.localName === 'input' && /^(checkbox|radio)$/i.test(el.type) || attr(el, 'aria-checked') != null) r.checked = c;
      if (el.localName === 'select') r.selected = [...el.selectedOptions].map(o => norm(o.label || o.textContent));
      else if ('value' in el && typeof el.value === 'string' && !/^(checkbox|radio)$/i.test(el.type || '')) r.value = el.type === 'password' ? `(${el.value.length} chars)` : el.value.slice(0, 500);
      else if (el.isContentEditable) r.value = norm(el.innerText).slice(0, 500);
      if (attr(el, 'aria-expanded') != null || el.localName === 'summary') r.expanded = P.stateOf(el, 'expanded');
      if (attr(el, 'aria-selected') != null) r.selectedState = attr(el, 'aria-selected') === 'true';
    } catch (_) {}
    return r;
  }

  // Dates as people write them → the value a date/time input holds (yyyy-mm-dd, hh:mm, …).
  const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
  const pad = (n, w = 2) => String(n).padStart(w, '0');
  function parseDate(t) {
    t = norm(t).toLowerCase().replace(/(\d)(st|nd|rd|th)\b/g, '$1').replace(/,/g, ' ').replace(/\s+/g, ' ').trim();
    let m, y, mo, d;
    if ((m = t.match(/^(\d{4})-(\d{1,2})-(\d{1,2})/))) [y, mo, d] = [+m[1], +m[2], +m[3]];
    else if ((m = t.match(/^(\d{1,2})[\/.-](\d{1,2})[\/.-](\d{2,4})$/))) {
      let a = +m[1], b = +m[2];
      y = +m[3]; if (y < 100) y += 2000;
      // mm/dd/yyyy unless it cannot be (13/08/2016), or dots (European dd.mm.yyyy).
      if (a > 12 || (t.includes('.') && b <= 12)) [d, mo] = [a, b]; else [mo, d] = [a, b];
    } else {
      const words = t.split(' ');
      const mi = words.findIndex(w => MONTHS.includes(w.slice(0, 3)) && /^[a-z]+$/.test(w));
      const nums = words.filter(w => /^\d+$/.test(w)).map(Number);
      if (mi < 0 || nums.length !== 2) return null;
      mo = MONTHS.indexOf(words[mi].slice(0, 3)) + 1;
      [d, y] = nums[0] > 31 ? [nums[1], nums[0]] : nums;
    }
    if (!(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && y >= 1 && y <= 9999)) return null;
    const dt = new Date(Date.UTC(y, mo - 1, d));
    if (dt.getUTCMonth() !== mo - 1) return null;
    return { y, mo, d };
  }
  function parseTime(t) {
    const m = norm(t).toLowerCase().match(/^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/);
    if (!m) return null;
    let h = +m[1];
    const mi = +(m[2] || 0);
    if (m[4]) { if (h < 1 || h > 12) return null; h = h % 12 + (m[4][0] === 'p' ? 12 : 0); }
    if (h > 23 || mi > 59) return null;
    return `${pad(h)}:${pad(mi)}`;
  }
  const DATE_EXAMPLES = { date: '2016-11-08 or 11/08/2016 or November 8, 2016', time: '14:30 or 2:30 pm', 'datetime-local': '2016-11-08 14:30',
                          month: '2016-11 or November 2016', week: '2016-W45' };
  function setDate(ref, text) {
    const el = P.resolve(ref);
    if (!el || el.localName !== 'input') return { ok: false, reason: 'no such field' };
    const type = String(el.type).toLowerCase();
    const t = norm(text);
    let v = null;
    if (type === 'date') { const d = parseDate(t); if (d) v = `${pad(d.y, 4)}-${pad(d.mo)}-${pad(d.d)}`; }
    else if (type === 'time') v = parseTime(t);
    else if (type === 'datetime-local') {
      const m = t.match(/^(.*?)[ T,]+(\d{1,2}(?::\d{2}){0,2}\s*(?:am|pm|a\.m\.|p\.m\.)?)$/i);
      const d = m && parseDate(m[1]), h = m && parseTime(m[2]);
      if (d && h) v = `${pad(d.y, 4)}-${pad(d.mo)}-${pad(d.d)}T${h}`;
    } else if (type === 'month') {
      const m = t.match(/^(\d{4})-(\d{1,2})$/);
      if (m) v = `${m[1]}-${pad(+m[2])}`;
      else { const d = parseDate(`1 ${t}`); if (d) v = `${pad(d.y, 4)}-${pad(d.mo)}`; }
    } else if (type === 'week') { const m = t.match(/^(\d{4})-?w(\d{1,2})$/i); if (m) v = `${m[1]}-W${pad(+m[2])}`; }
    if (!v) return { ok: false, reason: 'not a recognised ' + type, example: DATE_EXAMPLES[type] || '' };
    try {
      el.focus();
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
      setter.call(el, v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    } catch (e) { return { ok: false, reason: String(e && e.message || e) }; }
    if (el.value !== v) return { ok: false, reason: `the field refused ${v} (min/max?)`, example: DATE_EXAMPLES[type] || '' };
    return { ok: true, value: v };
  }

  const SUBMIT_WORDS = /^(submit|send|go|ok|okay|done|save|continue|next|search|sign in|log in|login|sign up|register|apply|confirm|enter|post|create|update)$/i;
  function submitFor(ref) {
    try {
      const el = ref ? P.resolve(ref) : document.activeElement;
      let form = el && (el.form || (el.closest && el.closest('form')));
      const forms = document.forms;
      if (!form && forms.length === 1) form = forms[0];
      const scope = form || document;
      const list = [...scope.querySelectorAll('button,input[type=submit],input[type=image],input[type=button],[role=button]')].filter(b => P.visible(b));
      let best = list.find(b => (b.localName === 'button' && (!b.type || b.type === 'submit')) || /^(submit|image)$/i.test(attr(b, 'type') || ''));
      if (!best) best = list.find(b => SUBMIT_WORDS.test(key(P.accessibleName(b))));
      if (!best && !form) return null;
      if (!best) return { ref: null, form: true };
      return { ref: P.refOf(best), name: norm(P.accessibleName(best)).slice(0, 80) };
    } catch (_) { return null; }
  }

  // The action cache (actions/action_cache.h). A page's shape: what pages of one kind share — the
  // path with its numbers and long ids blanked, its landmarks, how many forms, and how many visible
  // controls of each role in powers of two — hashed. A kept resolution is tried only on its shape.
  const LANDMARK_TAGS = { main: 'main', nav: 'navigation', header: 'banner', footer: 'contentinfo', aside: 'complementary',
                          form: 'form', dialog: 'dialog', search: 'search' };
  const LANDMARK_ROLES = new Set(['main', 'navigation', 'banner', 'contentinfo', 'complementary', 'form', 'dialog', 'search',
                                  'region', 'alertdialog']);
  const SHAPE_ROLES = new Set(['textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'button', 'switch', 'slider', 'spinbutton']);
  function shape() {
    const path = String(location.pathname || '/').split('/')
      .map(p => (/\d/.test(p) || p.length > 24 ? '*' : p.toLowerCase())).join('/');
    const lm = new Set();
    let seen = 0;
    for (const el of document.querySelectorAll('main,nav,header,footer,aside,form,dialog[open],search,[role]')) {
      if (++seen > 3000) break;
      const r = (attr(el, 'role') || '').trim().toLowerCase();
      const l = LANDMARK_ROLES.has(r) ? r : (r ? '' : LANDMARK_TAGS[el.localName] || '');
      if (l) lm.add(l);
    }
    const n = {};
    for (const c of P.elements()) if (c.vis && SHAPE_ROLES.has(c.role)) n[c.role] = (n[c.role] || 0) + 1;
    const counts = Object.keys(n).sort().map(r => r + Math.ceil(Math.log2(n[r] + 1)));
    const text = `${path}|${[...lm].sort().join(',')}|${document.forms.length}|${counts.join(',')}`;
    let h = 0x811c9dc5;   // FNV-1a, 32 bits
    for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h.toString(16).padStart(8, '0');
  }
  // A kept resolution found again: its selector must find exactly one visible element, with the
  // role and accessible name it had. Anything else is no answer (the caller drops it).
  function recall(e) {
    try {
      if (!e || typeof e.selector !== 'string' || !e.selector) return null;
      const els = P.resolveAll(e.selector).filter(el => P.visible(el));
      if (els.length !== 1) return null;
      const el = els[0];
      if (P.role(el) !== e.role || norm(P.accessibleName(el)) !== e.name) return null;
      return { ref: P.refOf(el), role: e.role, name: e.name, confidence: Number(e.confidence) || 0.5, how: 'kept (action cache)' };
    } catch (_) { return null; }
  }
  // What to keep of a binding: a selector that finds it alone (no ordinal, not in a frame), and
  // its role and name, checked again by recall.
  function keepFor(m) {
    try {
      const d = P.details([m.ref])[0];
      if (!d || d.error || (d.framePath && d.framePath.length)) return null;
      const sel = d.selector;
      if (typeof sel !== 'string' || !sel || sel.length > 400 || / >> nth=/.test(sel)) return null;
      const el = P.resolve(m.ref);
      if (!el) return null;
      const k = { selector: sel, role: P.role(el), name: norm(P.accessibleName(el)) };
      return recall(k) && k.name ? k : null;
    } catch (_) { return null; }
  }
  // bind() through the cache: spec.kept — the kept resolutions of this command on this site —
  // tried first on a page of their shape; spec.keep asks for what to keep of a fresh binding.
  //   -> bind()'s answer and {shape, cached?: true, dropped?: shape, keep?: {selector, role, name}}
  function bindKept(spec) {
    const s = spec || {};
    let sh = '';
    try { sh = shape(); } catch (_) { sh = ''; }
    let dropped;
    if (sh) {
      for (const e of Array.isArray(s.kept) ? s.kept.slice(0, 16) : []) {
        if (!e || e.shape !== sh) continue;
        const m = recall(e);
        if (m) return { ok: true, matches: [m], cached: true, shape: sh };
        dropped = sh;
        break;
      }
    }
    const r = bind(s);
    const out = Object.assign({}, r, { shape: sh });
    if (dropped) out.dropped = dropped;
    if (sh && s.keep && r.ok && r.matches && r.matches.length === 1) {
      const k = keepFor(r.matches[0]);
      if (k) out.keep = Object.assign(k, { confidence: r.matches[0].confidence });
    }
    return out;
  }

  Object.defineProperty(globalThis, '__ouroBind', {
    value: Object.freeze({ bind, bindKept, shape, choose, state, submitFor, setDate, version: 1 }),
    enumerable: false,
  });
})();

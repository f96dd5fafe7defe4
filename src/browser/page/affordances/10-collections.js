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
  // An item's words without the control's own name, on one line: "Green pen $3.50" for the
  // "Buy" of a product card.
  const EACH_MAX = 6;
  function itemLabel(item, name, ctx) {
    // Its text nodes one by one (textContent runs "Widget 1" and "$3.50" together), boundedly.
    let text = '';
    try {
      const walker = item.ownerDocument.createTreeWalker(item, NodeFilter.SHOW_TEXT, {
        acceptNode: n => (n.parentElement && /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(n.parentElement.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
      });
      for (let n = walker.nextNode(), seen = 0; n && text.length < 400 && seen < 500; n = walker.nextNode(), seen++) {
        const t = norm(n.data);
        if (t) text += (text ? ' ' : '') + t;
      }
    } catch (_) { text = textOf(item, ctx); }
    const own = norm(name || '');
    if (own) {
      const at = text.lastIndexOf(own);
      if (at >= 0) text = (text.slice(0, at) + ' ' + text.slice(at + own.length)).replace(/\s+/g, ' ').trim();
    }
    return clip(text, 60);
  }

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


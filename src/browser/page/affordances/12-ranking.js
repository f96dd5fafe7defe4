  // ---------------------------------------------------------------------------------------------
  // Ranking for find() and snapshot({text}): BM25 over name + context, substring, trigram fuzzy,
  // kind and role fit, priors.

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

  const SYNONYMS = { remember: ['keep', 'stay'], cart: ['basket', 'bag', 'trolley'], basket: ['cart', 'bag'], bag: ['cart', 'basket'],
    register: ['signup', 'sign', 'create', 'join'], signup: ['register', 'create', 'join'], search: ['find', 'query'],
    find: ['search'], delete: ['remove', 'trash'], remove: ['delete'], email: ['mail'], mail: ['email'],
    phone: ['tel', 'mobile', 'telephone'], telephone: ['phone'], mobile: ['phone'], zip: ['postal', 'postcode'], postal: ['zip'],
    buy: ['purchase', 'checkout'], purchase: ['buy'], close: ['dismiss'], dismiss: ['close'], next: ['more', 'older'],
    previou: ['prev', 'back', 'newer'], prev: ['previous', 'back'], back: ['previous', 'prev'], username: ['user', 'login', 'email'],
    setting: ['preferences', 'options'], preference: ['settings'], help: ['support', 'faq'], profile: ['account'],
    account: ['profile'], password: ['passcode', 'pwd'], checkout: ['buy', 'pay'], logout: ['sign', 'log'] };

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


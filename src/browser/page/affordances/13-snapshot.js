  // ---------------------------------------------------------------------------------------------
  // snapshot()

  function scopeFor(within, ctx) {
    if (!within) return null;
    const w = String(within).trim();
    const els = LM_NAMES[lower(w)] ? withinEngine(document, w, ctx) : resolveAll(w, ctx);
    if (!els.length) throw userError(`within '${w}' matches nothing on this page`);
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

  // The candidates' facts, as far as the time budget goes (then the answer is partial).
  function prepAll(els, ctx, keep) {
    const cands = [];
    for (let i = 0; i < els.length; i++) {
      if (i > 0 && (i & 127) === 0 && over(ctx)) { ctx.partial = true; break; }  // the first 128 always
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
        if (!t) m.set(tk, t = { first: c, items: new Map(), col: it.col });
        if (!t.items.has(it.index)) t.items.set(it.index, c);
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
          // Which item each of the first few belongs to ("Buy" of "Green pen $3.50"), so a repeated
          // control is named by its row or card, not only counted.
          c.each = [...t.items.entries()].sort((x, y) => x[0] - y[0]).slice(0, EACH_MAX)
            .map(([i, e]) => ({ el: e.el, item: itemLabel(t.col.items[i], e.name, ctx) }));
          acts.push(c);
        }
      }
    }
    // Only the most promising few hundred get geometry and a full score; the rest
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
        if (c.each) a.each = c.each.map(e => ({ ref: refs(e.el), item: e.item }));
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


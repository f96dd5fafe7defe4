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
  const bad = (part, why) => userError(`invalid selector part '${clip(String(part), 100)}': ${why}. ${ACCEPTED}`);

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


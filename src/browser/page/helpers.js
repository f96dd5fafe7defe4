// Page-side helpers for ouro. Installed by the browser module into an isolated world of every
// document (Page.addScriptToEvaluateOnNewDocument with a worldName), so the page's own scripts can
// neither see nor tamper with them. Every function returns JSON-safe values.
(() => {
  if (globalThis.__ouro) return;
  const CAP = 100000;

  // Results over the cap come back as {__truncated, originalLength, data, hint}.
  function cap(value, limit = CAP) {
    if (typeof value === 'string') {
      if (value.length <= limit) return value;
      return { __truncated: true, originalLength: value.length, data: value.slice(0, limit),
               hint: 'Result truncated. Use a more specific selector to narrow results.' };
    }
    const text = JSON.stringify(value);
    if (text === undefined || text.length <= limit) return value;
    let data = value;
    if (Array.isArray(value)) {
      // Keep whole items while they fit, so the data stays structured.
      let used = 2, n = 0;
      for (; n < value.length; n++) {
        used += JSON.stringify(value[n] ?? null).length + 1;
        if (used > limit) break;
      }
      data = value.slice(0, n);
    } else {
      data = text.slice(0, limit);
    }
    // Arrays keep their items and their count: ouro turns this back into an array (typed
    // results keep their type) and tells the model how many were left out.
    return { __truncated: true, originalLength: text.length, data,
             total: Array.isArray(value) ? value.length : undefined,
             hint: 'Result truncated. Use a more specific selector to narrow results.' };
  }

  // One selector language for every function (pcd.js, loaded into this world with these helpers):
  // CSS, refs (e12), role=/text=/label=/placeholder= engines, nth, within, chaining, open shadow
  // roots and frames. cssResolveAll is the plain-CSS core it falls back to.
  function resolveAll(selector) {
    const pcd = globalThis.__ouroPcd;
    return pcd && typeof pcd.resolveAll === 'function' ? pcd.resolveAll(String(selector)) : cssResolveAll(selector);
  }

  // Selector with frame piercing: "iframe#pay >>> input[name=card]" looks inside the iframe.
  function cssResolveAll(selector) {
    const parts = String(selector).split('>>>').map(s => s.trim());
    let roots = [document];
    for (let i = 0; i < parts.length; i++) {
      const found = [];
      for (const root of roots) {
        let list;
        try { list = root.querySelectorAll(parts[i]); }
        catch (e) { throw new Error(`invalid selector '${parts[i]}': ${e.message}`); }
        found.push(...list);
      }
      if (i === parts.length - 1) return found;
      roots = [];
      for (const f of found) {
        let doc = null;
        try { doc = f.contentDocument; } catch (_) {}
        if (!doc) throw new Error(`cannot look inside '${parts[i]}': not a same-origin frame`);
        roots.push(doc);
      }
    }
    return [];
  }
  const resolve = selector => resolveAll(selector)[0] || null;

  function describe(el) {
    if (!el || el.nodeType !== 1) return String(el);
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean).slice(0, 2) : [];
    if (cls.length) s += '.' + cls.join('.');
    const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return text ? `${s} "${text}"` : s;
  }

  function info(el) {
    const r = el.getBoundingClientRect();
    const attrs = {};
    for (const a of el.attributes) if (a.name !== 'style' && a.value.length < 200) attrs[a.name] = a.value;
    return {
      tag: el.tagName.toLowerCase(), id: el.id || '', classes: [...el.classList],
      text: (el.innerText ?? el.textContent ?? '').trim().slice(0, 200),
      value: 'value' in el ? String(el.value ?? '') : undefined,
      href: el.href || undefined, attributes: attrs,
      visible: isVisible(el),
      rect: { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) },
    };
  }

  function isVisible(el) {
    if (!el.isConnected) return false;
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    if (style.visibility === 'hidden' || style.visibility === 'collapse' || style.display === 'none') return false;
    if (parseFloat(style.opacity) === 0 && el.tagName !== 'OPTION') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  // Offset of an element's frame relative to the top-level viewport.
  function frameOffset(el) {
    let x = 0, y = 0, win = el.ownerDocument.defaultView;
    while (win && win.frameElement) {
      const fe = win.frameElement, r = fe.getBoundingClientRect(), cs = win.parent.getComputedStyle(fe);
      x += r.x + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
      y += r.y + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
      win = win.parent;
    }
    return { x, y };
  }

  // Playwright-style actionability: attached, visible, enabled, (editable), receives events.
  // Returns {ok, x, y, element} with viewport coordinates of the visible centre, or {ok:false, reason}.
  function actionable(selector, needs) {
    const all = resolveAll(selector);
    const el = all[0];
    if (!el) return { ok: false, missing: true, reason: 'no element matches the selector' };
    if (!el.isConnected) return { ok: false, reason: 'element is detached from the document' };
    if (!isVisible(el)) return { ok: false, reason: `element ${describe(el)} is not visible` };
    if (needs.enabled && (el.disabled || el.closest('fieldset:disabled') || el.getAttribute('aria-disabled') === 'true'))
      return { ok: false, reason: `element ${describe(el)} is disabled` };
    if (needs.editable && el.readOnly) return { ok: false, reason: `element ${describe(el)} is read-only` };
    if (needs.editable && !('value' in el) && !el.isContentEditable && el.tagName !== 'SELECT')
      return { ok: false, reason: `element ${describe(el)} is not an input, textarea or contenteditable` };
    let r = el.getBoundingClientRect();
    const vw = el.ownerDocument.defaultView;
    if (r.top < 0 || r.left < 0 || r.bottom > vw.innerHeight || r.right > vw.innerWidth) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      r = el.getBoundingClientRect();
    }
    // Use the centre of the part that is inside the viewport.
    const left = Math.max(r.left, 0), top = Math.max(r.top, 0);
    const right = Math.min(r.right, vw.innerWidth), bottom = Math.min(r.bottom, vw.innerHeight);
    if (right <= left || bottom <= top) return { ok: false, reason: `element ${describe(el)} is outside the viewport` };
    // Where to press: the box's centre — unless the element is laid out in several boxes (a link
    // that wraps onto two lines), whose common box's centre may fall between them: then the
    // centre of each of its own boxes on screen, the largest first (CSSOM View, getClientRects).
    const visibleCentre = b => {
      const l = Math.max(b.left, 0), t = Math.max(b.top, 0), rr = Math.min(b.right, vw.innerWidth), bb = Math.min(b.bottom, vw.innerHeight);
      return rr > l && bb > t ? { x: (l + rr) / 2, y: (t + bb) / 2, area: (rr - l) * (bb - t) } : null;
    };
    const boxes = Array.from(el.getClientRects());
    const points = boxes.length > 1 ? boxes.map(visibleCentre).filter(Boolean).sort((a, b) => b.area - a.area) : [];
    if (!points.length) points.push({ x: (left + right) / 2, y: (top + bottom) / 2 });
    let cx = points[0].x, cy = points[0].y;
    if (needs.hit) {
      // Hit-test in the element's own tree: inside a shadow root the document sees only its host.
      const hitAt = (x, y) => {
        let hit = el.ownerDocument.elementFromPoint(x, y);
        for (let i = 0; hit && hit.shadowRoot && i < 20; i++) {
          const inner = hit.shadowRoot.elementFromPoint(x, y);
          if (!inner || inner === hit) break;
          hit = inner;
        }
        return hit;
      };
      const receives = hit => hit && (hit === el || el.contains(hit) || (hit.getRootNode() !== el.ownerDocument && el.contains(hit.getRootNode().host)) ||
                                      (hit.tagName === 'LABEL' && hit.control === el));
      const first = hitAt(cx, cy);
      const found = receives(first) ? points[0] : points.slice(1, 8).find(p => receives(hitAt(p.x, p.y)));
      if (!found) return { ok: false, reason: `element ${describe(el)} is covered by ${first ? describe(first) : 'nothing (off screen)'}` };
      cx = found.x;
      cy = found.y;
    }
    const off = frameOffset(el);
    const out = { ok: true, x: cx + off.x, y: cy + off.y, element: describe(el), count: all.length, target: target(el) };
    // What a confirmation shows the user: the visible part of the element (viewport pixels of
    // this document's top window) and the row or card it belongs to.
    out.box = { x: left + off.x, y: top + off.y, width: right - left, height: bottom - top };
    const context = contextOf(el);
    if (context) {
      out.context = context.text;
      // The row or card's visible part, so the confirmation's picture can show which one it is.
      const c = context.container.getBoundingClientRect();
      const cl = Math.max(c.left, 0), ct = Math.max(c.top, 0), cr = Math.min(c.right, vw.innerWidth), cb = Math.min(c.bottom, vw.innerHeight);
      if (cr > cl && cb > ct) out.contextBox = { x: cl + off.x, y: ct + off.y, width: cr - cl, height: cb - ct };
    }
    if (el.localName === 'input') out.inputType = String(el.type || '').toLowerCase();
    // The origin of the element's own document (HTML: the serialised origin of its frame, "null"
    // when opaque), which decides where a secret may be typed: not the tab's.
    const view = el.ownerDocument && el.ownerDocument.defaultView;
    out.origin = view ? String(view.origin) : 'null';
    // A run records what identifies the element (heal.js), in this same call.
    if (needs.identify && globalThis.__ouroHeal) out.details = globalThis.__ouroHeal.identify(el);
    return out;
  }

  // The text of the row, list item, card, dialog or form an element belongs to (its nearest such
  // ancestor whose text says more than the element's own), on one line, at most 200 characters:
  // which "Delete" of a list a confirmation is about. Read with a bounded walk, never a whole
  // page's text; {text, container}, or null when there is no such container.
  const CONTAINERS = 'tr,li,article,dialog,fieldset,form,section,[role=row],[role=listitem],[role=article],[role=dialog],[role=group],[role=region]';
  function boundedText(root, max) {
    let out = '';
    const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: n => (n.parentElement && /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(n.parentElement.tagName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    for (let n = walker.nextNode(), seen = 0; n && out.length < max && seen < 2000; n = walker.nextNode(), seen++) {
      const t = n.data.replace(/\s+/g, ' ').trim();
      if (t) out += (out ? ' ' : '') + t;
    }
    return out.length > max ? out.slice(0, max - 1) + '…' : out;
  }
  function contextOf(el) {
    const own = boundedText(el, 200);
    let c = el.parentElement && el.parentElement.closest(CONTAINERS);
    for (let i = 0; c && i < 4; i++, c = c.parentElement && c.parentElement.closest(CONTAINERS)) {
      const text = boundedText(c, 200);
      if (text && text !== own) return { text, container: c };
    }
    return null;
  }

  // What an action is about to touch, for the sensitive-action check.
  function target(el) {
    const tag = el.tagName.toLowerCase();
    const labels = el.labels ? [...el.labels].map(l => l.innerText.trim()).join(' ') : '';
    return {
      tag, type: (el.getAttribute('type') || (tag === 'button' ? 'submit' : '')).toLowerCase(),
      role: el.getAttribute('role') || '', text: (el.innerText || el.value || '').trim().replace(/\s+/g, ' ').slice(0, 80),
      label: (el.getAttribute('aria-label') || labels || el.getAttribute('title') || '').slice(0, 80),
      name: el.getAttribute('name') || '', id: el.id || '', placeholder: el.getAttribute('placeholder') || '',
      autocomplete: el.getAttribute('autocomplete') || '', inForm: !!el.form, formAction: el.form ? el.form.action : '',
    };
  }

  function targetInfo(selector) {
    const el = resolve(selector);
    return el ? target(el) : null;
  }

  // Puts the caret at the end (type) or selects all (fill) of an editable element that has focus.
  function prepareEdit(selector, mode) {
    const el = resolve(selector);
    if (!el) return false;
    el.focus();
    if ('setSelectionRange' in el && typeof el.value === 'string') {
      try {
        if (mode === 'select') el.setSelectionRange(0, el.value.length);
        else el.setSelectionRange(el.value.length, el.value.length);
      } catch (_) { if (mode === 'select') el.select?.(); }
    } else if (el.isContentEditable) {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      if (mode !== 'select') range.collapse(false);
      const sel = el.ownerDocument.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    }
    return true;
  }

  function selectOption(selector, values) {
    const el = resolve(selector);
    if (!el) return { ok: false, missing: true, reason: 'no element matches the selector' };
    if (el.tagName !== 'SELECT') return { ok: false, reason: `element ${describe(el)} is not a <select>` };
    if (el.disabled) return { ok: false, reason: `element ${describe(el)} is disabled` };
    const wanted = (Array.isArray(values) ? values : [values]).map(String);
    const options = [...el.options];
    const picked = [];
    for (const w of wanted) {
      const o = options.find(o => o.value === w) || options.find(o => o.label.trim() === w.trim()) ||
                options.find(o => o.label.trim().toLowerCase() === w.trim().toLowerCase());
      if (!o) return { ok: false, reason: `no option with value or label '${w}' (options: ${options.slice(0, 10).map(o => JSON.stringify(o.label)).join(', ')})` };
      picked.push(o);
    }
    for (const o of options) o.selected = picked.includes(o);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { ok: true, selected: picked.map(o => o.value) };
  }

  // The text a person sees in an element, as innerText gives it (HTML §3.2.7, "rendered text") —
  // and, where the element holds open shadow roots (web components, which innerText does not
  // enter), its flat tree's text: each shadow tree in its host's place with the light DOM
  // slotted in, blocks on lines of their own, table cells apart by tabs, what is not displayed
  // left out. A shadow tree's contents are what the page shows, so a read must see them.
  const BLOCKS = /^(block|flex|grid|list-item|table|table-row|table-caption|flow-root|table-row-group|table-header-group|table-footer-group)$/;
  function flatText(root) {
    const out = [];
    let budget = 200000;  // nodes: a hostile page's tree ends the walk, not the tab
    const walk = node => {
      if (--budget < 0) return;
      if (node.nodeType === 3) return void out.push(node.data.replace(/\s+/g, ' '));
      if (node.nodeType === 11) return void node.childNodes.forEach(walk);
      if (node.nodeType !== 1) return;
      const tag = node.localName;
      if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') return;
      if (tag === 'br') return void out.push('\n');
      const cs = node.ownerDocument.defaultView.getComputedStyle(node);
      if (cs.display === 'none') return;
      const block = BLOCKS.test(cs.display);
      if (block) out.push('\n');
      if (tag === 'slot') {
        const slotted = node.assignedNodes({ flatten: true });
        (slotted.length ? slotted : Array.from(node.childNodes)).forEach(walk);
      } else if (node.shadowRoot) {
        node.shadowRoot.childNodes.forEach(walk);
      } else {
        node.childNodes.forEach(walk);
      }
      if (cs.display === 'table-cell') out.push('\t');
      if (block) out.push('\n');
    };
    walk(root);
    return out.join('').replace(/[ \t]*\n[ \t]*/g, '\n').replace(/\n{3,}/g, '\n\n').replace(/ {2,}/g, ' ').trim();
  }
  function hostsShadow(el) {
    if (el.shadowRoot) return true;
    const all = el.getElementsByTagName('*');
    for (let i = 0; i < all.length && i < 50000; i++) if (all[i].shadowRoot) return true;
    return false;
  }
  function shownText(el) {
    if (!el) return '';
    if (hostsShadow(el)) return flatText(el);
    return el.innerText ?? el.textContent ?? '';
  }

  function text(selector) {
    if (!selector) return cap(document.body ? shownText(document.body) : document.documentElement.textContent || '');
    const els = resolveAll(selector);
    if (!els.length) return null;
    return cap(els.map(shownText).join('\n'));
  }

  // Text a reader sees, bounded (~6,000 chars): the main content first
  // (main, [role=main], the largest article), then the rest of the page; blank runs squeezed.
  function readable(selector, max) {
    const limit = Math.max(200, Math.min(Number(max) || 6000, 100000));
    const squeeze = t => String(t || '').replace(/[ \t\u00a0]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
    let parts = [];
    if (selector) {
      const els = resolveAll(selector);
      if (!els.length) return null;
      parts = els.map(e => squeeze(shownText(e)));
    } else {
      const body = document.body;
      if (!body) return { text: '', chars: 0, truncated: false, main: false };
      let main = document.querySelector('main,[role=main]');
      if (!main) {
        let best = null, size = 0;
        for (const a of document.querySelectorAll('article')) { const n = (a.innerText || '').length; if (n > size) { size = n; best = a; } }
        main = best;
      }
      const all = squeeze(shownText(body));
      if (main && main !== body) {
        const m = squeeze(shownText(main));
        const rest = all.replace(m, '').trim();
        parts = [m, rest];
      } else parts = [all];
    }
    const whole = parts.filter(Boolean).join('\n\n');
    return { text: whole.length > limit ? whole.slice(0, limit) + '…' : whole, chars: whole.length, truncated: whole.length > limit,
             main: !selector && parts.length > 1 };
  }

  function dom(selector) {
    if (!selector) return cap(document.documentElement.outerHTML);
    const els = resolveAll(selector);
    if (!els.length) return null;
    return cap(els.map(e => e.outerHTML).join('\n'));
  }

  function links() {
    const out = [];
    for (const a of document.querySelectorAll('a[href]'))
      out.push({ text: (a.innerText || a.getAttribute('aria-label') || a.title || '').trim().replace(/\s+/g, ' ').slice(0, 200), href: a.href });
    return cap(out);
  }

  function inputs() {
    const out = [];
    for (const el of document.querySelectorAll('input, textarea, select')) {
      const type = el.tagName === 'INPUT' ? (el.type || 'text') : el.tagName.toLowerCase();
      let value = el.value ?? '';
      if (type === 'password') value = value ? '[REDACTED]' : '';
      const item = { id: el.id || '', name: el.name || '', type, value, placeholder: el.placeholder || '' };
      if (type === 'checkbox' || type === 'radio') item.checked = el.checked;
      const label = el.labels && el.labels[0] ? el.labels[0].innerText.trim() : el.getAttribute('aria-label');
      if (label) item.label = label.slice(0, 100);
      out.push(item);
    }
    return cap(out);
  }

  function query(selector) {
    const el = resolve(selector);
    return el ? info(el) : null;
  }

  function queryAll(selector) {
    return cap(resolveAll(selector).map(info));
  }

  function storage(kind, key) {
    const s = kind === 'session' ? sessionStorage : localStorage;
    if (key !== undefined && key !== null) return s.getItem(String(key));
    const out = {};
    for (let i = 0; i < s.length; i++) { const k = s.key(i); out[k] = s.getItem(k); }
    return cap(out);
  }

  function clear(kind) {
    if (kind === 'local' || kind === 'all') localStorage.clear();
    if (kind === 'session' || kind === 'all') sessionStorage.clear();
    return true;
  }

  function scrollState() {
    const se = document.scrollingElement || document.documentElement;
    return { x: Math.round(scrollX), y: Math.round(scrollY), width: se.scrollWidth, height: se.scrollHeight,
             viewportWidth: innerWidth, viewportHeight: innerHeight,
             atTop: scrollY <= 0, atBottom: Math.ceil(scrollY + innerHeight) >= se.scrollHeight };
  }

  // --- What ouro's actions read or do beyond the functions above, each named so that its caller
  // passes values, never code (browser/eval.cpp, Browser::call; the table is calls.js). ---------
  const engine = () => globalThis.__ouroPcd;

  // After the browser has drawn two frames: a wheel's scroll and input routing settle by then.
  const afterFrames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))));
  const scrollStateSettled = () => afterFrames().then(scrollState);
  const viewportHeight = () => innerHeight;
  const visibility = () => document.visibilityState;
  const textLength = () => ((document.body && document.body.innerText) || '').length;
  // Whether the page's text holds `lowered` (already lower case).
  const pageIncludes = lowered => ((document.body && document.body.innerText) || '').toLowerCase().includes(String(lowered));
  const hasVisiblePassword = () => [...document.querySelectorAll('input[type=password]')].some(e => e.offsetWidth > 0 || e.offsetHeight > 0);

  // Black boxes over the given viewport rects ([{x, y, w, h}] in CSS pixels) while a picture is
  // taken, in the top layer (a manual popover, HTML "top layer": above the page's own dialogs);
  // masks(false) takes them away and says whether they stayed as they were put (nothing removed,
  // moved, restyled or covered by a top-layer element the page opened since) — a picture taken
  // while they did not is not used.
  let maskHost = null, maskTampered = false, maskWatch = null, maskListening = false;
  const attempt = (fn, fallback) => { try { return fn(); } catch (_) { return fallback; } };
  const maskShown = host => attempt(() => host.matches(':popover-open'), false);
  let maskTopBefore = [];
  const topLayer = () => attempt(() => [...document.querySelectorAll('dialog:modal, :popover-open')].filter(e => e !== maskHost), []);
  function masks(rects) {
    if (maskHost) {
      const intact = !maskTampered && maskHost.isConnected && maskShown(maskHost) && topLayer().every(e => maskTopBefore.includes(e));
      if (maskWatch) maskWatch.disconnect();
      attempt(() => maskHost.remove(), null);
      maskHost = null; maskWatch = null;
      if (rects === false) return { intact };
    }
    if (rects === false) return { intact: true };
    maskTampered = false;
    maskTopBefore = topLayer();
    const host = document.createElement('div');
    host.setAttribute('popover', 'manual');
    host.style.cssText = 'all:initial!important;position:fixed!important;inset:0!important;margin:0!important;padding:0!important;border:0!important;' +
      'background:transparent!important;display:block!important;visibility:visible!important;opacity:1!important;pointer-events:none!important;' +
      'z-index:2147483647!important;overflow:visible!important;contain:strict!important;width:100vw!important;height:100vh!important';
    const root = host.attachShadow({ mode: 'closed' });
    let n = 0;
    for (const r of Array.isArray(rects) ? rects.slice(0, 500) : []) {
      const x = Number(r && r.x), y = Number(r && r.y), w = Number(r && r.w), h = Number(r && r.h);
      if (![x, y, w, h].every(Number.isFinite) || w <= 0 || h <= 0) continue;
      const box = document.createElement('div');
      box.style.cssText = `position:fixed;left:${x - 2}px;top:${y - 2}px;width:${w + 4}px;height:${h + 4}px;background:#000;opacity:1`;
      root.appendChild(box);
      n++;
    }
    (document.documentElement || document.body).appendChild(host);
    attempt(() => host.showPopover(), null);
    maskWatch = new MutationObserver(records => {
      for (const m of records) if (m.target === host || [...m.removedNodes].includes(host)) maskTampered = true;
    });
    maskWatch.observe(host, { attributes: true });
    if (host.parentNode) maskWatch.observe(host.parentNode, { childList: true });
    if (!maskListening) {
      // A top-layer element the page opens while the boxes are up would be drawn above them.
      maskListening = true;
      addEventListener('beforetoggle', e => { if (maskHost && e.target !== maskHost) maskTampered = true; }, { capture: true });
      document.addEventListener('toggle', e => { if (maskHost && e.target !== maskHost) maskTampered = true; }, { capture: true });
    }
    maskHost = host;
    return { count: n, shown: maskShown(host) };
  }

  // What fill() does with a selector's element: [tagName, type, checked], or null when none matches.
  function controlKind(selector) {
    const el = resolve(selector);
    return el ? [el.tagName, (el.type || '').toLowerCase(), !!el.checked] : null;
  }

  // The field a command without a target means: the focused text field's ref, or null.
  function focusedEditable() {
    const a = document.activeElement;
    return a && a !== document.body && (a.isContentEditable || /^(input|textarea)$/.test(a.localName)) ? engine().refOf(a) : null;
  }

  // Where the keyboard focus is, seen from the element (HTML "focused area of the document"):
  // {active: it is its document's active element, through open shadow roots — not a frame inside
  // it, not another element; document: its document has focus (Document.hasFocus(): not another
  // frame of the tab); gone: this is not the document the typing began in (the one that got
  // `token` first: a key navigated it)}. type checks it after each key.
  let typingIn = null;
  function holdsFocus(selector, token, first) {
    if (first) typingIn = token;
    else if (typingIn !== token) return { active: false, document: false, gone: true };
    const el = resolve(selector);
    if (!el || !el.isConnected) return { active: false, document: false };
    const doc = el.ownerDocument;
    let active = doc.activeElement;
    while (active && active !== el && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    return { active: active === el, document: doc.hasFocus() };
  }

  // "the third option": the label of the list's n-th enabled option (1-based; below 0, the last).
  function optionLabel(ref, n) {
    const el = engine().resolve(ref);
    const o = el && el.options ? [...el.options].filter(o => !o.disabled) : [];
    const i = n < 0 ? o.length - 1 : n - 1;
    return o[i] ? (o[i].label || o[i].textContent).trim() : null;
  }

  // The list a button opened: the one it controls or owns, else the visible listbox or menu; its ref.
  function openedList(ref) {
    const P = engine(), b = P.resolve(ref);
    if (!b) return null;
    const id = b.getAttribute('aria-controls') || b.getAttribute('aria-owns');
    let l = id && document.getElementById(id.split(/\s+/)[0]);
    if (!l || !P.visible(l)) l = [...document.querySelectorAll('[role=listbox],[role=menu]')].find(x => P.visible(x));
    return l ? P.refOf(l) : null;
  }

  // Scrolls a ref's element into view ('center', or the least that shows it, inside its own
  // scrolling box too); whether it exists.
  function scrollToRef(ref, block) {
    const el = engine().resolve(ref);
    if (el && el.scrollIntoView) el.scrollIntoView(block === 'center' ? { block: 'center' } : { block: 'nearest', inline: 'nearest' });
    return !!el;
  }

  // The file input an upload sets (DOM.setFileInputFiles takes the element); throws what is wrong with it.
  function fileInput(selector, count) {
    const el = resolve(selector);
    if (!el) throw new Error('no element matches the selector');
    if (!(el.tagName === 'INPUT' && el.type === 'file'))
      throw new Error(`${describe(el)} is not a file input (<input type=file>); give the selector of the file input itself`);
    if (el.disabled) throw new Error(`${describe(el)} is disabled`);
    if (!el.multiple && count > 1) throw new Error(`${describe(el)} takes one file, not ${count}`);
    return el;
  }

  // Overlays that get in the way: cookie-consent banners, modals, fixed layers over the page.
  // Each comes with the button a person would press to get rid of it — for consent, the most
  // private choice first (reject / only necessary), then close, then accept; for anything else,
  // close only (accepting a newsletter or terms is not ours to do). Top document only.
  const CONSENT = /cookie|consent|gdpr|privacy|datenschutz|tracking/i;
  const REJECT = /\b(reject|decline|deny|refuse)\b|only (necessary|essential|required)|(necessary|essential) only|ablehnen|refuser/i;
  const CLOSE = /^(×|✕|✖|x|close|dismiss|no,? thanks|not now|skip|maybe later|later|schließen|fermer)$/i;
  const ACCEPT = /\b(accept|agree|allow|got it|i understand|okay|ok)\b|akzeptieren|accepter/i;
  function overlays() {
    const vw = innerWidth, vh = innerHeight, area = vw * vh;
    const found = [];
    const consider = (el) => {
      if (!(el instanceof Element) || !isVisible(el) || found.some(f => f.el.contains(el))) return;
      const r = el.getBoundingClientRect();
      const w = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)), h = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
      const words = `${el.id} ${typeof el.className === 'string' ? el.className : ''} ${el.getAttribute('aria-label') || ''} ${(el.innerText || '').slice(0, 600)}`;
      const consent = CONSENT.test(words);
      const modal = el.getAttribute('aria-modal') === 'true' || el.getAttribute('role') === 'dialog' || el.getAttribute('role') === 'alertdialog' ||
                    (el.tagName === 'DIALOG' && el.open) || w * h >= area * 0.5;
      if (!consent && !modal && w * h < area * 0.15) return;
      for (let i = found.length - 1; i >= 0; --i) if (el.contains(found[i].el)) found.splice(i, 1);
      found.push({ el, kind: consent ? 'cookie-consent' : modal ? 'modal' : 'overlay' });
    };
    const all = document.body ? document.body.getElementsByTagName('*') : [];
    for (let i = 0; i < all.length && i < 5000; ++i) {
      const el = all[i];
      if (el.matches('[role=dialog], [role=alertdialog], [aria-modal=true], dialog[open]')) { consider(el); continue; }
      const pos = getComputedStyle(el).position;
      if (pos === 'fixed' || pos === 'sticky') consider(el);
    }
    // A modal sits on top of the rest: it goes first.
    const rank = { modal: 0, 'cookie-consent': 1, overlay: 2 };
    found.sort((a, b) => rank[a.kind] - rank[b.kind]);
    return found.slice(0, 5).map(({ el, kind }) => {
      const buttons = [...el.querySelectorAll('button, a, [role=button], input[type=button], input[type=submit]')].filter(isVisible);
      const label = b => (b.getAttribute('aria-label') || b.innerText || b.value || b.title || '').trim().replace(/\s+/g, ' ').slice(0, 60);
      const pick = (re, exact) => buttons.find(b => exact ? re.test(label(b)) : re.test(label(b)));
      const order = kind === 'cookie-consent' ? [['reject', REJECT], ['close', CLOSE], ['accept', ACCEPT]] : [['close', CLOSE]];
      let button = null;
      for (const [choice, re] of order) {
        const b = pick(re);
        if (b) { const r = b.getBoundingClientRect(); button = { choice, label: label(b), x: r.left + r.width / 2, y: r.top + r.height / 2 }; break; }
      }
      return { kind, element: describe(el), button };
    });
  }

  function favicon() {
    const l = document.querySelector('link[rel~="icon"]');
    if (l && l.href) return l.href;
    return /^https?:$/.test(location.protocol) ? location.origin + '/favicon.ico' : '';
  }

  // Title and icon changes reach the tab list through a CDP binding (Runtime.addBinding), so
  // `tabs` stays current without polling.
  const notify = globalThis.__ouroNotify;
  if (typeof notify === 'function') {
    let last = '';
    const report = () => {
      const now = JSON.stringify({ title: document.title, favicon: favicon(), visible: document.visibilityState === 'visible' });
      if (now !== last) { last = now; notify(now); }
    };
    const watch = () => {
      report();
      if (document.head) new MutationObserver(report).observe(document.head, { childList: true, subtree: true, characterData: true });
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch, { once: true });
    else watch();
    addEventListener('load', report, { once: true });
    // When the user looks at this tab (the one they were on before turning to the Command Center
    // is the one a run in their browser is handed).
    document.addEventListener('visibilitychange', report);
  }

  Object.defineProperty(globalThis, '__ouro', {
    value: Object.freeze({ cap, actionable, targetInfo, prepareEdit, selectOption, text, readable, dom, links, inputs, query, queryAll,
                           storage, clear, scrollState, favicon, describe, overlays, resolve, afterFrames, scrollStateSettled,
                           viewportHeight, visibility, textLength, pageIncludes, hasVisiblePassword, masks, controlKind, focusedEditable, holdsFocus,
                           optionLabel, openedList, scrollToRef, fileInput }),
    enumerable: false,
  });
})();

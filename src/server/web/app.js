// The Command Center: type a task, watch the run's event stream (tokens, code, results,
// sub-calls, page changes), answer confirmations, cancel, and replay past runs. Talks to
// ouro's API with the token from the page URL (as a Bearer header); events come over one
// WebSocket per run. The same file runs in the extension's side panel (extension/sidepanel.js),
// which sets globalThis.ouroEndpoint = {base, credential, onUnauthorized} before loading it: the
// API is then at `base` (http://127.0.0.1:PORT) and the credential is the extension's own,
// obtained by pairing (docs/design/extension-bridge.md).
'use strict';
(() => {
  const endpoint = globalThis.ouroEndpoint || null;
  const BASE = endpoint ? endpoint.base : '';
  const WS_BASE = endpoint ? endpoint.base.replace(/^http/, 'ws') : `ws://${location.host}`;
  // The token arrives in the address (?token=…, printed by ouro serve). It is kept for this tab
  // only and dropped from the address bar and the history at once, so it does not linger where
  // bookmarks, screen shares and the browser's tab list (which a run's model reads) would show it.
  const TOKEN_KEY = 'ouro-token';
  const fromUrl = endpoint ? null : new URLSearchParams(location.search).get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    history.replaceState(null, '', location.pathname + location.hash);
  }
  const token = endpoint ? endpoint.credential : fromUrl || sessionStorage.getItem(TOKEN_KEY) || '';
  // Loaded by the "needs its token" page, as after a reload: a token kept for this tab that still
  // works opens the Command Center again.
  if (!document.getElementById('task-form')) {
    if (token) {
      fetch('/api/runs', { headers: { 'Authorization': 'Bearer ' + token } })
        .then(r => { if (r.ok) location.replace('/?token=' + encodeURIComponent(token)); else sessionStorage.removeItem(TOKEN_KEY); })
        .catch(() => {});
    }
    return;
  }
  const $ = id => document.getElementById(id);
  const api = async (method, path, body) => {
    const res = await fetch(BASE + path, { method, headers: { 'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json' },
                                    body: body === undefined ? undefined : JSON.stringify(body) });
    const data = await res.json().catch(() => ({}));
    // A revoked credential (Settings → paired extensions): the side panel pairs again.
    if (res.status === 401 && endpoint && endpoint.onUnauthorized) endpoint.onUnauthorized();
    if (!res.ok) {
      const err = new Error((data.error && data.error.message) || res.statusText);
      err.kind = data.error && typeof data.error.kind === 'string' ? data.error.kind : '';
      throw err;
    }
    return data;
  };
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };

  // --- rendering helpers ---------------------------------------------------------------------
  const KEYWORDS = /\b(const|let|var|await|async|function|return|if|else|for|of|in|while|new|try|catch|throw|class|true|false|null|undefined)\b/;
  const API = /\b(openTab|closeTab|navigate|switchTab|waitForLoad|execInTab|getDOM|getText|getLinks|getInputs|querySelector|querySelectorAll|getAccessibilityTree|screenshot|click|type|fill|scroll|keyPress|hover|select|getCookies|setCookie|getLocalStorage|getSessionStorage|clearStorage|getRecentRequests|getResponseBody|interceptRequests|getConsoleLog|getErrors|setFinal|log|sleep|store|retrieve|remember|recall|llm_query|llm_batch)\b/;
  // A small tokenizer for highlighting: strings, comments, numbers, keywords, API names.
  function highlight(code) {
    const pre = el('pre', 'code');
    pre.tabIndex = 0;  // it scrolls: reachable by keyboard (WCAG 2.1.1)
    const re = /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|('(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_$][\w$]*)/g;
    let last = 0, m;
    while ((m = re.exec(code))) {
      if (m.index > last) pre.append(code.slice(last, m.index));
      const cls = m[1] ? 'tok-com' : m[2] ? 'tok-str' : m[3] ? 'tok-num' : KEYWORDS.test(m[4]) && m[4].match(KEYWORDS)[0] === m[4] ? 'tok-kw'
                : API.test(m[4]) && m[4].match(API)[0] === m[4] ? 'tok-api' : null;
      if (cls) pre.append(el('span', cls, m[0])); else pre.append(m[0]);
      last = re.lastIndex;
    }
    pre.append(code.slice(last));
    return pre;
  }

  // Markdown for final answers (CommonMark's common subset and GFM tables): headings, paragraphs,
  // lists (nested by indentation), block quotes, fenced code, rules, tables; inline code, strong,
  // emphasis, strikethrough and links. Every piece of text goes into the page as a text node and
  // links keep only http(s) addresses, so nothing in an answer can become markup or script.
  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/;
  const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
  const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
  const QUOTE = /^ {0,3}> ?/;
  const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
  const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
  const startsBlock = (line, next) => FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line) ||
                                      (line.includes('|') && next !== undefined && TABLE_SEP.test(next) && next.includes('-'));
  function markdown(text) {
    const box = el('div', 'md');
    blocks(String(text).replace(/\r\n?/g, '\n').split('\n'), box, 0);
    return box;
  }
  function cells(line) {
    let t = line.trim();
    if (t.startsWith('|')) t = t.slice(1);
    if (t.endsWith('|') && !t.endsWith('\\|')) t = t.slice(0, -1);
    return t.split(/(?<!\\)\|/).map(c => c.trim().replace(/\\\|/g, '|'));
  }
  function blocks(lines, into, depth) {
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (!line.trim()) { i++; continue; }
      if ((m = line.match(FENCE))) {
        const close = new RegExp('^ {0,3}' + m[1][0] + '{' + m[1].length + ',}\\s*$');
        const code = [];
        for (i++; i < lines.length && !close.test(lines[i]); i++) code.push(lines[i]);
        i++;
        const pre = el('pre');
        pre.tabIndex = 0;  // it scrolls: reachable by keyboard (WCAG 2.1.1)
        pre.append(el('code', null, code.join('\n')));
        into.append(pre);
      } else if ((m = line.match(HEADING))) {
        // One level down: the page's own h1 comes first (heading order).
        into.append(inline(m[2] || '', el('h' + Math.min(6, m[1].length + 1))));
        i++;
      } else if (RULE.test(line)) {
        into.append(el('hr'));
        i++;
      } else if (QUOTE.test(line)) {
        const inner = [];
        for (; i < lines.length && lines[i].trim() && QUOTE.test(lines[i]); i++) inner.push(lines[i].replace(QUOTE, ''));
        const q = el('blockquote');
        if (depth < 8) blocks(inner, q, depth + 1); else q.textContent = inner.join('\n');
        into.append(q);
      } else if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]) && lines[i + 1].includes('-')) {
        const head = cells(line);
        const align = cells(lines[i + 1]).map(c => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : ''));
        const table = el('table');
        const tr = el('tr');
        head.forEach((c, k) => { const th = inline(c, el('th')); th.scope = 'col'; if (align[k]) th.style.textAlign = align[k]; tr.append(th); });
        const thead = el('thead');
        thead.append(tr);
        const tbody = el('tbody');
        for (i += 2; i < lines.length && lines[i].trim() && lines[i].includes('|'); i++) {
          const row = el('tr');
          const cs = cells(lines[i]);
          head.forEach((_, k) => { const td = inline(cs[k] || '', el('td')); if (align[k]) td.style.textAlign = align[k]; row.append(td); });
          tbody.append(row);
        }
        table.append(thead, tbody);
        into.append(scrollBox(table));
      } else if ((m = line.match(ITEM))) {
        i = list(lines, i, into, depth);
      } else {
        const para = [];
        for (; i < lines.length && lines[i].trim() && (!para.length || !startsBlock(lines[i], lines[i + 1])); i++) para.push(lines[i].trim());
        const p = el('p');
        para.forEach((l, k) => { if (k) p.append(el('br')); inline(l, p); });
        into.append(p);
      }
    }
  }
  // A list from lines[i]: its items at the first item's indentation; lines indented further
  // belong to the item above (nested lists, continued text). Returns the index after the list.
  function list(lines, i, into, depth) {
    const first = lines[i].match(ITEM);
    const indent = first[1].length;
    const ordered = /\d/.test(first[2]);
    const box = el(ordered ? 'ol' : 'ul');
    if (ordered && parseInt(first[2], 10) !== 1) box.start = parseInt(first[2], 10);
    while (i < lines.length) {
      const m = lines[i].match(ITEM);
      if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
      const body = [m[3]];
      for (i++; i < lines.length; i++) {
        const l = lines[i];
        if (!l.trim()) { if (i + 1 < lines.length && /^\s/.test(lines[i + 1]) && lines[i + 1].search(/\S/) > indent) { body.push(''); continue; } break; }
        const lead = l.search(/\S/);
        if (lead <= indent && (ITEM.test(l) || startsBlock(l, lines[i + 1]))) break;
        body.push(lead > indent ? l.slice(Math.min(lead, indent + 2)) : l.trim());
      }
      const li = el('li');
      if (body.length === 1 || depth >= 8) inline(body.join(' '), li);
      else {
        // The item's first lines are its text; the rest is blocks (a nested list, mostly).
        let k = 1;
        while (k < body.length && body[k].trim() && !startsBlock(body[k], body[k + 1])) k++;
        inline(body.slice(0, k).join(' '), li);
        blocks(body.slice(k), li, depth + 1);
      }
      box.append(li);
      if (i < lines.length && !lines[i].trim()) {
        // A blank line between items keeps the list; before anything else it ends it.
        const next = lines[i + 1] && lines[i + 1].match(ITEM);
        if (next && next[1].length === indent) { i++; continue; }
        break;
      }
    }
    into.append(box);
    return i;
  }
  // Inline spans, left to right; the earliest match wins. Text between matches is text.
  const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\[([^\]\n]+)\]\(\s*<?((?:[^()\s<>]|\([^()\s<>]*\))+)>?(?:\s+"[^"\n]*")?\s*\)|<(https?:\/\/[^>\s]+)>|(https?:\/\/[^\s<>()]*[^\s<>().,:;!?'"])|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__(?!\w)|~~(?=\S)([\s\S]*?\S)~~|\*(?=[^\s*])([\s\S]*?[^\s*])\*|(?<![\w])_(?=[^\s_])([\s\S]*?[^\s_])_(?!\w)/g;
  function safeUrl(href) {
    try { const u = new URL(href); return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null; } catch (_) { return null; }
  }
  function link(href, label, into, depth) {
    const url = safeUrl(href);
    if (!url) { into.append(label); return; }
    const a = el('a');
    a.href = url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    inline(label, a, depth + 1, true);
    into.append(a);
  }
  function inline(text, into, depth = 0, inLink = false) {
    const re = new RegExp(INLINE.source, 'g');
    let last = 0, m;
    while ((m = re.exec(text))) {
      if (m.index > last) into.append(text.slice(last, m.index));
      last = re.lastIndex;
      const nested = (tag, inner) => into.append(depth < 6 ? inline(inner, el(tag), depth + 1, inLink) : el(tag, null, inner));
      if (m[1]) into.append(el('code', null, m[2].length > 2 && m[2].startsWith(' ') && m[2].endsWith(' ') ? m[2].slice(1, -1) : m[2]));
      else if (m[3] !== undefined) { if (inLink) into.append(m[3]); else link(m[4], m[3], into, depth); }
      else if (m[5] || m[6]) { if (inLink) into.append(m[5] || m[6]); else link(m[5] || m[6], m[5] || m[6], into, depth); }
      else if (m[7] || m[8]) nested('strong', m[7] || m[8]);
      else if (m[9]) nested('del', m[9]);
      else nested('em', m[10] || m[11]);
    }
    if (last < text.length) into.append(text.slice(last));
    return into;
  }

  // A wide table scrolls sideways in a box the keyboard can reach (WCAG 2.1.1).
  function scrollBox(table) {
    const wrap = el('div', 'table-wrap');
    wrap.tabIndex = 0;
    wrap.append(table);
    return wrap;
  }
  // What `$ commands` did (act()'s answer: {ok, steps, url, title, error}), in words: one line per
  // step, then the page it ended on.
  const isActResult = v => v && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.steps) && typeof v.ok === 'boolean';
  function renderCommands(r) {
    const box = el('div', 'commands');
    box.append(el('p', null, r.ok ? `Done: ${r.steps.length} step${r.steps.length === 1 ? '' : 's'}.` : `Stopped: ${r.error || 'a step failed'}.`));
    const ul = el('ul');
    const mark = { done: '✓', failed: '✗', skipped: '–', planned: '·' };
    for (const st of r.steps) {
      const what = [st.command, st.did, st.error].filter(Boolean).join(' — ');
      ul.append(el('li', 'step ' + (st.status || ''), `${mark[st.status] || '·'} ${what}${st.status === 'skipped' ? ' (skipped)' : ''}`));
    }
    box.append(ul);
    if (r.title || r.url) box.append(el('p', 'hint', `Now on: ${[r.title, r.url].filter(Boolean).join(' — ')}`));
    return box;
  }
  function renderFinal(value) {
    if (isActResult(value)) return renderCommands(value);
    if (Array.isArray(value) && value.length && value.every(v => v && typeof v === 'object' && !Array.isArray(v))) {
      const box = el('div');
      const cols = [...new Set(value.flatMap(Object.keys))];
      const table = el('table');
      const head = el('tr');
      for (const c of cols) head.append(el('th', null, c));
      table.append(head);
      for (const row of value) {
        const tr = el('tr');
        for (const c of cols) tr.append(el('td', null, row[c] === undefined ? '' : typeof row[c] === 'object' ? JSON.stringify(row[c]) : String(row[c])));
        table.append(tr);
      }
      const csv = [cols.join(','), ...value.map(r => cols.map(c => JSON.stringify(r[c] === undefined ? '' : typeof r[c] === 'object' ? JSON.stringify(r[c]) : String(r[c]))).join(','))].join('\n');
      const tools = el('div', 'tools');
      const copy = el('button', null, 'Copy');
      copy.type = 'button';
      copy.onclick = () => navigator.clipboard && navigator.clipboard.writeText(csv);
      tools.append(copy, download('CSV', csv, 'text/csv', 'result.csv'), download('JSON', JSON.stringify(value, null, 2), 'application/json', 'result.json'));
      box.append(scrollBox(table), tools);
      return box;
    }
    if (typeof value === 'string') return markdown(value);
    const pre = el('pre', null, JSON.stringify(value, null, 2));
    return pre;
  }
  function download(label, text, type, name) {
    const a = el('a', null, label);
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.download = name;
    a.setAttribute('role', 'button');
    a.className = 'button';
    return a;
  }

  // --- a run's view ----------------------------------------------------------------------------
  let current = null;  // { id, socket, lastSeq, iters: Map, live }

  function addMessage(cls, content) {
    const m = el('div', 'msg ' + cls);
    if (content instanceof Node) m.append(content); else m.textContent = content;
    $('messages').append(m);
    m.scrollIntoView({ block: 'end' });
    return m;
  }

  function iterationCard(n) {
    let it = current.iters.get(n);
    if (it) return it;
    const d = el('details', 'iter');
    d.open = true;
    const s = el('summary');
    const title = el('span', null, `Iteration ${n}`);
    const meta = el('span', 'meta', '…');
    s.append(title, meta);
    const body = el('div', 'iter-body');
    const stream = el('div', 'stream');
    stream.tabIndex = 0;  // it scrolls: reachable by keyboard (WCAG 2.1.1)
    body.append(stream);
    d.append(s, body);
    $('iterations').append(d);
    for (const [, other] of current.iters) other.card.open = false;  // keep the newest open
    $('tab-activity-count').textContent = `· ${current.iters.size + 1}`;
    it = { n, card: d, meta, body, stream, textNode: null, kind: null, pending: '' };
    current.iters.set(n, it);
    return it;
  }

  // Tokens arrive by the thousand: append them once per frame.
  let flushQueued = false;
  const dirty = new Set();
  function appendToken(it, kind, token) {
    if (it.kind !== kind || !it.textNode) {
      flushIter(it);
      const span = el('span', kind === 'reasoning' ? 'reasoning' : null);
      it.textNode = document.createTextNode('');
      span.append(it.textNode);
      it.stream.append(span);
      it.kind = kind;
    }
    it.pending += token;
    dirty.add(it);
    if (!flushQueued) { flushQueued = true; requestAnimationFrame(flushAll); }
  }
  // The model's reply streams in with its ```repl blocks; once a block is parsed it is shown
  // highlighted below the reply, so the reply keeps a link to it instead of a second copy.
  const FENCED = /(^|\n)```[^\n]*\n[\s\S]*?(\n```[^\n]*(?=\n|$)|$)/g;
  const blockId = (n, k) => `iter-${n}-block-${k}`;
  function foldCode(it) {
    let k = 0;
    for (const span of [...it.stream.children]) {
      if (span.classList.contains('reasoning') || !span.textContent.includes('```')) continue;
      const text = span.textContent;
      span.textContent = '';
      let last = 0;
      for (const m of text.matchAll(FENCED)) {
        span.append(text.slice(last, m.index) + m[1]);
        const target = blockId(it.n, ++k);
        const ref = el('a', 'code-ref', `code block ${k}, below`);
        ref.href = '#' + target;
        ref.onclick = ev => { const to = document.getElementById(target); if (to) { ev.preventDefault(); to.scrollIntoView({ block: 'nearest' }); to.focus(); } };
        span.append(ref);
        last = m.index + m[0].length;
      }
      span.append(text.slice(last).replace(/^\n+/, '\n'));
    }
    it.textNode = null;  // later tokens (none, normally) start a new span
  }
  function flushIter(it) { if (it.textNode && it.pending) { it.textNode.appendData(it.pending); it.pending = ''; } }
  function flushAll() { flushQueued = false; for (const it of dirty) { flushIter(it); it.stream.scrollTop = it.stream.scrollHeight; } dirty.clear(); }

  const fmtCost = c => (typeof c === 'number' ? ` · $${c.toFixed(4)}` : '');
  // " (3000 cached)" when the provider's prompt cache answered part of the input.
  const cachedNote = u => (u && u.cache_read_tokens > 0 ? ` (${u.cache_read_tokens} cached)` : '');

  function onEvent(e) {
    if (!current || e.run !== current.id) return;
    if (e.seq <= current.lastSeq) return;  // already shown (resume after reconnect)
    current.lastSeq = e.seq;
    const d = e.data || {};
    const n = d.iteration;
    switch (e.type) {
      case 'iteration-start': { const it = iterationCard(n); it.meta.textContent = `prompt ≈${d.promptTokens} tokens`; refreshLive(current); break; }
      case 'stream-token': { const it = iterationCard(n); if (d.restart) it.stream.append(el('div', 'line warn', '(retrying the model call)')); else appendToken(it, d.kind, d.token); break; }
      case 'code-generated': {
        const it = iterationCard(n);
        flushIter(it);
        foldCode(it);
        const pre = highlight(d.code);
        pre.id = blockId(n, d.blockIndex + 1);
        it.body.append(el('div', 'line', `block ${d.blockIndex + 1}`), pre);
        break;
      }
      case 'code-result': {
        const it = iterationCard(n);
        const m = d.metadata || {};
        // A block cut short by Cancel is no error of the code's: said plainly, in neutral colours.
        if (!m.ok && m.kind === 'interrupted') it.body.append(el('div', 'result stopped', 'Stopped: the run was cancelled while this block ran.'));
        else it.body.append(el('div', 'result' + (m.ok ? '' : ' err'), m.summary || m.error || ''));
        refreshLive(current);
        break;
      }
      case 'sub-llm-start': current.lastIterCard().body.append(el('div', 'line sub', `↳ sub-call #${d.index + 1}: ${d.prompt}`)); break;
      case 'sub-llm-complete': { const m = d.resultMeta || {}; current.lastIterCard().body.append(el('div', 'line sub' + (m.error ? ' err' : ''), m.error ? `↳ sub-call #${d.index + 1} failed: ${m.error}` : `↳ sub-call #${d.index + 1}: ${m.chars} chars in ${(m.ms / 1000).toFixed(1)} s — ${m.preview}`)); break; }
      case 'log': current.lastIterCard().body.append(el('div', 'line log', 'log: ' + d.message)); break;
      case 'page-changes': { const it = iterationCard(n); for (const c of d.changes || []) it.body.append(el('div', 'line warn', `⚠ ${c.tabId} ${c.field}: ${c.new === null ? '—' : c.new}`)); break; }
      case 'error': current.lastIterCard().body.append(el('div', 'line err', d.retrying ? `${d.kind}: ${d.note}` : `error${d.kind ? ` (${d.kind})` : ''}: ${d.error}`)); break;
      case 'iteration-end': { const it = iterationCard(n); flushIter(it); const u = d.usage || {}; if (!d.modelMs && !u.input_tokens) { it.meta.textContent = `${(d.ms / 1000).toFixed(1)} s · commands, no model`; break; } it.meta.textContent = `${(d.ms / 1000).toFixed(1)} s · model ${(d.modelMs / 1000).toFixed(1)} s · ${u.input_tokens} in${cachedNote(u)} / ${u.output_tokens} out${fmtCost(d.cost)}`; break; }
      case 'confirmation-req': if (current.live) askConfirmation(e.run, d, e.ts); break;
      case 'user-question': showQuestion(e.run, d, current.live, e.ts); break;
      case 'user-message': {
        // Shown already if this page sent it; from a replay or another client, shown now.
        const i = current.sent.indexOf(d.text);
        if (i >= 0) current.sent.splice(i, 1);
        else addMessage('user' + (d.guidance ? ' guidance' : ''), d.text);
        break;
      }
      case 'user-answer': closeQuestion(d); break;
      case 'goal_added': case 'goal_updated': showGoals(d.goals); break;
      case 'question-withdrawn':
        // The turn that asked ended first: the dialog or the question box goes, nothing to answer.
        if ($('confirm-dialog').dataset.id === d.id && $('confirm-dialog').open) { $('confirm-dialog').close(); stopCountdown(); }
        closeQuestion({ id: d.id, withdrawn: true });
        current.lastIterCard().body.append(el('div', 'line sub', `question ${d.id} withdrawn: ${d.reason || 'the run ended'}`));
        break;
      case 'gate': current.lastIterCard().body.append(el('div', 'line ' + (d.decision === 'deny' ? 'warn' : 'sub'),
        `Gate ${d.decision === 'deny' ? 'refused' : d.decision === 'allow' ? 'allowed' : 'noted'} ${d.method || ''} ${d.url || ''} — ${d.reason || ''}${d.by ? ` (${d.by})` : ''}`)); break;
      case 'hook': {
        // A hook of the user's decided a step (docs/guides/hooks.md).
        const failed = (d.hooks || []).filter(h => h.error).map(h => `${h.hook} failed: ${h.error}`);
        const what = d.decision === 'deny' ? 'refused' : d.decision === 'modify' ? 'changed' : 'allowed';
        current.lastIterCard().body.append(el('div', 'line ' + (d.decision === 'deny' ? 'warn' : 'sub'),
          `Hook ${d.point}: ${what}${d.what ? ' ' + d.what : ''}${d.by ? ` (${d.by})` : ''}${d.reason ? ' — ' + d.reason : ''}${failed.length ? ' · ' + failed.join('; ') : ''}`));
        break;
      }
      case 'injection-flag': current.lastIterCard().body.append(el('div', 'line warn',
        '⚠ possible prompt injection in page text: ' + (d.flags || []).map(f => `${f.kind}: “${f.excerpt}”`).join('; '))); break;
      case 'confirmation-res': if ($('confirm-dialog').dataset.id === d.id && $('confirm-dialog').open) { $('confirm-dialog').close(); stopCountdown(); if ($('status').classList.contains('waiting')) setStatus('running…', 'running'); } current.lastIterCard().body.append(el('div', 'line ' + (d.approved ? '' : 'warn'), d.approved ? '✓ sensitive action allowed' : '✗ sensitive action denied')); break;
      case 'heal': current.lastIterCard().body.append(el('div', 'line sub', `✚ step ${d.step}: ${d.action} target found again — '${d.old}' → ${d.new} (confidence ${d.confidence})`)); break;
      case 'script-saved': addMessage('guidance', `script ${d.name} v${d.version} saved from v${d.based_on} (${(d.changes || []).length} change${(d.changes || []).length === 1 ? '' : 's'}; see its diff)`); break;
      case 'loop-detected': current.lastIterCard().body.append(el('div', 'line err', `Loop detected: ${d.reason}`)); break;
      case 'reflection': { const r = d.reflection || {}; current.lastIterCard().body.append(el('div', 'line ' + (r.efficiency === 'low' ? 'warn' : 'sub'), `↺ reflection after step ${r.step}: efficiency ${r.efficiency}${(r.issues || []).map(i => '; ' + i).join('')}`)); break; }
      case 'resumed': addMessage('guidance', `↻ resumed after a restart: from iteration ${d.fromIteration}. ${d.note || ''}`); setRunning(true); break;
      case 'placement': $('totals').title = `browser: ${d.endpoint}`; break;
      case 'failover': addMessage('guidance', `⇄ its browser (${d.from}) died: moved to ${d.to}, from iteration ${d.fromIteration}`); break;
      case 'complete': finish(d); break;
      case 'memory_stored': current.lastIterCard().body.append(el('div', 'line sub', `✎ remembered #${d.id}${d.key ? ` (${d.key})` : ''}: ${d.text || ''}`)); refreshUndo(); break;
      case 'memory_forgotten': current.lastIterCard().body.append(el('div', 'line sub', `✎ forgot memory #${d.id}`)); refreshUndo(); break;
      case 'scheduler_added': current.lastIterCard().body.append(el('div', 'line sub', `⏲ scheduled “${d.name || d.task || ''}” (${d.id})`)); break;
      case 'scheduler_changed': current.lastIterCard().body.append(el('div', 'line sub', `⏲ changed the schedule “${d.name || ''}” (${d.id})`)); break;
      case 'scheduler_removed': current.lastIterCard().body.append(el('div', 'line sub', `⏲ removed the schedule ${d.id}`)); break;
      case 'tabs-closed': addMessage('guidance', `The conversation ended: ${(d.tabs || []).length} tab${(d.tabs || []).length === 1 ? '' : 's'} it opened in ouro's window, which you did not turn to, closed.`); break;
    }
  }

  // --- live view: the run's tabs and a CDP screencast of its active tab ------------------------
  let live = { socket: null, tab: null, run: null };
  async function refreshLive(view) {
    if (!view.live) return;
    let info;
    try { info = await api('GET', `/api/runs/${view.id}/tabs`); } catch (err) { return; }
    if (!view.live || current !== view) return;  // it ended meanwhile
    const ul = $('live-tabs');
    ul.textContent = '';
    for (const t of info.tabs) {
      const li = el('li', t.id === info.activeTab ? 'active' : null, `${t.id} · ${t.title || t.url} · ${t.status}`);
      li.title = t.url;
      ul.append(li);
    }
    $('live').hidden = false;
    if (live.run === view.id && live.tab === info.activeTab && live.socket) return;
    const first = live.run !== view.id;
    stopLive();
    // No picture until the tab sends its first frame (an empty <img> would show its alt text as a
    // broken image): a neutral line waits in its place.
    if (first) clearLiveFrame('Waiting for the first picture of the tab…');
    live = { run: view.id, tab: info.activeTab, socket: new WebSocket(`${WS_BASE}/api/screencast?token=${encodeURIComponent(token)}&run=${view.id}`) };
    live.socket.onmessage = m => { const f = JSON.parse(m.data); if (f && typeof f.jpeg === 'string') $('live-frame').src = 'data:image/jpeg;base64,' + f.jpeg; };
  }
  $('live-frame').addEventListener('load', () => { $('live-frame').hidden = false; $('live-wait').hidden = true; });
  function clearLiveFrame(note) {
    $('live-frame').hidden = true;
    $('live-frame').removeAttribute('src');
    $('live-wait').textContent = note;
    $('live-wait').hidden = false;
  }
  function stopLive() {
    if (live.socket) live.socket.close();
    live = { socket: null, tab: null, run: null };
  }

  function finish(d) {
    const u = d.usage || {};
    const ac = d.actionCache ? ` · action cache ${d.actionCache.hits}/${d.actionCache.hits + d.actionCache.misses} hits` : '';
    const au = d.autonomy && d.autonomy.actions ? ` · ${d.autonomy.actions} action${d.autonomy.actions === 1 ? '' : 's'}, ${d.autonomy.asked} asked` : '';
    $('totals').textContent = `${d.iterations} iteration${d.iterations === 1 ? '' : 's'} · ${u.input_tokens || 0} in${cachedNote(u)} / ${u.output_tokens || 0} out${fmtCost(d.cost)}${ac}${au}`;
    const box = el('div');
    if (d.cancelled) {
      box.append(el('p', null, 'Cancelled.'));
      const env = d.final && d.final.env;
      if (env && Object.keys(env).length) box.append(el('p', 'hint', 'What it had gathered in env:'), renderFinal(env));
    } else if (d.partial) {
      box.append(el('p', null, (d.final && d.final.message) || 'Stopped with partial results.'));
      const env = d.final && d.final.env;
      if (env && Object.keys(env).length) box.append(renderFinal(env));
    } else {
      box.append(renderFinal(d.final));
    }
    addMessage(d.cancelled ? 'cancelled' : d.partial ? 'partial' : 'final', box);
    if (Array.isArray(d.tabs) && d.tabs.length) {
      const list = el('ul');
      for (const t of d.tabs) list.append(el('li', null, `${t.id} · ${t.title || ''} · ${t.url}${t.underRule ? ' · still under this run’s safety rule' : ''}`));
      const note = el('div');
      note.append(el('p', null, 'Tabs left open in your browser:'), list);
      if (d.tabs.some(t => t.underRule))
        note.append(el('p', 'hint', 'The run acted on these pages, so until you load a new page in them from the address bar ' +
          'they may talk only to the run’s allowed sites, and writes there are refused: anything the run left running in them stays contained.'));
      addMessage('tabs-left', note);
    }
    setRunning(false);
    const outcome = d.cancelled ? 'cancelled' : d.error ? 'failed' : d.partial ? 'partial' : 'done';
    setStatus(outcome, outcome);
    refreshUndo();
    if (d.error && !d.cancelled) $('status').title = d.error; else $('status').removeAttribute('title');
    stopCountdown();
    stopLive();
    if ($('live-frame').hidden) $('live-wait').textContent = 'No picture of the tab: the run ended before its first frame.';
    if (current && current.socket && current.live) current.socket.close();
    if (current) current.live = false;  // until a follow-up turn
    refreshHistory();
  }

  // While a run works the box sends guidance it reads at its next iteration; after it, a
  // follow-up turn of the same conversation (same env and tabs), until New conversation.
  // The status word: idle, running…, waiting for you, then done, failed, cancelled or partial.
  function setStatus(word, cls) {
    $('status').textContent = word;
    $('status').className = 'status' + (cls ? ' ' + cls : '');
  }
  const isRunning = () => $('status').classList.contains('running') || $('status').classList.contains('waiting');
  function setRunning(on) {
    setStatus(on ? 'running…' : 'idle', on ? 'running' : '');
    $('cancel-btn').disabled = !on;
    if (on) $('undo-btn').hidden = $('redo-btn').hidden = true;
    $('run-btn').textContent = on ? 'Send ⏎' : current ? 'Follow up ⏎' : 'Run ⏎';
    $('run-btn').title = on ? 'Tell the agent something while it works' : current ? 'A follow-up in this conversation' : 'Start a run';
    $('context').disabled = !!current;
    $('mode').disabled = !!current;
  }

  // The conversation's goals, a checklist the run keeps (addGoal/updateGoal), as the last goal event left it.
  function showGoals(goals) {
    const list = $('goals-list');
    list.textContent = '';
    for (const g of Array.isArray(goals) ? goals : []) {
      const mark = g.status === 'done' ? '✓' : g.status === 'dropped' ? '✗' : '·';
      const li = el('li', 'goal ' + (g.status || 'open'), `${mark} ${g.text || ''}${g.note ? ' — ' + g.note : ''}`);
      li.setAttribute('aria-label', `${g.text || ''}: ${g.status || 'open'}${g.note ? ', ' + g.note : ''}`);
      list.append(li);
    }
    $('goals').hidden = !list.childElementCount;
  }

  function open(runId, live) {
    if (current && current.socket) current.socket.close();
    showGoals([]);
    $('undo-btn').hidden = $('redo-btn').hidden = true;
    $('iterations').textContent = '';
    $('totals').textContent = '';
    $('tab-activity-count').textContent = '';
    current = { id: runId, lastSeq: 0, iters: new Map(), live, socket: null, sent: [],
                lastIterCard() { const all = [...this.iters.values()]; return all.length ? all[all.length - 1] : iterationCard(1); } };
    connect(current);
  }

  // One WebSocket per run; on a drop it reconnects and resumes after the last sequence number.
  // Close code 1013 (try again later) is the server saying this page fell too far behind (or a
  // replay was larger than it buffers): resuming at once picks up where the page is.
  function connect(view) {
    const ws = new WebSocket(`${WS_BASE}/api/events?token=${encodeURIComponent(token)}&run=${view.id}&after=${view.lastSeq}`);
    view.socket = ws;
    ws.onmessage = m => onEvent(JSON.parse(m.data));
    ws.onclose = ev => {
      if (current !== view) return;
      if (ev.code === 1013) connect(view);
      else if (view.live && isRunning()) setTimeout(() => current === view && connect(view), 500);
    };
  }

  // --- confirmation ------------------------------------------------------------------------------
  // askUser: the model's question in the conversation, with its choices as buttons or a text box
  // (a password box for a secret, whose value goes to ouro only, never to the model).
  // The page that asked is named (the event's page, else the run's active tab), and the focus goes
  // to the question itself, or to its text box — never to a choice, which a stray Enter would
  // answer (WAI-ARIA Authoring Practices, Dialog (Modal) pattern: where the first control would
  // act at once, focus static content at the start instead, made focusable with tabindex -1).
  const questions = new Map();
  function showQuestion(runId, d, live, ts) {
    const box = el('form', 'question');
    box.dataset.id = d.id;
    const text = el('p', 'q-text', d.question);
    text.id = `question-${runId}-${d.id}`;
    text.tabIndex = -1;
    box.setAttribute('aria-labelledby', text.id);
    const from = el('p', 'hint q-page');
    const namePage = (title, url) => { from.textContent = title || url ? `Asked on ${title ? `“${title}”` : ''}${title && url ? ' — ' : ''}${url || ''}` : ''; from.hidden = !from.textContent; };
    namePage(d.pageTitle, d.url);
    if (!d.pageTitle && !d.url && live)
      api('GET', `/api/runs/${runId}/tabs`).then(info => {
        const t = (info.tabs || []).find(x => x.id === info.activeTab);
        if (t && !from.textContent) namePage(t.title, t.url);
      }).catch(() => {});
    box.append(text, from);
    const send = async text => {
      for (const c of box.querySelectorAll('button, input')) c.disabled = true;
      try { await api('POST', `/api/runs/${runId}/answer`, { id: d.id, answer: text }); }
      catch (err) { box.append(el('p', 'err', 'Could not answer: ' + err.message)); for (const c of box.querySelectorAll('button, input')) c.disabled = false; }
    };
    if (Array.isArray(d.choices) && d.choices.length) {
      const row = el('div', 'row choices');
      for (const c of d.choices) {
        const b = el('button', null, c);
        b.type = 'button';
        b.onclick = () => send(c);
        row.append(b);
      }
      box.append(row);
    } else {
      const input = el('input');
      input.type = d.secret ? 'password' : 'text';
      input.name = 'answer';
      input.autocomplete = d.secret ? 'one-time-code' : 'off';
      input.placeholder = d.secret ? `Typed into ${d.site || 'the page'} by ouro; the agent never sees it` : 'Your answer';
      input.setAttribute('aria-label', 'Your answer');
      const b = el('button', null, 'Send');
      b.type = 'submit';
      box.append(input, b);
      box.addEventListener('submit', ev => { ev.preventDefault(); if (input.value) send(input.value); });
    }
    if (!live) for (const c of box.querySelectorAll('button, input')) c.disabled = true;
    questions.set(d.id, box);
    addMessage('ask', box);
    if (live) {
      setStatus('waiting for you', 'waiting');
      const until = deadline(d, ts);
      if (until) countdown(box.appendChild(el('p', 'countdown')), until, 'No answer in');
      (box.querySelector('input') || text).focus();
    }
  }
  function closeQuestion(d) {
    const box = questions.get(d.id);
    if (!box) return;
    for (const c of box.querySelectorAll('button, input')) c.disabled = true;
    for (const c of box.querySelectorAll('.countdown')) c.remove();
    box.append(el('p', 'answered', d.answered ? `Answered: ${d.answer}` : d.withdrawn ? 'Withdrawn: the run ended first.' : 'No answer in time.'));
    if ($('status').classList.contains('waiting')) setStatus('running…', 'running');
  }

  // When the run stops waiting: the event's `expiresAt` (ms since the epoch), else its `ts` plus
  // `timeoutMs` (for a confirmation, also read from its details). Null: the server did not say.
  function deadline(d, ts) {
    const det = d.details || {};
    const at = d.expiresAt ?? det.expiresAt;
    if (typeof at === 'number') return at;
    const ms = d.timeoutMs ?? det.timeoutMs;
    return typeof ms === 'number' && typeof ts === 'number' ? ts + ms : null;
  }
  const countdowns = new Set();
  function countdown(node, until, label) {
    const tick = () => {
      const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      node.textContent = left > 0 ? `${label} ${left} s` : `${label} 0 s — the answer is no`;
      node.classList.toggle('soon', left <= 10);
      if (left <= 0 || !node.isConnected) { clearInterval(timer); countdowns.delete(timer); }
    };
    const timer = setInterval(tick, 1000);
    countdowns.add(timer);
    node.hidden = false;
    tick();
  }
  function stopCountdown() { for (const t of countdowns) clearInterval(t); countdowns.clear(); $('confirm-countdown').hidden = true; }

  function askConfirmation(runId, d, ts) {
    const det = d.details || {};
    const dlg = $('confirm-dialog');
    setStatus('waiting for you', 'waiting');
    dlg.dataset.id = d.id;
    dlg.dataset.run = runId;
    if (det.action === 'use-tab') {
      // My browser: one of the user's tabs the run neither opened nor was handed.
      $('confirm-text').textContent = `The agent wants to act (${det.function}) on your tab “${det.title || det.tab}” — ${det.url}. It did not open this tab and was not given it.`;
      showFields([['Tab', det.tab], ['Address', det.url]]);
    } else if (det.request) {
      // The egress gate: a request or navigation held before it leaves the browser.
      $('confirm-text').textContent = `Safety gate — the agent's ${det.action} wants to go out: ${det.request}. ${det.reason}.`;
      showFields([['Rule', det.rule], ['Method', det.method], ['Address', det.url], ['Tab', det.tab]]);
    } else {
      // What it acts on: an element, a page's own tool (WebMCP), or where a value it writes came from.
      const what = det.tool ? `call the page's tool “${det.tool}”` : `${det.action} ${det.element || det.selector || ''}`;
      $('confirm-text').textContent = `The agent wants to ${what} — ${det.reason}.`;
      const t = det.target || {};
      showFields([['Proposed (by this run)', det.proposed], ['Run', det.proposed_by], ['Value', det.value], ['It came from', det.source],
                  ['The tool says', det.description], ['Input', det.input], ['Role', t.role], ['Element', t.tag], ['Type', t.type], ['Text', t.text],
                  ['Label', t.label], ['Field name', t.name], ['Id', t.id], ['Placeholder', t.placeholder], ['Autocomplete', t.autocomplete],
                  ['Form sends to', t.formAction]]);
    }
    // What it acts on: the element's own context (the row or card it belongs to), the page, and a
    // crop of the screenshot with the element outlined, when the server sends them.
    $('confirm-context').hidden = !det.context;
    $('confirm-context').textContent = det.context ? `In: ${det.context}` : '';
    const page = det.pageTitle ? `${det.pageTitle} — ${det.url || ''}` : det.url || '';
    $('confirm-page').hidden = !page || !!det.request || det.action === 'use-tab';
    $('confirm-page').textContent = page ? `Page: ${page}` : '';
    const crop = det.crop && typeof det.crop.data === 'string' && /^image\/(png|jpeg|webp)$/.test(det.crop.mime || '') ? det.crop : null;
    $('confirm-shot').hidden = !crop;
    if (crop) {
      $('confirm-crop').src = `data:${crop.mime};base64,${crop.data}`;
      $('confirm-crop').alt = `The ${det.element || 'element'} outlined on the page`;
    } else $('confirm-crop').removeAttribute('src');
    // The element's box within the picture, in percent, so it follows the picture's scaling.
    const o = crop && crop.outline, w = crop && Number(crop.width), h = crop && Number(crop.height);
    const fine = o && w > 0 && h > 0 && ['x', 'y', 'width', 'height'].every(k => Number.isFinite(Number(o[k])));
    $('confirm-outline').hidden = !fine;
    if (fine) {
      const pct = (v, of) => `${Math.max(0, Math.min(100, (100 * Number(v)) / of))}%`;
      Object.assign($('confirm-outline').style, { left: pct(o.x, w), top: pct(o.y, h), width: pct(o.width, w), height: pct(o.height, h) });
    }
    stopCountdown();
    const until = deadline(d, ts);
    if (until) countdown($('confirm-countdown'), until, 'Denied automatically in');
    // A site question (one of your tabs, leaving the allowed sites) can be answered for good.
    $('always-btn').hidden = !(det.site && (det.action === 'use-tab' || det.rule === 'outside allowed sites'));
    $('always-btn').textContent = det.site ? `Always allow ${det.site}` : 'Always allow this site';
    if (!dlg.open) dlg.showModal();
    $('deny-btn').focus();
  }
  // The confirmation's fields as label/value lines (a description list), only those with a value.
  function showFields(pairs) {
    const dl = $('confirm-details');
    dl.textContent = '';
    for (const [label, value] of pairs) {
      if (value === undefined || value === null || value === '' || typeof value === 'object') continue;
      dl.append(el('dt', null, label), el('dd', null, String(value)));
    }
    dl.hidden = !dl.childElementCount;
  }
  async function answer(approved, remember = false) {
    const dlg = $('confirm-dialog');
    dlg.close();
    stopCountdown();
    if ($('status').classList.contains('waiting')) setStatus('running…', 'running');
    try { await api('POST', `/api/runs/${dlg.dataset.run}/confirm`, { id: dlg.dataset.id, approved, remember }); }
    catch (err) { addMessage('partial', 'Could not answer: ' + err.message); }
  }
  $('approve-btn').onclick = () => answer(true);
  $('always-btn').onclick = () => answer(true, true);
  $('deny-btn').onclick = () => answer(false);
  $('confirm-dialog').addEventListener('cancel', ev => { ev.preventDefault(); answer(false); });

  // --- task, cancel, history, settings --------------------------------------------------------
  $('task-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    const task = $('task').value.trim();
    if (!task) return;
    const urls = $('urls').value.split(/\s+/).filter(Boolean);
    if (current) {
      // The conversation goes on: guidance while it works, else its next turn.
      const working = $('status').classList.contains('running');
      addMessage('user' + (working ? ' guidance' : ''), task);
      current.sent.push(task);
      try {
        const r = await api('POST', `/api/runs/${current.id}/messages`, { text: task });
        $('task').value = '';
        if (r.delivered === 'turn') { current.live = true; setRunning(true); connect(current); }
      } catch (err) { addMessage('partial', err.message); }
      return;
    }
    addMessage('user', task);
    setRunning(true);
    try {
      await contextReady;
      // In the extension's side panel the run works in this Chrome (docs/guides/side-panel.md):
      // ouro sends it there, in the person's profile, when no context is asked for.
      const options = endpoint ? { mode: $('mode').value } : { context: $('context').value, mode: $('mode').value };
      if ($('agent').value !== 'rlm') options.agent = $('agent').value;
      const run = await api('POST', '/api/runs', { task, urls, options });
      $('task').value = '';
      open(run.id, true);
    } catch (err) {
      addMessage('partial', err.message);
      setRunning(false);
      if (err.kind === 'no-model' || err.kind === 'no-key') openSettings(err.message);
    }
  });
  // My browser or a clean session: the server's default (My browser when the profile is the
  // user's), until the user picks one; the pick is remembered.
  const CONTEXT_KEY = 'ouro.context';
  $('context').addEventListener('change', () => localStorage.setItem(CONTEXT_KEY, $('context').value));
  if (endpoint) {
    // The side panel's runs work in this Chrome: the choice is not the panel's to make.
    const sel = $('context');
    sel.replaceChildren(new Option('This Chrome', 'mine'));
    sel.disabled = true;
    sel.dataset.ready = '1';
    sel.closest('label').title = "In the side panel a run works in this Chrome, in your profile, in a tab group of its own.";
  }
  const contextReady = endpoint ? Promise.resolve() : (async () => {
    const saved = localStorage.getItem(CONTEXT_KEY);
    if (saved === 'mine' || saved === 'clean') $('context').value = saved;
    else try { const s = await api('GET', '/api/settings'); if (s.default_context) $('context').value = s.default_context; } catch (err) { /* keep the first */ }
    $('context').dataset.ready = '1';
  })();
  // Careful (asks before sensitive actions; docs/guides/safety.md) or autonomous, sent with each
  // new run and schedule; the pick is remembered.
  const MODE_KEY = 'ouro.mode';
  const savedMode = localStorage.getItem(MODE_KEY);
  if (savedMode === 'careful' || savedMode === 'autonomous') $('mode').value = savedMode;
  $('mode').addEventListener('change', () => localStorage.setItem(MODE_KEY, $('mode').value));
  $('task').addEventListener('keydown', ev => { if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); $('task-form').requestSubmit(); } });
  async function cancelRun() {
    if (!current || !isRunning()) return;
    setStatus('cancelling…', 'running');
    try { await api('POST', `/api/runs/${current.id}/cancel`); } catch (err) { addMessage('partial', err.message); }
  }
  $('cancel-btn').onclick = cancelRun;
  // Undo and redo of the conversation's turns (docs/guides/undo.md): shown when there is
  // something to undo or redo and no turn is in progress.
  async function refreshUndo() {
    const id = current && current.id;
    if (!id || isRunning()) { $('undo-btn').hidden = $('redo-btn').hidden = true; return; }
    try {
      const s = await api('GET', `/api/conversations/${id}/undo`);
      if (!current || current.id !== id) return;
      $('undo-btn').hidden = !s.can_undo;
      $('redo-btn').hidden = !s.can_redo;
    } catch (err) { $('undo-btn').hidden = $('redo-btn').hidden = true; }
  }
  async function undoRedo(which) {
    if (!current || isRunning()) return;
    const id = current.id;
    try {
      const r = await api('POST', `/api/conversations/${id}/${which}`);
      const box = el('div');
      box.append(el('p', null, `${which === 'undo' ? 'Undid' : 'Redid'} turn ${r.undone || r.redone}:`));
      const list = el('ul');
      for (const c of r.changes || []) list.append(el('li', null, c.did));
      box.append(list, el('p', 'hint', r.note || ''));
      addMessage('guidance', box);
      if (Array.isArray(r.goals)) showGoals(r.goals);
    } catch (err) { addMessage('partial', err.message); }
    refreshUndo();
  }
  $('undo-btn').onclick = () => undoRedo('undo');
  $('redo-btn').onclick = () => undoRedo('redo');
  $('cancel-btn').title = 'Cancel the run (Esc)';
  // Esc cancels the running run, unless a dialog is open (there Esc answers it: no) or a menu of
  // the page's own controls (a select) is.
  document.addEventListener('keydown', ev => {
    if (ev.key !== 'Escape' || ev.defaultPrevented || document.querySelector('dialog[open]')) return;
    if (ev.target instanceof HTMLSelectElement) return;
    if (current && isRunning()) { ev.preventDefault(); cancelRun(); }
  });

  // Narrow screens (a side panel, a phone): the conversation and the activity are two tabs; the
  // Activity tab counts the iterations. The side panels have a close button of their own.
  function showView(which) {
    $('tab-chat').setAttribute('aria-selected', String(which === 'chat'));
    $('tab-activity').setAttribute('aria-selected', String(which === 'activity'));
    $('tab-chat').tabIndex = which === 'chat' ? 0 : -1;
    $('tab-activity').tabIndex = which === 'activity' ? 0 : -1;
    document.querySelector('main').dataset.view = which;
  }
  $('tab-chat').onclick = () => showView('chat');
  $('tab-activity').onclick = () => showView('activity');
  $('view-tabs').addEventListener('keydown', ev => {
    if (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight') return;
    const next = document.querySelector('main').dataset.view === 'chat' ? 'activity' : 'chat';
    showView(next);
    $('tab-' + next).focus();
  });
  for (const b of document.querySelectorAll('.close-panel')) b.onclick = () => { $(b.dataset.for).click(); $(b.dataset.for).focus(); };

  // A server on a browser pool (ouro serve --browser-pool): its endpoints, their state and load.
  // Asked only of a server whose settings say it has one (GET /api/settings → pool).
  let serverHasPool = false;
  async function refreshPool() {
    if (!serverHasPool) return;
    try {
      const p = await api('GET', '/api/pool');
      const ul = $('pool-list');
      ul.textContent = '';
      for (const e of p.endpoints || [])
        ul.append(el('li', e.state === 'healthy' ? null : 'err', `${e.url} — ${e.state}, ${e.running}/${e.capacity} runs${e.lastError ? ' — ' + e.lastError : ''}`));
      $('pool').hidden = false;
    } catch (err) { $('pool').hidden = true; }
  }

  // A History row's second line: what became of the run, when, how long it worked, what it cost.
  // A conversation's time is its turns' (not the waits between them).
  function runSummary(r) {
    const when = r.created_at ? new Date(r.created_at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';
    const turns = Array.isArray(r.turns) ? r.turns : [];
    const inProgress = ['running', 'queued', 'awaiting_user'].includes(r.state);
    let ms = turns.reduce((sum, t) => sum + (t.started_at && t.ended_at ? t.ended_at - t.started_at : 0), 0);
    if (!turns.length || !ms) ms = r.updated_at - r.created_at;
    const took = inProgress || !Number.isFinite(ms) ? '' : `took ${duration(ms)}`;
    const cost = r.cost === null || r.cost === undefined ? 'cost not known' : r.cost < 0.01 ? `$${r.cost.toFixed(4)}` : `$${r.cost.toFixed(2)}`;
    return [r.state, when, took, cost, `${r.iterations} ${r.iterations === 1 ? 'iteration' : 'iterations'}`, r.endpoint ? 'on ' + r.endpoint : '']
      .filter(Boolean).join(' · ');
  }
  function duration(ms) {
    const s = Math.max(0, ms) / 1000;
    if (s < 10) return `${s.toFixed(1)} s`;
    if (s < 60) return `${Math.round(s)} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
    return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
  }
  // Each turn's state, the one in progress (or cut short by a crash) last.
  function turnStates(r) {
    const states = (Array.isArray(r.turns) ? r.turns : []).map(t => t.state);
    if (['running', 'queued', 'awaiting_user', 'interrupted'].includes(r.state) && states[states.length - 1] !== r.state) states.push(r.state);
    return states;
  }

  async function refreshHistory() {
    refreshPool();
    try {
      const runs = await api('GET', '/api/runs');
      const ul = $('runs');
      ul.textContent = '';
      for (const r of runs) {
        const li = el('li');
        const b = el('button', null, r.task);
        b.type = 'button';
        b.dataset.run = r.id;
        b.append(el('span', 'state', runSummary(r)));
        const turns = turnStates(r);
        if (turns.length > 1) b.append(el('span', 'state turns', `${turns.length} turns: ${turns.join(' · ')}`));
        b.onclick = () => { addMessage('user', r.task); setRunning(r.state === 'running' || r.state === 'queued'); open(r.id, r.state === 'running' || r.state === 'queued'); };
        li.append(b);
        if (r.state === 'interrupted') {
          // ouro stopped while it worked: it goes on from its last checkpoint.
          const resume = el('button', 'resume', 'Resume');
          resume.type = 'button';
          resume.title = 'Go on from the last checkpoint: env, history and tabs restored';
          resume.onclick = async () => {
            try {
              await api('POST', `/api/runs/${r.id}/resume`);
              $('messages').textContent = '';
              $('iterations').textContent = '';
              addMessage('user', r.task);
              setRunning(true);
              open(r.id, true);
            } catch (err) { addMessage('partial', err.message); }
          };
          li.append(resume);
        }
        if (r.state === 'done') {
          // Kept as a script: the proposed parameters shown one by one to rename or drop first.
          const save = el('button', 'resume', 'Save as script');
          save.type = 'button';
          save.title = 'Keep this run to replay it without a model, its values as parameters';
          save.onclick = async () => {
            const name = prompt('Script name (letters, digits, _ - .)', r.task.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'script');
            if (!name) return;
            try {
              const proposal = await api('POST', `/api/runs/${r.id}/script`, {name, dry_run: true});
              const params = [];
              for (const p of proposal.params) {
                const kept = prompt(`Parameter for the value "${p.value}" (empty: keep the value fixed)`, p.name);
                if (kept) params.push({name: kept, value: p.value});
              }
              const saved = await api('POST', `/api/runs/${r.id}/script`, {name, params});
              addMessage('guidance', `Saved as script ${saved.name} v${saved.version} (${saved.steps.length} steps; parameters: ${saved.params.map(p => p.name).join(', ') || 'none'}).`);
              refreshScripts();
            } catch (err) { addMessage('partial', err.message); }
          };
          li.append(save);
        }
        ul.append(li);
      }
    } catch (err) { /* the list shows what it can */ }
    refreshScripts();
    refreshEvals();
  }

  // Scripts: each one's latest version, and Run — a replay with no model, its values asked for.
  async function refreshScripts() {
    try {
      const {scripts} = await api('GET', '/api/scripts');
      const ul = $('scripts-list');
      ul.textContent = '';
      for (const sc of scripts) {
        const li = el('li');
        const run = el('button', null, `${sc.name} v${sc.version}`);
        run.type = 'button';
        run.title = `Run without a model: ${sc.task}`;
        run.append(el('span', 'state', `${sc.steps.length} steps · ${sc.params.map(p => p.name).join(', ') || 'no parameters'}`));
        run.onclick = async () => {
          const vars = {};
          for (const p of sc.params) {
            const v = prompt(`${p.name}`, p.value);
            if (v === null) return;
            vars[p.name] = v;
          }
          try {
            const created = await api('POST', `/api/scripts/${encodeURIComponent(sc.name)}/run`, {vars});
            $('messages').textContent = '';
            $('iterations').textContent = '';
            addMessage('user', created.task);
            setRunning(true);
            open(created.id, true);
          } catch (err) { addMessage('partial', err.message); }
        };
        li.append(run);
        ul.append(li);
      }
    } catch (err) { /* the list shows what it can */ }
  }
  // Evaluations (`ouro eval`): a report opens in a tab of its own, as the page the server made.
  async function openEvalPage(path) {
    try {
      const res = await fetch(BASE + path, { headers: { 'Authorization': 'Bearer ' + token } });
      const text = await res.text();
      if (!res.ok) {
        let why = res.statusText;
        try { why = JSON.parse(text).error.message; } catch (e) { /* not JSON */ }
        throw new Error(why);
      }
      const url = URL.createObjectURL(new Blob([text], {type: 'text/html'}));
      window.open(url, '_blank', 'noopener');
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (err) { $('eval-hint').textContent = `Cannot open it: ${err.message}`; }
  }
  async function refreshEvals() {
    try {
      const {results} = await api('GET', '/api/eval');
      const ul = $('evals-list');
      ul.textContent = '';
      for (const sel of [$('eval-a'), $('eval-b')]) sel.textContent = '';
      for (const r of results) {
        const s = r.summary || {};
        const li = el('li');
        const b = el('button', null, r.name);
        b.type = 'button';
        b.title = `Open the report of ${r.name}`;
        const attacks = s.injected ? ` · attacks ${s.attacks_succeeded}/${s.injected}` : '';
        b.append(el('span', 'state', `${Math.round((s.success_rate || 0) * 100)}% of ${s.runs} runs${attacks}`));
        b.onclick = () => openEvalPage(`/api/eval/${encodeURIComponent(r.name)}/report`);
        li.append(b);
        ul.append(li);
        for (const sel of [$('eval-a'), $('eval-b')]) sel.append(new Option(r.name, r.name));
      }
      if (results.length > 1) $('eval-b').selectedIndex = 0, $('eval-a').selectedIndex = 1;
      $('eval-compare').hidden = results.length < 2;
    } catch (err) { /* the list shows what it can */ }
  }
  $('eval-compare').onsubmit = e => {
    e.preventDefault();
    openEvalPage(`/api/eval/compare?a=${encodeURIComponent($('eval-a').value)}&b=${encodeURIComponent($('eval-b').value)}`);
  };
  $('new-btn').onclick = () => {
    // The conversation is over: its session goes now, and in My browser the tabs it opened that
    // you did not turn to close (a follow-up from History still goes on from storage).
    if (current && !isRunning()) api('POST', `/api/runs/${current.id}/end`).catch(() => {});
    if (current && current.socket) current.socket.close();
    current = null;
    stopLive();
    showGoals([]);
    $('undo-btn').hidden = $('redo-btn').hidden = true;
    $('messages').textContent = '';
    $('iterations').textContent = '';
    $('totals').textContent = '';
    $('tab-activity-count').textContent = '';
    setRunning(false);
    $('task').focus();
  };
  $('history-btn').onclick = () => {
    const h = $('history');
    h.hidden = !h.hidden;
    $('history-btn').setAttribute('aria-expanded', String(!h.hidden));
    if (!h.hidden) { showMemory(false); refreshHistory(); }
  };

  // Memory: what earlier runs (their tasks and answers) and remember() left for later tasks;
  // searched by words (BM25), each entry deletable. It shares the side column with History.
  function showMemory(show) {
    $('memory').hidden = !show;
    $('memory-btn').setAttribute('aria-expanded', String(show));
    if (show) {
      $('history').hidden = true;
      $('history-btn').setAttribute('aria-expanded', 'false');
      refreshMemory();
    }
  }
  async function refreshMemory() {
    const q = $('memory-q').value.trim();
    const hint = $('memory-hint');
    try {
      const r = await api('GET', '/api/memory' + (q ? '?q=' + encodeURIComponent(q) + '&limit=50' : '?limit=200'));
      const ul = $('memories');
      ul.textContent = '';
      hint.textContent = q ? `${r.entries.length} matching of ${r.total ?? '?'}` : r.total ? `${r.total} remembered` +
        (r.total > r.entries.length ? ` (the latest ${r.entries.length})` : '') : 'Nothing remembered yet: finished runs and remember() add here.';
      for (const m of r.entries) {
        const li = el('li');
        const head = el('div', 'mem-meta');
        const date = new Date(m.updated_at || m.created_at);
        head.append(el('span', null, `#${m.id} · ${date.toLocaleString()} · ${m.kind}`));
        if (m.source_run) {
          const from = el('button', 'link', `run ${m.source_run}`);
          from.type = 'button';
          from.title = 'Open the run this came from';
          from.onclick = () => { $('messages').textContent = ''; open(m.source_run, false); setRunning(false); };
          head.append(from);
        }
        li.append(head);
        if (m.tags && m.tags.length) li.append(el('div', 'mem-tags', m.tags.join(' · ')));
        const text = el('div', 'mem-text', m.text);
        text.tabIndex = 0;  // a long one scrolls: reachable by keyboard (WCAG 2.1.1)
        li.append(text);
        const del = el('button', 'danger', 'Delete');
        del.type = 'button';
        del.setAttribute('aria-label', `Delete memory ${m.id}`);
        del.onclick = async () => {
          try { await api('DELETE', `/api/memory/${m.id}`); li.remove(); hint.textContent = `Memory #${m.id} deleted.`; }
          catch (err) { hint.textContent = err.message; }
        };
        li.append(del);
        ul.append(li);
      }
    } catch (err) { hint.textContent = err.message; }
  }
  $('memory-btn').onclick = () => showMemory($('memory').hidden);
  $('memory-form').addEventListener('submit', ev => { ev.preventDefault(); refreshMemory(); });
  let memoryTimer = null;
  $('memory-q').addEventListener('input', () => { clearTimeout(memoryTimer); memoryTimer = setTimeout(refreshMemory, 250); });

  // Schedules: saved tasks that `ouro serve` runs once, every interval or on a cron expression;
  // each one's timing, next fire, last run (opened on a click) and why a fire was skipped; Run now,
  // Remove, and a form to add one. It shares the side column with History and Memory.
  function showSchedules(show) {
    $('schedules').hidden = !show;
    $('schedules-btn').setAttribute('aria-expanded', String(show));
    if (show) {
      showMemory(false);
      $('history').hidden = true;
      $('history-btn').setAttribute('aria-expanded', 'false');
      refreshSchedules();
    }
  }
  const when = secs => secs == null ? '—' : new Date(secs * 1000).toLocaleString();
  async function refreshSchedules() {
    const hint = $('sched-hint');
    try {
      const jobs = await api('GET', '/api/schedules');
      const ul = $('schedule-list');
      ul.textContent = '';
      if (!jobs.length) ul.append(el('li', 'hint', 'No schedules yet: add one below, or with ouro schedule add.'));
      for (const j of jobs) {
        const li = el('li');
        if (j.error) { li.append(el('div', 'sched-skip', `${j.id}: cannot be read (${j.error})`)); ul.append(li); continue; }
        const name = el('div', 'sched-name', j.name);
        name.title = j.task;
        li.append(name);
        li.append(el('div', 'sched-meta', `${j.timing.description} · missed: ${j.missed}`));
        li.append(el('div', 'sched-meta', j.run_requested ? 'next: now (requested)' : `next: ${when(j.next_fire)}`));
        if (j.last_run_id) {
          const last = el('button', 'link', `last run ${j.last_run_id} (${j.runs} in all)`);
          last.type = 'button';
          last.title = 'Open the last run this schedule started';
          last.onclick = async () => {
            let state = '';
            try { state = (await api('GET', `/api/runs/${j.last_run_id}`)).state; } catch (_) { /* opened as finished */ }
            const live = state === 'running' || state === 'queued' || state === 'awaiting_user';
            $('messages').textContent = '';
            $('iterations').textContent = '';
            addMessage('user', j.task);
            setRunning(live);
            open(j.last_run_id, live);
          };
          li.append(last);
        }
        if (j.last_skip) li.append(el('div', 'sched-skip', `skipped ${when(j.last_skip_at)}: ${j.last_skip}`));
        const row = el('div', 'row');
        const now = el('button', null, 'Run now');
        now.type = 'button';
        now.setAttribute('aria-label', `Run now: ${j.name}`);  // the visible words first (WCAG 2.5.3, Label in Name)
        now.onclick = async () => {
          try { await api('POST', `/api/schedules/${j.id}/run`); hint.textContent = `${j.name}: starting now.`; setTimeout(refreshSchedules, 1500); }
          catch (err) { hint.textContent = err.message; }
        };
        const rm = el('button', 'danger', 'Remove');
        rm.type = 'button';
        rm.setAttribute('aria-label', `Remove the schedule ${j.name}`);
        rm.onclick = async () => {
          try { await api('DELETE', `/api/schedules/${j.id}`); li.remove(); hint.textContent = `${j.name} removed (its runs stay in History).`; }
          catch (err) { hint.textContent = err.message; }
        };
        row.append(now, rm);
        li.append(row);
        ul.append(li);
      }
    } catch (err) { hint.textContent = err.message; }
  }
  $('schedules-btn').onclick = () => showSchedules($('schedules').hidden);
  // History and Memory take the column back.
  for (const id of ['history-btn', 'memory-btn'])
    $(id).addEventListener('click', () => { $('schedules').hidden = true; $('schedules-btn').setAttribute('aria-expanded', 'false'); });
  const PLACEHOLDERS = { every: '1h', cron: '0 8 * * 1-5', at: '2026-12-01 08:00, 08:00 or +10m' };
  $('sched-kind').onchange = () => { $('sched-value').placeholder = PLACEHOLDERS[$('sched-kind').value]; };
  try { $('sched-tz').value = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (_) { /* the server's zone */ }
  $('schedule-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    const body = { task: $('sched-task').value.trim(), urls: $('sched-urls').value.split(/\s+/).filter(Boolean), missed: $('sched-missed').value };
    body[$('sched-kind').value] = $('sched-value').value.trim();
    if ($('sched-tz').value.trim()) body.tz = $('sched-tz').value.trim();
    if ($('sched-name').value.trim()) body.name = $('sched-name').value.trim();
    body.options = { context: $('context').value, mode: $('mode').value };
    if ($('agent').value !== 'rlm') body.options.agent = $('agent').value;
    try {
      const j = await api('POST', '/api/schedules', body);
      $('sched-hint').textContent = `Added: ${j.timing.description}; next ${when(j.next_fire)}.`;
      $('sched-task').value = '';
      $('sched-value').value = '';
      $('sched-name').value = '';
      refreshSchedules();
    } catch (err) { $('sched-hint').textContent = err.message; }
  });

  // Settings: what is stored, the providers to choose from (local servers probed), a connection
  // test. Opened by itself when no model is configured, saying what still works without one.
  async function openSettings(reason) {
    const s = await api('GET', '/api/settings');
    const hint = $('setup-hint');
    hint.hidden = !reason && s.configured !== false;
    hint.textContent = reason || (s.configured === false ? s.configured_error : '');
    $('test-result').textContent = '';
    fillProviders();
    const f = $('settings-form');
    for (const k of ['provider', 'model', 'sub_model', 'base_url', 'max_iterations', 'max_tokens', 'temperature', 'thinking']) f.elements[k].value = s[k] ?? '';
    f.elements.api_key.value = '';
    const where = s.key_store === 'keyring' ? 'in the OS keyring' : 'in a file only you can read (no keyring answers on this session)';
    $('key-hint').textContent = (s.api_key ? `A key is stored ${where} (${s.api_key}). Leave empty to keep it.`
                                           : `No key stored; a key saved here goes ${where}.`) +
                                ' Environment variables (ANTHROPIC_API_KEY, OPENAI_API_KEY, OURO_API_KEY) win over it.';
    showSites(s.allowed_sites || []);
    showPairings();
    if (!$('settings-dialog').open) $('settings-dialog').showModal();
  }
  $('settings-btn').onclick = () => openSettings();
  let catalog = [];
  async function fillProviders() {
    try { catalog = await api('GET', '/api/providers'); } catch (_) { return; }
    const pick = $('provider-pick');
    pick.length = 1;
    for (const p of catalog) {
      const state = p.local ? (p.reachable ? `running here (${(p.models || []).length} models)` : 'not running here')
                            : (p.key_set ? `${p.key_env} is set` : `needs ${p.key_env}`);
      pick.append(new Option(`${p.name} — ${state}`, p.name));
    }
  }
  $('provider-pick').onchange = () => {
    const p = catalog.find(x => x.name === $('provider-pick').value);
    const f = $('settings-form');
    if (!p) { $('provider-pick-hint').textContent = ''; return; }
    f.elements.provider.value = p.name;
    f.elements.model.value = p.local && p.models && p.models.length ? p.models[0] : p.model;
    f.elements.sub_model.value = p.local && p.models && p.models.length ? p.models[0] : p.sub_model;
    f.elements.base_url.value = '';
    $('provider-pick-hint').textContent = p.local
      ? (p.reachable ? `A local server at ${p.base_url}; no key needed.` : `Start it first: it is expected at ${p.base_url}.`)
      : (p.key_set ? `The key comes from ${p.key_env} in ouro's environment.` : `Paste a key below, or set ${p.key_env} where ouro runs.`);
  };
  $('settings-test').onclick = async () => {
    const f = $('settings-form');
    const body = {};
    for (const k of ['provider', 'model', 'sub_model', 'base_url', 'api_key']) if (f.elements[k].value) body[k] = f.elements[k].value;
    $('test-result').textContent = 'Testing…';
    try {
      const r = await api('POST', '/api/settings/test', body);
      $('test-result').textContent = r.ok ? `✓ ${r.model} answered in ${Math.round(r.ms)} ms` : `✗ ${r.kind}: ${r.error}`;
    } catch (err) { $('test-result').textContent = '✗ ' + err.message; }
  };
  // The sites allowed "always", each revocable at once.
  function showSites(sites) {
    const ul = $('allowed-sites');
    ul.textContent = '';
    $('sites-hint').hidden = sites.length > 0;
    for (const site of sites) {
      const li = el('li', null, site + ' ');
      const b = el('button', 'danger', 'Revoke');
      b.type = 'button';
      b.setAttribute('aria-label', `Revoke ${site}`);
      b.onclick = async () => {
        try { const s = await api('PUT', '/api/settings', { allowed_sites: sites.filter(x => x !== site) }); showSites(s.allowed_sites || []); }
        catch (err) { $('sites-hint').hidden = false; $('sites-hint').textContent = err.message; }
      };
      li.append(b);
      ul.append(li);
    }
  }
  // Paired extensions (docs/design/extension-bridge.md): the current pairing code and each
  // pairing, revocable at once. Managed with the page token only: in the side panel, whose
  // credential is an extension's, the section is hidden.
  async function showPairings(fresh) {
    const box = $('pairings-box');
    if (endpoint) { box.hidden = true; return; }
    let code, list;
    try {
      code = await api(fresh ? 'POST' : 'GET', '/api/pair/code');
      list = await api('GET', '/api/pairings');
    } catch (err) { $('pairings-hint').hidden = false; $('pairings-hint').textContent = err.message; return; }
    $('pair-code').textContent = code.code;
    $('pair-code-expiry').textContent = `(valid until ${new Date(code.expiresAt).toLocaleTimeString()}, once)`;
    const ul = $('pairings');
    ul.textContent = '';
    $('pairings-hint').hidden = list.length > 0;
    for (const p of list) {
      const when = p.lastUsed ? `last used ${new Date(p.lastUsed).toLocaleString()}` : 'not used yet';
      const li = el('li', null, `${p.name} · ${p.connected ? 'connected' : 'not connected'} · ${when} `);
      li.title = p.origin;
      const b = el('button', 'danger', 'Revoke');
      b.type = 'button';
      b.setAttribute('aria-label', `Revoke ${p.name} (${p.id})`);
      b.onclick = async () => {
        try { await api('DELETE', `/api/pairings/${encodeURIComponent(p.id)}`); showPairings(); }
        catch (err) { $('pairings-hint').hidden = false; $('pairings-hint').textContent = err.message; }
      };
      li.append(b);
      ul.append(li);
    }
  }
  $('pair-code-new').onclick = () => showPairings(true);
  $('settings-cancel').onclick = () => $('settings-dialog').close();
  $('settings-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    const f = ev.target;
    const body = {};
    for (const k of ['provider', 'model', 'sub_model', 'base_url']) body[k] = f.elements[k].value || null;
    if (f.elements.max_iterations.value) body.max_iterations = Number(f.elements.max_iterations.value);
    // Empty: back to the model table's default.
    body.max_tokens = f.elements.max_tokens.value ? Number(f.elements.max_tokens.value) : null;
    body.temperature = f.elements.temperature.value !== '' ? Number(f.elements.temperature.value) : null;
    const th = f.elements.thinking.value.trim();
    body.thinking = th === '' ? null : /^\d+$/.test(th) ? Number(th) : th;
    if (f.elements.api_key.value) body.api_key = f.elements.api_key.value;
    try { await api('PUT', '/api/settings', body); $('settings-dialog').close(); }
    catch (err) { $('key-hint').textContent = err.message; }
  });

  refreshHistory();
  // A first run: no model anywhere (settings, environment, config file) → Settings, with the reason.
  api('GET', '/api/settings').then(s => {
    // --workspace NAME: shown in the header, so two Command Centers are not mistaken for each other.
    if (s.workspace) { $('workspace').textContent = 'workspace: ' + s.workspace; $('workspace').hidden = false; }
    serverHasPool = s.pool === true;
    refreshPool();
    if (s.configured === false) openSettings(s.configured_error);
  }).catch(() => {});
})();

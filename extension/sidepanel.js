// The side panel: the Command Center beside the page. Above it, a bar with the connection to
// ouro, "Share this tab" and the tabs the agent holds; before pairing, the screens that say how
// to start ouro and take the pairing code. The Command Center itself is ouro's own page
// (index.html, app.js, app.css), copied into command-center/ when `ouro extension` writes this
// folder, and loaded here with the extension's credential instead of the page token
// (docs/design/extension-bridge.md, "The side panel").
'use strict';
(() => {
  const $ = id => document.getElementById(id);
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };

  // One port to the service worker: state comes in as it changes; requests carry a nonce.
  let worker = null;
  let nonce = 0;
  const waiting = new Map();
  function connectWorker() {
    worker = chrome.runtime.connect({ name: 'panel' });
    worker.onMessage.addListener(msg => {
      if (msg.type === 'state') render(msg.state);
      else if (msg.type === 'reply' && waiting.has(msg.for)) { waiting.get(msg.for)(msg); waiting.delete(msg.for); }
    });
    // Chrome stopped the worker: a new port starts it again.
    worker.onDisconnect.addListener(() => setTimeout(connectWorker, 500));
  }
  const ask = (type, extra) => new Promise(resolve => {
    const n = ++nonce;
    waiting.set(n, resolve);
    worker.postMessage({ type, nonce: n, ...extra });
  });

  let last = null;
  let commandCenter = 'no';  // 'no' | 'loading' | 'yes'
  function render(state) {
    const wasPaired = last && last.paired;
    last = state;
    const dot = $('ext-dot');
    const where = `127.0.0.1:${state.port}`;
    $('ext-where').textContent = where;
    $('ext-where2').textContent = where;
    if (document.activeElement !== $('ext-port')) $('ext-port').value = state.port;
    let text, cls;
    if (state.server === 'absent') { text = `ouro is not running on ${where}`; cls = 'off'; }
    else if (state.server === 'foreign') { text = `not ouro on ${where}`; cls = 'off'; }
    else if (!state.paired) { text = `ouro on ${where} — not paired yet`; cls = 'wait'; }
    else if (state.connected) { text = `Connected to ouro on ${where}`; cls = 'on'; }
    else if (state.server === 'present') { text = `ouro on ${where} — bridge connecting…`; cls = 'wait'; }
    else { text = 'Looking for ouro…'; cls = ''; }
    if (state.error && !state.connected) text += ` (${state.error})`;
    $('ext-conn').textContent = text;
    $('ext-conn').title = state.version ? `ouro ${state.version}` : '';
    dot.className = 'dot ' + cls;
    $('ext-share').hidden = !state.connected;
    if (state.retryAt && state.server !== 'present') {
      const secs = Math.max(1, Math.round((state.retryAt - Date.now()) / 1000));
      $('ext-retry').textContent = `Trying again in ${secs} s, and whenever this panel opens.`;
    }
    renderGroups(state.groups || []);

    // A pairing that ended (revoked in Settings, forgotten): back to the pairing screen.
    if (wasPaired && !state.paired && commandCenter !== 'no') { location.reload(); return; }
    const ready = state.paired && state.server === 'present';
    if (ready && commandCenter === 'no') loadCommandCenter(state);
    const setup = commandCenter === 'no';
    $('ext-setup').hidden = !setup;
    $('ext-absent').hidden = !(setup && state.server === 'absent');
    $('ext-foreign').hidden = !(setup && state.server === 'foreign');
    $('ext-pair').hidden = !(setup && state.server === 'present' && !state.paired);
  }

  // The groups ouro works in and their tabs; each tab can be taken back from here too.
  function renderGroups(groups) {
    const held = groups.reduce((n, g) => n + g.tabs.length, 0);
    $('ext-held').hidden = groups.length === 0;
    $('ext-held-summary').textContent = held === 0 ? 'The agent holds no tabs' : `The agent holds ${held} tab${held === 1 ? '' : 's'} in ${groups.length} group${groups.length === 1 ? '' : 's'}`;
    const ul = $('ext-groups');
    ul.textContent = '';
    for (const g of groups) {
      const li = el('li');
      const head = el('div', 'group');
      head.append(el('span', 'chip ' + (g.color || 'grey')), el('span', null, g.title || '(untitled group)'));
      li.append(head);
      const tabs = el('ul');
      for (const t of g.tabs) {
        const row = el('li');
        const name = el('span', null, `${t.attached ? '● ' : '○ '}${t.title || t.url}`);
        name.title = `${t.url}${t.attached ? ' — the agent is attached' : ' — shared, not attached yet'}`;
        const back = el('button', null, 'Take back');
        back.type = 'button';
        back.setAttribute('aria-label', `Take back ${t.title || t.url}`);
        back.onclick = () => ask('unshare', { tabId: t.tabId });
        row.append(name, back);
        tabs.append(row);
      }
      li.append(tabs);
      ul.append(li);
    }
  }

  // "Share this tab": the tab in front in this window goes into ouro's group.
  $('ext-share').onclick = async () => {
    const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
    if (!tab) return;
    const groups = (last && last.groups) || [];
    // With two conversations' groups, the one that holds a tab of this window wins; else a new group.
    const here = groups.find(g => g.tabs.some(t => t.tabId === tab.id));
    if (here) { $('ext-share').textContent = 'Shared already'; setTimeout(() => { $('ext-share').textContent = 'Share this tab'; }, 1500); return; }
    const r = await ask('share', { tabId: tab.id, groupId: groups.length === 1 ? groups[0].groupId : undefined });
    if (!r.ok) $('ext-conn').textContent = r.error;
  };

  $('ext-pair').addEventListener('submit', async ev => {
    ev.preventDefault();
    $('ext-pair-hint').textContent = 'Pairing…';
    const r = await ask('pair', { code: $('ext-code').value });
    $('ext-pair-hint').textContent = r.ok ? 'Paired.' : r.error;
    if (r.ok) $('ext-code').value = '';
  });
  $('ext-port-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    const r = await ask('setPort', { port: $('ext-port').value });
    if (!r.ok) $('ext-conn').textContent = r.error;
  });

  // The Command Center's markup is its own index.html (packaged with the extension, not from the
  // network); its script reads globalThis.ouroEndpoint for where ouro is and the credential.
  async function loadCommandCenter(state) {
    commandCenter = 'loading';
    let html;
    try {
      const res = await fetch('command-center/index.html');
      if (!res.ok) throw new Error(res.statusText);
      html = await res.text();
    } catch (_) {
      commandCenter = 'no';
      $('ext-missing').hidden = false;
      return;
    }
    const { credential } = await chrome.storage.local.get({ credential: null });
    const doc = new DOMParser().parseFromString(html, 'text/html');
    for (const node of [...doc.body.childNodes]) if (node.nodeName !== 'SCRIPT') document.body.append(document.adoptNode(node));
    globalThis.ouroEndpoint = {
      base: `http://127.0.0.1:${state.port}`,
      credential,
      // ouro refused the credential: the worker checks it and, if it is revoked, pairs again.
      onUnauthorized: () => ask('retry'),
    };
    const script = document.createElement('script');
    script.src = 'command-center/app.js';
    document.body.append(script);
    commandCenter = 'yes';
    $('ext-setup').hidden = true;
  }

  connectWorker();
})();

// ouro's extension: the service worker. It is thin on purpose: it finds `ouro serve` on
// 127.0.0.1, pairs with it once, keeps one WebSocket to it and carries DevTools commands and
// events between ouro and the tabs of ouro's tab groups through chrome.debugger. Nothing of a run
// lives here: Chrome may stop this worker at any time (developer.chrome.com/docs/extensions/
// develop/concepts/service-workers/lifecycle) and a restart loses only the socket, which comes
// back with backoff. The protocol is docs/design/extension-bridge.md.
'use strict';

const PROTOCOL = 1;
const DEFAULT_PORT = 7777;
const DEBUGGER_VERSION = '1.3';
// WebSocket traffic keeps a service worker alive from Chrome 116 on, when a message goes at least
// every 30 s (developer.chrome.com/docs/extensions/how-to/web-platform/websockets).
const KEEPALIVE_MS = 20000;
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const MAX_IN_FLIGHT = 1024;
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000];
const COLORS = ['blue', 'purple', 'cyan', 'green', 'orange', 'pink', 'red', 'yellow', 'grey'];
// Commands that would reach past the tabs ouro was given (other targets, the whole profile's
// cookies and cache, new windows and contexts): refused here whatever ouro asks. Tabs are opened
// and closed with openTab/closeTab, which put them in the conversation's group.
const BLOCKED = new Set([
  'Target.createTarget', 'Target.closeTarget', 'Target.createBrowserContext', 'Target.disposeBrowserContext',
  'Target.attachToBrowserTarget', 'Target.exposeDevToolsProtocol', 'Target.setRemoteLocations',
  'Network.getAllCookies', 'Network.clearBrowserCookies', 'Network.clearBrowserCache',
  'Storage.getCookies', 'Storage.setCookies', 'Storage.clearCookies',
]);
const BLOCKED_DOMAINS = ['Browser.', 'SystemInfo.', 'Tethering.'];

// --- state kept across restarts of this worker -----------------------------------------------------
// chrome.storage.local: {port, credential, pairingId} (the pairing survives browser restarts).
// chrome.storage.session: {groups: {groupId: {conversation, title, color}}, attached: [tabId]}
// (ouro's groups for this browser session; nothing of a run).
let groups = new Map();      // groupId → {conversation, title, color}
let attached = new Set();    // tabIds this extension's debugger is attached to
const tabGroup = new Map();  // tabId → groupId, as last seen (to tell joins from leaves)
const ourMoves = new Set();  // tabIds openTab is grouping: ouro knows of them from its reply, no tabAdded

const loaded = (async () => {
  const s = await chrome.storage.session.get({ groups: {}, attached: [] });
  groups = new Map(Object.entries(s.groups).map(([k, v]) => [Number(k), v]));
  attached = new Set(s.attached);
  // Groups the user closed while the worker slept are gone.
  for (const id of [...groups.keys()]) {
    try { await chrome.tabGroups.get(id); } catch (_) { groups.delete(id); }
  }
  for (const t of await chrome.tabs.query({})) tabGroup.set(t.id, t.groupId);
  // Attached with no socket to answer for them: a paused request would hang the user's tab.
  if (!ws) await letGoClosed('bridge-down');
  await saveSession();
})();

async function saveSession() {
  await holdPrediction();
  return chrome.storage.session.set({ groups: Object.fromEntries(groups), attached: [...attached] });
}

// Preconnects and DNS prefetches (<link rel=preconnect>, rel=dns-prefetch) open connections and
// look names up with no request the debugger can hold, to a host and port a page chooses: while
// ouro holds any tab, Chrome's network prediction is off (chrome.privacy, "Preload pages"); when
// it holds none, the person's own setting is back. Set before an attached tab's first request.
async function holdPrediction() {
  const setting = chrome.privacy && chrome.privacy.network && chrome.privacy.network.networkPredictionEnabled;
  if (!setting) return;
  try {
    if (attached.size > 0) await setting.set({ value: false });
    else await setting.clear({});
  } catch (e) {
    console.warn('ouro: cannot change network prediction:', String(e && e.message || e));
  }
}
async function settings() {
  return chrome.storage.local.get({ port: DEFAULT_PORT, credential: null, pairingId: null });
}

// --- what the side panel sees ----------------------------------------------------------------------
const panels = new Set();
let status = { server: 'unknown', connected: false, version: null, error: null, retryAt: null };

async function snapshot() {
  await loaded;
  const s = await settings();
  return { ...status, port: s.port, paired: !!s.credential, groups: await describeGroups() };
}
// Snapshots are taken one after another, so a slow earlier one never lands after a newer one
// and puts a stale list of tabs back in the panel.
let publishing = Promise.resolve();
function publish(change) {
  Object.assign(status, change || {});
  publishing = publishing.then(async () => {
    const snap = await snapshot();
    for (const p of panels) { try { p.postMessage({ type: 'state', state: snap }); } catch (_) { panels.delete(p); } }
  }).catch(() => {});
  return publishing;
}

async function describeGroups() {
  const out = [];
  for (const [groupId, g] of groups) {
    let tabs = [];
    try { tabs = await chrome.tabs.query({ groupId }); } catch (_) { /* gone */ }
    let info = null;
    try { info = await chrome.tabGroups.get(groupId); } catch (_) { continue; }
    out.push({ groupId, conversation: g.conversation, title: info.title, color: info.color, windowId: info.windowId,
               tabs: tabs.map(t => ({ tabId: t.id, url: t.url || t.pendingUrl || '', title: t.title || '', active: t.active, attached: attached.has(t.id) })) });
  }
  return out;
}

// --- finding ouro and pairing ------------------------------------------------------------------------
async function probe(port) {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/api/hello`, { cache: 'no-store' });
    const j = await r.json().catch(() => null);
    if (r.ok && j && j.service === 'ouro') return { ok: true, version: j.version || null, protocol: j.protocol };
    // An ouro older than /api/hello still answers its JSON errors ({"error": {"code", …}}).
    if (j && j.error && typeof j.error.code === 'string') return { ok: true, version: null, legacy: true };
    return { ok: false, why: 'foreign' };
  } catch (_) {
    return { ok: false, why: 'absent' };
  }
}

async function pair(code) {
  const s = await settings();
  const body = { code: String(code).trim(), name: `Chrome extension ${chrome.runtime.getManifest().version}`, extensionId: chrome.runtime.id };
  let r;
  try {
    r = await fetch(`http://127.0.0.1:${s.port}/api/pair`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  } catch (_) {
    throw new Error(`ouro does not answer on 127.0.0.1:${s.port}; start it with ouro serve`);
  }
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((j.error && j.error.message) || `pairing failed (HTTP ${r.status})`);
  if (typeof j.credential !== 'string' || !/^[A-Za-z0-9_-]{32,128}$/.test(j.credential)) throw new Error('ouro answered the pairing without a usable credential');
  await chrome.storage.local.set({ credential: j.credential, pairingId: j.id || null });
  attempt = 0;
  connect();
  return { id: j.id };
}

async function unpair() {
  const s = await settings();
  if (s.credential && s.pairingId) {
    try {
      await fetch(`http://127.0.0.1:${s.port}/api/pairings/${encodeURIComponent(s.pairingId)}`,
                  { method: 'DELETE', headers: { Authorization: 'Bearer ' + s.credential } });
    } catch (_) { /* forgotten here anyway; Settings in the Command Center lists it */ }
  }
  await forgetCredential('unpaired here');
}

async function forgetCredential(why) {
  await chrome.storage.local.remove(['credential', 'pairingId']);
  if (ws) ws.close(1000, why);
  await publish({ connected: false, error: why });
}

// --- the bridge socket ----------------------------------------------------------------------------
let ws = null;
let attempt = 0;
let retryTimer = null;
let keepalive = null;
const inFlight = new Set();

function scheduleRetry() {
  clearTimeout(retryTimer);
  const base = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
  const delay = Math.round(base * (0.8 + Math.random() * 0.4));
  attempt++;
  status.retryAt = Date.now() + delay;
  retryTimer = setTimeout(connect, delay);
}

// One connect at a time. One asked for meanwhile (pairing stored a credential, the port changed)
// runs again after it: the one in flight may have read the settings before the change.
let connecting = false;
let connectAgain = false;
async function connect() {
  if (connecting) { connectAgain = true; return; }
  if (ws && ws.readyState <= WebSocket.OPEN) return;
  connecting = true;
  connectAgain = false;
  try {
    clearTimeout(retryTimer);
    await loaded;
    const s = await settings();
    const found = await probe(s.port);
    if (!found.ok) {
      scheduleRetry();
      return publish({ server: found.why, connected: false, version: null });
    }
    if (!s.credential) {
      // Waiting for the user to type the code: the panel asks for it.
      return publish({ server: 'present', connected: false, version: found.version, retryAt: null, error: null });
    }
    await publish({ server: 'present', version: found.version, retryAt: null });
    open(s);
  } finally {
    connecting = false;
    if (connectAgain) { connectAgain = false; connect(); }
  }
}

function open(s) {
  // The credential rides in a WebSocket subprotocol (RFC 6455 §4.1, Sec-WebSocket-Protocol), so
  // ouro checks it with the handshake's headers, before the socket opens; the browser API can
  // send no Authorization header.
  const sock = new WebSocket(`ws://127.0.0.1:${s.port}/api/bridge`, [`ouro-bridge.${PROTOCOL}`, `ouro-credential.${s.credential}`]);
  ws = sock;
  let welcomed = false;
  sock.onopen = async () => {
    send({ method: 'hello', params: await helloParams() });
    keepalive = setInterval(() => send({ method: 'ping', params: { t: Date.now() } }), KEEPALIVE_MS);
  };
  sock.onmessage = ev => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (_) { return; }
    if (msg.method === 'welcome') {
      welcomed = true;
      attempt = 0;
      publish({ connected: true, error: null, version: (msg.params && msg.params.server && msg.params.server.version) || status.version });
      return;
    }
    if (msg.method === 'pong' || msg.method === 'ping') return;
    if (msg.id !== undefined) handle(msg);
  };
  sock.onclose = async ev => {
    if (ws === sock) ws = null;
    clearInterval(keepalive);
    // Without ouro nobody answers paused requests or holds the tabs: let them go at once. A clean
    // close is ouro letting go, having blanked the tabs a run's rule still held; anything else
    // (killed, cut off, revoked) leaves that to us.
    if (ev.wasClean && (ev.code === 1000 || ev.code === 1001)) {
      await refusePaused();
      for (const tabId of [...attached]) await detachTab(tabId, 'bridge-down', false);
    } else {
      await letGoClosed('bridge-down');
    }
    await saveSession();
    if (ev.code === 4001) return forgetCredential('ouro revoked this pairing; pair again');
    if (ev.code === 4002) { await publish({ connected: false, error: ev.reason || 'ouro speaks another version of the bridge protocol' }); return scheduleRetry(); }
    if (!welcomed) {
      // A refused handshake looks like any dropped socket to the WebSocket API: ask ouro whether
      // the credential still stands.
      const s = await settings();
      try {
        const r = await fetch(`http://127.0.0.1:${s.port}/api/pair/self`, { headers: { Authorization: 'Bearer ' + s.credential } });
        if (r.status === 401) return forgetCredential('ouro no longer knows this pairing; pair again');
      } catch (_) { /* not answering: the retry finds out */ }
    }
    await publish({ connected: false });
    scheduleRetry();
  };
}

async function helloParams() {
  const ua = navigator.userAgentData;
  const brand = ua && ua.brands ? ua.brands.find(b => /Chrom/.test(b.brand)) : null;
  return {
    protocol: PROTOCOL,
    extension: { id: chrome.runtime.id, version: chrome.runtime.getManifest().version },
    browser: { userAgent: navigator.userAgent, brand: brand ? `${brand.brand} ${brand.version}` : null },
    groups: await describeGroups(),
  };
}

function send(msg) {
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  let text = JSON.stringify(msg);
  if (text.length > MAX_MESSAGE_BYTES) {
    if (msg.id === undefined) return false;  // an oversized event is dropped; ouro sees the gap in the page's state
    text = JSON.stringify({ id: msg.id, error: { code: 'TooLarge', message: `the reply is over ${MAX_MESSAGE_BYTES} bytes` } });
  }
  ws.send(text);
  return true;
}

// --- requests from ouro -----------------------------------------------------------------------------
class BridgeError extends Error {
  constructor(code, message, extra) { super(message); this.code = code; this.extra = extra; }
}
const fail = (code, message, extra) => { throw new BridgeError(code, message, extra); };

async function handle(msg) {
  const { id, method } = msg;
  const params = msg.params || {};
  if (inFlight.size >= MAX_IN_FLIGHT) return send({ id, error: { code: 'Busy', message: `more than ${MAX_IN_FLIGHT} requests are in flight` } });
  inFlight.add(id);
  try {
    await loaded;
    const fn = METHODS[method];
    if (!fn) fail('UnknownMethod', `no method '${String(method).slice(0, 60)}' (known: ${Object.keys(METHODS).join(', ')})`);
    send({ id, result: (await fn(params)) || {} });
  } catch (e) {
    const error = e instanceof BridgeError ? { code: e.code, message: e.message, ...(e.extra || {}) } : { code: 'Internal', message: String(e && e.message || e) };
    send({ id, error });
  } finally {
    inFlight.delete(id);
  }
}

const needString = (p, k) => { if (typeof p[k] !== 'string' || !p[k]) fail('BadRequest', `params.${k} must be a non-empty string`); return p[k]; };
const needTab = p => { if (!Number.isInteger(p.tabId)) fail('BadRequest', 'params.tabId must be an integer (a chrome.tabs id)'); return p.tabId; };

function groupOf(conversation) {
  for (const [groupId, g] of groups) if (g.conversation === conversation) return groupId;
  return null;
}
async function tabIn(tabId, conversation) {
  let tab;
  try { tab = await chrome.tabs.get(tabId); } catch (_) { fail('TabGone', `tab ${tabId} is closed`); }
  const g = groups.get(tab.groupId);
  if (!g || (conversation !== undefined && g.conversation !== conversation))
    fail('NotInGroup', `tab ${tabId} is not in ${conversation === undefined ? "one of ouro's groups" : `the group of conversation ${conversation}`}; the user shares a tab by putting it there`);
  return tab;
}
async function targetIdOf(tabId) {
  const targets = await chrome.debugger.getTargets();
  const t = targets.find(x => x.tabId === tabId);
  return t ? t.id : null;
}

async function attachTab(tabId) {
  if (attached.has(tabId)) return;
  try {
    await chrome.debugger.attach({ tabId }, DEBUGGER_VERSION);
  } catch (e) {
    const m = String(e && e.message || e);
    if (/already attached/i.test(m)) fail('AlreadyAttached', `tab ${tabId} is being debugged by something else (DevTools or another extension): ${m}`);
    fail('AttachFailed', `cannot attach to tab ${tabId}: ${m}`);
  }
  attached.add(tabId);
  await saveSession();
}

// Requests paused under ouro's gate (Fetch.requestPaused, passed on to ouro) that ouro has not
// answered yet: the debugger letting go would let them through unjudged, so when ouro is gone
// they are refused here — those waiting, and any paused after. Oldest dropped past the cap.
const paused = new Map();  // "tabId|sessionId|requestId" → {target, requestId}
const PAUSED_CAP = 5000;
const ANSWERS = new Set(['Fetch.continueRequest', 'Fetch.failRequest', 'Fetch.fulfillRequest', 'Fetch.continueResponse', 'Fetch.continueWithAuth']);
const pausedKey = (tabId, sessionId, requestId) => `${tabId}|${sessionId || ''}|${requestId}`;
function refuse(target, requestId) {
  return chrome.debugger.sendCommand(target, 'Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' }).catch(() => {});
}
async function refusePaused() {
  const all = [...paused.values()];
  paused.clear();
  await Promise.all(all.map(p => refuse(p.target, p.requestId)));
}

// ouro is gone (stopped, killed, cut off): nobody judges these tabs' requests any more, and what a
// run put into their pages (a timer, a tampered poller) would send unheld once the debugger lets
// go. Their scripts stop and they load about:blank first, as ouro does itself when it lets go of a
// browser; a paused request of the old document ends with it. Then the debugger lets go.
async function letGoClosed(reason) {
  await refusePaused();
  await Promise.all([...attached].map(async tabId => {
    const cmd = (method, params) => chrome.debugger.sendCommand({ tabId }, method, params);
    try {
      await cmd('Emulation.setScriptExecutionDisabled', { value: true });
      await cmd('Page.navigate', { url: 'about:blank' });
      // Until the old document is gone (its requests with it): a request it still has paused
      // would be let through when the debugger lets go. At most 2 s.
      for (let i = 0; i < 20; i++) {
        const tree = await cmd('Page.getFrameTree', {});
        if (tree && tree.frameTree && tree.frameTree.frame && tree.frameTree.frame.url === 'about:blank') break;
        await new Promise(r => setTimeout(r, 100));
      }
    } catch (_) { /* the tab is gone, or no longer attached */ }
  }));
  await refusePaused();
  for (const tabId of [...attached]) await detachTab(tabId, reason, false);
}

async function detachTab(tabId, reason, notify = true) {
  const was = attached.delete(tabId);
  for (const [key, p] of paused) if (p.target.tabId === tabId) paused.delete(key);  // its requests end with the debugger
  try { await chrome.debugger.detach({ tabId }); } catch (_) { /* detached already, or the tab is gone */ }
  if (was && notify) send({ method: 'detached', params: { tabId, reason } });
}

const METHODS = {
  async listTabs() { return { groups: await describeGroups() }; },

  // A tab for the conversation, in its group (made, named and coloured on the first one), at
  // about:blank and attached, so ouro enables its domains (Fetch for the egress gate first) before
  // the page's first request; ouro navigates it with Page.navigate.
  async openTab(p) {
    const conversation = needString(p, 'conversation');
    let groupId = groupOf(conversation);
    let windowId;
    if (groupId !== null) windowId = (await chrome.tabGroups.get(groupId)).windowId;
    const tab = await chrome.tabs.create({ url: 'about:blank', active: !!p.active, ...(windowId !== undefined ? { windowId } : {}) });
    ourMoves.add(tab.id);
    try {
      if (groupId === null) {
        groupId = await chrome.tabs.group({ tabIds: [tab.id] });
        const color = COLORS.includes(p.color) ? p.color : COLORS[groups.size % COLORS.length];
        const title = typeof p.title === 'string' && p.title ? p.title.slice(0, 60) : 'ouro';
        await chrome.tabGroups.update(groupId, { title, color });
        groups.set(groupId, { conversation, title, color });
        await saveSession();
      } else {
        await chrome.tabs.group({ tabIds: [tab.id], groupId });
      }
      tabGroup.set(tab.id, groupId);
    } finally {
      // chrome.tabs.onUpdated may report the move before or after chrome.tabs.group resolves.
      setTimeout(() => ourMoves.delete(tab.id), 2000);
    }
    await attachTab(tab.id);
    publish();
    return { tabId: tab.id, groupId, targetId: await targetIdOf(tab.id) };
  },

  async attach(p) {
    const tabId = needTab(p);
    const tab = await tabIn(tabId, needString(p, 'conversation'));
    await attachTab(tabId);
    publish();
    return { tabId, targetId: await targetIdOf(tabId), url: tab.url || '', title: tab.title || '' };
  },

  async detach(p) {
    const tabId = needTab(p);
    await detachTab(tabId, 'ouro', false);
    await saveSession();
    publish();
    return {};
  },

  async closeTab(p) {
    const tabId = needTab(p);
    await tabIn(tabId);
    await detachTab(tabId, 'closed', false);
    await chrome.tabs.remove(tabId);
    return {};
  },

  // Name or colour a conversation's group; with groupId, give a group shared before any
  // conversation claimed it (conversation null) to this one.
  async setGroup(p) {
    const conversation = needString(p, 'conversation');
    let groupId = groupOf(conversation);
    if (Number.isInteger(p.groupId)) {
      const g = groups.get(p.groupId);
      if (!g) fail('NotInGroup', `group ${p.groupId} is not one of ouro's`);
      if (g.conversation && g.conversation !== conversation) fail('NotInGroup', `group ${p.groupId} belongs to conversation ${g.conversation}`);
      if (groupId !== null && groupId !== p.groupId) fail('BadRequest', `conversation ${conversation} has group ${groupId} already`);
      groupId = p.groupId;
    }
    if (groupId === null) return { groupId: null };
    const update = {};
    if (typeof p.title === 'string') update.title = p.title.slice(0, 60);
    if (COLORS.includes(p.color)) update.color = p.color;
    if (Object.keys(update).length) await chrome.tabGroups.update(groupId, update);
    groups.set(groupId, { ...groups.get(groupId), conversation, ...update });
    await saveSession();
    publish();
    return { groupId };
  },

  // The conversation ended: its tabs are let go (they stay open, grouped, the user's).
  async release(p) {
    const conversation = needString(p, 'conversation');
    const groupId = groupOf(conversation);
    if (groupId === null) return {};
    for (const t of await chrome.tabs.query({ groupId })) await detachTab(t.id, 'released', false);
    groups.delete(groupId);
    await saveSession();
    publish();
    return {};
  },

  // One DevTools command on an attached tab, or on a child target of it (an out-of-process frame,
  // a worker) by the sessionId that Target.attachedToTarget gave (flat sessions, Chrome 125+).
  async cdp(p) {
    const tabId = needTab(p);
    const method = needString(p, 'cdpMethod');
    if (BLOCKED.has(method) || BLOCKED_DOMAINS.some(d => method.startsWith(d)))
      fail('Forbidden', `${method} is not carried by the extension: it reaches past the shared tabs`);
    if (!attached.has(tabId)) fail('NotAttached', `tab ${tabId} is not attached; attach it first (it must be in the conversation's group)`);
    if (!groups.has(tabGroup.get(tabId))) { await detachTab(tabId, 'left-group'); fail('NotInGroup', `tab ${tabId} left ouro's group`); }
    const target = { tabId };
    if (p.sessionId !== undefined) target.sessionId = needString(p, 'sessionId');
    const cdpParams = p.cdpParams && typeof p.cdpParams === 'object' ? p.cdpParams : {};
    if (ANSWERS.has(method)) paused.delete(pausedKey(tabId, target.sessionId, cdpParams.requestId));
    try {
      return await chrome.debugger.sendCommand(target, method, cdpParams);
    } catch (e) {
      // chrome.debugger reports DevTools errors as their JSON text ({"code":-32000,"message":…}).
      const text = String(e && e.message || e);
      let cdpCode, message = text;
      try { const j = JSON.parse(text); cdpCode = j.code; message = j.message || text; } catch (_) { /* plain text */ }
      if (!attached.has(tabId)) fail('Detached', `tab ${tabId} was detached: ${message}`);
      fail('CdpError', message, cdpCode !== undefined ? { cdpCode } : undefined);
    }
  },
};

// --- Chrome's events -------------------------------------------------------------------------------
chrome.debugger.onEvent.addListener((source, method, params) => {
  if (source.tabId === undefined || !attached.has(source.tabId)) return;
  if (method === 'Fetch.requestPaused' && params && typeof params.requestId === 'string') {
    const target = source.sessionId ? { tabId: source.tabId, sessionId: source.sessionId } : { tabId: source.tabId };
    // Nobody to judge it: refused, never left waiting for a detach to release it.
    if (!ws) { refuse(target, params.requestId); return; }
    if (paused.size >= PAUSED_CAP) paused.delete(paused.keys().next().value);
    paused.set(pausedKey(source.tabId, source.sessionId, params.requestId), { target, requestId: params.requestId });
  }
  const msg = { method: 'cdpEvent', params: { tabId: source.tabId, cdpMethod: method, cdpParams: params || {} } };
  if (source.sessionId) msg.params.sessionId = source.sessionId;
  send(msg);
});

chrome.debugger.onDetach.addListener(async (source, reason) => {
  if (source.tabId === undefined || !attached.delete(source.tabId)) return;
  // target_closed, canceled_by_user (the "is debugging this browser" bar's Cancel) or
  // replaced_with_devtools (developer.chrome.com/docs/extensions/reference/api/debugger#type-DetachReason).
  send({ method: 'detached', params: { tabId: source.tabId, reason } });
  await saveSession();
  publish();
});

// A tab's group changed: joining one of ouro's groups shares it, leaving ends ouro's access at
// once — the debugger is detached before ouro hears of it, so no command reaches it after.
async function groupMoved(tabId, groupId, tab, by) {
  await loaded;
  const before = tabGroup.get(tabId);
  tabGroup.set(tabId, groupId);
  if (before === groupId || personsTabs.has(tabId)) return;
  const left = groups.get(before), joined = groups.get(groupId);
  if (left) {
    await detachTab(tabId, 'left-group', false);
    await saveSession();
    send({ method: 'tabRemoved', params: { tabId, groupId: before, conversation: left.conversation, reason: 'left-group' } });
  }
  if (joined && !ourMoves.has(tabId)) {
    if (!by) by = tab && tab.openerTabId !== undefined && groups.has(tabGroup.get(tab.openerTabId)) ? 'opener' : 'user';
    send({ method: 'tabAdded', params: { tabId, groupId, conversation: joined.conversation, url: (tab && (tab.url || tab.pendingUrl)) || '', title: (tab && tab.title) || '', by,
                                         ...(tab && tab.openerTabId !== undefined ? { openerTabId: tab.openerTabId } : {}) } });
  }
  if (left || joined) publish();
}

// The panel lists the page each held tab shows now, not the about:blank it was opened at.
chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  if ('groupId' in change) groupMoved(tabId, change.groupId, tab);
  else if (('url' in change || 'title' in change) && groups.has(tabGroup.get(tabId))) publish();
});

// A tab the person opens is theirs, even when Chrome puts it into ouro's group because the tab
// they were on is the group's (a new tab opens beside it, with that tab as its opener): it shows
// a browser page (the new tab page), which no web page can open. It is taken out of the group,
// never attached.
const personsTabs = new Set();
function openedByThePerson(tab) {
  const url = tab.pendingUrl || tab.url || '';
  return url === 'about:newtab' || /^(chrome|chrome-search|chrome-untrusted):/.test(url);
}

// A tab opened from one in ouro's group (a link with target=_blank, window.open) goes into the
// same group: the run may follow it, and the user sees it there.
// A tab born inside one of ouro's groups was put there by Chrome (opened from a grouped tab, whose
// id Chrome does not always report as openerTabId), not by the user.
chrome.tabs.onCreated.addListener(async tab => {
  await loaded;
  const openerGroup = tab.openerTabId !== undefined ? tabGroup.get(tab.openerTabId) : undefined;
  if (groups.has(tab.groupId) && openedByThePerson(tab)) {
    personsTabs.add(tab.id);
    tabGroup.set(tab.id, -1);
    try { await chrome.tabs.ungroup([tab.id]); } catch (_) { /* closed already */ }
    // chrome.tabs.onUpdated may report the move after ungroup resolves.
    setTimeout(() => personsTabs.delete(tab.id), 2000);
  } else if (groups.has(tab.groupId)) {
    groupMoved(tab.id, tab.groupId, tab, 'opener');
  } else {
    if (!tabGroup.has(tab.id)) tabGroup.set(tab.id, tab.groupId);
    if (groups.has(openerGroup)) {
      try { await chrome.tabs.group({ tabIds: [tab.id], groupId: openerGroup }); } catch (_) { /* another window: stays out */ }
    }
  }
});

chrome.tabs.onRemoved.addListener(async tabId => {
  await loaded;
  const groupId = tabGroup.get(tabId);
  tabGroup.delete(tabId);
  if (attached.delete(tabId)) await saveSession();
  const g = groups.get(groupId);
  if (g) {
    send({ method: 'tabRemoved', params: { tabId, groupId, conversation: g.conversation, reason: 'closed' } });
    publish();
  }
});

chrome.tabGroups.onUpdated.addListener(async group => {
  await loaded;
  const g = groups.get(group.id);
  if (!g) return;
  g.title = group.title;
  g.color = group.color;
  await saveSession();
  send({ method: 'groupChanged', params: { groupId: group.id, conversation: g.conversation, title: group.title, color: group.color } });
  publish();
});

chrome.tabGroups.onRemoved.addListener(async group => {
  await loaded;
  const g = groups.get(group.id);
  if (!g) return;
  groups.delete(group.id);
  await saveSession();
  send({ method: 'groupRemoved', params: { groupId: group.id, conversation: g.conversation } });
  publish();
});

// --- the side panel ---------------------------------------------------------------------------------
// "Share this tab": into the group of the conversation the panel names, else into the only group,
// else into a new group no conversation has claimed yet (ouro gives it one with setGroup).
async function share(tabId, groupId) {
  await loaded;
  if (groupId === undefined || !groups.has(groupId)) groupId = groups.size === 1 ? [...groups.keys()][0] : undefined;
  if (groupId !== undefined) {
    await chrome.tabs.group({ tabIds: [tabId], groupId });
    return;
  }
  const created = await chrome.tabs.group({ tabIds: [tabId] });
  await chrome.tabGroups.update(created, { title: 'ouro', color: COLORS[groups.size % COLORS.length] });
  groups.set(created, { conversation: null, title: 'ouro', color: COLORS[groups.size % COLORS.length] });
  await saveSession();
  groupMoved(tabId, created, await chrome.tabs.get(tabId));
}

chrome.runtime.onConnect.addListener(port => {
  if (port.name !== 'panel' || port.sender.id !== chrome.runtime.id) return;
  panels.add(port);
  port.onDisconnect.addListener(() => panels.delete(port));
  port.onMessage.addListener(async msg => {
    const reply = (body) => { try { port.postMessage({ type: 'reply', for: msg.nonce, ...body }); } catch (_) { /* panel closed */ } };
    try {
      if (msg.type === 'pair') { await pair(msg.code); reply({ ok: true }); }
      else if (msg.type === 'unpair') { await unpair(); reply({ ok: true }); }
      else if (msg.type === 'setPort') {
        const number = Number(msg.port);
        if (!Number.isInteger(number) || number < 1 || number > 65535) throw new Error('a port is a whole number from 1 to 65535');
        if (ws) ws.close(1000, 'port changed');
        await chrome.storage.local.set({ port: number });
        attempt = 0;
        await connect();
        reply({ ok: true });
      } else if (msg.type === 'retry') { attempt = 0; await connect(); reply({ ok: true }); }
      else if (msg.type === 'share') { await share(msg.tabId, msg.groupId); reply({ ok: true }); }
      else if (msg.type === 'unshare') { await chrome.tabs.ungroup([msg.tabId]); reply({ ok: true }); }
      else reply({ ok: true });
    } catch (e) {
      reply({ ok: false, error: String(e && e.message || e) });
    }
    publish();
  });
  snapshot().then(state => { try { port.postMessage({ type: 'state', state }); } catch (_) { /* closed */ } });
  connect();
});

// --- waking up ---------------------------------------------------------------------------------------
// The toolbar button opens the side panel (developer.chrome.com/docs/extensions/reference/api/sidePanel).
function setup() {
  chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
  // Chrome stops an idle worker; an alarm (at least every 30 s) wakes it to look for ouro again.
  chrome.alarms.create('ouro-discover', { periodInMinutes: 0.5 });
}
chrome.runtime.onInstalled.addListener(setup);
chrome.runtime.onStartup.addListener(setup);
chrome.alarms.onAlarm.addListener(a => { if (a.name === 'ouro-discover') connect(); });
connect();

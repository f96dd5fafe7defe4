// The extension in a real headless Chromium, driven end to end through the fake ouro: it loads
// (its service worker appears), the side panel finds no server and says how to start one, takes
// a port and a pairing code, shows the Command Center at 400 px with no horizontal scroll; over
// the bridge ouro opens a tab in a named, coloured group, drives it with DevTools commands
// (Runtime.evaluate), holds its requests with Fetch (continue one, fail one as the egress gate
// would), reaches an out-of-process frame by its flat sessionId, is refused a tab outside its
// group, gets a tab the user puts into the group and loses it the moment the user takes it out;
// two conversations get two groups. Prints the bridge's cost per command beside a direct
// DevTools WebSocket. Screenshots go to docs/images/ with --screenshots. Exit status 1 on failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFakeOuro, PAIRING_CODE } from './fake_ouro.mjs';
import { axeCheck } from './cc_responsive.mjs';
import { assembleExtension } from './assemble_extension.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../..');
const IMAGES = path.join(ROOT, 'docs/images');
const SHOTS = process.argv.includes('--screenshots');
const CHROMIUM = process.env.CHROMIUM || '/usr/lib/chromium/chromium';

let failures = 0;
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures++; };
const sleep = ms => new Promise(r => setTimeout(r, ms));
// Asks `probe` until it answers something truthy or `ms` have passed (a loaded machine runs
// several Chromiums on two cores: a wait is for what it means, with a deadline far from both).
async function until(probe, ms = 30000, every = 100) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v || Date.now() >= end) return v;
    await sleep(every);
  }
}


// Fixture pages: a page that fetches data.json; a page with a frame from another site
// (localhost vs 127.0.0.1), which site isolation puts in a process of its own.
function startFixtures() {
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname === '/page.html') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return res.end(`<!doctype html><title>Fixture page</title><h1>Blue mug</h1>
<script>fetch('/data.json').then(r => r.text()).then(t => { window.__data = t; }, e => { window.__blocked = String(e); });</script>`);
    }
    if (u.pathname === '/frame.html') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return res.end(`<!doctype html><title>With a frame</title><iframe src="http://localhost:${server.address().port}/inner.html"></iframe>`);
    }
    if (u.pathname === '/inner.html') { res.writeHead(200, { 'Content-Type': 'text/html' }); return res.end('<!doctype html><p id=inner>inner frame</p>'); }
    if (u.pathname === '/data.json') { res.writeHead(200, { 'Content-Type': 'application/json' }); return res.end('{"price": 12}'); }
    res.writeHead(404); res.end();
  });
  return new Promise(r => server.listen(0, '127.0.0.1', () => r(server)));
}

async function launch(extDir) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'ouro-ext-profile-'));
  const proc = spawn(CHROMIUM, ['--headless=new', '--no-sandbox', '--no-first-run', '--no-default-browser-check', `--user-data-dir=${profile}`,
    `--load-extension=${extDir}`, `--disable-extensions-except=${extDir}`, '--remote-debugging-port=0', '--window-size=1280,800', 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', d => { stderr += d; });
  const portFile = path.join(profile, 'DevToolsActivePort');
  // Up to a minute on a loaded machine; the file is read once it holds its whole first line.
  const port = await until(async () => { const m = /^(\d+)\n/.exec(fs.existsSync(portFile) ? fs.readFileSync(portFile, 'utf8') : ''); return m && Number(m[1]); }, 60000);
  if (!port) throw new Error('Chromium did not start: ' + stderr.slice(-2000));
  return { proc, profile, port };
}

async function main() {
  const extDir = assembleExtension(fs.mkdtempSync(path.join(os.tmpdir(), 'ouro-extension-')));
  const fake = await startFakeOuro();
  const fixtures = await startFixtures();
  const fx = `http://127.0.0.1:${fixtures.address().port}`;
  const chrome = await launch(extDir);
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${chrome.port}`);
  try {
    const context = browser.contexts()[0];
    const sw = context.serviceWorkers().find(w => w.url().startsWith('chrome-extension://')) ||
               await context.waitForEvent('serviceworker', { timeout: 30000 });
    const extId = new URL(sw.url()).host;
    check(/^[a-p]{32}$/.test(extId), `the extension loads: service worker ${sw.url()}`);
    const version = await browser.version();
    console.log(`     browser ${version}`);

    // The side panel, opened as a page of its own at a side panel's width.
    const panel = await context.newPage();
    await panel.setViewportSize({ width: 400, height: 760 });
    // Port 7777 is taken or not on this machine; a port nothing listens on shows the "start ouro" screen.
    const closed = await new Promise(r => { const s = http.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });
    await panel.goto(`chrome-extension://${extId}/sidepanel.html`);
    await panel.fill('#ext-port', String(closed));
    await panel.click('#ext-port-form button');
    // The closed port's own screen (not the one of 7777, probed as the worker started).
    await panel.waitForFunction(p => document.getElementById('ext-where').textContent.endsWith(':' + p) && !document.getElementById('ext-absent').hidden,
                                closed, { timeout: 30000 });
    check(/ouro serve/.test(await panel.textContent('#ext-absent')), 'no server: the panel says to start ouro serve and retries by itself');
    if (SHOTS) await panel.screenshot({ path: path.join(IMAGES, 'extension-panel-no-server.png') });

    await panel.fill('#ext-port', String(fake.port));
    await panel.click('#ext-port-form button');
    await panel.waitForSelector('#ext-pair', { state: 'visible', timeout: 30000 });
    check(true, 'ouro found on its port: the pairing screen');
    await panel.fill('#ext-code', 'WRONG-CODE');
    await panel.click('#ext-pair button[type=submit]');
    await panel.waitForFunction(() => /wrong/.test(document.getElementById('ext-pair-hint').textContent), null, { timeout: 30000 }).catch(() => {});
    check(/wrong/.test(await panel.textContent('#ext-pair-hint')), 'a wrong code is refused with ouro\'s reason');
    if (SHOTS) await panel.screenshot({ path: path.join(IMAGES, 'extension-panel-pairing.png') });
    await panel.fill('#ext-code', PAIRING_CODE);
    await panel.click('#ext-pair button[type=submit]');
    await fake.bridge.connected();
    check(true, 'paired: the bridge WebSocket is open and said hello');
    console.log(`     subprotocols offered: ${fake.bridge.protocolsOffered.join(', ')}; Origin headers seen: ${[...new Set(fake.state.origins.map(o => `${o.path} ${o.origin}`))].join('; ')}`);
    const stored = await sw.evaluate(() => chrome.storage.local.get(null));
    check(typeof stored.credential === 'string' && stored.credential.length >= 32 && stored.port === fake.port, 'the credential and the port are kept in chrome.storage.local');

    await panel.waitForSelector('#task-form', { timeout: 30000 });
    await panel.waitForSelector('#runs li', { state: 'attached', timeout: 30000 });
    let w = await panel.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
    check(w.sw <= w.iw, `the panel's Command Center at 400 px: no horizontal scroll (${w.sw} ≤ ${w.iw})`);

    // --- the bridge -------------------------------------------------------------------------------
    const b = fake.bridge;
    const r1 = await b.request('openTab', { conversation: 'conv-1', title: 'Find a blue mug', color: 'blue' });
    check(r1.result && Number.isInteger(r1.result.tabId) && Number.isInteger(r1.result.groupId), `openTab: tab ${r1.result && r1.result.tabId} in group ${r1.result && r1.result.groupId}, target ${r1.result && r1.result.targetId}`);
    const { tabId, groupId } = r1.result;
    const group = await sw.evaluate(id => chrome.tabGroups.get(id), groupId);
    check(group.title === 'Find a blue mug' && group.color === 'blue', `the group is named and coloured: "${group.title}", ${group.color}`);
    const cdp = (tab, cdpMethod, cdpParams, sessionId) => b.request('cdp', { tabId: tab, cdpMethod, cdpParams, ...(sessionId ? { sessionId } : {}) });

    // Fetch through chrome.debugger: the document continues, data.json is refused.
    check(!(await cdp(tabId, 'Fetch.enable', { patterns: [{ urlPattern: '*' }] })).error, 'Fetch.enable on the tab');
    await cdp(tabId, 'Page.enable', {});
    b.events.length = 0;
    const nav = cdp(tabId, 'Page.navigate', { url: `${fx}/page.html` });
    const docPaused = await b.waitFor(m => m.method === 'cdpEvent' && m.params.cdpMethod === 'Fetch.requestPaused' && m.params.cdpParams.request.url.endsWith('/page.html'));
    check(docPaused.params.tabId === tabId, 'Fetch.requestPaused for the document arrives as a cdpEvent');
    check(!(await cdp(tabId, 'Fetch.continueRequest', { requestId: docPaused.params.cdpParams.requestId })).error, 'Fetch.continueRequest lets it go');
    await nav;
    const dataPaused = await b.waitFor(m => m.method === 'cdpEvent' && m.params.cdpMethod === 'Fetch.requestPaused' && m.params.cdpParams.request.url.endsWith('/data.json'));
    check(!(await cdp(tabId, 'Fetch.failRequest', { requestId: dataPaused.params.cdpParams.requestId, errorReason: 'BlockedByClient' })).error, 'Fetch.failRequest refuses the page\'s fetch (the egress gate)');
    // The page's fetch settles (refused) when it does: asked until it has.
    let ev;
    await until(async () => {
      ev = await cdp(tabId, 'Runtime.evaluate', { expression: 'JSON.stringify({title: document.title, h1: document.querySelector("h1").textContent, blocked: window.__blocked || null, data: window.__data || null})', returnByValue: true });
      const v = ev.result && ev.result.result && JSON.parse(ev.result.result.value || '{}');
      return v && (v.blocked || v.data);
    }, 30000, 50);
    const seen = JSON.parse((ev && ev.result && ev.result.result && ev.result.result.value) || '{}');
    check(seen.title === 'Fixture page' && seen.h1 === 'Blue mug', `Runtime.evaluate through the bridge: ${ev.result.result.value}`);
    check(seen.blocked && !seen.data, 'the page saw its request fail and got no data');
    const err = await cdp(tabId, 'No.suchMethod', {});
    check(err.error && err.error.code === 'CdpError', `a DevTools error comes back as CdpError: ${err.error && err.error.message}`);
    const forbidden = await cdp(tabId, 'Target.createTarget', { url: 'about:blank' });
    check(forbidden.error && forbidden.error.code === 'Forbidden', 'Target.createTarget is refused (tabs come from openTab, in the group)');
    await cdp(tabId, 'Fetch.disable', {});

    // A tab the run's page opens joins the group.
    const popup = cdp(tabId, 'Runtime.evaluate', { expression: `window.open('${fx}/page.html'); 1`, userGesture: true });
    const opened = await b.waitFor(m => m.method === 'tabAdded' && m.params.by === 'opener').catch(() => null);
    await popup;
    check(opened && opened.params.groupId === groupId, `a tab opened from the group joins it: tabAdded by opener (${opened && opened.params.tabId})`);
    if (opened) await b.request('closeTab', { tabId: opened.params.tabId });

    // Flat sessions: an out-of-process frame reached by its sessionId.
    await cdp(tabId, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
    b.events.length = 0;
    await cdp(tabId, 'Page.navigate', { url: `${fx}/frame.html` });
    let child = null;
    try { child = await b.waitFor(m => m.method === 'cdpEvent' && m.params.cdpMethod === 'Target.attachedToTarget' && m.params.cdpParams.targetInfo.type === 'iframe'); } catch (_) { /* reported below */ }
    check(!!child, `Target.attachedToTarget for the cross-site frame (sessionId ${child && child.params.cdpParams.sessionId})`);
    if (child) {
      const sid = child.params.cdpParams.sessionId;
      // The frame's process may still be starting when its target is attached: asked until it has the document.
      const inner = await until(async () => {
        const r = await cdp(tabId, 'Runtime.evaluate', { expression: 'document.getElementById("inner") && document.getElementById("inner").textContent', returnByValue: true }, sid);
        return r.result && r.result.result && r.result.result.value;
      }, 30000, 200);
      check(inner === 'inner frame', `Runtime.evaluate in the frame's own session: ${inner}`);
      await cdp(tabId, 'Runtime.enable', {}, sid);
      await b.waitFor(m => m.params && m.params.sessionId === sid).catch(() => null);
      const childEvents = b.events.filter(m => m.params && m.params.sessionId === sid).length;
      check(childEvents > 0, `events of the child session come back with its sessionId (${childEvents})`);
    }

    // Consent: a tab the user did not share is refused; shared by putting it in the group, it
    // can be attached; taken out, ouro loses it at once.
    const userPage = await context.newPage();
    await userPage.goto(`${fx}/page.html`);
    const userTab = await until(() => sw.evaluate(async url => ((await chrome.tabs.query({ url })).find(t => t.groupId === -1) || {}).id, `${fx}/page.html`));
    const refused = await b.request('attach', { conversation: 'conv-1', tabId: userTab });
    check(refused.error && refused.error.code === 'NotInGroup', `a tab outside the group is refused: ${refused.error && refused.error.code}`);
    const notAttached = await cdp(userTab, 'Runtime.evaluate', { expression: '1' });
    check(notAttached.error && notAttached.error.code === 'NotAttached', 'and no command reaches it');
    await sw.evaluate(([t, g]) => chrome.tabs.group({ tabIds: [t], groupId: g }), [userTab, groupId]);
    const added = await b.waitFor(m => m.method === 'tabAdded' && m.params.tabId === userTab);
    check(added.params.conversation === 'conv-1' && added.params.by === 'user', `the user put a tab in the group: tabAdded by ${added.params.by}`);
    const att = await b.request('attach', { conversation: 'conv-1', tabId: userTab });
    check(att.result && att.result.tabId === userTab, 'ouro attaches the shared tab');
    const val = await cdp(userTab, 'Runtime.evaluate', { expression: 'document.title', returnByValue: true });
    check(val.result && val.result.result.value === 'Fixture page', 'and reads it');
    if (SHOTS) {
      await panel.bringToFront();
      await panel.click('#ext-held summary');
      await panel.screenshot({ path: path.join(IMAGES, 'extension-panel-400.png') });
    }
    // The panel hears of the new tab from the service worker: wait for its arrival, then read.
    await panel.waitForFunction(() => /holds 2 tabs/.test(document.getElementById('ext-held-summary').textContent), null, { timeout: 30000 }).catch(() => null);
    const heldText = await panel.textContent('#ext-held-summary');
    check(/holds 2 tabs in 1 group/.test(heldText), `the panel says which tabs the agent holds: "${heldText}"`);
    await sw.evaluate(t => chrome.tabs.ungroup([t]), userTab);
    const removed = await b.waitFor(m => m.method === 'tabRemoved' && m.params.tabId === userTab);
    check(removed.params.reason === 'left-group', 'taken out of the group: tabRemoved, reason left-group');
    const after = await cdp(userTab, 'Runtime.evaluate', { expression: '1' });
    check(after.error && /NotAttached|NotInGroup/.test(after.error.code), `no command reaches it after: ${after.error && after.error.code}`);
    // (getTargets' `attached` counts this test's own DevTools client too: ask the worker's set.)
    const stillHeld = await sw.evaluate(t => attached.has(t), userTab);
    check(stillHeld === false, 'the extension\'s debugger is detached from it');

    // Two conversations side by side, each in its own group.
    const r2 = await b.request('openTab', { conversation: 'conv-2', title: 'Compare prices', color: 'green' });
    check(r2.result && r2.result.groupId !== groupId, `a second conversation gets a second group (${r2.result && r2.result.groupId})`);
    const cross = await b.request('attach', { conversation: 'conv-2', tabId });
    check(cross.error && cross.error.code === 'NotInGroup', 'one conversation cannot attach the other\'s tab');
    const list = await b.request('listTabs', {});
    check(list.result.groups.length === 2, `listTabs: ${list.result.groups.map(g => `${g.title} (${g.tabs.length})`).join(', ')}`);

    // What the panel looks like with the Command Center and the agent's tabs, and axe-core on it.
    await panel.bringToFront();
    w = await panel.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
    check(w.sw <= w.iw, `the panel with held tabs: no horizontal scroll (${w.sw} ≤ ${w.iw})`);
    try {
      const bad = await axeCheck(panel, 'side panel');
      check(bad.length === 0, `side panel: no serious or critical axe-core violation (${bad.map(v => v.id).join(', ') || 'none'})`);
    } catch (e) { check(false, `axe-core in the side panel: ${e.message.split('\n')[0]}`); }

    // Chrome stops the service worker: the run loses nothing; the worker comes back (the panel's
    // port wakes it), says hello again with the groups, and ouro attaches again.
    const cdpSession = await browser.newBrowserCDPSession();
    const { targetInfos } = await cdpSession.send('Target.getTargets');
    const swTarget = targetInfos.find(t => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extId}/`));
    const helloBefore = b.hello;
    await cdpSession.send('Target.closeTarget', { targetId: swTarget.targetId });
    const back = await until(async () => !!b.socket && b.hello !== helloBefore);
    check(back, 'the service worker stopped and came back: a new hello');
    if (back) {
      check(b.hello.groups.length === 2 && b.hello.groups.every(g => g.tabs.every(t => !t.attached)), `its hello lists the 2 groups, nothing attached (${b.hello.groups.map(g => g.title).join(', ')})`);
      const again = await b.request('attach', { conversation: 'conv-1', tabId });
      check(again.result && again.result.tabId === tabId, 'ouro attaches its tab again');
    }

    // The cost of a DevTools command through the bridge against a direct DevTools WebSocket.
    const N = 200;
    const bridgeMs = [];
    for (let i = 0; i < N; i++) { const t = performance.now(); await cdp(tabId, 'Runtime.evaluate', { expression: '1+1', returnByValue: true }); bridgeMs.push(performance.now() - t); }
    const page1 = context.pages().find(p => p.url().endsWith('/frame.html'));
    const direct = page1 ? await context.newCDPSession(page1) : null;
    const directMs = [];
    if (direct) for (let i = 0; i < N; i++) { const t = performance.now(); await direct.send('Runtime.evaluate', { expression: '1+1', returnByValue: true }); directMs.push(performance.now() - t); }
    const median = a => { const s = [...a].sort((x, y) => x - y); return s.length ? s[s.length >> 1].toFixed(2) : 'n/a'; };
    console.log(`     Runtime.evaluate ×${N}: bridge median ${median(bridgeMs)} ms, direct DevTools WebSocket median ${median(directMs)} ms`);

    // ouro goes away: every tab is let go at once (a paused request must not hang the user's tab).
    await fake.close();
    let still = -1;
    await until(async () => (still = await sw.evaluate(() => attached.size)) === 0, 30000, 50);
    check(still === 0, `ouro gone: the extension detached every tab (${still} still attached)`);
  } finally {
    await browser.close().catch(() => {});
    chrome.proc.kill('SIGTERM');
    fixtures.close();
    await fake.close().catch(() => {});
  }
  console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
  process.exit(failures ? 1 : 0);
}

main().catch(e => { console.error(e); process.exit(1); });

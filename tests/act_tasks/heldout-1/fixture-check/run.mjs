// Fixture sanity: drive each page with a hand-written correct solution (and a decoy solution) over raw CDP,
// then evaluate the task's check. node --experimental-websocket run.mjs SUITE_DIR ORACLES.mjs
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
const [suite, oraclesFile] = process.argv.slice(2);
const tasks = JSON.parse(readFileSync(join(suite, 'tasks.json'), 'utf8'));
const { good, bad } = await import(resolve(oraclesFile));
const server = createServer((req, res) => { const f = join(suite, 'pages', req.url.slice(1)); if (!existsSync(f)) { res.writeHead(404); return res.end(); } res.writeHead(200, {'content-type':'text/html; charset=utf-8'}); res.end(readFileSync(f)); });
await new Promise(r => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const chrome = spawn('/usr/bin/chromium', ['--headless=new', '--no-sandbox', '--remote-debugging-port=0', '--user-data-dir=' + mkdtempSync(join(tmpdir(), 'heldout-prof-')), 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
const wsUrl = await new Promise(r => { let b = ''; chrome.stderr.on('data', d => { b += d; const m = b.match(/ws:\/\/\S+/); if (m) r(m[0]); }); });
const ws = new WebSocket(wsUrl); await new Promise(r => ws.onopen = r);
let id = 0; const pend = new Map(); const listeners = [];
ws.onmessage = m => { const d = JSON.parse(m.data); if (d.id && pend.has(d.id)) { pend.get(d.id)(d); pend.delete(d.id); } else listeners.forEach(l => l(d)); };
const send = (method, params = {}, sessionId) => new Promise(r => { const i = ++id; pend.set(i, r); ws.send(JSON.stringify({ id: i, method, params, sessionId })); });
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function run(task, steps) {
  const { result: { targetId } } = await send('Target.createTarget', { url: 'about:blank' });
  const { result: { sessionId } } = await send('Target.attachToTarget', { targetId, flatten: true });
  const S = (m, p) => send(m, p, sessionId);
  await S('Page.enable'); await S('Runtime.enable');
  const errs = []; const l = d => { if (d.sessionId === sessionId && d.method === 'Runtime.exceptionThrown') errs.push(d.params.exceptionDetails.exception?.description || d.params.exceptionDetails.text); }; listeners.push(l);
  const loaded = new Promise(r => { const f = d => { if (d.sessionId === sessionId && d.method === 'Page.loadEventFired') r(); }; listeners.push(f); });
  await S('Page.navigate', { url: `${base}/${task.page}.html` }); await loaded; await sleep(50);
  const ev = async (expr) => { const r = await S('Runtime.evaluate', { expression: expr, awaitPromise: true, returnByValue: true }); if (r.result.exceptionDetails) throw new Error(expr + ': ' + JSON.stringify(r.result.exceptionDetails.exception?.description)); return r.result.result.value; };
  const box = async (sel) => ev(`(()=>{const e=${sel.startsWith('js:') ? sel.slice(3) : `document.querySelector(${JSON.stringify(sel)})`};if(!e)throw new Error('no el ${sel.replace(/'/g, '')}');e.scrollIntoView({block:'center'});const r=e.getBoundingClientRect();return {x:r.x+r.width/2,y:r.y+r.height/2}})()`);
  for (const s of steps) {
    if (typeof s === 'string') await ev(s);
    else if (s.click) { const p = await box(s.click); for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased']) await S('Input.dispatchMouseEvent', { type, x: p.x, y: p.y, button: 'left', clickCount: 1 }); }
    else if (s.hover) { const p = await box(s.hover); await S('Input.dispatchMouseEvent', { type: 'mouseMoved', x: p.x, y: p.y }); }
    else if (s.type !== undefined) await S('Input.insertText', { text: s.type });
    else if (s.key) { for (const type of ['rawKeyDown', 'keyUp']) await S('Input.dispatchKeyEvent', { type, key: s.key, code: s.key, windowsVirtualKeyCode: { Enter: 13, ArrowDown: 40, ArrowUp: 38 }[s.key], text: s.key === 'Enter' && type === 'rawKeyDown' ? '\r' : undefined }); if (s.key === 'Enter') await S('Input.dispatchKeyEvent', { type: 'char', text: '\r' }); }
    await sleep(30);
  }
  let ok; try { ok = !!(await ev(task.check)); } catch (e) { ok = 'ERR ' + e.message; }
  listeners.splice(listeners.indexOf(l), 1);
  await send('Target.closeTarget', { targetId });
  return { ok, errs };
}
let bad_ = 0;
for (const t of tasks) {
  const g = good[t.id];
  if (!g) { console.log('NO ORACLE', t.id); bad_++; continue; }
  let r; try { r = await run(t, g); } catch (e) { r = { ok: 'EXC ' + e.message, errs: [] }; }
  const want = true;
  if (r.ok !== want || r.errs.length) { console.log('GOOD FAIL', t.id, r.ok, r.errs.join(' | ')); bad_++; }
  for (const [i, b] of (bad[t.id] || []).entries()) {
    let rb; try { rb = await run(t, b); } catch (e) { rb = { ok: 'EXC ' + e.message, errs: [] }; }
    if (rb.ok !== false || rb.errs.length) { console.log('DECOY PASSED', t.id, i, rb.ok, rb.errs.join(' | ')); bad_++; }
  }
}
// The untouched page must fail every non-refuse check, and pass every refuse check.
for (const t of tasks) { const r = await run(t, []); const want = t.expect === 'refuse'; if (r.ok !== want) { console.log('UNTOUCHED', t.id, r.ok); bad_++; } }
console.log(bad_ ? `${bad_} problems` : 'all fixtures OK');
ws.close(); chrome.kill(); server.close(); process.exit(0);

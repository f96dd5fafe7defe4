// Proves the judge on the fixtures without ouro: drives every variant of every site in headless Chromium over raw CDP
// with a hand-written right solution (the check must pass), with each decoy solution (it must fail, and the decoy
// must be seen), and untouched (it must fail); then checks the judge on hand-made logs.
// node --experimental-websocket tests/scripts/heldout-1/fixture-check/run.mjs [--sites a,b]
import '../build.mjs';  // the pages and models are generated, not kept in git
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VARIANTS } from '../lib/page.mjs';
import { loadSites, recordedParams, altParams } from '../lib/sites.mjs';
import { startServer } from '../lib/server.mjs';
import { judge } from '../lib/judge.mjs';

const argv = process.argv.slice(2);
const only = argv.includes('--sites') ? argv[argv.indexOf('--sites') + 1].split(',') : null;
const sites = await loadSites(only);
const srv = await startServer();
const prof = mkdtempSync(join(tmpdir(), 'heldout-scripts-prof-'));
const chrome = spawn(process.env.OURO_CHROMIUM || '/usr/bin/chromium', ['--headless=new', '--no-sandbox', '--remote-debugging-port=0', '--user-data-dir=' + prof, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
const wsUrl = await new Promise((res, rej) => { let b = ''; const t = setTimeout(() => rej(new Error('chromium did not start')), 20000);
  chrome.stderr.on('data', (d) => { b += d; const m = b.match(/ws:\/\/\S+/); if (m) { clearTimeout(t); res(m[0]); } }); });
const ws = new WebSocket(wsUrl); await new Promise((r) => (ws.onopen = r));
let id = 0; const pend = new Map(), listeners = new Set();
ws.onmessage = (m) => { const d = JSON.parse(m.data); if (d.id && pend.has(d.id)) { pend.get(d.id)(d); pend.delete(d.id); } else listeners.forEach((l) => l(d)); };
const send = (method, params = {}, sessionId) => new Promise((r, rej) => { const i = ++id; const t = setTimeout(() => rej(new Error(method + ' timed out')), 15000);
  pend.set(i, (d) => { clearTimeout(t); r(d); }); ws.send(JSON.stringify({ id: i, method, params, sessionId })); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let sidN = 0;

async function drive(url, steps, readFinal) {
  const sid = `fx-${process.pid}-${++sidN}`;
  const { result: { targetId } } = await send('Target.createTarget', { url: 'about:blank' });
  const { result: { sessionId } } = await send('Target.attachToTarget', { targetId, flatten: true });
  const S = (m, p) => send(m, p, sessionId);
  const errs = []; const l = (d) => { if (d.sessionId === sessionId && d.method === 'Runtime.exceptionThrown') errs.push(d.params.exceptionDetails.exception?.description || d.params.exceptionDetails.text); };
  listeners.add(l);
  try {
    await S('Page.enable'); await S('Runtime.enable');
    const ev = async (expr) => { for (let i = 0; i < 40; i++) { const r = await S('Runtime.evaluate', { expression: expr, awaitPromise: true, returnByValue: true });
      if (!r.result || r.error) { await sleep(100); continue; } if (r.result.exceptionDetails) throw new Error(expr.slice(0, 80) + ': ' + (r.result.exceptionDetails.exception?.description || r.result.exceptionDetails.text)); return r.result.result.value; } throw new Error('page did not answer'); };
    const ready = async () => { for (let i = 0; i < 50; i++) { try { if (await ev(`document.readyState === 'complete' && !!window.__boxOf`)) return; } catch {} await sleep(100); } };
    await S('Page.navigate', { url: `${url}?sid=${sid}` }); await ready();
    for (const s of steps) {
      if (s.click || s.type) {
        const k = s.click || s.type[0];
        const p = await ev(`__boxOf(${JSON.stringify(k)})`);
        if (!p) throw new Error(`no element ${k}`);
        for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased']) await S('Input.dispatchMouseEvent', { type, x: p.x, y: p.y, button: 'left', clickCount: 1 });
        if (s.type) await S('Input.insertText', { text: s.type[1] });
      } else if (s.fill || s.select) {
        const [k, val] = s.fill || s.select;
        await ev(`(() => { const el = __el(${JSON.stringify(k)}); if (!el) throw new Error('no element ${k}'); const v = ${JSON.stringify(val)};
          if (el.tagName === 'SELECT') { const o = [...el.options].find((o) => o.value === v || o.text === v); if (!o) throw new Error('no option ' + v); el.value = o.value; } else el.value = v;
          el.dispatchEvent(new Event('input', { bubbles: true })); el.dispatchEvent(new Event('change', { bubbles: true })); })()`);
      }
      await sleep(60); await ready();
    }
    const final = readFinal ? await ev(readFinal) : null;
    await srv.settle(sid);
    return { final, events: srv.events(sid), errs };
  } finally { listeners.delete(l); await send('Target.closeTarget', { targetId }); }
}

let problems = 0, checks = 0;
const bad = (...m) => { problems++; console.log('  ✗', ...m); };
for (const s of sites) {
  for (const vn of VARIANTS) {
    const url = `${srv.base}/${s.name}/${vn}/index.html`;
    for (const [pi, p] of (vn === 'unchanged' && Object.keys(s.params).length ? [recordedParams(s), altParams(s)] : [recordedParams(s)]).entries()) {
      const exp = s.expect(p), label = `${s.name}/${vn}${pi ? ' (other values)' : ''}`;
      let r;
      try { r = await drive(url, s.oracle(p), s.readFinal); } catch (e) { bad(label, 'right solution threw:', e.message); continue; }
      const j = judge(exp, { exit: 0, ...r }); checks++;
      if (!j.ok || r.errs.length) bad(label, 'right solution judged wrong:', j.problems.join(' | '), r.errs.join(' | '));
      for (const [i, d] of (s.decoys(p) || []).entries()) {
        let rd; try { rd = await drive(url, d, s.readFinal); } catch (e) { console.log('   (decoy solution threw: ' + e.message + ')'); rd = { final: null, events: [], errs: [] }; }
        const jd = judge(exp, { exit: 0, ...rd }); checks++;
        if (jd.ok) bad(label, `decoy solution ${i} judged right`);
        else if (jd.wrong === 0) bad(label, `decoy solution ${i} failed but no wrong element was seen:`, jd.problems.join(' | '), process.env.FX_DEBUG ? JSON.stringify(rd.events) : '');
      }
      for (const [i, expr] of (s.decoyReads || []).entries()) {
        const rd = await drive(url, [], expr); const jd = judge(exp, { exit: 0, ...rd }); checks++;
        if (jd.ok) bad(label, `decoy reading ${i} judged right`);
      }
      if (s.oracle(p).length) { const ru = await drive(url, [], s.readFinal); const ju = judge(exp, { exit: 0, ...ru }); checks++; if (ju.ok) bad(label, 'untouched page judged right'); }
    }
  }
  console.log(`${s.name}: checked`);
}
// Hand-made logs: the judge itself.
{
  const exp = { final: 'Welcome back, a@b.c', inputs: { 'T:email': 'a@b.c' }, clicks: ['T:signin'], effects: [['signed-in', { email: 'a@b.c' }]] };
  const good = [{ type: 'input', k: 'T:email', value: 'a@b.c', page: 'i' }, { type: 'click', k: 'T:signin', page: 'i' }, { type: 'effect', name: 'signed-in', data: { email: 'a@b.c' } }];
  const cases = [
    ['right', { exit: 0, final: 'Welcome back, a@b.c', events: good }, true],
    ['exit 1', { exit: 1, final: 'Welcome back, a@b.c', events: good }, false],
    ['wrong final', { exit: 0, final: 'Welcome back', events: good }, false],
    ['decoy clicked too', { exit: 0, final: 'Welcome back, a@b.c', events: [...good, { type: 'click', k: 'D:sso', page: 'i' }] }, false],
    ['stray button', { exit: 0, final: 'Welcome back, a@b.c', events: [...good, { type: 'click', k: null, tag: 'button', page: 'i' }] }, false],
    ['other value', { exit: 0, final: 'Welcome back, a@b.c', events: [{ ...good[0], value: 'x@y.z' }, ...good.slice(1)] }, false],
    ['no effect', { exit: 0, final: 'Welcome back, a@b.c', events: good.slice(0, 2) }, false],
    ['empty log', { exit: 0, final: 'Welcome back, a@b.c', events: [] }, false],
  ];
  for (const [name, got, want] of cases) { checks++; if (judge(exp, got).ok !== want) bad('judge on hand-made log:', name); }
}
console.log(problems ? `${problems} problems in ${checks} checks` : `all fixtures OK (${checks} checks)`);
ws.close(); chrome.kill(); srv.close();
await new Promise((r) => { chrome.once('exit', r); setTimeout(r, 3000); });
try { rmSync(prof, { recursive: true, force: true }); } catch {}
process.exit(problems ? 1 : 0);

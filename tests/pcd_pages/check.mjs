// Dev harness for the page-affordance engine (src/browser/page/affordances/*.js, joined): serves the fixture pages of
// this folder on two 127.0.0.1 ports (the second one is the cross-origin frame's), opens them in
// headless Chromium with helpers.js and affordances.js injected into the main world (Playwright cannot
// inject into an isolated world; ouro does), asserts the engine's behaviour and prints snapshot
// sizes and times per page.
//
//   make bench (installs playwright-core into bench/), or npm install --prefix DIR playwright-core and PCD_NODE=DIR
//   node tests/pcd_pages/check.mjs            (PCD_NODE=bench/, CHROMIUM=/usr/bin/chromium)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { affordancesJs } from './engine.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const require = createRequire(path.join(process.env.PCD_NODE || path.join(path.dirname(fileURLToPath(import.meta.url)), '../../bench'), 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');

const helpersJs = fs.readFileSync(path.join(repo, 'src/browser/page/helpers.js'), 'utf8');
const pcdJs = affordancesJs();

function serve() {
  return new Promise(resolve => {
    const ports = {};
    const handler = (req, res) => {
      const name = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
      const file = path.join(here, path.basename(name));
      if (!name.endsWith('.html') || !fs.existsSync(file)) { res.writeHead(404, { 'content-type': 'text/html' }); res.end('<h1>not found</h1>'); return; }
      const body = fs.readFileSync(file, 'utf8').replaceAll('{{XORIGIN}}', `http://127.0.0.1:${ports.b}`);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    const a = http.createServer(handler), b = http.createServer(handler);
    a.listen(0, '127.0.0.1', () => b.listen(0, '127.0.0.1', () => {
      ports.a = a.address().port; ports.b = b.address().port;
      resolve({ ports, close: () => { a.close(); b.close(); } });
    }));
  });
}

const results = [];   // per-page numbers for the table
let failures = 0, passes = 0;
const notes = [];
async function check(label, fn) {
  try { await fn(); passes++; } catch (e) { failures++; console.log(`  FAIL ${label}: ${e.message.split('\n').slice(0, 6).join('\n    ')}`); }
}

async function main() {
  const server = await serve();
  const base = `http://127.0.0.1:${server.ports.a}`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless=new'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript({ content: helpersJs });
  await context.addInitScript({ content: pcdJs });

  async function open(name) {
    const page = await context.newPage();
    page.on('pageerror', e => { if (!/gotcha/.test(e.message)) console.log(`  [${name}] page error: ${e.message}`); });
    await page.goto(`${base}/${name}`, { waitUntil: 'load' });
    await page.waitForTimeout(50);
    return page;
  }
  const ev = (page, fn, arg) => page.evaluate(fn, arg);
  const snap = (page, opts) => ev(page, o => {
    const t = performance.now();
    const s = __ouroPcd.snapshot(o);
    return { s, ms: performance.now() - t, len: JSON.stringify(s).length };
  }, opts || {});
  // What a selector resolves to: an id, else the tag and a bit of text.
  const sel = (page, s) => ev(page, s => __ouroPcd.resolveAll(s).map(e => e.id || `${e.localName}:${(e.textContent || (/^(checkbox|radio)$/.test(e.type) ? '' : e.value) || e.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ').slice(0, 30)}`), s);
  const selErr = (page, s) => ev(page, s => { try { __ouroPcd.resolveAll(s); return null; } catch (e) { return e.message; } }, s);
  const find = (page, d, o) => ev(page, ([d, o]) => __ouroPcd.find(d, o), [d, o || {}]);
  const refId = (page, ref) => ev(page, r => { const e = __ouroPcd.resolve(r); return e ? (e.id || e.getAttribute('data-id') || e.getAttribute('name') || e.textContent.trim().slice(0, 30)) : null; }, ref);
  const findTop = async (page, d, o) => { const r = await find(page, d, o); return r.length ? { ...r[0], id: await refId(page, r[0].ref) } : null; };

  async function measure(page, name) {
    const cold = await snap(page);
    const warm = await snap(page);
    const again = await snap(page);
    // After a DOM mutation the per-element caches are invalid: the cost of a changed page.
    const fresh = [];
    for (let i = 0; i < 3; i++) {
      await ev(page, () => document.body.appendChild(document.createComment('bump')));
      fresh.push((await snap(page)).ms);
    }
    results.push({ page: name, chars: warm.len, cold: cold.ms, fresh: Math.min(...fresh), warm: Math.min(warm.ms, again.ms),
      actions: warm.s.actions ? warm.s.actions.length : 0, forms: warm.s.forms ? warm.s.forms.length : 0,
      collections: warm.s.collections ? warm.s.collections.length : 0 });
    await check(`${name}: snapshot caps and size`, () => {
      assert.ok(!warm.s.error, `snapshot error: ${warm.s.error}`);
      assert.ok(warm.len <= 16000, `snapshot is ${warm.len} chars`);
      assert.ok((warm.s.actions || []).length <= 30 && (warm.s.forms || []).length <= 20 && (warm.s.collections || []).length <= 20);
    });
    return warm.s;
  }

  // Every visible control is reachable by a ref from the snapshot or from find(its name).
  async function reachable(page, name, snapshot, sample = 60) {
    const out = await ev(page, ([s, sample]) => {
      const P = __ouroPcd;
      const inSnap = new Set();
      const walk = o => { if (Array.isArray(o)) o.forEach(walk); else if (o && typeof o === 'object') { if (typeof o.ref === 'string') { try { const e = P.resolve(o.ref); if (e) inSnap.add(e); } catch (_) {} } Object.values(o).forEach(walk); } };
      walk(s);
      const SEL = 'a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=link],[role=checkbox],[role=tab],[role=menuitem],[role=switch],[role=combobox]';
      const all = [];
      const visit = root => {
        for (const e of root.querySelectorAll(SEL)) all.push(e);
        for (const e of root.querySelectorAll('*')) if (e.shadowRoot) visit(e.shadowRoot);
        for (const f of root.querySelectorAll('iframe')) { try { if (f.contentDocument) visit(f.contentDocument); } catch (_) {} }
      };
      visit(document);
      const vis = all.filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && e.checkVisibility({ visibilityProperty: true, opacityProperty: true }); });
      const step = Math.max(1, Math.floor(vis.length / sample));
      const missing = [];
      let checked = 0;
      for (let i = 0; i < vis.length; i += step) {
        const e = vis[i];
        checked++;
        if (inSnap.has(e)) continue;
        const nm = P.accessibleName(e);
        const res = P.find(nm || P.role(e), { topK: 10, role: nm ? undefined : P.role(e) });
        if (res.some(r => P.resolve(r.ref) === e)) continue;
        // A duplicate name (one of 200 "Add to cart"): reachable as role=…[name=…] >> nth=k.
        if (nm && res.some(r => r.name === nm && r.role === P.role(e)) && P.resolveAll(`role=${P.role(e)}[name=${JSON.stringify(nm)}]`).includes(e)) continue;
        missing.push(`${e.localName}[${P.role(e)}] "${nm.slice(0, 40)}"`);
      }
      return { total: vis.length, checked, missing };
    }, [snapshot, sample]);
    await check(`${name}: visible controls reachable (${out.checked} of ${out.total} checked)`, () => {
      assert.ok(out.missing.length <= Math.floor(out.checked * 0.02), `unreachable: ${out.missing.slice(0, 8).join('; ')}`);
    });
    if (out.missing.length) notes.push(`${name}: ${out.missing.length}/${out.checked} sampled controls not reachable by find(name): ${out.missing.slice(0, 4).join('; ')}`);
  }

  // ---------------------------------------------------------------------------------------------
  console.log('forms.html');
  {
    const page = await open('forms.html');
    const s = await measure(page, 'forms.html');
    await reachable(page, 'forms', s);
    await check('forms: purposes and fields', () => {
      const byPurpose = Object.fromEntries(s.forms.map(f => [f.purpose || '?', f]));
      assert.ok(byPurpose.login, 'login form found: ' + JSON.stringify(s.forms.map(f => f.purpose)));
      assert.ok(byPurpose.search, 'search form found');
      assert.ok(byPurpose.payment, 'payment form found (orphan inputs grouped)');
      const login = byPurpose.login;
      assert.deepEqual(login.fields.map(f => f.label), ['Email address', 'Password', 'Remember me']);
      assert.ok(!login.fields[1].value, 'password value never shown');
      assert.equal(login.fields[0].req, true);
      assert.equal(login.fields[2].checked, true);
      assert.equal(login.submit.name, 'Log in');
      assert.ok(!byPurpose.payment.fields.some(f => f.value), 'card values are secret');
      assert.equal(s.login, 'out');
    });
    await check('forms: labels of every kind (accessible names)', async () => {
      const names = await ev(page, () => ['email', 'nick', 'country', 'bio', 'news', 'cc'].map(id => __ouroPcd.accessibleName(document.getElementById(id)))
        .concat([...document.querySelectorAll('input[name=phone],input[name=city],input[name=zip],input[name=birthday],input[type=submit]')].map(e => __ouroPcd.accessibleName(e))));
      assert.deepEqual(names, ['Email address', 'Nickname', 'Country', 'About you', 'Get the newsletter', 'Card number', 'Phone number', 'City', 'Postal code', '', 'Save profile']);
    });
    await check('forms: label= / placeholder= / title= / role selectors', async () => {
      assert.deepEqual(await sel(page, 'label="Email address"'), ['email']);
      assert.deepEqual(await sel(page, 'label=email'), ['email']);
      assert.deepEqual(await sel(page, 'label="Nickname"'), ['nick']);
      assert.deepEqual(await sel(page, 'label="Phone number"'), ['input:Phone number']);
      assert.deepEqual(await sel(page, 'placeholder="City"'), ['input:']);
      assert.deepEqual(await sel(page, 'title="Postal code"'), ['input:']);
      assert.deepEqual(await sel(page, 'role=textbox[name="Password"]'), ['input:hunter2']);
      assert.deepEqual(await sel(page, 'role=checkbox[checked]'), ['input:']);
      assert.deepEqual(await sel(page, 'role=radio[checked] >> nth=0'), ['input:']);
      assert.deepEqual(await sel(page, 'role=combobox[name="Country"]'), ['country']);
      assert.deepEqual(await sel(page, 'role=button[name="Log in"]'), ['button:Log in']);
      assert.deepEqual(await sel(page, 'role=button[name="Pay now"]'), ['div:Pay now']);
      assert.deepEqual(await sel(page, 'role=group[name="Preferred contact"] >> role=radio >> nth=-1'), ['input:']);
      assert.deepEqual(await sel(page, '#login >> role=button'), ['button:Log in']);
      assert.deepEqual(await sel(page, 'within=footer >> role=link'), ['a:Privacy', 'a:Terms']);
      assert.deepEqual(await sel(page, '//form[@id="login"]//button'), ['button:Log in']);
      assert.deepEqual(await sel(page, 'main >> xpath=.//select'), ['country']);
      assert.deepEqual(await sel(page, 'within=header >> text=Sign in'), ['a:Sign in']);
    });
    await check('forms: helpers.js functions take the same selectors (refs, role=, text=)', async () => {
      const r = await ev(page, () => {
        const ref = __ouroPcd.find('email')[0].ref;
        return { tag: __ouro.query(ref).tag, h1: __ouro.text('role=heading[level=1]'), ok: __ouro.actionable('role=button[name="Log in"]', { enabled: true }).ok,
                 label: __ouro.targetInfo('label="Email address"').name };
      });
      assert.deepEqual(r, { tag: 'input', h1: 'Forms of every kind', ok: true, label: 'email' });
    });
    await check('forms: find', async () => {
      const cases = [['email', 'email'], ['password field', 'password'], ['remember me checkbox', 'remember'], ['log in button', 'Log in'],
        ['phone number', 'phone'], ['nickname', 'nick'], ['card number', 'cc'], ['pay now', 'Pay now'], ['country dropdown', 'country'],
        ['search box', 'q'], ['about you', 'bio']];
      const bad = [];
      for (const [d, want] of cases) { const t = await findTop(page, d); if (!t || t.id !== want) bad.push(`${d} → ${t && t.id} (${t && t.name})`); }
      assert.deepEqual(bad, []);
    });
    await check('forms: details', async () => {
      const [d] = await ev(page, () => { const r = __ouroPcd.find('email')[0].ref; return __ouroPcd.details([r]); });
      assert.equal(d.role, 'textbox'); assert.equal(d.name, 'Email address');
      assert.equal(d.selector, 'role=textbox[name="Email address"]');
      assert.ok(d.alternates.some(a => a.startsWith('label=')), JSON.stringify(d.alternates));
      assert.equal(d.landmark, 'main'); assert.equal(d.visible, true); assert.equal(d.enabled, true); assert.equal(d.tag, 'input');
      const [p] = await ev(page, () => __ouroPcd.details([__ouroPcd.find('password')[0].ref]));
      assert.ok(!('value' in p), 'no password value in details');
      const [u] = await ev(page, () => __ouroPcd.details(['e99999']));
      assert.match(u.error, /unknown ref/);
    });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('widgets.html');
  {
    const page = await open('widgets.html');
    const s = await measure(page, 'widgets.html');
    await reachable(page, 'widgets', s);
    await check('widgets: roles', async () => {
      const roles = await ev(page, () => ['divbtn', 'bold', 't1', 'terms', 'darkmode', 'combo', 'menubtn'].map(id => __ouroPcd.role(document.getElementById(id)))
        .concat(['summary', 'details', 'h2', 'img', 'nav', 'main', 'ul', 'li', 'p'].map(t => __ouroPcd.role(document.querySelector(t)))));
      assert.deepEqual(roles, ['button', 'button', 'tab', 'checkbox', 'switch', 'combobox', 'button', 'button', 'group', 'heading', 'img', 'navigation', 'main', 'list', 'listitem', 'paragraph']);
    });
    await check('widgets: names (labelledby cycle, hidden label, icon)', async () => {
      const names = await ev(page, () => ['cycbtn', 'hiddenlbl', 'icon-only', 'sign-in', 'darkmode', 'allbox'].map(id => __ouroPcd.accessibleName(document.getElementById(id))));
      assert.deepEqual(names, ['Alpha Beta', 'Hidden label works', 'Close dialog', '→ Sign in', 'Dark mode', 'Select all']);
    });
    await check('widgets: role states and levels', async () => {
      assert.deepEqual(await sel(page, 'role=button[pressed]'), ['bold']);
      assert.deepEqual(await sel(page, 'role=button[pressed=false]').then(x => x.includes('italic')), true);
      assert.deepEqual(await sel(page, 'role=button[disabled]'), ['disabled']);
      assert.deepEqual(await sel(page, 'role=button[expanded]'), ['menubtn']);
      assert.deepEqual(await sel(page, 'role=tab[selected]'), ['t1']);
      assert.deepEqual(await sel(page, 'role=checkbox[checked=mixed]'), ['allbox']);
      assert.deepEqual(await sel(page, 'role=switch[checked]'), ['darkmode']);
      assert.deepEqual(await sel(page, 'role=heading[level=3]'), ['h3:Level three']);
      assert.deepEqual(await sel(page, 'role=menuitem[name*="dup"]'), ['li:Duplicate']);
      assert.deepEqual(await sel(page, 'role=tab[name=/spec|review/i]'), ['t2', 't3']);
      assert.deepEqual(await sel(page, 'role=tabpanel'), ['p1'], 'hidden panel excluded');
      assert.deepEqual(await sel(page, 'role=tabpanel[include-hidden]'), ['p1', 'p2']);
    });
    await check('widgets: text= (smallest element, lifted to the button)', async () => {
      assert.deepEqual(await sel(page, 'text=Sign in'), ['sign-in']);
      assert.deepEqual(await sel(page, 'text="Next"'), ['lnk1']);
      assert.deepEqual((await sel(page, 'text=next')).length, 2);
      assert.deepEqual(await sel(page, 'text=/^refresh/i'), ['divbtn']);
      assert.deepEqual(await sel(page, 'text="Bold"s'), ['bold']);
      assert.deepEqual(await sel(page, 'text="bold"s'), []);
      assert.deepEqual(await sel(page, 'text="bold"'), ['bold']);
      assert.deepEqual(await sel(page, '#sign-in >> text=Sign in'), ['span:Sign in'], 'inside a button, the inner span');
      assert.deepEqual(await sel(page, 'text="Read more" >> nth=1'), ['a:Read more']);
      assert.deepEqual(await sel(page, '#dupes >> text="Read more"').then(x => x.length), 3);
      assert.deepEqual(await sel(page, 'alt="Company logo"'), ['img:']);
      assert.deepEqual(await sel(page, 'testid=main-tabs >> role=tab >> nth=1'), ['t2']);
    });
    await check('widgets: shadow DOM piercing (open, nested; closed is opaque)', async () => {
      assert.deepEqual(await sel(page, '#shadow-btn'), ['shadow-btn']);
      assert.deepEqual(await sel(page, 'role=link[name="Deep shadow link"]'), ['a:Deep shadow link']);
      assert.deepEqual(await sel(page, 'text=Add to wishlist'), ['button:Add to wishlist']);
      assert.deepEqual(await sel(page, 'placeholder="Shadow field"'), ['input:']);
      assert.deepEqual(await sel(page, '#host1 >> role=button[name="Shadow action"]'), ['shadow-btn']);
      assert.deepEqual(await sel(page, 'text=Secret closed button'), []);
      const t = await findTop(page, 'deep shadow link');
      assert.equal(t.name, 'Deep shadow link');
      const [d] = await ev(page, r => __ouroPcd.details([r]), t.ref);
      assert.deepEqual(await sel(page, d.selector), ['a:Deep shadow link']);
      assert.ok(d.alternates.length >= 1);
      for (const a of d.alternates) assert.deepEqual(await sel(page, a), ['a:Deep shadow link'], a);
    });
    await check('widgets: invalid selectors name the bad part', async () => {
      for (const bad of ['role=button[nam="x"]', 'role=button[name="x"', 'text="unterminated', 'nth=first', 'div >> ', '##bad', 'within=sidebar']) {
        const m = await selErr(page, bad);
        assert.ok(m && /invalid selector part|within/.test(m) && /Accepted forms|landmark/.test(m), `${bad}: ${m}`);
      }
    });
    await check('widgets: find', async () => {
      const cases = [['close dialog', 'icon-only'], ['dark mode toggle', 'darkmode'], ['specs tab', 't2'], ['refresh data', 'divbtn'],
        ['sign in', 'sign-in'], ['accept terms checkbox', 'terms'], ['bold button', 'bold']];
      const bad = [];
      for (const [d, want] of cases) { const t = await findTop(page, d); if (!t || t.id !== want) bad.push(`${d} → ${t && t.id}`); }
      assert.deepEqual(bad, []);
    });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('frames.html');
  {
    const page = await open('frames.html');
    await page.waitForTimeout(200);
    const s = await measure(page, 'frames.html');
    await reachable(page, 'frames', s);
    await check('frames: same-origin frames entered, cross-origin listed', async () => {
      assert.ok(s.frames && s.frames.length === 1 && s.frames[0].cross, JSON.stringify(s.frames));
      assert.match(s.frames[0].url, /xframe\.html/);
      const names = s.actions.map(a => a.name);
      assert.ok(names.includes('Confirm order') && names.includes('Top button'), names.join('|'));
      assert.ok(s.forms.some(f => f.fields.some(x => x.label === 'Card holder')));
    });
    await check('frames: refs and details inside nested frames', async () => {
      const t = await findTop(page, 'confirm order');
      const [d] = await ev(page, r => __ouroPcd.details([r]), t.ref);
      assert.equal(d.framePath.length, 2, JSON.stringify(d.framePath));
      assert.equal(d.selector, 'role=button[name="Confirm order"]', 'engines search same-origin frames: the selector works from the top');
      assert.ok(d.alternates.some(a => a.startsWith('#pay >>> #inner >>> ')), JSON.stringify(d.alternates));
      for (const a of d.alternates) assert.deepEqual(await sel(page, a), ['button:Confirm order'], a);
      assert.ok(d.rect.y > 0 && d.rect.x > 0);
      assert.deepEqual(await sel(page, d.selector), ['button:Confirm order']);
      assert.deepEqual(await sel(page, 'iframe#pay >>> label="Card holder"'), ['card']);
      assert.deepEqual(await sel(page, t.ref), ['button:Confirm order']);
      const m = await selErr(page, '#ads >>> button');
      assert.match(m, /cross-origin/);
    });
    await check('frames: snapshot with refPrefix in the cross-origin frame', async () => {
      const fr = page.frames().find(f => /xframe/.test(f.url()));
      const xs = await fr.evaluate(() => __ouroPcd.snapshot({ refPrefix: 'f2' }));
      assert.ok(xs.actions.every(a => /^f2e\d+$/.test(a.ref)), JSON.stringify(xs.actions));
      const got = await fr.evaluate(r => __ouroPcd.resolve(r).textContent, xs.actions[0].ref);
      assert.ok(/Cross/.test(got));
    });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('virtual.html');
  {
    const page = await open('virtual.html');
    const s = await measure(page, 'virtual.html');
    await check('virtual: collection with announced count', () => {
      const c = s.collections[0];
      assert.ok(c, 'a collection');
      assert.equal(c.count, 10000); assert.ok(c.shown > 5 && c.shown < 30, JSON.stringify(c));
      assert.equal(c.name, 'Inbox');
    });
    await check('virtual: extract the rows present, hint to scroll', async () => {
      const x = await ev(page, r => __ouroPcd.extract({ collection: r }), s.collections[0].ref);
      assert.ok(x.rows.length > 5 && x.total === 10000 && x.truncated && /scroll/.test(x.hint), JSON.stringify(x).slice(0, 300));
      assert.ok(x.rows[0].from && /sender0@/.test(x.rows[0].from), JSON.stringify(x.rows[0]));
    });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('rerender.html');
  {
    const page = await context.newPage();
    await page.goto(`${base}/rerender.html`, { waitUntil: 'domcontentloaded' });
    const s = (await snap(page)).s;
    await check('rerender: dead ref re-resolves through its alternates, then a clear error', async () => {
      const save = s.actions.find(a => a.name === 'Save changes');
      assert.ok(save, JSON.stringify(s.actions));
      const second = (await find(page, 'done', { topK: 5 }));
      const doneRefs = second.filter(r => r.name === 'Done').map(r => r.ref);
      await page.waitForFunction(() => window.__rerendered);
      const after = await ev(page, ([r, d]) => {
        const e = __ouroPcd.resolve(r);
        const items = [...document.querySelectorAll('li.todo')];
        return { connected: e.isConnected, id: e.id, same: __ouroPcd.resolve(r) === e,
                 doneIdx: d.map(x => items.indexOf(__ouroPcd.resolve(x).closest('li'))) };
      }, [save.ref, doneRefs]);
      assert.deepEqual({ connected: after.connected, id: after.id, same: after.same }, { connected: true, id: 'save', same: true });
      assert.deepEqual(after.doneIdx, [0, 1, 2], 'each Done ref comes back to its own row');
      await ev(page, () => document.getElementById('save').remove());
      const m = await selErr(page, save.ref);
      assert.match(m, /is gone.*snapshot\(\)/);
    });
    results.push({ page: 'rerender.html', chars: JSON.stringify(s).length, cold: NaN, warm: NaN });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('shop.html');
  {
    const page = await open('shop.html');
    const s = await measure(page, 'shop.html');
    await reachable(page, 'shop', s, 80);
    await check('shop: template action, collection, forms', () => {
      const add = s.actions.find(a => a.kind === 'add-to-cart');
      assert.ok(add && add.n === 200 && add.col, JSON.stringify(add));
      const grid = s.collections.find(c => c.ref === add.col);
      assert.ok(grid && grid.count === 200, JSON.stringify(s.collections));
      for (const f of ['title', 'link', 'price', 'rating', 'reviews', 'image']) assert.ok(grid.fields.includes(f), `field ${f} in ${grid.fields}`);
      assert.ok(s.actions.some(a => a.kind === 'next') && s.actions.some(a => a.kind === 'prev') && s.actions.some(a => a.kind === 'login') && s.actions.some(a => a.kind === 'cart'));
      assert.ok(s.forms.some(f => f.purpose === 'search') && s.forms.some(f => f.purpose === 'filter'));
      assert.equal(s.actions.filter(a => a.name === 'Add to cart').length, 1);
    });
    await check('shop: extract the product grid', async () => {
      const grid = s.collections.find(c => c.count === 200);
      const x = await ev(page, r => { const t = performance.now(); const x = __ouroPcd.extract({ collection: r }); x.ms = performance.now() - t; return x; }, grid.ref);
      results.find(r => r.page === 'shop.html').extract = x.ms;
      assert.equal(x.rows.length, 200); assert.equal(x.total, 200);
      assert.equal(x.rows[0].title, 'Widget 1'); assert.equal(x.rows[0].price, 19.99);
      assert.equal(x.rows[5].price, 1299); assert.equal(x.rows[1].price, 27.49);
      assert.equal(x.rows[1].rating, 1.7); assert.equal(x.rows[2].reviews, 26);
      assert.equal(x.rows[3].link, `${base}/p/4`);
      assert.ok(/^e\d+$/.test(x.rows[0].ref));
      const t = await refId(page, x.rows[7].ref);
      assert.equal(t, 'Device 8');
      const y = await ev(page, () => __ouroPcd.extract({ text: 'products', fields: ['title', 'price'], limit: 3 }));
      assert.deepEqual(y.rows.map(r => [r.title, r.price]), [['Widget 1', 19.99], ['Gizmo 2', 27.49], ['Doohickey 3', 34.99]]);
      assert.equal(y.truncated, true);
      const z = await ev(page, g => __ouroPcd.extract({ collection: g, fields: ['title', 'add'], limit: 2 }), grid.ref);
      assert.deepEqual(z.rows.map(r => r.add), ['Add to cart', 'Add to cart'], 'an unknown field is looked up by class');
      const w = await ev(page, g => __ouroPcd.snapshot({ within: g }), grid.ref);
      assert.ok(w.actions.length >= 1 && w.actions.every(a => a.landmark === 'main') && !w.forms.length, JSON.stringify(w).slice(0, 300));
    });
    await check('shop: chaining and nth across a grid', async () => {
      assert.deepEqual(await ev(page, () => __ouroPcd.resolveAll('role=button[name="Add to cart"] >> nth=1').map(e => e.dataset.id)), ['2']);
      assert.deepEqual(await ev(page, () => __ouroPcd.resolveAll('.card >> nth=4 >> role=button').map(e => e.dataset.id)), ['5']);
      assert.deepEqual(await ev(page, () => __ouroPcd.resolveAll('role=button[name="Add to cart"]').length), 200);
      const grid = s.collections.find(c => c.count === 200).ref;
      assert.deepEqual(await ev(page, g => __ouroPcd.resolveAll(`within=${g} >> role=button >> nth=2`).map(e => e.dataset.id), grid), ['3']);
      assert.deepEqual(await ev(page, g => __ouroPcd.resolveAll(`${g} >> text="Add to cart" >> nth=-1`).map(e => e.dataset.id), grid), ['200']);
      assert.deepEqual(await ev(page, () => __ouroPcd.resolveAll('within=main >> role=link[name="Next"]').map(e => e.getAttribute('rel'))), ['next']);
    });
    await check('shop: snapshot({text}) and ({kind})', async () => {
      const t = await ev(page, () => __ouroPcd.snapshot({ text: 'price', topK: 50 }));
      assert.ok(t.forms.some(f => f.fields.some(x => /price/i.test(x.label))), JSON.stringify(t.forms).slice(0, 300));
      const k = await ev(page, () => __ouroPcd.snapshot({ kind: 'pagination' }));
      assert.deepEqual(k.actions.map(a => a.kind).sort(), ['next', 'page', 'page', 'page', 'prev']);
      const f = await ev(page, () => __ouroPcd.snapshot({ kind: 'form' }));
      assert.ok(!f.actions && f.forms.length >= 2);
      const w = await ev(page, () => __ouroPcd.snapshot({ within: 'aside' }));
      assert.ok(w.forms.length === 1 && w.forms[0].purpose === 'filter' && !w.actions.some(a => a.landmark === 'header'), JSON.stringify(w).slice(0, 400));
    });
    await check('shop: find', async () => {
      const cases = [['search box', 'q'], ['search button', 'Search'], ['sign in', 'Sign in'], ['next page', 'Next'], ['previous page', 'Previous'],
        ['shopping cart', '🛒 0'], ['add the second product to cart', '2'], ['add the last product to cart', '200'], ['apply filters', 'Apply filters'],
        ['sort by', 'sort'], ['max price', 'max'], ['Acme brand checkbox', 'brand'], ['contact us', 'Contact us'], ['gizmo 10', 'Gizmo 10'],
        ['add widget 9 to cart', '9'], ['buy gizmo 2', '2'], ['third product', 'Doohickey 3'], ['the logo', 'Gadget Store'], ['brand globex', 'brand']];
      const bad = [];
      for (const [d, want] of cases) { const t = await findTop(page, d); if (!t || t.id !== want) bad.push(`${d} → ${t && t.id} (${t && t.name})`); }
      assert.deepEqual(bad, []);
      const r = await find(page, 'add to cart', { topK: 3 });
      assert.ok(r[0].score <= 1 && r[0].score >= r[2].score);
    });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('table.html');
  {
    const page = await open('table.html');
    const s = await measure(page, 'table.html');
    await reachable(page, 'table', s);
    await check('table: collection and extract of 500 rows', async () => {
      const c = s.collections[0];
      assert.equal(c.count, 500); assert.equal(c.name, 'Orders 2024');
      assert.deepEqual(c.fields, ['order', 'customer', 'date', 'amount', 'units', 'status', 'link']);
      const x = await ev(page, r => { const t = performance.now(); const x = __ouroPcd.extract({ collection: r }); x.ms = performance.now() - t; return x; }, c.ref);
      const x2 = await ev(page, r => { const t = performance.now(); const x = __ouroPcd.extract({ collection: r }); x.ms = performance.now() - t; return x; }, c.ref);
      results.find(r => r.page === 'table.html').extract = Math.min(x.ms, x2.ms);
      assert.equal(x.rows.length, 500);
      assert.deepEqual(x.rows[1], { order: '#10001', customer: 'Grace B.', date: '2024-02-02', amount: 1037.25, units: 1, status: 'shipped', link: `${base}/orders/10001`, ref: x.rows[1].ref });
      assert.equal(x.rows[499].amount, 19587.75);
      assert.ok(x2.ms < 50, `extract took ${x2.ms} ms`);
      assert.equal(await refId(page, x.rows[499].ref), '#10499');
    });
    await check('table: find', async () => {
      const bad = [];
      for (const [d, want] of [['download csv', 'Download CSV'], ['load more', 'more'], ['filter rows', 'flt'], ['order 10042', '#10042']]) {
        const t = await findTop(page, d); if (!t || t.id !== want) bad.push(`${d} → ${t && t.id}`);
      }
      assert.deepEqual(bad, []);
    });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('news.html');
  {
    const page = await open('news.html');
    const s = await measure(page, 'news.html');
    await reachable(page, 'news', s);
    await check('news: cookie dialog first, login state, stories', () => {
      assert.equal(s.login, 'in');
      const top = s.actions.slice(0, 2).map(a => a.landmark);
      assert.ok(top.every(l => l === 'dialog'), JSON.stringify(s.actions.slice(0, 4)));
      assert.ok(s.actions.some(a => a.kind === 'accept') && s.actions.some(a => a.kind === 'reject'));
      const stories = s.collections.filter(c => c.count === 10);
      assert.equal(stories.length, 4, JSON.stringify(s.collections));
      assert.deepEqual(stories.map(c => c.name).sort(), ['Business', 'Sport', 'Tech', 'World']);
      for (const f of ['title', 'link', 'date', 'author', 'description']) assert.ok(stories[0].fields.includes(f), `${f} in ${stories[0].fields}`);
    });
    await check('news: extract numbers and dates', async () => {
      const c = s.collections.find(c => c.name === 'Tech');
      const x = await ev(page, r => __ouroPcd.extract({ collection: r }), c.ref);
      assert.equal(x.rows.length, 10);
      assert.equal(x.rows[0].title, 'Tech story 20 surprises again');
      assert.equal(x.rows[0].date, '2024-05-21T08:00');
      assert.equal(x.rows[0].comments, 60);
      assert.equal(x.rows[0].points, 140);
      assert.equal(x.rows[1].points, 2100, '"2.1k points"');
    });
    await check('news: find', async () => {
      const bad = [];
      for (const [d, want] of [['accept cookies', 'Accept all cookies'], ['reject cookies', 'Reject all'], ['log out', 'Log out'], ['open menu', '☰'], ['subscribe', 'Subscribe'], ['tech section', 'Tech']]) {
        const t = await findTop(page, d); if (!t || t.id !== want) bad.push(`${d} → ${t && t.id}`);
      }
      assert.deepEqual(bad, []);
    });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('wiki.html');
  {
    const page = await open('wiki.html');
    const links = await ev(page, () => document.querySelectorAll('a[href]').length);
    notes.push(`wiki.html has ${links} links`);
    const s = await measure(page, 'wiki.html');
    await reachable(page, 'wiki', s, 60);
    await check('wiki: search, login, collections', () => {
      assert.ok(s.forms[0].purpose === 'search');
      assert.ok(s.actions.some(a => a.kind === 'login') && s.actions.some(a => a.kind === 'signup'));
      assert.equal(s.login, 'out');
      const names = s.collections.map(c => c.name);
      assert.ok(names.includes('References') && names.includes('Contents'), names.join('|'));
      assert.ok(s.more && s.more.actions > 1000);
    });
    await check('wiki: find and text selectors on 5,000 links', async () => {
      const t0 = Date.now();
      const t = await findTop(page, 'search freepedia');
      const ms = Date.now() - t0;
      assert.equal(t.id, 'search');
      const r = await findTop(page, 'paper number 42');
      assert.equal(r.name, 'Paper number 42');
      assert.deepEqual(await sel(page, 'role=link[name="Paper number 7"]'), ['a:Paper number 7']);
      assert.deepEqual(await sel(page, 'text="Section gamma 2"'), ['sec2']);
      notes.push(`wiki find() round trip ${ms} ms`);
      const fm = await ev(page, () => { const t = performance.now(); __ouroPcd.find('log in'); return performance.now() - t; });
      results.find(r => r.page === 'wiki.html').find = fm;
    });
    await page.close();
  }

  // ---------------------------------------------------------------------------------------------
  console.log('huge.html, hostile.html');
  {
    const page = await open('huge.html');
    const n = await ev(page, () => document.getElementsByTagName('*').length);
    notes.push(`huge.html has ${n} elements`);
    const s = await measure(page, 'huge.html');
    await check('huge: bounded time, still finds things', async () => {
      const r = results.find(r => r.page === 'huge.html');
      assert.ok(r.warm < 300, `snapshot ${r.warm} ms`);
      assert.ok(s.forms.length >= 1);
      assert.deepEqual(await sel(page, 'text=Deep button'), ['button:Deep button']);
      const t = await findTop(page, 'deep button');
      assert.equal(t.name, 'Deep button');
    });
    await page.close();
  }
  {
    const page = await open('hostile.html');
    const s = await measure(page, 'hostile.html');
    await check('hostile: survives throwing getters, clobbered forms, cycles, long names', async () => {
      assert.ok(!s.error, s.error);
      const names = s.actions.map(a => a.name);
      assert.ok(names.some(n => n.startsWith('Long link') && n.length <= 80), names.join('|'));
      assert.ok(s.forms.some(f => f.fields.length === 4 && f.submit && f.submit.name === 'Send it'), JSON.stringify(s.forms));
      assert.equal(await ev(page, () => __ouroPcd.accessibleName(document.getElementById('cyc'))), 'never one two');
      assert.equal(await ev(page, () => __ouroPcd.role(document.getElementById('multi'))), 'button');
      assert.deepEqual(await sel(page, 'role=link[name="Custom link"]'), ['custom-el:Custom link']);
      assert.deepEqual(await sel(page, 'role=button[name="Lots of whitespace"]'), ['weirdname']);
      assert.deepEqual(await ev(page, () => __ouroPcd.details([__ouroPcd.find('throwing getter')[0]?.ref || 'e1']).length), 1);
      assert.equal(await ev(page, () => __ouroPcd.accessibleName(window.detached)), 'Detached');
      assert.ok(Array.isArray(await find(page, 'svg link')));
      const x = await ev(page, () => __ouroPcd.extract({}));
      assert.ok(x && Array.isArray(x.rows));
      assert.deepEqual(await sel(page, 'text="Level 3 button"'), ['button:Level 3 button']);
      const deep = await find(page, 'level 11 button');
      assert.ok(!deep.some(r => r.name === 'Level 11 button'), 'frames deeper than 8 are not entered');
    });
    await page.close();
  }

  {
    // 30,000 links in one container, and a button whose textContent getter throws and that names itself.
    const page = await open('virtual.html');
    const r = await ev(page, () => {
      const d = document.createElement('div');
      let h = '';
      for (let i = 0; i < 30000; i++) h += '<a href=/x' + i + '>link ' + i + '</a> ';
      d.innerHTML = h;
      document.body.appendChild(d);
      const e = document.createElement('button');
      Object.defineProperty(e, 'textContent', { get() { throw new Error('gotcha'); } });
      e.id = 'evil';
      document.body.appendChild(e);
      e.setAttribute('aria-labelledby', 'evil');
      e.append('Evil');
      return new Promise(res => setTimeout(() => {
        const t = performance.now();
        const s = __ouroPcd.snapshot();
        res({ ms: performance.now() - t, len: JSON.stringify(s).length, cols: s.collections.map(c => c.count), partial: !!s.partial,
              evil: __ouroPcd.accessibleName(e) });
      }, 0));
    });
    results.push({ page: '30k links', chars: r.len, cold: r.ms });
    await check('30,000 links: one collection, small, bounded', () => {
      assert.ok(r.len < 16000 && r.cols.some(c => c >= 30000), JSON.stringify(r));
      assert.equal(r.evil, 'Evil');
    });
    await page.close();
  }

  {
    // Many large forms and long names: the budget trims detail, never the shape.
    const page = await open('virtual.html');
    const r = await ev(page, () => {
      let h = '';
      for (let f = 0; f < 30; f++) {
        h += `<form aria-label="Form ${f}">`;
        for (let i = 0; i < 14; i++) h += `<label>A rather long label for field ${i} of form ${f} that keeps going <select name="s${f}_${i}"><option>Option one with words</option><option>Option two with words</option><option>Three</option></select></label>`;
        h += '<button>Send this form now please</button></form>';
      }
      for (let i = 0; i < 60; i++) h += `<button>${'A very long button name number ' + i + ' '.repeat(1)}${'x'.repeat(120)}</button>`;
      document.body.insertAdjacentHTML('afterbegin', h);
      return new Promise(res => setTimeout(() => { const s = __ouroPcd.snapshot(); res({ len: JSON.stringify(s).length, forms: s.forms.length, actions: s.actions.length, more: s.more }); }, 0));
    });
    results.push({ page: 'big forms', chars: r.len });
    await check('budget: many big forms stay under 16,000 chars', () => {
      assert.ok(r.len <= 16000 && r.forms >= 3 && r.actions >= 3 && r.more, JSON.stringify(r));
    });
    await page.close();
  }

  await browser.close();
  server.close();

  console.log('\npage            chars   cold ms fresh ms  warm ms  actions forms cols  extract ms  find ms');
  for (const r of results) {
    const f = (v, w) => String(v == null || Number.isNaN(v) ? '-' : typeof v === 'number' ? v.toFixed(1) : v).padStart(w);
    console.log(`${r.page.padEnd(15)} ${f(r.chars, 6)} ${f(r.cold, 8)} ${f(r.fresh, 8)} ${f(r.warm, 8)} ${f(r.actions, 8)} ${f(r.forms, 5)} ${f(r.collections, 4)} ${f(r.extract, 11)} ${f(r.find, 8)}`);
  }
  for (const n of notes) console.log('note: ' + n);
  console.log(`\n${passes} passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}

main().catch(e => { console.error(e); process.exit(2); });

// The Command Center at 320, 400, 500 and 1280 px against the fake ouro, in headless Chromium:
// no horizontal scroll, every panel reachable, the status words, Markdown answers, each
// iteration's code once, glyphs the fonts have, the confirmation's fields, countdown and context,
// Esc cancelling (shown as cancelled), questions, `$` commands, the mode sent with a run, and
// axe-core in every state (empty, running, done, History, Memory, Schedules, Settings,
// confirmation, cancelled, askUser) at 400 and 1280 px.
// Screenshots go to docs/images/ with --screenshots. Exit status 1 on any failure.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFakeOuro, TOKEN } from './fake_ouro.mjs';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const IMAGES = path.resolve(here, '../../docs/images');
const SHOTS = process.argv.includes('--screenshots');
const CHROMIUM = process.env.CHROMIUM || '/usr/lib/chromium/chromium';
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let failures = 0;
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures++; };

export async function axeCheck(page, label) {
  // Evaluated through DevTools, which no page CSP stops (extension pages forbid inline scripts).
  await page.evaluate(AXE);
  const r = await page.evaluate(async () => (await globalThis.axe.run(document, { resultTypes: ['violations'] })).violations
    .map(v => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help, target: v.nodes[0] && v.nodes[0].target.join(' ') })));
  const bad = r.filter(v => v.impact === 'serious' || v.impact === 'critical');
  for (const v of r) console.log(`     axe ${label}: ${v.impact} ${v.id} ×${v.nodes} — ${v.help} (${v.target})`);
  return bad;
}

const noSideScroll = page => page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth, bw: document.body.scrollWidth }));
const inViewport = (page, sel) => page.evaluate(s => {
  const e = document.querySelector(s);
  if (!e) return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= -1 && r.right <= innerWidth + 1 && getComputedStyle(e).display !== 'none';
}, sel);
// Wholly on screen, up and down too (not below the fold).
const fullyVisible = (page, sel) => page.evaluate(s => {
  const e = document.querySelector(s);
  if (!e) return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= -1 && r.right <= innerWidth + 1 && r.top >= -1 && r.bottom <= innerHeight + 1 &&
    document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2) === e;
}, sel);
// Characters the page's fonts have no glyph for: each non-ASCII character of the element's text,
// drawn in the element's font, compared with a character no font has (a private-use one: the
// missing-glyph box).
const missingGlyphs = (page, sel) => page.evaluate(s => {
  const box = document.querySelector(s);
  if (!box) return ['(no element)'];
  const c = document.createElement('canvas');
  c.width = c.height = 48;
  const g = c.getContext('2d', { willReadFrequently: true });
  const missing = new Set();
  for (const e of [box, ...box.querySelectorAll('*')]) {
    g.font = getComputedStyle(e).font;
    const draw = ch => { g.clearRect(0, 0, 48, 48); g.fillText(ch, 4, 32); return g.getImageData(0, 0, 48, 48).data.join(','); };
    const tofu = draw('\uE000');
    const own = [...e.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join('');
    for (const ch of new Set([...own].filter(x => x.codePointAt(0) > 127))) if (draw(ch) === tofu) missing.add(ch);
  }
  return [...missing];
}, sel);
const until = (page, fn, arg, what, timeout = 5000) => page.waitForFunction(fn, arg, { timeout }).then(() => true, () => { console.log(`     (waited ${timeout} ms for ${what})`); return false; });

// Every page: no script error, no console error (a failed request is one), nothing asked of an
// endpoint the server said it lacks.
function watch(page) {
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  return errors;
}
const AXE_WIDTHS = [400, 1280];
async function axeState(page, width, state) {
  const bad = await axeCheck(page, `${width}px ${state}`);
  check(bad.length === 0, `${width}px ${state}: no serious or critical axe-core violation (${bad.map(v => v.id).join(', ') || 'none'})`);
}

async function main() {
  const fake = await startFakeOuro();
  const base = `http://127.0.0.1:${fake.port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    for (const width of [320, 400, 500, 1280]) {
      const height = width >= 1000 ? 800 : 760;
      const ctx = await browser.newContext({ viewport: { width, height }, bypassCSP: true, colorScheme: 'dark' });
      const page = await ctx.newPage();
      const errors = watch(page);
      const axe = AXE_WIDTHS.includes(width);
      fake.state.requests.length = 0;
      fake.state.posted.length = 0;
      await page.goto(`${base}/?token=${TOKEN}`);
      await page.waitForSelector('#runs li', { state: 'attached' });
      await until(page, () => document.getElementById('context').dataset.ready === '1', null, 'the settings');
      let w = await noSideScroll(page);
      check(w.sw <= w.iw, `${width}px: no horizontal scroll on load (scrollWidth ${w.sw}, innerWidth ${w.iw})`);
      check(await inViewport(page, '#settings-btn'), `${width}px: the header's last button is on screen`);
      if (axe) await axeState(page, width, 'empty');
      // History: state, date, duration (a conversation's turns, not the wait between them), cost,
      // iterations, and each turn's state.
      const history = await page.evaluate(() => document.getElementById('runs').textContent);
      check(/done · \w{3} \d{1,2}, \d{4}, [\d:]+\s?[AP]M · took 30 s · \$0\.01 · 2 iterations/.test(history) && history.includes('2 turns: done · done') &&
        /failed · .* · took 10 s · cost not known · 4 iterations/.test(history), `${width}px: History rows say state, date, duration, cost and turns`);

      await page.fill('#task', 'Find the cheapest blue mug');
      await page.press('#task', 'Enter');
      await page.waitForSelector('.msg.final');
      check((await page.textContent('#status')) === 'done', `${width}px: the status word is "done"`);
      // The run's goals, a checklist above the conversation, as the last goal event left it.
      const goals = await page.evaluate(() => ({ shown: !document.getElementById('goals').hidden,
        items: [...document.querySelectorAll('#goals-list li')].map(li => li.className + ': ' + li.textContent) }));
      check(goals.shown && goals.items.length === 2 && goals.items[0] === 'goal done: ✓ Find the cheapest blue mug — Blue mug at $12' &&
        goals.items[1] === 'goal dropped: ✗ Check the delivery time', `${width}px: the goals checklist (${JSON.stringify(goals)})`);
      const sent = fake.state.posted[0] || {};
      check(sent.options && sent.options.mode === 'careful', `${width}px: a new run is sent with its mode (${JSON.stringify(sent.options)})`);
      const md = await page.evaluate(() => {
        const f = document.querySelector('.msg.final');
        return { h: f.querySelector('h2') && f.querySelector('h2').textContent, strong: !!f.querySelector('strong'), em: !!f.querySelector('em'),
                 code: !!f.querySelector('code'), table: f.querySelectorAll('tbody tr').length, right: f.querySelector('td:nth-child(2)') && f.querySelector('td:nth-child(2)').style.textAlign,
                 links: [...f.querySelectorAll('a')].map(a => a.href), img: f.querySelectorAll('img').length, nested: !!f.querySelector('ul ol'),
                 quote: !!f.querySelector('blockquote em'), fence: f.querySelector('pre code') && f.querySelector('pre code').textContent, bold: f.querySelectorAll('b').length,
                 text: f.textContent };
      });
      check(md.h === 'Cheapest mugs' && md.strong && md.em && md.code, `${width}px: Markdown heading, strong, emphasis, code`);
      check(md.table === 2 && md.right === 'right', `${width}px: Markdown table with its alignment`);
      check(md.nested, `${width}px: a nested ordered list inside a bullet`);
      check(md.quote && md.fence === 'const x = "<b>not bold</b>";' && md.bold === 0, `${width}px: a block quote and a fenced block whose markup stays text`);
      check(md.links.length === 1 && md.links[0] === 'https://shop-b.example/mug', `${width}px: only the http(s) link is a link (${md.links.join(', ')})`);
      check(md.img === 0 && md.text.includes('<img src=x onerror=alert(1)>') && md.text.includes('Unsafe: click and'), `${width}px: raw HTML and a javascript: link stay text`);
      const act = await page.evaluate(() => {
        const iters = document.getElementById('iterations');
        const ref = iters.querySelector('.stream a.code-ref');
        const target = ref && document.getElementById(ref.getAttribute('href').slice(1));
        return { code: (iters.textContent.match(/getText\('h1'\)/g) || []).length, stream: iters.querySelector('.stream').textContent,
                 ref: ref && ref.textContent, target: target && target.tagName + ' ' + target.textContent.slice(0, 20),
                 gate: [...iters.querySelectorAll('.line')].map(l => l.textContent).find(t => /tracker\.example/.test(t)) || '' };
      });
      check(act.code === 1, `${width}px: the iteration's code is shown once (${act.code})`);
      check(!act.stream.includes('[code block') && act.ref === 'code block 1, below' && /^PRE const h = await/.test(act.target || ''),
        `${width}px: the reply links to its code block below (${act.ref} → ${act.target})`);
      check(/^Gate refused POST https:\/\/tracker\.example\/collect — outside allowed sites/.test(act.gate), `${width}px: a gate line in words (${act.gate})`);
      const tofu = [...await missingGlyphs(page, 'header'), ...await missingGlyphs(page, 'main')];
      check(tofu.length === 0, `${width}px: every character shown has a glyph in the page's fonts (missing: ${tofu.join(' ') || 'none'})`);
      const frame = await page.evaluate(() => { const i = document.getElementById('live-frame'); return { shown: !i.hidden && getComputedStyle(i).display !== 'none', loaded: i.complete && i.naturalWidth > 0 }; });
      check(!frame.shown || frame.loaded, `${width}px: no broken live-view image when the run ended before a frame`);
      w = await noSideScroll(page);
      check(w.sw <= w.iw, `${width}px: no horizontal scroll with the answer (scrollWidth ${w.sw})`);
      if (SHOTS && [320, 400, 1280].includes(width)) await page.screenshot({ path: path.join(IMAGES, `command-center-${width}.png`) });

      if (width <= 800) {
        await page.click('#tab-activity');
        check(await inViewport(page, '#iterations details.iter'), `${width}px: the Activity tab shows the iterations`);
        if (SHOTS && width === 400) await page.screenshot({ path: path.join(IMAGES, 'command-center-400-activity.png') });
        if (axe) await axeState(page, width, 'done, Activity tab');
        await page.click('#tab-chat');
      } else {
        check(await inViewport(page, '#iterations details.iter'), `${width}px: the Activity column is on screen`);
      }
      if (axe) await axeState(page, width, 'done');
      for (const [btn, panel, name] of [['#history-btn', '#history', 'History'], ['#memory-btn', '#memory', 'Memory'], ['#schedules-btn', '#schedules', 'Schedules']]) {
        await page.click(btn);
        check(await until(page, s => { const e = document.querySelector(s); return e && !e.hidden && e.querySelector('li'); }, panel, `${panel} to fill`) &&
              await inViewport(page, panel), `${width}px: ${panel} opens on screen`);
        w = await noSideScroll(page);
        check(w.sw <= w.iw, `${width}px: no horizontal scroll with ${panel} open`);
        if (SHOTS && width === 400 && panel === '#history') await page.screenshot({ path: path.join(IMAGES, 'command-center-400-history.png') });
        if (axe) await axeState(page, width, name);
        await page.click(`${panel} .close-panel`);
        check(!(await inViewport(page, panel)), `${width}px: ${panel} closes with its own button`);
      }
      await page.click('#settings-btn');
      await page.waitForSelector('#settings-dialog[open]');
      await until(page, () => document.getElementById('pair-code').textContent !== '…' || !document.getElementById('pairings-hint').hidden, null, 'the pairing code');
      check(await fullyVisible(page, '#settings-save') && await fullyVisible(page, '#settings-test'), `${width}px: Settings' Test and Save are on screen without scrolling`);
      if (axe) await axeState(page, width, 'Settings');
      await page.click('#settings-cancel');
      check(!fake.state.requests.some(r => r.endsWith('/api/pool')), `${width}px: no request for /api/pool from a server without a pool`);
      check(errors.length === 0, `${width}px: no page or console errors ${errors.join(' | ')}`);
      await ctx.close();
    }

    // The states of a run at a side panel's width and a desktop's: running, a `$` command, the
    // confirmation (what, in which row, on which page, the crop, the countdown; Esc denies there
    // and cancels on the page), and a question.
    for (const width of AXE_WIDTHS) {
      const ctx = await browser.newContext({ viewport: { width, height: width >= 1000 ? 800 : 760 }, bypassCSP: true });
      const page = await ctx.newPage();
      const errors = watch(page);
      fake.state.cancels.length = 0;
      fake.state.answers.length = 0;
      fake.state.posted.length = 0;
      await page.goto(`${base}/?token=${TOKEN}`);
      await page.waitForSelector('#runs li', { state: 'attached' });

      // Running, before the tab's first frame: a neutral placeholder, no image.
      await page.fill('#task', 'A slow task');
      await page.press('#task', 'Enter');
      await page.waitForSelector('#live:not([hidden])', { state: 'attached' });
      const wait = await page.evaluate(() => ({ img: document.getElementById('live-frame').hidden, note: document.getElementById('live-wait').textContent }));
      check(wait.img && /Waiting for the first picture/.test(wait.note), `${width}px running: no image until the first frame ("${wait.note}")`);
      check((await page.textContent('#status')) === 'running…', `${width}px running: the status word is "running…"`);
      await axeState(page, width, 'running');
      await page.click('#new-btn');

      // A `$` command: what it did, in words.
      await page.fill('#task', '$ click Sign in');
      await page.press('#task', 'Enter');
      await page.waitForSelector('.msg.final');
      const cmd = await page.evaluate(() => document.querySelector('.msg.final').innerText);
      check(/Done: 1 step/.test(cmd) && cmd.includes('✓ click Sign in — clicked button "Sign in"') && cmd.includes('Now on: Sign in — shop-b — https://shop-b.example/login') && !cmd.includes('{'),
        `${width}px: a $ command answers with what it did (${cmd.replace(/\n/g, ' / ')})`);
      await page.click('#new-btn');

      // Rows as a table with Copy, CSV and JSON; the long conversation and the wide code scroll.
      await page.fill('#task', 'Mugs as a table');
      await page.press('#task', 'Enter');
      await page.waitForSelector('.msg.final table');
      const table = await page.evaluate(() => ({ rows: document.querySelectorAll('.msg.final tbody tr, .msg.final table > tr').length - 1,
        tools: [...document.querySelectorAll('.msg.final .tools a, .msg.final .tools button')].map(b => b.textContent).join(' ') }));
      check(table.rows === 14 && table.tools === 'Copy CSV JSON', `${width}px: rows as a table with ${table.tools}`);
      await axeState(page, width, 'table answer');
      if (width < 800) { await page.click('#tab-activity'); await axeState(page, width, 'table answer, Activity tab'); await page.click('#tab-chat'); }
      await page.click('#new-btn');
      for (let i = 0; i < 50 && !fake.state.ends.includes('r-table'); i++) await new Promise(r => setTimeout(r, 100));
      check(fake.state.ends.includes('r-table'), `${width}px: New conversation ends the finished one (POST /api/runs/{id}/end)`);

      // The mode control: autonomous is sent with the next run.
      await page.selectOption('#mode', 'autonomous');
      await page.fill('#task', 'Buy the blue mug');
      await page.press('#task', 'Enter');
      await page.waitForSelector('#confirm-dialog[open]');
      check(fake.state.posted.at(-1).options.mode === 'autonomous', `${width}px: the mode picked is sent with the run (${fake.state.posted.at(-1).options.mode})`);
      // The countdown has ticked: under a minute, by however much the machine's speed took (a
      // loaded one takes seconds between the event and this read).
      await until(page, () => { const m = /^Denied automatically in (\d+) s$/.exec(document.getElementById('confirm-countdown').textContent); return m && +m[1] < 60 && +m[1] >= 45; }, null, 'the countdown to tick');
      const conf = await page.evaluate(() => ({ text: document.getElementById('confirm-text').textContent, ctx: document.getElementById('confirm-context').textContent,
        page: document.getElementById('confirm-page').textContent, crop: !document.getElementById('confirm-shot').hidden, outline: !document.getElementById('confirm-outline').hidden,
        count: document.getElementById('confirm-countdown').textContent, status: document.getElementById('status').textContent,
        fields: [...document.querySelectorAll('#confirm-details dt')].map(dt => `${dt.textContent}: ${dt.nextElementSibling.textContent}`) }));
      check(/click button "Buy"/.test(conf.text) && conf.ctx === 'In: Blue mug · $12 · qty 1', `${width}px confirmation: names the action and the row (${conf.ctx})`);
      check(/Cart — shop-b/.test(conf.page) && conf.crop && conf.outline, `${width}px confirmation: shows the page and the crop with the element outlined`);
      check(conf.fields.join(' | ') === 'Element: button | Type: submit | Text: Buy', `${width}px confirmation: the target's fields as lines, none empty (${conf.fields.join(' | ')})`);
      check(/^Denied automatically in (\d+) s$/.test(conf.count) && +/\d+/.exec(conf.count)[0] <= 60 && +/\d+/.exec(conf.count)[0] >= 45, `${width}px confirmation: counts down (${conf.count})`);
      check(conf.status === 'waiting for you', `${width}px confirmation: status while asking: "${conf.status}"`);
      await axeState(page, width, 'confirmation');
      if (SHOTS && width === 400) await page.screenshot({ path: path.join(IMAGES, 'command-center-400-confirm.png') });
      await page.keyboard.press('Escape');  // in the dialog: the answer is no
      await page.waitForSelector('#confirm-dialog', { state: 'hidden' });
      check(fake.state.cancels.length === 0, `${width}px: Esc in the dialog denies, it does not cancel the run`);
      await page.keyboard.press('Escape');  // on the page: cancels the run
      await until(page, () => document.getElementById('status').textContent === 'cancelled', null, 'the status "cancelled"');
      check(fake.state.cancels.includes('r-confirm'), `${width}px: Esc on the page cancels the running run (POST /api/runs/{id}/cancel)`);
      const cancelled = await page.evaluate(() => ({ status: document.getElementById('status').textContent, cls: document.getElementById('status').className,
        errs: document.querySelectorAll('#iterations .err, .msg.partial').length, stopped: (document.querySelector('#iterations .result.stopped') || {}).textContent,
        msg: (document.querySelector('.msg.cancelled') || {}).textContent }));
      check(cancelled.status === 'cancelled' && !/failed/.test(cancelled.cls), `${width}px: the status word is "cancelled" (${cancelled.cls})`);
      check(cancelled.errs === 0 && /the run was cancelled/.test(cancelled.stopped || '') && /^Cancelled\./.test(cancelled.msg || ''),
        `${width}px: a cancelled run shows as cancelled, not as an error (${cancelled.errs} error lines; "${cancelled.stopped}"; "${cancelled.msg}")`);
      await axeState(page, width, 'cancelled');

      // A question: inline in the conversation, naming the page that asked, its choices and the
      // time left; the focus is on the question, so a stray Enter answers nothing.
      await page.click('#new-btn');
      await page.fill('#task', 'Which size should I pick?');
      await page.press('#task', 'Enter');
      await page.waitForSelector('form.question .countdown');
      await until(page, () => /Cart — shop-b/.test(document.querySelector('form.question .q-page').textContent), null, 'the page that asked');
      const q = await page.evaluate(() => ({ count: document.querySelector('form.question .countdown').textContent, choices: document.querySelectorAll('form.question .choices button').length,
                                             status: document.getElementById('status').textContent, from: document.querySelector('form.question .q-page').textContent,
                                             focus: document.activeElement.className + ' ' + document.activeElement.tagName }));
      check(/^No answer in (\d+) s$/.test(q.count) && +/\d+/.exec(q.count)[0] <= 300 && +/\d+/.exec(q.count)[0] >= 285 && q.choices === 3 && q.status === 'waiting for you', `${width}px: a question shows its choices and counts down (${q.count})`);
      check(q.from === 'Asked on “Cart — shop-b” — https://shop-b.example/cart', `${width}px: a question names the page that asked (${q.from})`);
      check(/q-text P/.test(q.focus), `${width}px: the question, not a choice, has the focus (${q.focus})`);
      await axeState(page, width, 'askUser');
      await page.keyboard.press('Enter');
      await page.click('form.question .choices button:nth-child(2)');
      const answered = await until(page, () => document.querySelector('form.question button:disabled'), null, 'the choices to be disabled');
      check(answered && fake.state.answers.length === 1 && fake.state.answers[0].answer === 'M', `${width}px: Enter on the question sent nothing; the click sent "M" (${JSON.stringify(fake.state.answers)})`);
      check(errors.length === 0, `${width}px run states: no page or console errors ${errors.join(' | ')}`);
      await ctx.close();
    }
  } finally {
    await browser.close();
    await fake.close();
  }
  console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
  process.exit(failures ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main().catch(e => { console.error(e); process.exit(1); });

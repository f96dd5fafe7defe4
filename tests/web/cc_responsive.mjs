// The Command Center at 320, 400, 500 and 1280 px against the fake ouro, in headless Chromium:
// no horizontal scroll, every panel reachable, the status words, Markdown answers, each
// iteration's code once, the confirmation's countdown and context, Esc cancelling, and axe-core.
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

async function main() {
  const fake = await startFakeOuro();
  const base = `http://127.0.0.1:${fake.port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    for (const width of [320, 400, 500, 1280]) {
      const height = width >= 1000 ? 800 : 760;
      const ctx = await browser.newContext({ viewport: { width, height }, bypassCSP: true, colorScheme: 'dark' });
      const page = await ctx.newPage();
      const errors = [];
      page.on('pageerror', e => errors.push(String(e)));
      await page.goto(`${base}/?token=${TOKEN}`);
      await page.waitForSelector('#runs li', { state: 'attached' });
      let w = await noSideScroll(page);
      check(w.sw <= w.iw, `${width}px: no horizontal scroll on load (scrollWidth ${w.sw}, innerWidth ${w.iw})`);
      check(await inViewport(page, '#settings-btn'), `${width}px: the header's last button is on screen`);
      // History: state, date, duration (a conversation's turns, not the wait between them), cost,
      // iterations, and each turn's state.
      const history = await page.evaluate(() => document.getElementById('runs').textContent);
      check(/done · \w{3} \d{1,2}, \d{4}, [\d:]+\s?[AP]M · took 30 s · \$0\.01 · 2 iterations/.test(history) && history.includes('2 turns: done · done') &&
        /failed · .* · took 10 s · cost not known · 4 iterations/.test(history), `${width}px: History rows say state, date, duration, cost and turns`);

      await page.fill('#task', 'Find the cheapest blue mug');
      await page.press('#task', 'Enter');
      await page.waitForSelector('.msg.final');
      check((await page.textContent('#status')) === 'done', `${width}px: the status word is "done"`);
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
      const code = await page.evaluate(() => (document.getElementById('iterations').textContent.match(/getText\('h1'\)/g) || []).length);
      check(code === 1, `${width}px: the iteration's code is shown once (${code})`);
      w = await noSideScroll(page);
      check(w.sw <= w.iw, `${width}px: no horizontal scroll with the answer (scrollWidth ${w.sw})`);
      if (SHOTS && [320, 400, 1280].includes(width)) await page.screenshot({ path: path.join(IMAGES, `command-center-${width}.png`) });

      if (width <= 800) {
        await page.click('#tab-activity');
        check(await inViewport(page, '#iterations details.iter'), `${width}px: the Activity tab shows the iterations`);
        if (SHOTS && width === 400) await page.screenshot({ path: path.join(IMAGES, 'command-center-400-activity.png') });
        await page.click('#tab-chat');
      } else {
        check(await inViewport(page, '#iterations details.iter'), `${width}px: the Activity column is on screen`);
      }
      for (const [btn, panel] of [['#history-btn', '#history'], ['#memory-btn', '#memory'], ['#schedules-btn', '#schedules']]) {
        await page.click(btn);
        await page.waitForTimeout(150);
        check(await inViewport(page, panel), `${width}px: ${panel} opens on screen`);
        w = await noSideScroll(page);
        check(w.sw <= w.iw, `${width}px: no horizontal scroll with ${panel} open`);
        if (SHOTS && width === 400 && panel === '#history') await page.screenshot({ path: path.join(IMAGES, 'command-center-400-history.png') });
        await page.click(`${panel} .close-panel`);
        check(!(await inViewport(page, panel)), `${width}px: ${panel} closes with its own button`);
      }
      await page.click('#settings-btn');
      await page.waitForSelector('#settings-dialog[open]');
      check(await inViewport(page, '#settings-save'), `${width}px: Settings' Save button is on screen`);
      await page.click('#settings-cancel');
      if (width === 400 || width === 1280) {
        const bad = await axeCheck(page, `${width}px`);
        check(bad.length === 0, `${width}px: no serious or critical axe-core violation (${bad.map(v => v.id).join(', ') || 'none'})`);
      }
      check(errors.length === 0, `${width}px: no page errors ${errors.join(' | ')}`);
      await ctx.close();
    }

    // A confirmation at a side panel's width: what, in which row, on which page, the crop, the
    // countdown; then Esc cancels the run.
    const ctx = await browser.newContext({ viewport: { width: 400, height: 760 }, bypassCSP: true });
    const page = await ctx.newPage();
    await page.goto(`${base}/?token=${TOKEN}`);
    await page.waitForSelector('#runs li', { state: 'attached' });
    await page.fill('#task', 'Buy the blue mug');
    await page.press('#task', 'Enter');
    await page.waitForSelector('#confirm-dialog[open]');
    await page.waitForTimeout(1100);
    const conf = await page.evaluate(() => ({ text: document.getElementById('confirm-text').textContent, ctx: document.getElementById('confirm-context').textContent,
      page: document.getElementById('confirm-page').textContent, crop: !document.getElementById('confirm-shot').hidden, outline: !document.getElementById('confirm-outline').hidden,
      count: document.getElementById('confirm-countdown').textContent, status: document.getElementById('status').textContent }));
    check(/click button "Buy"/.test(conf.text) && conf.ctx === 'In: Blue mug · $12 · qty 1', `confirmation names the action and the row (${conf.ctx})`);
    check(/Cart — shop-b/.test(conf.page) && conf.crop && conf.outline, 'confirmation shows the page and the crop with the element outlined');
    check(/^Denied automatically in (59|58|60) s$/.test(conf.count), `confirmation counts down (${conf.count})`);
    check(conf.status === 'waiting for you', `status while asking: "${conf.status}"`);
    const bad = await axeCheck(page, 'confirmation');
    check(bad.length === 0, `confirmation dialog: no serious or critical axe-core violation (${bad.map(v => v.id).join(', ') || 'none'})`);
    if (SHOTS) await page.screenshot({ path: path.join(IMAGES, 'command-center-400-confirm.png') });
    await page.keyboard.press('Escape');  // in the dialog: the answer is no
    await page.waitForSelector('#confirm-dialog', { state: 'hidden' });
    check(fake.state.cancels.length === 0, 'Esc in the dialog denies, it does not cancel the run');
    await page.keyboard.press('Escape');  // on the page: cancels the run
    await page.waitForFunction(() => document.getElementById('status').textContent === 'cancelled', null, { timeout: 5000 }).catch(() => {});
    check(fake.state.cancels.includes('r-confirm'), 'Esc on the page cancels the running run (POST /api/runs/{id}/cancel)');
    check((await page.textContent('#status')) === 'cancelled', 'the status word is "cancelled"');
    // A question: inline in the conversation, with its choices and the time left.
    await page.click('#new-btn');
    await page.fill('#task', 'Which size should I pick?');
    await page.press('#task', 'Enter');
    await page.waitForSelector('form.question .countdown');
    const q = await page.evaluate(() => ({ count: document.querySelector('form.question .countdown').textContent, choices: document.querySelectorAll('form.question .choices button').length,
                                           status: document.getElementById('status').textContent }));
    check(/^No answer in (299|300) s$/.test(q.count) && q.choices === 3 && q.status === 'waiting for you', `a question shows its choices and counts down (${q.count})`);
    await ctx.close();
  } finally {
    await browser.close();
    await fake.close();
  }
  console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
  process.exit(failures ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main().catch(e => { console.error(e); process.exit(1); });

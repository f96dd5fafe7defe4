// ouro eval's reports as a person opens them, in headless Chromium: two real `ouro eval` runs
// (scripted models on a few tasks of the shipped suite), their result.json and report.html; the
// report file at 400 and 1280 px (no horizontal scroll of the page, no console error, no serious
// or critical axe-core violation); then `ouro serve` on the same data directory, its Command
// Center's History listing both, the report opened from there in a tab of its own with its style
// applied under the page's Content-Security-Policy, and the comparison of the two.
// Usage: node eval_report.mjs /path/to/ouro. Exit status 1 on any failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { axeCheck } from './cc_responsive.mjs';

const OURO = process.argv[2];
const CHROMIUM = process.env.CHROMIUM || '/usr/lib/chromium/chromium';
let failures = 0;
const check = (ok, what) => { console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); if (!ok) failures++; };

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ouro-eval-web-'));
const env = { ...process.env, OURO_DATA_DIR: data, OURO_CONFIG: path.join(data, 'none.json') };
for (const k of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OURO_API_KEY', 'OURO_PROVIDER']) delete env[k];

function evalRun(name, provider) {
  const out = path.join(data, 'eval', name);
  const r = spawnSync(OURO, ['eval', '--provider', provider, '--only', 'bank-pay-rent*', '--only', 'webmail-unread-count', '--out', out],
                      { env, encoding: 'utf8', timeout: 240000 });
  check(r.status === 0, `ouro eval --provider ${provider} exits 0 (${r.status}; ${(r.stderr || '').split('\n').slice(-3).join(' | ')})`);
  return JSON.parse(fs.readFileSync(path.join(out, 'result.json'), 'utf8'));
}

async function pageChecks(page, label, errors) {
  for (const width of [400, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    check(wide <= 1, `${label} at ${width} px: no horizontal scroll of the page (${wide} px over)`);
    const bad = await axeCheck(page, `${label} ${width}px`);
    check(bad.length === 0, `${label} at ${width} px: no serious or critical axe-core violation (${bad.map(v => v.id).join(', ') || 'none'})`);
  }
  check(errors.length === 0, `${label}: no console error (${errors.join(' | ') || 'none'})`);
}

async function main() {
  const useless = evalRun('a-useless', 'script:@useless');
  const perfect = evalRun('b-perfect', 'script:@perfect');
  check(useless.summary.succeeded === 0 && useless.summary.runs === 3, `the useless model succeeds at none (${useless.summary.succeeded}/${useless.summary.runs})`);
  check(perfect.summary.succeeded === 3, `the perfect model succeeds at all (${perfect.summary.succeeded}/${perfect.summary.runs})`);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    // The report file, as written.
    const page = await browser.newPage();
    const errors = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', e => errors.push(e.message));
    await page.goto('file://' + path.join(data, 'eval', 'b-perfect', 'report.html'));
    check(await page.locator('h1').innerText().then(t => t.includes('ouro eval')), 'the report has its heading');
    check(await page.locator('tbody tr').count() === 3, 'the report has a row per task run');
    await page.locator('details summary', { hasText: 'trace' }).first().click();
    check(await page.locator('details[open] pre').first().isVisible(), 'a run\'s trace opens in one click');
    await pageChecks(page, 'report.html', errors);

    // ouro serve on the same data directory: History lists the results and opens them.
    const serve = spawn(OURO, ['serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('ouro serve printed no address: ' + out)), 30000);
      serve.stdout.on('data', d => {
        out += d;
        const m = out.match(/Ouroboros Command Center: (\S+)/);
        if (m) { clearTimeout(timer); resolve(m[1]); }
      });
    });
    try {
      const cc = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const ccErrors = [];
      cc.on('console', m => { if (m.type() === 'error') ccErrors.push(m.text()); });
      await cc.goto(url);
      // With no model set up (a fresh data directory, no key), the Command Center opens Settings
      // first: closed, as a person would.
      await cc.locator('#settings-dialog[open]').waitFor({ timeout: 15000 });
      await cc.keyboard.press('Escape');
      await cc.click('#history-btn');
      const list = cc.locator('#evals-list li button');
      await list.first().waitFor({ timeout: 15000 });
      check(await list.count() === 2, `History lists both results (${await list.count()})`);
      check((await list.first().innerText()).includes('b-perfect'), 'the newest result comes first');
      const [report] = await Promise.all([cc.context().waitForEvent('page'), list.first().click()]);
      const reportErrors = [];
      report.on('console', m => { if (m.type() === 'error') reportErrors.push(m.text()); });
      await report.waitForLoadState();
      check(await report.locator('h1').innerText().then(t => t.includes('ouro eval')), 'the report opens in a tab of its own');
      // Its style applies: the page's CSP lets its one style block in by hash.
      const border = await report.locator('.card').first().evaluate(e => getComputedStyle(e).borderTopStyle);
      check(border === 'solid', `the report's style applies in the opened tab (${border})`);
      await pageChecks(report, 'report from the Command Center', reportErrors);
      await report.close();
      const [cmp] = await Promise.all([cc.context().waitForEvent('page'), cc.click('#eval-compare button[type=submit]')]);
      const cmpErrors = [];
      cmp.on('console', m => { if (m.type() === 'error') cmpErrors.push(m.text()); });
      await cmp.waitForLoadState();
      const text = await cmp.locator('main').innerText();
      check(/better/.test(text) && text.includes('a-useless') && text.includes('b-perfect'), 'the comparison names both and what got better');
      await pageChecks(cmp, 'comparison', cmpErrors);
      check(ccErrors.length === 0, `the Command Center: no console error (${ccErrors.join(' | ') || 'none'})`);
    } finally {
      serve.kill('SIGINT');
    }
  } finally {
    await browser.close();
    fs.rmSync(data, { recursive: true, force: true });
  }
  process.exit(failures ? 1 : 0);
}

main().catch(e => { console.error(e); process.exit(1); });

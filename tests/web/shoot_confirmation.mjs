// The confirmation screenshot of the docs, from a real run: `ouro serve` with a scripted model, a
// shop page of the script's own on loopback, the Command Center at a side panel's width (400 px)
// in Playwright, the task typed as a person would. The run clicks the second row's "Buy"; the
// dialog names the row, the page, and shows the crop with the button outlined.
//
//   node tests/web/shoot_confirmation.mjs [BUILD_DIR]   -> docs/images/command-center-confirmation.png
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const here = dirname(fileURLToPath(import.meta.url));
const build = resolve(process.argv[2] || join(here, '../../build/release'));
const out = join(here, '../../docs/images/command-center-confirmation.png');
const dir = mkdtempSync(join(tmpdir(), 'ouro-shot-'));

const SHOP = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mugs — Example Shop</title>
<style>body{font:15px system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;width:100%}
td,th{padding:10px 12px;border-bottom:1px solid #ddd;text-align:left}button{padding:6px 14px;border-radius:6px;border:1px solid #2a6;background:#3b7;color:#fff;font-weight:600}</style></head>
<body><h1>Mugs</h1><table><thead><tr><th>Mug</th><th>Colour</th><th>Price</th><th></th></tr></thead><tbody>
<tr><td>Classic</td><td>White</td><td>$9.00</td><td><button id="buy-1">Buy</button></td></tr>
<tr><td>Harbour</td><td>Blue</td><td>$12.00</td><td><button id="buy-2">Buy</button></td></tr>
<tr><td>Ember</td><td>Red</td><td>$14.50</td><td><button id="buy-3">Buy</button></td></tr>
</tbody></table><p id="result"></p><script>for (const b of document.querySelectorAll('button')) b.onclick = () => { result.textContent = 'Bought'; };</script></body></html>`;
const shop = createServer((_, res) => { res.setHeader('Content-Type', 'text/html; charset=utf-8'); res.end(SHOP); }).listen(0, '127.0.0.1');
await new Promise(r => shop.on('listening', r));
const shopUrl = `http://127.0.0.1:${shop.address().port}/mugs`;

const cell = code => JSON.stringify({ text: 'Buying the blue one.\n```repl\n' + code + '\n```' });
const script = join(dir, 'script.jsonl');
writeFileSync(script, [cell(`await navigate(activeTab, ${JSON.stringify(shopUrl)});\nawait click(activeTab, '#buy-2');`),
                       cell("setFinal('done')")].join('\n') + '\n');

const env = { ...process.env, OURO_DATA_DIR: join(dir, 'data'), OURO_CONFIG: '/nonexistent' };
for (const k of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OURO_API_KEY']) delete env[k];
env.OURO_PROVIDER = 'script:' + script;  // the model every run of this server uses
const serve = spawn(join(build, 'ouro'), ['serve', '--port', '0', '--no-open'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((ok, fail) => {
  setTimeout(() => fail(new Error('ouro serve did not start in 60 s')), 60000).unref();
  createInterface({ input: serve.stdout }).on('line', line => { const m = line.match(/^Ouroboros Command Center: (\S+)/); if (m) ok(m[1]); });
  serve.on('exit', code => fail(new Error(`ouro serve exited (${code})`)));
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true });
try {
  const page = await (await browser.newContext({ viewport: { width: 400, height: 900 } })).newPage();
  await page.goto(url);
  await page.fill('#task', `Buy the blue mug on ${shopUrl}`);
  await page.press('#task', 'Enter');
  await page.waitForSelector('#confirm-dialog[open]', { timeout: 60000 });
  await page.waitForFunction(() => document.getElementById('confirm-crop').complete);
  await page.waitForTimeout(1200);  // the countdown has ticked
  await page.screenshot({ path: out });
  console.log(`wrote ${out}: ${await page.evaluate(() => document.getElementById('confirm-context').textContent)}`);
} finally {
  await browser.close();
  serve.kill('SIGINT');
  shop.close();
  rmSync(dir, { recursive: true, force: true });
}

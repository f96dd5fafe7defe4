// The same operations as bench/ouro_bench.cpp, through Playwright driving the same Chromium.
// Usage: node playwright.mjs BASE_URL REPEATS [MANY_URL [REAL_ORIGIN REAL_PATHS]]  -> prints {"op": [ms, …], …} on stdout.
// REAL_ORIGIN REAL_PATHS: the saved real pages (bench/real_pages.mjs), read whole with innerText.
// MANY_URL (a page of 100 subresources from another origin) is loaded plain and under
// page.route('**') (Playwright's request interception, the peer of ouro's egress gate).
import { chromium } from 'playwright-core';

const [base, repeatsArg, many, realOrigin, realPaths] = process.argv.slice(2);
const N = Number(repeatsArg || 30);
const launchOptions = {
  executablePath: process.env.OURO_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--no-first-run', '--disable-sync', '--window-size=1280,800',
         // The same stand-in for the rest of the web as ouro's browser (ouro_bench.cpp).
         ...(process.env.OURO_BENCH_RESOLVER ? ['--host-resolver-rules=' + process.env.OURO_BENCH_RESOLVER] : [])],
};
const out = {};
const time = async (op, fn, n = N) => {
  out[op] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fn(i);
    // A step may time itself (to leave out its set-up) by returning { ms }.
    out[op].push(r && typeof r === 'object' && 'ms' in r ? r.ms : performance.now() - t0);
  }
};

await time('launch_first_load', async () => {
  const b = await chromium.launch(launchOptions);
  const p = await b.newPage({ viewport: { width: 1280, height: 800 } });
  await p.goto(base + '/', { waitUntil: 'load' });
  await b.close();
}, 5);

const browser = await chromium.launch(launchOptions);
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto(base + '/', { waitUntil: 'load' });
await time('navigate_load', (i) => page.goto(base + (i % 2 ? '/' : '/b'), { waitUntil: 'load' }));
await page.goto(base + '/', { waitUntil: 'load' });
await time('exec_round_trip', () => page.evaluate(() => document.title), N * 5);
await time('click', () => page.click('#go'), N * 2);
await page.goto(base + '/form', { waitUntil: 'load' });
const text = 'The quick brown fox jumps over the lazy dog. '.repeat(3).slice(0, 100);
await time('type_100', async () => {
  await page.locator('#notes').fill('');
  const t0 = performance.now();
  await page.locator('#notes').pressSequentially(text);
  return { ms: performance.now() - t0 };
}, 10);
await page.goto(base + '/big?kb=1024', { waitUntil: 'load' });
await time('get_text_1mb', () => page.innerText('body'));
await time('text_length_1mb', () => page.evaluate(() => document.body.innerText.length));
await page.goto(base + '/', { waitUntil: 'load' });
await time('screenshot', () => page.screenshot());
// getText of whole real pages: innerText of the body.
for (const path of (realPaths || '').split(',').filter(Boolean)) {
  await page.goto(realOrigin + path, { waitUntil: 'load' });
  await page.innerText('body');
  await time('real_text:' + path.replace(/^\//, '').replace(/\.html$/, ''), () => page.innerText('body'));
}
if (many) {
  for (const routed of [false, true]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await context.newPage();
    if (routed) await p.route('**', (route) => route.continue());
    await time(routed ? 'many_routed' : 'many_plain', async (i) => {
      await p.goto(many + '&pw=' + i, { waitUntil: 'load' });
      if ((await p.evaluate(() => document.images.length)) !== 100) throw new Error('images missing');
    });
    await context.close();
  }
}
await browser.close();
console.log(JSON.stringify(out));

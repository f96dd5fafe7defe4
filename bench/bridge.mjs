// The extension bridge's cost: the same REPL calls in a tab of the user's Chrome, reached through
// ouro's extension (chrome.debugger, one WebSocket to `ouro serve`), and in ouro's own Chromium
// over its DevTools pipe — one `ouro serve`, one saved real page, the same scripted runs.
//
//   node bench/bridge.mjs BUILD_DIR [--calls N] [--loads N]
//
// The person's Chrome is a headless Chromium with the folder `ouro extension` writes loaded
// (--load-extension), paired as a person does it: the side panel's page, the port, the code
// ouro serve shows. Playwright drives that Chromium only to type into the side panel.
// docs/design/extension-bridge.md describes the bridge; bench/README.md keeps the figures.
import { chromium } from 'playwright-core';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const build = resolve(args[0] && !args[0].startsWith('--') ? args[0] : 'build/release');
const option = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : fallback; };
const CALLS = option('--calls', 200), LOADS = option('--loads', 10);
const ouro = join(build, 'ouro');
const dir = mkdtempSync(join(tmpdir(), 'ouro-bridge-bench-'));
const children = [];
const cleanup = () => { for (const c of children) { try { c.kill('SIGINT'); } catch (_) { /* gone */ } } rmSync(dir, { recursive: true, force: true }); };
process.on('exit', cleanup);

// A line on a child's stdout that matches re, within ms.
function firstLine(child, re, ms, what) {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${what} did not start in ${ms} ms`)), ms);
    createInterface({ input: child.stdout }).on('line', line => {
      const m = line.match(re);
      if (m) { clearTimeout(timer); ok(m); }
    });
    child.on('exit', code => fail(new Error(`${what} exited (${code})`)));
  });
}

// The saved Wikipedia article of the real-page set, on loopback.
const pages = spawn(process.execPath, [join(here, 'real_pages.mjs'), '--serve', '--only', 'wikipedia'], { stdio: ['ignore', 'pipe', 'inherit'] });
children.push(pages);
const pageBase = JSON.parse((await firstLine(pages, /^\{.*\}$/, 15000, 'the real-page server'))[0]).base;
const page = new URL('wikipedia.html', pageBase).href;

// ouro serve on a port of its own, with its data in the temporary folder.
const env = { ...process.env, OURO_DATA_DIR: join(dir, 'data'), OURO_CONFIG: '/nonexistent' };
for (const k of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OURO_API_KEY', 'OURO_PROVIDER']) delete env[k];
const serve = spawn(ouro, ['serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
children.push(serve);
serve.stderr.resume();
const center = (await firstLine(serve, /^Ouroboros Command Center: (http:\/\/[^/]+)\/\?token=(\S+)/, 60000, 'ouro serve'));
const base = center[1], token = center[2];
const api = async (method, path, body) => {
  const r = await fetch(base + path, { method, headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json' },
                                       body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: await r.json().catch(() => null) };
};

// The person's Chrome with the extension, paired through its side panel.
const extension = join(dir, 'extension');
execFileSync(ouro, ['extension', '--out', extension], { env, stdio: 'ignore' });
const person = await chromium.launchPersistentContext(join(dir, 'profile'), {
  executablePath: '/usr/bin/chromium', headless: true,
  ignoreDefaultArgs: ['--disable-extensions'],
  args: [`--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
});
let [worker] = person.serviceWorkers();
if (!worker) worker = await person.waitForEvent('serviceworker', { timeout: 15000 });
const extensionId = new URL(worker.url()).host;
const panel = await person.newPage();
await panel.goto(`chrome-extension://${extensionId}/sidepanel.html`);
await panel.waitForFunction(() => document.getElementById('ext-conn').textContent !== 'Looking for ouro…');
await panel.fill('#ext-port', new URL(base).port);
await panel.locator('#ext-port-form').evaluate(f => f.requestSubmit());
await panel.waitForSelector('#ext-pair:not([hidden])', { timeout: 30000 });
const code = await api('GET', '/api/pair/code');
await panel.fill('#ext-code', code.body.code);
await panel.locator('#ext-pair').evaluate(f => f.requestSubmit());
for (let i = 0; ; i++) {
  const list = await api('GET', '/api/pairings');
  if (list.status === 200 && list.body.length === 1 && list.body[0].connected) break;
  if (i > 300) throw new Error('the extension did not pair: ' + JSON.stringify(list.body));
  await new Promise(r => setTimeout(r, 100));
}

// One scripted run: each step a REPL cell the script provider hands over as the model's reply.
const cell = code => JSON.stringify({ text: 'Measuring.\n```repl\n' + code + '\n```' });
const script = join(dir, 'script.jsonl');
writeFileSync(script, [
  cell(`await execInTab(activeTab, 'return 1'); const t0 = performance.now();
for (let i = 0; i < ${CALLS}; i++) await execInTab(activeTab, 'return 1');
env.exec = (performance.now() - t0) / ${CALLS};`),
  cell(`await getText(activeTab, 'h1'); const t0 = performance.now();
for (let i = 0; i < ${CALLS}; i++) await getText(activeTab, 'h1');
env.text = (performance.now() - t0) / ${CALLS};`),
  cell(`const t0 = performance.now();
for (let i = 0; i < ${LOADS}; i++) await navigate(activeTab, ${JSON.stringify(page)});
env.load = (performance.now() - t0) / ${LOADS};`),
  cell('setFinal({exec: env.exec, text: env.text, load: env.load})'),
].join('\n') + '\n');

async function measure(options) {
  const created = await api('POST', '/api/runs', { task: 'Time the DevTools round trips', urls: [page], options: { provider: 'script:' + script, ...options } });
  if (created.status !== 201) throw new Error('cannot start the run: ' + JSON.stringify(created.body));
  for (const until = Date.now() + 300000; ;) {
    if (Date.now() > until) throw new Error(`run ${created.body.id} did not end in 5 minutes`);
    const run = (await api('GET', '/api/runs/' + created.body.id)).body;
    if (['done', 'failed', 'partial', 'cancelled'].includes(run.state)) {
      if (run.state !== 'done') throw new Error(`the run ended ${run.state}: ${JSON.stringify(run.error || run.final)}`);
      return run.final;
    }
    await new Promise(r => setTimeout(r, 200));
  }
}

const direct = await measure({});
const bridged = await measure({ browser: 'extension' });
const row = (name, a, b) => `${name.padEnd(40)}${b.toFixed(2).padStart(10)}${a.toFixed(2).padStart(14)}${(b / a).toFixed(2).padStart(9)}`;
console.log(`${''.padEnd(40)}${'bridge ms'.padStart(10)}${'own pipe ms'.padStart(14)}${'ratio'.padStart(9)}`);
console.log(row(`execInTab('return 1') (x${CALLS})`, direct.exec, bridged.exec));
console.log(row(`getText(h1), wikipedia.html (x${CALLS})`, direct.text, bridged.text));
console.log(row(`navigate, wikipedia.html (x${LOADS})`, direct.load, bridged.load));
await person.close();
process.exit(0);

// Playwright MCP's page snapshot, measured through a real MCP client (the peer of ouro's snapshot).
//
// Starts @playwright/mcp (bench/node_modules, pinned in bench/package.json) over stdio with the
// official MCP TypeScript SDK client, on the same Chromium as ouro (/usr/bin/chromium, headless), and
// for each URL calls browser_navigate then browser_snapshot, printing one JSON line per URL:
//   {"url", "snapshot_chars", "navigate_ms", "snapshot_ms", "snapshot_yaml_chars", "navigate_chars"}
// snapshot_chars counts every text part of browser_snapshot's result: what the model is handed.
// snapshot_yaml_chars is the ```yaml block alone; navigate_chars is browser_navigate's own result
// (which may itself carry a snapshot, depending on the server's version and --snapshot-mode).
//
//   node mcp_snapshot.mjs [options] URL...
//   node mcp_snapshot.mjs [options] --real-pages [--only a,b]   # serves real_pages.mjs itself
// Options:
//   --chromium PATH    browser binary (default $OURO_CHROMIUM or /usr/bin/chromium)
//   --timeout MS       per MCP call (default 60000); the server's navigation timeout is set to match
//   --viewport WxH     default 1280x800, ouro's
//   --real-dns         leave name resolution to the network. By default external hosts are mapped to
//                      "not found" in Chromium (--host-resolver-rules), which is what happens offline
//                      anyway, but at once: this machine's resolver takes up to 5 s to fail some names,
//                      and a saved page referencing many such hosts then takes 5-30 s to load.
//   --save DIR         also write each snapshot's text to DIR/NNN.txt
//   --repeats N        take the snapshot N times per URL; snapshot_ms is then the median
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const die = (msg) => { process.stderr.write(`mcp_snapshot.mjs: ${msg}\n`); process.exit(2); };

const argv = process.argv.slice(2);
const flags = new Set(['--real-pages', '--real-dns']);
const valued = new Set(['--chromium', '--timeout', '--viewport', '--save', '--only', '--repeats']);
const opts = {}; const urls = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (flags.has(a)) opts[a] = true;
  else if (valued.has(a)) { if (i + 1 >= argv.length) die(`${a} needs a value`); opts[a] = argv[++i]; }
  else if (a.startsWith('--')) die(`unknown option ${a}`);
  else urls.push(a);
}
const chromium = opts['--chromium'] || process.env.OURO_CHROMIUM || '/usr/bin/chromium';
const timeout = Number(opts['--timeout'] || 60000);
const viewport = opts['--viewport'] || '1280x800';
const repeats = Math.max(1, Number(opts['--repeats'] || 1));
if (!existsSync(chromium)) die(`no browser at ${chromium}`);

const cli = join(here, 'node_modules', '@playwright', 'mcp', 'cli.js');
const sdk = join(here, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json');
if (!existsSync(cli) || !existsSync(sdk))
  die(`@playwright/mcp and @modelcontextprotocol/sdk must be installed in ${join(here, 'node_modules')}; ` +
      `run: (cd ${here} && npm install --no-audit --no-fund)`);
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');

// The saved real-world pages, served by real_pages.mjs, when asked for.
let pageServer;
const names = new Map();
if (opts['--real-pages']) {
  const extra = opts['--only'] ? ['--only', opts['--only']] : [];
  const list = await new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(here, 'real_pages.mjs'), '--list', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    let s = ''; p.stdout.on('data', (d) => { s += d; });
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(s)) : reject(new Error(`real_pages.mjs --list exited ${code}`))));
  }).catch((e) => die(e.message));
  pageServer = spawn(process.execPath, [join(here, 'real_pages.mjs'), '--serve', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await Promise.race([
    new Promise((r) => createInterface({ input: pageServer.stdout }).once('line', r)),
    new Promise((r) => setTimeout(() => r(null), 15000)),
  ]);
  if (!first) die('real_pages.mjs --serve printed no base URL');
  const { base } = JSON.parse(first);
  for (const p of list) { const u = new URL(p.path, base).href; urls.push(u); names.set(u, p.name); }
}
if (!urls.length) die('usage: node mcp_snapshot.mjs [--chromium PATH] [--timeout MS] [--real-dns] [--save DIR] (URL... | --real-pages [--only a,b])');

// Chromium arguments go through a config file: the CLI has no flag for them.
const work = mkdtempSync(join(tmpdir(), 'mcp-snapshot-'));
const args = ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
if (!opts['--real-dns']) args.push('--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost');
const config = join(work, 'config.json');
writeFileSync(config, JSON.stringify({ browser: { launchOptions: { args } } }));
const serverArgs = [cli, '--config', config, '--browser', 'chromium', '--executable-path', chromium, '--headless',
  '--no-sandbox', '--isolated', '--viewport-size', viewport, '--output-dir', join(work, 'out'),
  '--timeout-navigation', String(timeout), '--image-responses', 'omit'];

const transport = new StdioClientTransport({ command: process.execPath, args: serverArgs, cwd: work, stderr: 'pipe' });
let serverErr = '';
transport.stderr?.on('data', (d) => { serverErr = (serverErr + d).slice(-4000); });
const client = new Client({ name: 'ouro-bench', version: '1.0.0' });
const cleanup = async () => {
  await client.close().catch(() => {});
  pageServer?.kill();
  rmSync(work, { recursive: true, force: true });
};
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, async () => { await cleanup(); process.exit(130); });

try {
  await client.connect(transport, { timeout: 30000 });
} catch (e) {
  await cleanup();
  die(`could not start @playwright/mcp: ${e.message}\n${serverErr}`);
}
const tools = (await client.listTools({}, { timeout: 30000 })).tools.map((t) => t.name);
for (const t of ['browser_navigate', 'browser_snapshot'])
  if (!tools.includes(t)) { await cleanup(); die(`@playwright/mcp offers no ${t} (tools: ${tools.join(', ')})`); }

const call = async (name, args) => {
  const t0 = performance.now();
  const r = await client.callTool({ name, arguments: args }, undefined, { timeout, resetTimeoutOnProgress: false });
  const ms = performance.now() - t0;
  const text = (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  if (r.isError) throw new Error(`${name}: ${text.slice(0, 500)}`);
  return { ms, text };
};
const yamlOf = (text) => (text.match(/```yaml\n([\s\S]*?)\n```/) || [, ''])[1];
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const r2 = (x) => Math.round(x * 100) / 100;

let failures = 0;
if (opts['--save']) mkdirSync(opts['--save'], { recursive: true });
for (const [i, url] of urls.entries()) {
  const out = { url };
  if (names.has(url)) out.name = names.get(url);
  try {
    const nav = await call('browser_navigate', { url });
    const snaps = [];
    for (let k = 0; k < repeats; k++) snaps.push(await call('browser_snapshot', {}));
    const last = snaps[snaps.length - 1];
    Object.assign(out, {
      snapshot_chars: last.text.length, navigate_ms: r2(nav.ms), snapshot_ms: r2(median(snaps.map((s) => s.ms))),
      snapshot_yaml_chars: yamlOf(last.text).length, navigate_chars: nav.text.length,
    });
    if (opts['--save']) writeFileSync(join(opts['--save'], `${String(i).padStart(3, '0')}.txt`), last.text);
  } catch (e) {
    failures++;
    out.error = e.message;
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
await cleanup();
process.exit(failures ? 1 : 0);

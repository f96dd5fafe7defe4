// `ouro mcp` and ouro serve's /mcp driven by the MCP Inspector's CLI (@modelcontextprotocol/inspector,
// `mcp-inspector --cli`, installed in tests/mcp/node by scripts/setup.sh): another client nobody
// here wrote. It lists the tools and calls each over stdio and over Streamable HTTP with the
// Bearer token. The Inspector CLI offers no sampling, so browser_task (no key configured) must
// answer the tool error that says how to get a model. Exits non-zero on any mismatch (77 when
// the Inspector is not installed: skipped).
//
//   node tests/mcp/inspector.mjs build/release/ouro
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, existsSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';

const here = dirname(fileURLToPath(import.meta.url));
const ouro = resolve(process.argv[2] || join(here, '../../build/release/ouro'));
const launcher = join(here, 'node', 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
if (!existsSync(launcher)) {
  console.error(`skipped: the MCP Inspector is not installed in ${join(here, 'node')} (scripts/setup.sh installs it when npm is there)`);
  process.exit(77);
}

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.error(`ok   ${what}`);
  else {
    failures++;
    console.error(`FAIL ${what}${detail === undefined ? '' : ': ' + (typeof detail === 'string' ? detail : JSON.stringify(detail)).slice(0, 2000)}`);
  }
}

const site = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>Inspector fixture</title><h1>Hello Inspector</h1><button onclick="this.textContent=\'Pressed\'">Press</button>');
});
await new Promise((ok) => site.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${site.address().port}/`;
const home = mkdtempSync(join(tmpdir(), 'ouro-inspector-'));
const env = { ...process.env, HOME: home, OURO_DATA_DIR: join(home, 'data'), OURO_CONFIG: '/nonexistent' };
for (const k of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OURO_API_KEY', 'OURO_PROVIDER']) delete env[k];

// One Inspector CLI invocation: its JSON output (or {error}) and exit code.
function inspector(args) {
  return new Promise((ok) => {
    execFile(process.execPath, [launcher, '--cli', ...args], { env, timeout: 120_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      let out;
      try {
        out = JSON.parse(stdout);
      } catch {
        out = { unparsed: stdout.slice(0, 500), stderr: stderr.slice(-500) };
      }
      ok({ code: err ? err.code ?? 1 : 0, out });
    });
  });
}
const text = (r) => (r.out?.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function everyTool(via, target) {
  let r = await inspector([...target, '--method', 'tools/list']);
  const names = (r.out.tools || []).map((t) => t.name).sort();
  check(r.code === 0 && names.join() === 'browser_act,browser_call_page_tool,browser_exec,browser_page_tools,browser_screenshot,browser_snapshot,browser_tabs,browser_task', `${via}: tools/list lists the eight tools`, r);
  const open = via === 'stdio' ? '' : `await openTab(${JSON.stringify(url)}); `;
  r = await inspector([...target, '--method', 'tools/call', '--tool-name', 'browser_exec', '--tool-arg', `code=${open}await getText(activeTab, "h1")`]);
  check(r.code === 0 && /Hello Inspector/.test(text(r)), `${via}: browser_exec`, r);
}

async function stdio() {
  const target = [ouro, 'mcp', '--url', url];
  await everyTool('stdio', target);
  // Each Inspector invocation is a new server (and over HTTP a new session with an empty browser
  // context), so the tools that need a page are called over stdio, where --url opens it.
  let r = await inspector([...target, '--method', 'tools/call', '--tool-name', 'browser_snapshot']);
  check(r.code === 0 && /Press/.test(text(r)), 'stdio: browser_snapshot', r);
  r = await inspector([...target, '--method', 'tools/call', '--tool-name', 'browser_act', '--tool-arg', 'commands=click the Press button']);
  check(r.code === 0 && /^Done: 1 step/.test(text(r)) && text(r).includes(`Page now: "Inspector fixture" ${url}`), 'stdio: browser_act', r);
  r = await inspector([...target, '--method', 'tools/call', '--tool-name', 'browser_tabs']);
  check(r.code === 0 && text(r).includes(url), 'stdio: browser_tabs', r);
  r = await inspector([...target, '--method', 'tools/call', '--tool-name', 'browser_screenshot']);
  const img = (r.out.content || []).find((c) => c.type === 'image');
  check(r.code === 0 && img && img.mimeType === 'image/png' && img.data.length > 100, 'stdio: browser_screenshot is image content', { code: r.code, mime: img?.mimeType });
  r = await inspector([...target, '--method', 'tools/call', '--tool-name', 'browser_task', '--tool-arg', 'task=read the heading']);
  check(r.out.isError === true && /API key/.test(text(r)) && /sampling/.test(text(r)), 'stdio: browser_task without a key or sampling says how to get a model', r);
}

async function overHttp() {
  const child = spawn(ouro, ['serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  let m;
  for (const end = Date.now() + 60_000; !(m = /Command Center: (http:\/\/[^/]+)\/\?token=(\w+)/.exec(out)) && Date.now() < end;) await new Promise((ok) => setTimeout(ok, 100));
  try {
    check(!!m, 'http: ouro serve started', out);
    if (!m) return;
    const target = [`${m[1]}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${m[2]}`];
    await everyTool('http', target);
    const r = await inspector([`${m[1]}/mcp`, '--transport', 'http', '--header', 'Authorization: Bearer wrong', '--method', 'tools/list']);
    check(r.code !== 0, 'http: a wrong token is refused', r);
  } finally {
    try {
      process.kill(-child.pid, 'SIGINT');
    } catch {}
    await new Promise((ok) => {
      const t = setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
        ok();
      }, 15_000);
      child.on('exit', () => {
        clearTimeout(t);
        ok();
      });
    });
  }
}

// The guide's Inspector lines name the version tested here: npx on Node 20 otherwise resolves the
// newest Inspector whose "engines" allow Node 20 (0.15.0), which has no --header for the token.
function guidePinsThisVersion() {
  const guide = readFileSync(join(here, '../../docs/guides/mcp-clients.md'), 'utf8');
  const installed = JSON.parse(readFileSync(join(here, 'node/node_modules/@modelcontextprotocol/inspector/package.json'), 'utf8')).version;
  const lines = guide.split("\n").filter((l) => /^npx\s+(-y\s+)?@modelcontextprotocol\/inspector/.test(l));
  check(lines.length >= 1 && lines.every((l) => l.includes(`@modelcontextprotocol/inspector@${installed} `)),
    `docs/guides/mcp-clients.md's Inspector lines pin ${installed}, the version tested`, lines);
}

try {
  guidePinsThisVersion();
  await stdio();
  await overHttp();
} catch (e) {
  failures++;
  console.error('FAIL', e?.stack || e);
} finally {
  site.close();
  rmSync(home, { recursive: true, force: true });
}
console.error(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);

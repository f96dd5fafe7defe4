// End-to-end test of `ouro mcp` with a client nobody here wrote: the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk, installed in tests/mcp/node by scripts/setup.sh). It serves a small
// page itself, starts `ouro mcp --url <page>` over StdioClientTransport, lists the tools, calls
// each of them and checks what comes back — browser_task with no key, driven by the client's own
// (scripted) model through MCP sampling; then it speaks raw JSON-RPC to a second server with
// hostile lines; then it does the same over Streamable HTTP against a real `ouro serve` (/mcp,
// StreamableHTTPClientTransport with the Bearer token), and sends that endpoint hostile requests.
// Exits non-zero on any mismatch (77 when the SDK is not installed: skipped).
//
//   node tests/mcp/client.mjs build/release/ouro
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';

const here = dirname(fileURLToPath(import.meta.url));
const ouro = resolve(process.argv[2] || join(here, '../../build/release/ouro'));
const sdkHome = join(here, 'node', 'package.json');
let Client, StdioClientTransport, StreamableHTTPClientTransport, CreateMessageRequestSchema;
try {
  const require = createRequire(sdkHome);
  ({ Client } = require('@modelcontextprotocol/sdk/client/index.js'));
  ({ StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js'));
  ({ StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js'));
  ({ CreateMessageRequestSchema } = require('@modelcontextprotocol/sdk/types.js'));
} catch (e) {
  console.error(`skipped: the MCP SDK is not installed in ${dirname(sdkHome)} (scripts/setup.sh installs it when npm is there): ${e.message}`);
  process.exit(77);
}

let failures = 0;
const check = (cond, what, detail) => checkAs(cond, what, detail);
function checkAs(cond, what, detail) {
  if (cond) {
    console.error(`ok   ${what}`);
  } else {
    failures++;
    console.error(`FAIL ${what}${detail === undefined ? '' : ': ' + (typeof detail === 'string' ? detail : JSON.stringify(detail)).slice(0, 2000)}`);
  }
}
const textOf = (r) => (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// The fixture page: a field, a button that greets, a list long enough to need a preview.
const page = `<!doctype html><html><head><title>MCP fixture</title></head><body>
<main><h1>Hello MCP</h1>
<label for="name">Name</label> <input id="name" name="name">
<button id="go" onclick="document.getElementById('out').textContent = 'Hi ' + document.getElementById('name').value">Greet</button>
<p id="out"></p>
<a href="/slow">Slow page</a>
<ul>${Array.from({ length: 300 }, (_, i) => `<li>Item ${i + 1}</li>`).join('')}</ul></main>
<script>document.modelContext?.registerTool({ name: 'lookup_item', description: 'Finds an item by number.', annotations: { readOnlyHint: true },
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, execute: async ({ n }) => 'Item ' + n + ' is in stock' });</script></body></html>`;
// /slow answers 1.5 s late: a click on its link has navigated only once that answer is in, so a
// browser_act that did not wait for it would name the page it left.
const site = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  if (req.url === '/slow') setTimeout(() => res.end('<!doctype html><title>Slow page</title><h1>Arrived</h1>'), 1500);
  else res.end(page);
});
await new Promise((ok) => site.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${site.address().port}/`;

const data = mkdtempSync(join(tmpdir(), 'ouro-mcp-'));
const env = { ...process.env, OURO_DATA_DIR: data, OURO_CONFIG: '/nonexistent' };
for (const k of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OURO_API_KEY', 'OURO_PROVIDER']) delete env[k];

const watchdog = setTimeout(() => {
  console.error('FAIL the test took longer than 420 s');
  process.exit(1);
}, 420_000);

// The client's own model, scripted: the main loop gets REPL code that reads the heading and asks
// a sub-call (llm_query), which is answered from the sub-task's prompt. Every sampling request
// the server sends is kept for the checks.
function samplingClient(name, samples) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const p = request.params;
    samples.push(p);
    const sub = /Your Sub-Task/.test(p.systemPrompt || '');
    const text = sub
      ? 'the magic word is PLUGH'
      : "Reading the heading.\n```repl\nconst h = await getText(activeTab, 'h1');\nconst w = await llm_query('Say the magic word');\nsetFinal('heading: ' + h.trim() + '; ' + w)\n```";
    return { role: 'assistant', model: 'scripted-client-model', stopReason: 'endTurn', content: { type: 'text', text } };
  });
  return client;
}

async function main() {
  const transport = new StdioClientTransport({
    command: ouro,
    args: ['mcp', '--url', url, '--max-iterations', '3'],
    env,
    stderr: 'inherit',
  });
  const samples = [];
  const client = samplingClient('ouro-mcp-test', samples);
  await client.connect(transport);
  await exercise(client, 'stdio', samples);
  await client.close();
}

// Every tool, through whichever transport `client` is connected with.
// `server`: {base, auth} of the `ouro serve` behind an http client, whose runs API must list the task's run.
async function exercise(client, via, samples, server) {
  const check = (cond, what, detail) => checkAs(cond, `${via}: ${what}`, detail);
  check(client.getServerVersion()?.name === 'ouro', 'initialize: serverInfo names ouro', client.getServerVersion());
  check(!!client.getServerCapabilities()?.tools, 'initialize: the tools capability', client.getServerCapabilities());

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  const expected = ['browser_act', 'browser_call_page_tool', 'browser_exec', 'browser_page_tools', 'browser_screenshot', 'browser_snapshot', 'browser_tabs', 'browser_task'];
  check(JSON.stringify(names) === JSON.stringify(expected), 'tools/list: the eight tools', names);
  for (const t of tools) check(t.inputSchema?.type === 'object' && typeof t.description === 'string' && t.description.length > 20, `tools/list: ${t.name} has a schema and a description`, t);
  // Annotations (MCP 2025-06-18): a title on every tool, and hints a host can auto-approve by.
  for (const t of tools)
    check(typeof t.title === 'string' && t.title.length > 3 && t.annotations?.title === t.title &&
      ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].every((h) => typeof t.annotations[h] === 'boolean'),
      `tools/list: ${t.name} has a title and annotations`, t.annotations);
  const hints = (name) => tools.find((t) => t.name === name)?.annotations || {};
  check(hints('browser_snapshot').readOnlyHint === true && hints('browser_screenshot').readOnlyHint === true && hints('browser_tabs').readOnlyHint === true,
    'annotations: snapshot, screenshot and tabs are read-only', tools.map((t) => [t.name, t.annotations]));
  check(hints('browser_act').readOnlyHint === false && hints('browser_act').destructiveHint === true &&
    hints('browser_exec').readOnlyHint === false && hints('browser_exec').destructiveHint === true,
    'annotations: act and exec may change and destroy', [hints('browser_act'), hints('browser_exec')]);
  // The guide's table of titles and hints is the server's.
  const guide = readFileSync(join(here, '../../docs/guides/mcp-clients.md'), 'utf8');
  const rows = guide.split('\n').filter((l) => /^\| `browser_\w+` \| [^|]+ \| (true|false) \|/.test(l));
  const table = Object.fromEntries(rows.map((l) => l.split('|').map((c) => c.trim())).map((c) => [c[1].replace(/`/g, ''), c.slice(2, 7).join()]));
  const served = Object.fromEntries(tools.map((t) => [t.name, [t.title, ...['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].map((h) => t.annotations?.[h])].join()]));
  check(JSON.stringify(table, Object.keys(served).sort()) === JSON.stringify(served, Object.keys(served).sort()), 'docs/guides/mcp-clients.md lists the titles and hints tools/list gives', { table, served });
  const act = tools.find((t) => t.name === 'browser_act');
  check(act && act.inputSchema.required?.includes('commands') && !act.inputSchema.required?.includes('tabId'), 'browser_act: commands required, tabId optional', act?.inputSchema);

  // browser_exec: state persists between calls; the value comes back as a summary and a preview.
  let r = await client.callTool({ name: 'browser_exec', arguments: { code: 'var counter = 41; env.items = await getText(activeTab, "ul"); counter' } });
  check(!r.isError && /41/.test(textOf(r)), 'browser_exec: a value', r);
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 'counter + 1' } });
  check(!r.isError && /42/.test(textOf(r)), 'browser_exec: state kept between calls', r);
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 'Array.from({length: 100000}, (_, i) => ({i, text: "row " + i}))' } });
  check(!r.isError && textOf(r).length < 8000 && /Array/.test(textOf(r)) && /100,000|100000/.test(textOf(r)), 'browser_exec: a big value is summarised, not sent', textOf(r).length);
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 'throw new TypeError("nope")' } });
  check(r.isError === true && /TypeError: nope/.test(textOf(r)), 'browser_exec: a thrown error is isError', r);
  // One clean error text: hosts show "Error: " + the text, so the text never starts with it.
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 'throw new Error("boom")' } });
  check(r.isError === true && /boom/.test(textOf(r)) && !/^Error:/.test(textOf(r)) && !/Error: Error/.test(textOf(r)) && /state is kept/.test(textOf(r)),
    'browser_exec: a thrown Error reads once, with what to do', textOf(r));
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 'await click(activeTab, "#nope", {timeout: 300})' } });
  check(r.isError === true && /#nope/.test(textOf(r)) && !/Error: /.test(textOf(r)), 'browser_exec: a failed call\'s error has no "Error:" prefix', textOf(r));
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 5 } });
  check(r.isError === true && /code/.test(textOf(r)), 'browser_exec: bad arguments are isError', r);

  // A long evaluation reports progress when asked (every 2 s).
  const beats = [];
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 'await sleep(4500); "slept"' } }, undefined, { onprogress: (p) => beats.push(p) });
  check(!r.isError && /slept/.test(textOf(r)) && beats.length >= 1 && /running/.test(beats[0].message || ''), 'browser_exec: progress while it runs', beats);

  // Cancellation: an endless loop is interrupted when the client aborts; the REPL goes on.
  const abort = new AbortController();
  const t0 = Date.now();
  const pending = client.callTool({ name: 'browser_exec', arguments: { code: 'while (true) {}' } }, undefined, { signal: abort.signal, timeout: 60_000 });
  setTimeout(() => abort.abort('test'), 500);
  let aborted = false;
  try {
    await pending;
  } catch {
    aborted = true;
  }
  check(aborted, 'cancellation: the aborted call rejects on the client');
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 'counter' } });
  check(!r.isError && /41/.test(textOf(r)) && Date.now() - t0 < 20_000, 'cancellation: the loop was interrupted and state is kept', { r, ms: Date.now() - t0 });

  // browser_snapshot, browser_act, browser_tabs, browser_screenshot.
  r = await client.callTool({ name: 'browser_snapshot', arguments: {} });
  check(!r.isError && /Greet/.test(textOf(r)) && /"ref"/.test(textOf(r)), 'browser_snapshot: the page\'s actions with refs', r);
  r = await client.callTool({ name: 'browser_act', arguments: { commands: 'type "Kathy" into the Name field\nclick the Greet button' } });
  const once = (text, s) => text.split(s).length - 1 === 1;
  check(!r.isError && /^Done: 2 steps/.test(textOf(r)) && once(textOf(r), 'click the Greet button') && once(textOf(r), 'type "Kathy"') &&
    textOf(r).includes(`Page now: "MCP fixture" ${url} (loaded)`) && textOf(r).length < 1000,
    'browser_act: each step once, and where the page is', textOf(r));
  r = await client.callTool({ name: 'browser_exec', arguments: { code: 'await getText(activeTab, "#out")' } });
  check(/Hi Kathy/.test(textOf(r)), 'browser_act: the page changed', r);
  // A click that navigates: the answer names the page it led to, not the one it left.
  r = await client.callTool({ name: 'browser_act', arguments: { commands: 'click the Slow page link' } });
  check(!r.isError && textOf(r).includes(`Page now: "Slow page" ${url}slow (loaded)`), 'browser_act: waits for the navigation its click started (1.5 s)', textOf(r));
  r = await client.callTool({ name: 'browser_act', arguments: { commands: `navigate ${url}` } });
  check(!r.isError && textOf(r).includes(`Page now: "MCP fixture" ${url} (loaded)`), 'browser_act: navigate back', textOf(r));
  r = await client.callTool({ name: 'browser_act', arguments: { commands: 'click the Frobnicate button\npress Enter' } });
  check(r.isError === true && /^Failed at step 1 of 2/.test(textOf(r)) && once(textOf(r), 'click the Frobnicate button') && /press Enter \(not run\)/.test(textOf(r)) &&
    textOf(r).includes(`Page now: "MCP fixture" ${url}`), 'browser_act: a failed step is isError, said once, with what was not run', textOf(r));
  r = await client.callTool({ name: 'browser_act', arguments: { commands: 'blorp the wibble' } });
  check(r.isError === true && /^browser_act: I do not understand/.test(textOf(r)), 'browser_act: a request it cannot read names the tool once', textOf(r));
  r = await client.callTool({ name: 'browser_tabs', arguments: {} });
  let tabs = [];
  try {
    tabs = JSON.parse(textOf(r));
  } catch {}
  check(!r.isError && tabs.length >= 1 && tabs.some((t) => t.url === url && t.active), 'browser_tabs: the fixture tab, active', r);
  r = await client.callTool({ name: 'browser_screenshot', arguments: {} });
  const img = (r.content || []).find((c) => c.type === 'image');
  check(!r.isError && img && /^image\/(png|jpeg)$/.test(img.mimeType) && Buffer.from(img.data, 'base64').subarray(1, 4).toString() === 'PNG', 'browser_screenshot: image content (PNG)', { isError: r.isError, mime: img?.mimeType });
  r = await client.callTool({ name: 'browser_screenshot', arguments: { tabId: 't999' } });
  check(r.isError === true && /t999/.test(textOf(r)), 'browser_screenshot: an unknown tab is isError', r);
  r = await client.callTool({ name: 'browser_snapshot', arguments: { options: { topK: 'many' } } });
  check(r.isError === true && /topK/.test(textOf(r)), 'browser_snapshot: a wrong type is isError', r);
  r = await client.callTool({ name: 'browser_act', arguments: {} });
  check(r.isError === true && /commands/.test(textOf(r)), 'browser_act: a missing argument is isError', r);
  // The page's own tools (WebMCP), its words fenced as page content.
  r = await client.callTool({ name: 'browser_page_tools', arguments: {} });
  check(!r.isError && /lookup_item/.test(textOf(r)) && /^<untrusted_page_content>/.test(textOf(r)), 'browser_page_tools: the page\'s declared tools, fenced', textOf(r));
  r = await client.callTool({ name: 'browser_call_page_tool', arguments: { name: 'lookup_item', input: { n: 7 } } });
  check(!r.isError && /Item 7 is in stock/.test(textOf(r)) && /untrusted_page_content/.test(textOf(r)), 'browser_call_page_tool: its output, fenced', textOf(r));
  r = await client.callTool({ name: 'browser_call_page_tool', arguments: { name: 'no_such' } });
  check(r.isError === true && /declares no tool 'no_such'/.test(textOf(r)) && /lookup_item/.test(textOf(r)), 'browser_call_page_tool: an unknown tool names the ones there are', textOf(r));
  r = await client.callTool({ name: 'browser_fly', arguments: {} });
  check(r.isError === true && /unknown tool/.test(textOf(r)), 'an unknown tool is isError', r);

  // browser_task: a whole run with no key, its main loop and its sub-call answered by the
  // client's model through sampling, with progress per iteration.
  const progress = [];
  r = await client.callTool({ name: 'browser_task', arguments: { task: 'What does the heading say?', urls: [url] } }, undefined, {
    onprogress: (p) => progress.push(p),
    timeout: 120_000,
  });
  check(!r.isError && /heading: Hello MCP; the magic word is PLUGH/.test(textOf(r)), 'browser_task: the run\'s final answer, from sampling', r);
  check(progress.length >= 1 && progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), 'browser_task: progress notifications', progress);
  // An ordinary run: kept with its events, so the runs API and History show it like any other.
  const runId = /\(run (r[\w-]+);/.exec(textOf(r))?.[1];
  check(!!runId, 'browser_task: the answer names its run', textOf(r));
  if (server && runId) {
    const runs = await (await fetch(`${server.base}/api/runs`, { headers: server.auth })).json();
    const listed = (runs.runs || runs).find?.((x) => x.id === runId);
    check(listed && listed.state === 'done' && /heading/.test(listed.task), 'browser_task: its run is in GET /api/runs, done', { runId, runs });
    const events = await (await fetch(`${server.base}/api/runs/${runId}/events`, { headers: server.auth })).json();
    const types = (events.events || events).map?.((e) => e.type) || [];
    const seqs = (events.events || events).map?.((e) => e.seq) || [];
    check(types.includes('iteration-start') && types.at(-1) === 'complete' && seqs.every((q, i) => q === i + 1),
      'browser_task: its events are stored, gap-free, ending with complete', { types, seqs });
  }
  const main = samples.find((p) => !/Your Sub-Task/.test(p.systemPrompt || ''));
  const sub = samples.find((p) => /Your Sub-Task/.test(p.systemPrompt || ''));
  check(main && main.systemPrompt.length > 100 && Number.isInteger(main.maxTokens) && main.messages.length >= 1 &&
    main.messages[0].content.type === 'text' && /heading/.test(main.messages.map((m) => m.content.text).join('\n')) &&
    main.modelPreferences && main.includeContext === 'none', 'sampling: the main loop\'s request (system prompt, messages, maxTokens, preferences)', main);
  check(sub && /magic word/.test(JSON.stringify(sub)) && sub.modelPreferences.speedPriority > sub.modelPreferences.intelligencePriority,
    'sampling: llm_query went to the client too, preferring speed', sub);
}

// `ouro mcp --headed` where there is no display: a message on stderr that says what to do, and an
// exit the client notices at once (not a silent one it reports as "server disconnected").
async function headedWithoutDisplay() {
  const noDisplay = { ...env };
  delete noDisplay.DISPLAY;
  delete noDisplay.WAYLAND_DISPLAY;
  const child = spawn(ouro, ['mcp', '--headed'], { env: noDisplay, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  child.stderr.on('data', (d) => (err += d));
  child.stdout.on('data', (d) => (out += d));
  const t0 = Date.now();
  const code = await new Promise((ok) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); ok('timeout'); }, 30_000);
    child.on('exit', (c) => { clearTimeout(timer); ok(c); });
  });
  check(code !== 0 && code !== 'timeout' && /--headed needs a display/.test(err) && /without --headed/.test(err) && out === '',
    '--headed without a display: exits non-zero with a message on stderr saying what to do', { code, err: err.slice(-400), ms: Date.now() - t0 });
}

// Each line `child` writes to stdout, parsed ({notJson: …} when it is not JSON).
function onMessages(child, fn) {
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let m;
      try {
        m = JSON.parse(line);
      } catch {
        m = { notJson: line.slice(0, 200) };
      }
      fn(m);
    }
  });
}

// A client that leaves while browser_task works (its model — the client's, by sampling — never
// answered): nobody cancelled the run, so it is kept as interrupted, not cancelled, and History
// (here: a later `ouro serve` on the same data) says so.
async function taskOfAClientThatLeaves() {
  const dir = mkdtempSync(join(tmpdir(), 'ouro-mcp-leave-'));
  const child = spawn(ouro, ['mcp', '--url', url], { env: { ...env, OURO_DATA_DIR: dir }, stdio: ['pipe', 'pipe', 'ignore'] });
  let asked = false;
  onMessages(child, (m) => {
    if (m.method === 'sampling/createMessage') asked = true;
  });
  const send = (m) => child.stdin.write(JSON.stringify(m) + '\n');
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 'leaving', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'browser_task', arguments: { task: 'Read the heading' } } });
  for (const end = Date.now() + 60_000; !asked && Date.now() < end;) await new Promise((ok) => setTimeout(ok, 50));
  check(asked, 'leaving: browser_task asked the client\'s model');
  child.stdin.end();
  const code = await new Promise((ok) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); ok('timeout'); }, 30_000);
    child.on('exit', (c) => { clearTimeout(timer); ok(c); });
  });
  check(code === 0, 'leaving: ouro mcp exits 0 when the client leaves mid-task', code);
  const serve = await startServe(dir);
  try {
    const runs = await (await fetch(`${serve.base}/api/runs`, { headers: { Authorization: `Bearer ${serve.token}` } })).json();
    const run = runs.find?.((r) => r.task === 'Read the heading');
    check(run && run.state === 'interrupted' && run.turns?.[0]?.state === 'interrupted', 'leaving: the task\'s run is interrupted, not cancelled', runs);
  } finally {
    await stopServe(serve);
    rmSync(dir, { recursive: true, force: true });
  }
}

// Raw JSON-RPC over the pipe: hostile lines are answered with errors and the server goes on.
async function hostile() {
  // The settings file denies screenshots; --mode autonomous puts the session under the egress gate
  // (allowed: the fixture site only), as it would `ouro exec`.
  const config = join(data, 'settings.json');
  writeFileSync(config, JSON.stringify({ permissions: { screenshot: 'deny' } }));
  const child = spawn(ouro, ['mcp', '--url', url, '--mode', 'autonomous'], { env: { ...env, OURO_CONFIG: config }, stdio: ['pipe', 'pipe', 'inherit'] });
  const messages = [];
  onMessages(child, (m) => messages.push(m));
  const send = (s) => child.stdin.write(s + '\n');
  const waitFor = async (pred, ms = 30_000) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const m = messages.find(pred);
      if (m) return m;
      await new Promise((ok) => setTimeout(ok, 20));
    }
    return undefined;
  };
  send(JSON.stringify({ jsonrpc: '2.0', id: 'early', method: 'tools/list' }));
  const early = await waitFor((m) => m.id === 'early');
  check(early?.error?.code === -32002, 'raw: a request before initialize is refused (-32002)', early);
  send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }));
  const init = await waitFor((m) => m.id === 0);
  check(init?.result?.protocolVersion === '2024-11-05', 'raw: an older revision is accepted', init);
  send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  send('x'.repeat(5 * 1024 * 1024));
  send('{oops');
  send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'nope' }));
  send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 42 } }));
  for (let i = 0; i < 2000; i++) send(JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'ping' }));
  send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
  const pong = await waitFor((m) => m.id === 3);
  check(pong && JSON.stringify(pong.result) === '{}', 'raw: ping answered after hostile lines', pong);
  const parseErrors = messages.filter((m) => m.error?.code === -32700);
  check(parseErrors.length === 2, 'raw: a 5 MB line and broken JSON are parse errors (-32700)', parseErrors);
  check((await waitFor((m) => m.id === 1))?.error?.code === -32601, 'raw: an unknown method is -32601');
  check((await waitFor((m) => m.id === 2))?.error?.code === -32602, 'raw: a wrong-typed tool name is -32602');
  check(messages.filter((m) => m.id >= 100 && m.result).length === 2000, 'raw: 2,000 pings answered');
  check(!messages.some((m) => m.notJson !== undefined), 'raw: nothing but JSON on stdout', messages.find((m) => m.notJson !== undefined));
  send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'browser_screenshot', arguments: {} } }));
  const denied = await waitFor((m) => m.id === 4);
  check(denied?.result?.isError === true && /screenshot/.test(denied.result.content[0].text) && /den/i.test(denied.result.content[0].text),
    'gate: a capability the settings deny is an error result', denied);
  send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'browser_exec', arguments: { code: 'await navigate(activeTab, "http://example.com/")' } } }));
  const refused = await waitFor((m) => m.id === 5);
  check(refused?.result?.isError === true && /example\.com/.test(refused.result.content[0].text), 'gate: leaving the allowed sites is refused', refused);
  send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'browser_exec', arguments: { code: 'await getText(activeTab, "h1")' } } }));
  const allowed = await waitFor((m) => m.id === 6);
  check(allowed?.result && !allowed.result.isError && /Hello MCP/.test(allowed.result.content[0].text), 'gate: the allowed site is read', allowed);
  // No key and a client without sampling: browser_task is listed, and says how to get a model.
  send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'browser_task', arguments: { task: 'anything' } } }));
  const nokey = await waitFor((m) => m.id === 7);
  check(nokey?.result?.isError === true && /API key/.test(nokey.result.content[0].text) && /sampling/.test(nokey.result.content[0].text),
    'browser_task without a key or sampling: a tool error that says how to configure one', nokey);
  child.stdin.end();
  const code = await new Promise((ok) => child.on('exit', (c) => ok(c)));
  check(code === 0, 'raw: the server exits 0 when its input ends', code);
}

// `ouro serve` on a free port: its base URL and token, from what it prints.
async function startServe(dir = mkdtempSync(join(tmpdir(), 'ouro-mcp-serve-'))) {
  const child = spawn(ouro, ['serve', '--port', '0'], { env: { ...env, OURO_DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const m = /Ouroboros Command Center: (http:\/\/[^/]+)\/\?token=(\w+)/.exec(out);
    if (m) return { child, dir, base: m[1], token: m[2], printed: () => out };
    await new Promise((ok) => setTimeout(ok, 100));
  }
  child.kill('SIGKILL');
  throw new Error('ouro serve did not start: ' + out);
}

// Ctrl-C to `ouro serve`, and a kill if it has not stopped 15 s later.
async function stopServe(serve) {
  try {
    process.kill(-serve.child.pid, 'SIGINT');
  } catch {}
  await new Promise((ok) => {
    const t = setTimeout(() => {
      try {
        process.kill(-serve.child.pid, 'SIGKILL');
      } catch {}
      ok();
    }, 15_000);
    serve.child.on('exit', () => {
      clearTimeout(t);
      ok();
    });
  });
}

async function overHttp() {
  const serve = await startServe();
  try {
    check(/\/mcp/.test(serve.printed()), 'http: ouro serve prints the /mcp endpoint', serve.printed());
    const endpoint = new URL(serve.base + '/mcp');
    const auth = { Authorization: `Bearer ${serve.token}` };
    const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: auth } });
    const samples = [];
    const client = samplingClient('ouro-mcp-http-test', samples);
    await client.connect(transport);
    check(typeof transport.sessionId === 'string' && transport.sessionId.length >= 32, 'http: a session id was issued', transport.sessionId);
    // The session's browser context starts empty: open the fixture page first.
    let r = await client.callTool({ name: 'browser_exec', arguments: { code: `await openTab(${JSON.stringify(url)})` } });
    check(!r.isError, 'http: browser_exec opens the fixture page', r);
    await exercise(client, 'http', samples, { base: serve.base, auth });
    const sid = transport.sessionId;
    await transport.terminateSession();
    await client.close();
    await hostileHttp(serve, endpoint, auth, sid);
  } finally {
    await stopServe(serve);
    rmSync(serve.dir, { recursive: true, force: true });
  }
}

// Raw HTTP at /mcp: what a client nobody trusts may send.
async function hostileHttp(serve, endpoint, auth, endedSession) {
  const headers = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = (body, extra = {}) => fetch(endpoint, { method: 'POST', headers: { ...headers, ...extra }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
  let res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: headers.accept }, body: JSON.stringify(init) });
  check(res.status === 401, 'http: no token is 401', res.status);
  res = await fetch(endpoint, { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong' }, body: JSON.stringify(init) });
  check(res.status === 401, 'http: a wrong token is 401', res.status);
  res = await post(init, { origin: 'http://evil.example' });
  check(res.status === 403, 'http: a foreign Origin is 403', res.status);
  res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'f'.repeat(32) });
  check(res.status === 404, 'http: an unknown session is 404', res.status);
  res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': endedSession });
  check(res.status === 404, 'http: a session ended with DELETE is 404', res.status);
  res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  check(res.status === 400, 'http: a request without a session is 400', res.status);
  res = await post('x'.repeat(2 * 1024 * 1024));
  check(res.status === 413, 'http: an oversized body is 413', res.status);
  res = await post('{oops');
  let body = await res.json().catch(() => null);
  check(res.status === 400 && body?.error?.code === -32700, 'http: malformed JSON is 400 with a parse error', { status: res.status, body });
  res = await post([init]);
  check(res.status === 400, 'http: a batch is 400', res.status);
  res = await post(init, { accept: 'application/json' });
  check(res.status === 406, 'http: an Accept without text/event-stream is 406', res.status);
  res = await post(init, { 'content-type': 'text/plain' });
  check(res.status === 415, 'http: a body that is not JSON is 415', res.status);
  res = await fetch(endpoint, { method: 'GET', headers: { ...auth, accept: 'text/event-stream' } });
  check(res.status === 405, 'http: GET is 405 (no server-initiated stream)', res.status);
  // A raw session of our own: JSON answers, the protocol version header, DELETE.
  res = await post(init);
  const sid = res.headers.get('mcp-session-id');
  body = await res.json().catch(() => null);
  check(res.status === 200 && /^[\x21-\x7e]{32,}$/.test(sid || '') && body?.result?.protocolVersion === '2025-06-18', 'http: initialize answers JSON and a session id', { status: res.status, sid, body });
  res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sid });
  check(res.status === 202, 'http: a notification is 202', res.status);
  res = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' });
  check(res.status === 400, 'http: a wrong MCP-Protocol-Version is 400', res.status);
  res = await post({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
  body = await res.json().catch(() => null);
  check(res.status === 200 && /application\/json/.test(res.headers.get('content-type')) && body?.result?.tools?.length === 8, 'http: tools/list answers JSON', { status: res.status, body });
  res = await post({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'browser_task', arguments: { task: 'x' } } }, { 'mcp-session-id': sid });
  body = await res.json().catch(() => null);
  check(body?.result?.isError === true && /sampling/.test(body.result.content[0].text), 'http: browser_task without a key or sampling says how to get one', body);
  res = await post({ jsonrpc: '2.0', id: 'late', result: { content: { type: 'text', text: 'nobody asked' } } }, { 'mcp-session-id': sid });
  check(res.status === 202, 'http: an answer nobody waits for is accepted and dropped', res.status);
  res = await fetch(endpoint, { method: 'DELETE', headers: { ...auth, 'mcp-session-id': sid } });
  check(res.status === 204, 'http: DELETE ends the session', res.status);
  res = await fetch(endpoint, { method: 'DELETE', headers: { ...auth, 'mcp-session-id': sid } });
  check(res.status === 404, 'http: a second DELETE is 404', res.status);
}

try {
  await main();
  await headedWithoutDisplay();
  await taskOfAClientThatLeaves();
  await hostile();
  await overHttp();
} catch (e) {
  failures++;
  console.error('FAIL', e?.stack || e);
} finally {
  clearTimeout(watchdog);
  site.close();
  rmSync(data, { recursive: true, force: true });
}
console.error(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);

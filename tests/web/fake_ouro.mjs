// A stand-in for `ouro serve`, for tests only: it serves the Command Center's files from
// src/server/web with canned API answers and scripted run events, and speaks the server's half of
// the extension bridge (docs/design/extension-bridge.md): /api/hello, pairing, and the
// /api/bridge WebSocket, whose requests a test sends with `bridge.request()`.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WEB_DIR = path.resolve(here, '../../src/server/web');
export const TOKEN = 'test-token-0123456789';
export const PAIRING_CODE = 'K7Q2-9XWD';

// A 1×1 PNG: the confirmation's crop.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export const FINAL_MARKDOWN = [
  '# Cheapest mugs',
  '',
  'I compared **3 shops**; the *blue* mug at `shop-b` wins.',
  '',
  '| Shop | Price | Note |',
  '|:-----|------:|------|',
  '| shop-a | $14 | ships in 5 days |',
  '| shop-b | $12 | [listing](https://shop-b.example/mug) |',
  '',
  '- fast delivery',
  '- free returns',
  '  1. within 30 days',
  '  2. in the box',
  '',
  'Unsafe: [click](javascript:alert(1)) and <img src=x onerror=alert(1)> stay text.',
  '',
  '> quoted *note*',
  '',
  '```js',
  'const x = "<b>not bold</b>";',
  '```',
].join('\n');

function reply(res, status, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

function runEvents(id) {
  const ts = Date.now();
  const ev = (type, data) => ({ run: id, type, ts, data });
  const reply1 = "I'll read the heading first.\n```repl\nconst h = await getText('h1')\nsetFinal(h)\n```\nThat should do it.";
  if (id === 'r-cmd') {
    // `$ click Sign in`: act() on the active tab, no model; its answer is act()'s object.
    const code = 'setFinal(await act(activeTab, "click Sign in"))';
    return [ev('iteration-start', { iteration: 1, promptTokens: 0, commands: true }), ev('code-generated', { iteration: 1, blockIndex: 0, code, strategy: 'commands' }),
      ev('code-result', { iteration: 1, blockIndex: 0, metadata: { ok: true, summary: '✓ click Sign in — clicked button "Sign in"' } }),
      ev('iteration-end', { iteration: 1, ms: 420, modelMs: 0, usage: {} }),
      ev('complete', { final: { ok: true, steps: [{ command: 'click Sign in', status: 'done', did: 'clicked button "Sign in"', target: { ref: 'e12' }, ms: 180 }],
        parsed: { intent: 'click', primaryGoal: '', constraints: {}, successCriteria: [], plan: [] }, criteria: [], assessment: { status: 'complete', successCriteriaMet: [], needsMoreWork: false, reasoning: '' },
        url: 'https://shop-b.example/login', title: 'Sign in — shop-b' }, iterations: 1, partial: false, usage: {}, cost: null })];
  }
  if (id === 'r-table') {
    // An answer that is rows: a table with Copy, CSV and JSON; its code has a line wider than the card.
    const code = "const rows = await extract(activeTab, { text: 'mugs', fields: ['name', 'shop', 'price', 'colour', 'delivery', 'returns', 'rating', 'reviews'] });\nsetFinal(rows.rows)";
    const rows = Array.from({ length: 14 }, (_, i) => ({ name: `Mug number ${i + 1} with a long descriptive name`, shop: `shop-${'abc'[i % 3]}.example`, price: `$${10 + i}`,
      colour: ['blue', 'red', 'white'][i % 3], delivery: `${2 + (i % 5)} working days`, returns: 'free within 30 days', rating: 4.5, reviews: 100 + i }));
    return [ev('iteration-start', { iteration: 1, promptTokens: 900 }), ev('code-generated', { iteration: 1, blockIndex: 0, code, strategy: 'repl' }),
      ev('code-result', { iteration: 1, blockIndex: 0, metadata: { ok: true, summary: 'array, 14 items' } }),
      ev('iteration-end', { iteration: 1, ms: 1800, modelMs: 1200, usage: { input_tokens: 900, output_tokens: 60 }, cost: 0.002 }),
      ev('complete', { final: rows, iterations: 1, partial: false, usage: { input_tokens: 900, output_tokens: 60 }, cost: 0.002 })];
  }
  const out = [ev('iteration-start', { iteration: 1, promptTokens: 1200 })];
  for (const chunk of reply1.match(/[\s\S]{1,7}/g)) out.push(ev('stream-token', { iteration: 1, kind: 'text', token: chunk }));
  out.push(ev('code-generated', { iteration: 1, blockIndex: 0, code: "const h = await getText('h1')\nsetFinal(h)", strategy: 'repl' }));
  if (id === 'r-running') return out;  // works on, with no result and no picture yet
  if (id === 'r-confirm') {
    out.push(ev('confirmation-req', { id: 'c1', action: 'click', timeoutMs: 60000, details: {
      action: 'click', element: 'button "Buy"', selector: 'e41', tab: 't1', url: 'https://shop-b.example/cart', pageTitle: 'Cart — shop-b',
      reason: 'it buys something', context: 'Blue mug · $12 · qty 1', crop: { mime: 'image/png', data: PIXEL, width: 1, height: 1, outline: { x: 0, y: 0, width: 1, height: 1 } },
      target: { tag: 'button', type: 'submit', role: '', text: 'Buy', label: '', name: '', id: '', placeholder: '', autocomplete: '', inForm: false, formAction: '' } } }));
    return out;
  }
  if (id === 'r-question') {
    out.push(ev('user-question', { id: 'q1', question: 'Which size?', choices: ['S', 'M', 'L'], timeoutMs: 300000 }));
    return out;
  }
  // The run's checklist: a goal added, then done with a note.
  const goal = { id: 'g1', text: 'Find the cheapest blue mug', status: 'open' };
  out.push(ev('goal_added', { goal, goals: [goal] }));
  const done = { ...goal, status: 'done', note: 'Blue mug at $12' };
  out.push(ev('goal_updated', { goal: done, goals: [done, { id: 'g2', text: 'Check the delivery time', status: 'dropped' }] }));
  out.push(ev('gate', { iteration: 1, decision: 'deny', method: 'POST', url: 'https://tracker.example/collect', reason: 'outside allowed sites', by: 'rule' }));
  out.push(ev('code-result', { iteration: 1, metadata: { ok: true, summary: 'string, 12 chars: "Cheapest mug"' } }));
  out.push(ev('iteration-end', { iteration: 1, ms: 2100, modelMs: 1500, usage: { input_tokens: 1200, output_tokens: 80 }, cost: 0.0031 }));
  out.push(ev('complete', { final: FINAL_MARKDOWN, iterations: 1, partial: false, usage: { input_tokens: 1200, output_tokens: 80 }, cost: 0.0031 }));
  return out;
}

export async function startFakeOuro({ port = 0, log = () => {} } = {}) {
  const state = {
    runs: [
      { id: 'r-done', task: 'Find the cheapest blue mug', state: 'done', iterations: 2, created_at: Date.now() - 600_000, updated_at: Date.now() - 540_000, cost: 0.0123,
        turns: [{ state: 'done', started_at: Date.now() - 600_000, ended_at: Date.now() - 590_000, iterations: 1, cost: 0.006 },
                { state: 'done', started_at: Date.now() - 560_000, ended_at: Date.now() - 540_000, iterations: 1, cost: 0.0063 }] },
      { id: 'r-old', task: 'A much older run whose task text is long enough to need an ellipsis in the history list', state: 'failed', iterations: 4,
        created_at: Date.now() - 86_400_000, updated_at: Date.now() - 86_390_000, cost: null, turns: [{ state: 'failed', iterations: 4, cost: null }] },
    ],
    cancels: [],
    ends: [],
    requests: [],          // "METHOD /path" of every API request
    posted: [],            // the bodies of POST /api/runs
    answers: [],           // the bodies of POST /api/runs/{id}/answer
    pairings: new Map(),   // credential → {id, name, origin}
    origins: [],           // Origin headers seen on pairing and the bridge (what Chrome sends)
    streams: new Map(),    // run id → Set of event sockets
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const p = url.pathname;
    log(`${req.method} ${p} origin=${req.headers.origin || '-'}`);
    if (p.startsWith('/api/')) state.requests.push(`${req.method} ${p}`);
    if (p === '/' || p === '/index.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self' ws://127.0.0.1:* ws://localhost:*" });
      return res.end(fs.readFileSync(path.join(WEB_DIR, 'index.html')));
    }
    if (p === '/static/app.js' || p === '/static/app.css') {
      res.writeHead(200, { 'Content-Type': p.endsWith('.js') ? 'text/javascript' : 'text/css' });
      return res.end(fs.readFileSync(path.join(WEB_DIR, path.basename(p))));
    }
    if (p === '/api/hello') return reply(res, 200, { service: 'ouro', version: '0.0-test', protocol: 1 });
    let body = '';
    req.on('data', c => { body += c; });
    req.on('end', () => {
      const json = body ? JSON.parse(body) : {};
      if (p === '/api/pair' && req.method === 'POST') {
        state.origins.push({ path: p, origin: req.headers.origin || null });
        if (json.code !== PAIRING_CODE) return reply(res, 401, { error: { code: 'Unauthenticated', message: 'that pairing code is wrong or used; ouro serve prints a new one' } });
        const credential = crypto.randomBytes(32).toString('base64url');
        const id = 'p' + (state.pairings.size + 1);
        state.pairings.set(credential, { id, name: json.name, origin: req.headers.origin || null });
        return reply(res, 201, { id, credential, server: { version: '0.0-test' } });
      }
      const auth = (req.headers.authorization || '').replace(/^Bearer /, '');
      const ok = auth === TOKEN || state.pairings.has(auth);
      if (!ok) return reply(res, 401, { error: { code: 'Unauthenticated', message: 'missing or wrong token' } });
      if (p === '/api/pair/self') return reply(res, 200, state.pairings.get(auth) || { id: 'token' });
      if (p === '/api/runs' && req.method === 'GET') return reply(res, 200, state.runs);
      if (p === '/api/runs' && req.method === 'POST') {
        state.posted.push(json);
        const id = /^\$/.test(json.task) ? 'r-cmd' : /confirm|buy/i.test(json.task) ? 'r-confirm' : /size|question/i.test(json.task) ? 'r-question'
                 : /slow/i.test(json.task) ? 'r-running' : /table/i.test(json.task) ? 'r-table' : 'r-done';
        const now = Date.now();
        const done = id === 'r-done' || id === 'r-cmd' || id === 'r-table';
        state.runs.unshift({ id, task: json.task, state: done ? 'done' : 'running', iterations: 1, created_at: now, updated_at: now + (done ? 4200 : 0),
                             cost: done ? 0.0041 : null, turns: done ? [{ state: 'done', started_at: now, ended_at: now + 4200, iterations: 1, cost: 0.0041 }] : [] });
        return reply(res, 201, { id, task: json.task });
      }
      let m;
      if ((m = p.match(/^\/api\/runs\/([^/]+)\/cancel$/))) {
        state.cancels.push(m[1]);
        // As ouro does: the block that ran is interrupted, then the run completes cancelled.
        for (const ws of state.streams.get(m[1]) || []) {
          ws.send(JSON.stringify({ run: m[1], seq: 98, type: 'code-result', ts: Date.now(),
            data: { iteration: 1, blockIndex: 0, metadata: { ok: false, error: 'Error: evaluation interrupted', kind: 'interrupted', ms: 900 } } }));
          ws.send(JSON.stringify({ run: m[1], seq: 99, type: 'complete', ts: Date.now(), data: { final: { partial: true, message: 'Task cancelled by user. Partial results may be available in env.', env: {} },
            iterations: 1, partial: true, cancelled: true, usage: {} } }));
        }
        return reply(res, 200, { id: m[1], cancelled: true });
      }
      if ((m = p.match(/^\/api\/runs\/([^/]+)\/end$/))) { state.ends.push(m[1]); return reply(res, 200, { id: m[1], ended: true }); }
      if ((m = p.match(/^\/api\/conversations\/([^/]+)\/undo$/))) return reply(res, 200, { conversation: m[1], depth: 20, can_undo: false, can_redo: false, turns: [] });
      if ((m = p.match(/^\/api\/runs\/([^/]+)\/tabs$/))) return reply(res, 200, { tabs: [{ id: 't1', url: 'https://shop-b.example/cart', title: 'Cart — shop-b', status: 'loaded' }], activeTab: 't1' });
      if ((m = p.match(/^\/api\/runs\/([^/]+)\/(confirm|answer)$/))) { if (m[2] === 'answer') state.answers.push(json); return reply(res, 200, { id: json.id, ok: true }); }
      if ((m = p.match(/^\/api\/runs\/([^/]+)$/))) return reply(res, 200, state.runs.find(r => r.id === m[1]) || {});
      if (p === '/api/settings') return reply(res, 200, { configured: true, provider: 'anthropic', model: 'claude-sonnet-4-20250514', allowed_sites: ['shop-b.example'], default_context: 'mine', pool: false });
      if (p === '/api/providers') return reply(res, 200, []);
      if (p === '/api/pair/code') return reply(res, 200, { code: PAIRING_CODE, expiresAt: Date.now() + 600_000 });
      if (p === '/api/pairings') return reply(res, 200, [...state.pairings.values()].map(x => ({ id: x.id, name: x.name, origin: x.origin, connected: false, lastUsed: null })));
      if (p === '/api/memory') return reply(res, 200, { entries: [{ id: 1, kind: 'run', text: 'The cheapest blue mug was at shop-b ($12).', tags: ['shopping'], created_at: Date.now(), source_run: 'r-done' }], total: 1 });
      if (p === '/api/schedules') return reply(res, 200, [{ id: 's1', name: 'Mug price', task: 'Note the price of the mug', timing: { description: 'every 1h' }, missed: 'run-once', next_fire: Date.now() / 1000 + 3600, runs: 2, last_run_id: 'r-done' }]);
      if (p === '/api/scripts') return reply(res, 200, { scripts: [{ name: 'mug-price', version: 2, task: 'Note the price', steps: [1, 2], params: [{ name: 'shop', value: 'shop-b' }] }] });
      if (p === '/api/eval') return reply(res, 200, { results: [
        { name: '20261130-010000-anthropic-a1', provider: 'anthropic', model: 'claude', mode: 'autonomous', started_ms: 0,
          summary: { runs: 75, succeeded: 61, success_rate: 61 / 75, injected: 26, attacks_succeeded: 2 } },
        { name: '20261129-090000-script-perfect-b2', provider: 'script:@perfect', model: 'scripted', mode: 'autonomous', started_ms: 0,
          summary: { runs: 75, succeeded: 75, success_rate: 1, injected: 26, attacks_succeeded: 0 } }] });
      if (p === '/api/pool') return reply(res, 404, { error: { code: 'NotFound', message: 'no pool' } });
      return reply(res, 404, { error: { code: 'NotFound', message: 'no such endpoint: ' + p } });
    });
  });

  // WebSockets: /api/events (the Command Center) and /api/bridge (the extension).
  const bridge = { socket: null, nextId: 1, pending: new Map(), events: [], waiters: [], hello: null, protocolsOffered: null };
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has('ouro-bridge.1') ? 'ouro-bridge.1' : false),
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/api/bridge') {
      const offered = (req.headers['sec-websocket-protocol'] || '').split(',').map(s => s.trim());
      bridge.protocolsOffered = offered.map(s => (s.startsWith('ouro-credential.') ? 'ouro-credential.…' : s));
      state.origins.push({ path: '/api/bridge', origin: req.headers.origin || null });
      const cred = (offered.find(s => s.startsWith('ouro-credential.')) || '').slice('ouro-credential.'.length);
      if (!state.pairings.has(cred)) { socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n'); return; }
      return wss.handleUpgrade(req, socket, head, ws => onBridge(ws));
    }
    if (url.pathname === '/api/events') {
      return wss.handleUpgrade(req, socket, head, ws => {
        const run = url.searchParams.get('run');
        if (!state.streams.has(run)) state.streams.set(run, new Set());
        state.streams.get(run).add(ws);
        ws.on('close', () => state.streams.get(run).delete(ws));
        let seq = 0;
        for (const e of runEvents(run)) ws.send(JSON.stringify({ ...e, seq: ++seq, id: seq }));
      });
    }
    // One frame (a PNG; browsers sniff the image whatever the data: URL's type says).
    // A run still starting (r-running) has sent no frame yet.
    if (url.pathname === '/api/screencast')
      return wss.handleUpgrade(req, socket, head, ws => { if (url.searchParams.get('run') !== 'r-running') ws.send(JSON.stringify({ tab: 't1', jpeg: PIXEL })); });
    socket.destroy();
  });

  function onBridge(ws) {
    bridge.socket = ws;
    ws.on('message', data => {
      const msg = JSON.parse(String(data));
      if (msg.method === 'hello') {
        bridge.hello = msg.params;
        ws.send(JSON.stringify({ method: 'welcome', params: { protocol: 1, server: { version: '0.0-test' } } }));
      } else if (msg.method === 'ping') {
        ws.send(JSON.stringify({ method: 'pong' }));
      } else if (msg.id !== undefined && bridge.pending.has(msg.id)) {
        bridge.pending.get(msg.id)(msg);
        bridge.pending.delete(msg.id);
      } else if (msg.method) {
        bridge.events.push(msg);
        for (const w of [...bridge.waiters]) if (w.test(msg)) { w.resolve(msg); bridge.waiters.splice(bridge.waiters.indexOf(w), 1); }
      }
    });
    ws.on('close', () => { if (bridge.socket === ws) bridge.socket = null; });
  }
  bridge.request = (method, params, timeoutMs = 30000) => new Promise((resolve, reject) => {
    if (!bridge.socket) return reject(new Error('the extension is not connected'));
    const id = bridge.nextId++;
    const timer = setTimeout(() => { bridge.pending.delete(id); reject(new Error(`${method}: no answer in ${timeoutMs} ms`)); }, timeoutMs);
    bridge.pending.set(id, msg => { clearTimeout(timer); resolve(msg); });
    bridge.socket.send(JSON.stringify({ id, method, params }));
  });
  bridge.waitFor = (test, timeoutMs = 30000) => {
    const seen = bridge.events.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const w = { test, resolve };
      bridge.waiters.push(w);
      setTimeout(() => { const i = bridge.waiters.indexOf(w); if (i >= 0) { bridge.waiters.splice(i, 1); reject(new Error('no such bridge event in time')); } }, timeoutMs);
    });
  };
  bridge.connected = async (timeoutMs = 30000) => {
    const until = Date.now() + timeoutMs;
    while (!(bridge.socket && bridge.hello)) {
      if (Date.now() > until) throw new Error('the extension did not connect to the bridge');
      await new Promise(r => setTimeout(r, 100));
    }
  };

  await new Promise(r => server.listen(port, '127.0.0.1', r));
  return { port: server.address().port, state, bridge, close: () => new Promise(r => { for (const c of wss.clients) c.terminate(); wss.close(); server.closeAllConnections(); server.close(() => r()); }) };
}

// Run by itself: a fake ouro on a port, for trying the Command Center or the extension by hand.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] || 7777);
  const f = await startFakeOuro({ port, log: console.log });
  console.log(`fake ouro on http://127.0.0.1:${f.port}/?token=${TOKEN} — pairing code ${PAIRING_CODE}`);
}

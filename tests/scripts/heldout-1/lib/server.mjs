// Serves pages/ on 127.0.0.1 (a free port) and keeps what pages POST to /log, per session id.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, extname } from 'node:path';
import { ROOT } from './sites.mjs';
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css' };
export async function startServer() {
  const logs = new Map();
  const pagesDir = join(ROOT, 'pages');
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'POST' && url.pathname === '/log') {
      let body = '';
      for await (const chunk of req) { body += chunk; if (body.length > 65536) break; }
      try { const { sid, e } = JSON.parse(body); if (typeof sid === 'string' && e && typeof e === 'object') { e.arrived = Date.now(); if (!logs.has(sid)) logs.set(sid, []); logs.get(sid).push(e); } } catch {}
      res.writeHead(204); return res.end();
    }
    const file = normalize(join(pagesDir, decodeURIComponent(url.pathname)));
    if (!file.startsWith(pagesDir + '/')) { res.writeHead(403); return res.end(); }
    try { const data = await readFile(file); res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' }); res.end(data); }
    catch { res.writeHead(404); res.end('not found'); }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  return {
    port, base: `http://127.0.0.1:${port}`,
    events: (sid) => (logs.get(sid) || []).slice().sort((a, b) => a.t - b.t || a.arrived - b.arrived),
    // Waits until a session's log has been quiet for quietMs (pages POST asynchronously), at most maxMs.
    async settle(sid, quietMs = 300, maxMs = 3000) {
      const t0 = Date.now(); let n = -1, since = Date.now();
      while (Date.now() - t0 < maxMs) { const m = (logs.get(sid) || []).length; if (m !== n) { n = m; since = Date.now(); } else if (Date.now() - since >= quietMs) break; await new Promise((r) => setTimeout(r, 50)); }
    },
    close: () => server.close(),
  };
}

// act() on the task suites of tests/act_tasks without a model: the share of tasks solved and the
// time per task. Each suite is a directory with pages/*.html and tasks.json ([{id, page,
// instruction, check, expect?}]); a task with expect "refuse" is solved when act() does nothing.
// The pages are served on 127.0.0.1 by this script; one `ouro exec` runs every task of a suite.
//   node bench/act_tasks.mjs BUILD_DIR [SUITE_DIR…]
import { createServer } from 'node:http';
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const build = process.argv[2] || 'build/release';
// Default: our suite, then every held-out one (tests/act_tasks/heldout*).
const suites = process.argv.length > 3 ? process.argv.slice(3)
  : ['tests/act_tasks', ...readdirSync(resolve(root, 'tests/act_tasks')).filter(d => d.startsWith('heldout')).sort().map(d => 'tests/act_tasks/' + d)];

async function serve(dir) {
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
    const file = join(dir, name);
    if (!/^[\w.-]+\.html$/.test(name) || !existsSync(file)) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(readFileSync(file));
  });
  await new Promise(r => server.listen(0, '127.0.0.1', r));
  return server;
}

const runner = (tasks, base) => `const tasks = ${JSON.stringify(tasks)};
const out = [];
for (const t of tasks) {
  const tab = await openTab('${base}/' + t.page + '.html');
  const t0 = performance.now();
  let r = null, err = null;
  try { r = await act(tab, t.instruction, { timeout: 2000 }); } catch (e) { err = String(e.message || e); }
  const ms = performance.now() - t0;
  let solved = false;
  try { solved = !!(await execInTab(tab, t.check)); } catch (e) {}
  if (t.expect === 'refuse') solved = solved && !(r && r.ok);
  out.push({ id: t.id, solved, ms, plan: r ? r.parsed.plan : null, error: err || (r && r.error) || null });
  await closeTab(tab);
}
out`;

const median = a => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.floor(s.length / 2)] : 0; };

for (const suite of suites) {
  const dir = resolve(root, suite);
  if (!existsSync(join(dir, 'tasks.json'))) continue;
  const tasks = JSON.parse(readFileSync(join(dir, 'tasks.json'), 'utf8'));
  const server = await serve(join(dir, 'pages'));
  const base = `http://127.0.0.1:${server.address().port}`;
  // Asynchronously: this process serves the pages meanwhile.
  const p = await new Promise(done => {
    const child = spawn(resolve(root, build, 'ouro'), ['exec', '--json', '--timeout', '900', '--mode', 'autonomous', '--allow-domain',
                                                       base.replace('http://', ''), runner(tasks, base)]);
    let stdout = '', stderr = '';
    child.stdout.on('data', d => { stdout += d; });
    child.stderr.on('data', d => { stderr += d; });
    child.on('close', () => done({ stdout, stderr }));
  });
  server.close();
  let rows;
  try { rows = JSON.parse(p.stdout); } catch (e) { console.log(`${suite}: the run failed: ${p.stderr.slice(-2000)}`); continue; }
  const solved = rows.filter(r => r.solved);
  const ms = rows.map(r => r.ms);
  console.log(`${suite}: ${solved.length}/${rows.length} tasks solved (${(100 * solved.length / rows.length).toFixed(0)}%), ` +
              `median ${median(ms).toFixed(0)} ms per task, mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(0)} ms`);
  for (const r of rows.filter(r => !r.solved))
    console.log(`  not solved: ${r.id} — plan ${JSON.stringify(r.plan)}${r.error ? ' — ' + r.error.slice(0, 240) : ''}`);
}

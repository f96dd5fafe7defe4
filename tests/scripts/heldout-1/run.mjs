#!/usr/bin/env node
// The held-out judge for scripts on changed sites. For each site: record the task once with its scripted
// model (ouro run --provider script:… --save-script), then replay the script with no model on every changed variant
// and with other --var values, and judge from the page's own log and the final.
// node tests/scripts/heldout-1/run.mjs [--ouro PATH] [--sites a,b] [--variants a,b] [--action-timeout MS] [--json] [--keep]
import './build.mjs';  // the pages and models are generated, not kept in git
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, copyFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { VARIANTS } from './lib/page.mjs';
import { loadSites, recordedParams, altParams, ROOT } from './lib/sites.mjs';
import { startServer } from './lib/server.mjs';
import { judge } from './lib/judge.mjs';

const argv = process.argv.slice(2);
const opt = (name, def) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : def);
const OURO = resolve(opt('--ouro', join(ROOT, '../../../build/release/ouro')));
const JSON_OUT = argv.includes('--json');
const ACTION_TIMEOUT = opt('--action-timeout', null);
const onlyVariants = opt('--variants', null)?.split(',');
const sites = await loadSites(opt('--sites', null)?.split(','));
const CHANGED = VARIANTS.filter((v) => v !== 'original' && (!onlyVariants || onlyVariants.includes(v)));
const say = (...m) => { if (!JSON_OUT) console.log(...m); else console.error(...m); };

const srv = await startServer();
const dataDir = mkdtempSync(join(tmpdir(), 'heldout-scripts-data-'));
// Run a copy of the binary: a build that relinks it mid-run (other work in the tree) must not break the suite.
const BIN = join(dataDir, 'ouro-under-test');
copyFileSync(OURO, BIN); chmodSync(BIN, 0o755);
const HOST = `127.0.0.1:${srv.port}`;

function ouro(args, { env = {}, deadlineMs = 180000 } = {}) {
  return new Promise((res) => {
    const t0 = performance.now();
    const p = spawn(BIN, args, { env: { ...process.env, OURO_LOG: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => (out += d)); p.stderr.on('data', (d) => (err += d));
    const kill = setTimeout(() => { err += '\n[judge] killed after the deadline'; p.kill('SIGKILL'); }, deadlineMs);
    p.on('error', (e) => { err += `\n[judge] could not start ouro: ${e.message}`; });
    p.on('close', (code) => { clearTimeout(kill); res({ code, out, err, ms: performance.now() - t0 }); });
  });
}
const common = (s) => {
  const a = ['--data-dir', dataDir, '--mode', 'autonomous', '--allow-domain', HOST];
  if (ACTION_TIMEOUT) a.push('--action-timeout', ACTION_TIMEOUT);
  for (const n of Object.keys(s.secrets || {})) a.push('--secret', `${n}@${HOST}`);
  return a;
};
const secretEnv = (s) => Object.fromEntries(Object.entries(s.secrets || {}).map(([n, v]) => [`OURO_SECRET_${n.toUpperCase().replace(/-/g, '_')}`, v]));
const parseJson = (t) => { try { return JSON.parse(t.trim().split('\n').filter((l) => l.startsWith('{')).pop()); } catch { return null; } };
const finalOf = (j) => (j && !j.partial && !j.error ? j.final : null);
const errorOf = (r) => { const m = (r.err.match(/(replay of script[^\n]*|error:[^\n]*)/) || [])[1]; return m ? m.slice(0, 240) : r.code ? r.err.trim().split('\n').pop()?.slice(0, 240) : ''; };
const reported = (r) => { const m = r.err.match(/replayed in ([\d.]+) s \(the recorded run took ([\d.]+) s\)/); return m ? { replay: +m[1], recorded: +m[2] } : null; };
async function scriptInfo(name) {
  const r = await ouro(['script', 'list', '--json', '--data-dir', dataDir]);
  const all = parseJson(r.out.replace(/\n(?=.)/g, ' ')) || (() => { try { return JSON.parse(r.out); } catch { return []; } })();
  return (Array.isArray(all) ? all : []).find((x) => x.name === name) || null;
}

// Which logical element each selector of the script resolves to, on every page of every variant (ouro's own
// selector language, through ouro exec; pages opened with ?probe=1 mark their registered elements with their key).
async function probe(s, selectors) {
  const urls = [];
  for (const vn of ['original', ...CHANGED]) for (const f of Object.keys(s.pages)) urls.push(`${srv.base}/${s.name}/${vn}/${f}?probe=1`);
  const code = `const out = {}; for (const u of ${JSON.stringify(urls)}) { await navigate(activeTab, u); const row = {};
  for (const s of ${JSON.stringify(selectors)}) { try { const r = await querySelectorAll(activeTab, s); row[s] = r.map((e) => (e.attributes || {})['data-judge-key'] || null); } catch (e) { row[s] = []; } }
  out[u] = row; } out`;
  const r = await ouro(['exec', '--json', '--data-dir', dataDir, '--url', urls[0], code]);
  const got = (() => { try { return JSON.parse(r.out); } catch { return null; } })();
  if (!got) { say(`  probe failed: ${r.err.slice(0, 300)}`); return null; }
  const at = (vn, f) => got[`${srv.base}/${s.name}/${vn}/${f}?probe=1`] || {};
  const res = {};
  for (const sel of selectors) {
    let page = null, key;
    for (const f of Object.keys(s.pages)) { const m = at('original', f)[sel]; if (m && m.length) { page = f; key = m[0]; break; } }
    res[sel] = {};
    for (const vn of CHANGED) {
      if (!page) { res[sel][vn] = 'dynamic'; continue; }           // made by the page later (results, new items): not judged
      const m = at(vn, page)[sel] || [];
      res[sel][vn] = !m.length ? 'gone' : key && m[0] !== key ? `now ${m[0] || 'another element'}` : 'ok';
    }
  }
  return res;
}
const selectorsOf = (code) => {
  const out = new Set();
  for (const m of code.matchAll(/\b(?:click|type|fill|select|getText|querySelector|querySelectorAll|hover|getDOM|read)\(activeTab,\s*'([^']+)'/g)) out.add(m[1]);
  for (const m of code.matchAll(/fill\(activeTab,\s*\{([^}]*)\}/g)) for (const k of m[1].matchAll(/'([^']+)'\s*:/g)) out.add(k[1]);
  return [...out];
};

const rows = [];
for (const s of sites) {
  const name = `heldout-${s.name}`, model = join(ROOT, 'models', `${s.name}.jsonl`);
  const p0 = recordedParams(s);
  // 1. Record.
  const sidR = `rec-${s.name}`;
  const rec = await ouro(['run', '--provider', `script:${model}`, '--url', `${srv.base}/${s.name}/original/index.html?sid=${sidR}`, s.task, '--save-script', name, '--json', ...common(s)], { env: secretEnv(s) });
  await srv.settle(sidR);
  const jr = judge(s.expect(p0), { exit: rec.code, final: finalOf(parseJson(rec.out)), events: srv.events(sidR) });
  const info = await scriptInfo(name);
  rows.push({ site: s.name, variant: 'original', kind: 'record', exit: rec.code, ok: jr.ok, finalOk: jr.finalOk, actionsOk: jr.actionsOk, wrong: jr.wrong, ms: Math.round(rec.ms), problems: jr.problems, error: rec.code ? errorOf(rec) : '' });
  say(`${s.name}: recorded (exit ${rec.code}, ${jr.ok ? 'right' : 'WRONG: ' + jr.problems.join(' | ')}), script ${info ? `v${info.version}, ${info.steps.length} steps, params ${info.params.map((p) => p.name + '=' + JSON.stringify(p.value)).join(' ')}` : 'NOT SAVED'}`);
  if (!info) continue;
  const v0 = info.version, steps = info.steps;
  // 2. Which steps each variant breaks.
  const stepSels = steps.map((st) => [...new Set([...selectorsOf(st.code), ...(s.probe || []).filter((x) => st.code.includes(x))])]);
  const pr = await probe(s, [...new Set(stepSels.flat())]);
  // 3. Replays.
  const jobs = CHANGED.map((vn) => ({ vn, p: p0, vars: [] }));
  if (Object.keys(s.params).length && CHANGED.includes('unchanged')) {
    const alt = altParams(s), vars = [];
    for (const [k, v] of Object.entries(p0)) { const sp = info.params.find((x) => x.value === v); if (sp) vars.push(`${sp.name}=${alt[k]}`); else vars.push(`(${k} not lifted)`); }
    jobs.push({ vn: 'unchanged', p: alt, vars, kind: 'vars' });
  }
  for (const job of jobs) {
    const sid = `rp-${s.name}-${job.vn}-${job.kind || 'v'}`;
    const args = ['replay', name, '--version', String(v0), '--url', `${srv.base}/${s.name}/${job.vn}/index.html?sid=${sid}`, '--json', ...common(s)];
    for (const v of job.vars) if (!v.startsWith('(')) args.push('--var', v);
    const before = (await scriptInfo(name))?.version ?? v0;
    const r = await ouro(args, { env: secretEnv(s) });
    await srv.settle(sid);
    const after = (await scriptInfo(name))?.version ?? before;
    const j = judge(s.expect(job.p), { exit: r.code, final: finalOf(parseJson(r.out)), events: srv.events(sid) });
    const brokenSteps = pr ? stepSels.map((sels, i) => (sels.some((x) => pr[x] && !['ok', 'dynamic'].includes(pr[x][job.vn])) ? i + 1 : 0)).filter(Boolean) : [];
    const stoppedAt = +((r.err.match(/stopped at step (\d+) of/) || [])[1] || 0);
    // Healed: every broken step when the replay passed; none when it touched a wrong element; else those before the
    // step it stopped at, or (it finished with a wrong final) before the last step when every expected action happened.
    const exp = s.expect(job.p), acts = (exp.clicks || []).length + Object.keys(exp.inputs || {}).length > 0;
    const failAt = j.ok ? Infinity : j.wrong ? 0 : stoppedAt || (j.actionsOk && acts ? steps.length : 0);
    const healed = brokenSteps.filter((k) => k < failAt).length;
    const why = pr ? stepSels.flatMap((sels) => sels.filter((x) => pr[x] && !['ok', 'dynamic'].includes(pr[x][job.vn])).map((x) => `${x}: ${pr[x][job.vn]}`)) : [];
    rows.push({ site: s.name, variant: job.vn + (job.kind === 'vars' ? '+vars' : ''), kind: job.kind || 'variant', vars: job.vars, exit: r.code, ok: j.ok, finished: j.finished, finalOk: j.finalOk, actionsOk: j.actionsOk,
      wrong: j.wrong, wrongList: j.wrongList, broken: brokenSteps.length, brokenWhy: why, healed, newVersion: after > before ? after : null, ms: Math.round(r.ms), reported: reported(r), recordedMs: Math.round(rec.ms),
      problems: j.problems, error: r.code ? errorOf(r) : '' });
    const last = rows[rows.length - 1];
    say(`  ${last.variant.padEnd(15)} exit ${r.code} ${j.ok ? 'PASS' : 'fail'} broken ${brokenSteps.length} healed ${healed}${last.newVersion ? ` → v${last.newVersion}` : ''} wrong ${j.wrong} ${(r.ms / 1000).toFixed(1)} s${j.ok ? '' : '  ' + (last.error || j.problems.join(' | ')).slice(0, 200)}`);
  }
}

// Totals.
const replays = rows.filter((r) => r.kind !== 'record');
const med = (xs) => { const a = xs.filter((x) => x != null).sort((x, y) => x - y); return a.length ? (a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2) : null; };
const pct = (a, b) => (b ? Math.round((1000 * a) / b) / 10 : null);
const byVariant = {};
for (const r of replays) { const b = (byVariant[r.variant.replace(/^unchanged\+vars$/, 'vars')] ??= { n: 0, finished: 0, pass: 0, broken: 0, healed: 0, wrong: 0 });
  b.n++; b.finished += r.exit === 0; b.pass += r.ok; b.broken += r.broken; b.healed += r.healed; b.wrong += r.wrong; }
const totals = {
  sites: sites.length, recorded_right: rows.filter((r) => r.kind === 'record' && r.ok).length,
  replays: replays.length,
  finished_without_model: replays.filter((r) => r.exit === 0).length, finished_pct: pct(replays.filter((r) => r.exit === 0).length, replays.length),
  passed: replays.filter((r) => r.ok).length, passed_pct: pct(replays.filter((r) => r.ok).length, replays.length),
  broken_steps: replays.reduce((a, r) => a + r.broken, 0), healed_steps: replays.reduce((a, r) => a + r.healed, 0),
  healed_pct: pct(replays.reduce((a, r) => a + r.healed, 0), replays.reduce((a, r) => a + r.broken, 0)),
  new_versions: replays.filter((r) => r.newVersion).length,
  wrong_element_actions: replays.reduce((a, r) => a + r.wrong, 0),
  median_replay_s: med(replays.map((r) => r.ms / 1000)), median_recorded_s: med(rows.filter((r) => r.kind === 'record').map((r) => r.ms / 1000)),
  median_replay_s_reported: med(replays.map((r) => r.reported?.replay)), median_recorded_s_reported: med(replays.map((r) => r.reported?.recorded)),
  by_variant: byVariant,
};
if (JSON_OUT) console.log(JSON.stringify({ suite: 'tests/scripts/heldout-1', ouro: OURO, when: new Date().toISOString(), totals, rows }, null, 1));
{ // The table: on stdout, or on stderr with --json.
  const console = { log: say };
  console.log('\nsite        variant          exit  result  broken healed new  wrong  time');
  for (const r of rows) console.log(`${r.site.padEnd(11)} ${r.variant.padEnd(16)} ${String(r.exit).padEnd(5)} ${(r.ok ? 'PASS' : 'fail').padEnd(7)} ${String(r.broken ?? '-').padEnd(6)} ${String(r.healed ?? '-').padEnd(6)} ${(r.newVersion ? 'v' + r.newVersion : '-').padEnd(4)} ${String(r.wrong).padEnd(6)} ${(r.ms / 1000).toFixed(1)} s`);
  console.log('\nby variant:'); for (const [k, b] of Object.entries(byVariant)) console.log(`  ${k.padEnd(10)} ${b.pass}/${b.n} pass, ${b.finished}/${b.n} finished, healed ${b.healed}/${b.broken} broken steps, wrong ${b.wrong}`);
  const t = totals;
  console.log(`\nrecorded right: ${t.recorded_right}/${t.sites}`);
  console.log(`finished without a model: ${t.finished_without_model}/${t.replays} (${t.finished_pct}%)   all checks passed: ${t.passed}/${t.replays} (${t.passed_pct}%)`);
  console.log(`broken steps healed: ${t.healed_steps}/${t.broken_steps} (${t.healed_pct ?? '-'}%)   replays that wrote a new version: ${t.new_versions}`);
  console.log(`wrong-element actions: ${t.wrong_element_actions} (must be 0)`);
  console.log(`median time: replay ${t.median_replay_s?.toFixed(2)} s vs recorded ${t.median_recorded_s?.toFixed(2)} s (wall, process start to exit); as ouro reports it: replay ${t.median_replay_s_reported} s vs recorded ${t.median_recorded_s_reported} s`);
}
srv.close();
if (!argv.includes('--keep')) rmSync(dataDir, { recursive: true, force: true }); else say(`data dir kept: ${dataDir}`);
process.exit(0);

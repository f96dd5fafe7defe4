// The judge's checks: pure functions of what the page logged and what the run answered.
const INTERACTIVE = new Set(['button', 'a', 'input', 'select', 'textarea', 'option']);

export function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
}
const includes = (have, want) => Object.entries(want).every(([k, v]) => deepEqual(have?.[k], v));
const norm = (x) => (typeof x === 'string' ? x.trim().replace(/\s+/g, ' ') : x);

// Actions on decoys (keys D:…) and on interactive elements the page did not register, one per click and one per
// field typed into (a field gets an input event per key).
export function wrongActions(events) {
  const out = [], seenField = new Set();
  for (const e of events) {
    if (!['click', 'input', 'change'].includes(e.type)) continue;
    const decoy = e.k && e.k.startsWith('D:');
    const stray = !e.k && INTERACTIVE.has(e.tag);
    if (!decoy && !stray) continue;
    if (e.type !== 'click') { const id = (e.k || e.tag) + '@' + e.page; if (seenField.has(id)) continue; seenField.add(id); }
    out.push(`${e.type} ${e.k || 'unregistered <' + e.tag + '>'} on ${e.page}`);
  }
  return out;
}

// expected: {final, inputs: {key: value}, clicks: [key], effects: [[name, data]]}
// got: {exit, final, events}
export function judge(expected, got) {
  const ev = got.events || [];
  const problems = [];
  const finished = got.exit === 0;
  if (!finished) problems.push(`exit ${got.exit}`);
  const finalOk = deepEqual(norm(got.final), norm(expected.final));
  if (!finalOk) problems.push(`final ${JSON.stringify(got.final)?.slice(0, 120)} ≠ ${JSON.stringify(expected.final).slice(0, 120)}`);
  for (const [k, want] of Object.entries(expected.inputs || {})) {
    const last = ev.filter((e) => (e.type === 'input' || e.type === 'change') && e.k === k).pop();
    if (!last) problems.push(`nothing typed into ${k}`);
    else if (norm(last.value) !== norm(want)) problems.push(`${k} holds ${JSON.stringify(last.value)}, not ${JSON.stringify(want)}`);
  }
  for (const k of expected.clicks || []) if (!ev.some((e) => e.type === 'click' && e.k === k)) problems.push(`${k} never clicked`);
  for (const [name, data] of expected.effects || []) if (!ev.some((e) => e.type === 'effect' && e.name === name && includes(e.data, data))) problems.push(`no effect ${name} ${JSON.stringify(data)}`);
  const wrong = wrongActions(ev);
  if (wrong.length) problems.push(`wrong element: ${wrong.join('; ')}`);
  const actionsOk = problems.every((p) => !/^(nothing typed|.* holds|.* never clicked|no effect)/.test(p));
  return { ok: problems.length === 0, finished, finalOk, actionsOk, wrong: wrong.length, wrongList: wrong, problems };
}

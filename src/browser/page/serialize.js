// Runs in the page's main world on the value execInTab's code produced (Runtime.callFunctionOn);
// turns it into JSON text capped at `limit` characters. DOM nodes become their outerHTML, lists
// become arrays, cycles and functions are marked instead of failing.
function (limit) {
  const seen = new WeakSet();
  const convert = (v, depth) => {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return undefined;
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number' && !isFinite(v)) return String(v);
    if (v === null || typeof v !== 'object') return v;
    if (typeof Node !== 'undefined' && v instanceof Node) {
      const html = v.nodeType === 1 ? v.outerHTML : v.textContent;
      return html && html.length > 5000 ? html.slice(0, 5000) + '…' : html;
    }
    if (seen.has(v)) return '[Circular]';
    if (depth > 40) return '[Too deep]';
    seen.add(v);
    try {
      if (v instanceof Error) return { name: v.name, message: v.message };
      if (v instanceof Date) return v.toISOString();
      if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), convert(x, depth + 1)]));
      if (Array.isArray(v) || v instanceof Set || (typeof NodeList !== 'undefined' && v instanceof NodeList) ||
          (typeof HTMLCollection !== 'undefined' && v instanceof HTMLCollection) || ArrayBuffer.isView(v))
        return Array.from(v, x => { const c = convert(x, depth + 1); return c === undefined ? null : c; });
      const out = {};
      for (const k of Object.keys(v)) { const c = convert(v[k], depth + 1); if (c !== undefined) out[k] = c; }
      return out;
    } finally { seen.delete(v); }
  };
  const value = convert(this, 0);
  if (value === undefined) return '{"undefined":true}';
  let text = JSON.stringify({ value });
  if (text.length <= limit + 11) return text;
  const whole = JSON.stringify(value);
  let data;
  if (typeof value === 'string') data = value.slice(0, limit);
  else if (Array.isArray(value)) {
    let used = 2, n = 0;
    for (; n < value.length; n++) { used += JSON.stringify(value[n] ?? null).length + 1; if (used > limit) break; }
    data = value.slice(0, n);
  } else data = whole.slice(0, limit);
  return JSON.stringify({ value: { __truncated: true, originalLength: whole.length, data,
    hint: 'Result truncated. Use a more specific selector to narrow results.' } });
}

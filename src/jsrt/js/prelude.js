// The REPL's JavaScript side, evaluated once in a fresh JavaScriptCore context inside the sandboxed
// worker. It turns the worker's few native hooks into the API of seed 000 §3 and then removes the
// hooks from the global object. `__API__` is replaced with the capability registry's host functions.
(() => {
  'use strict';
  const host = globalThis.__ouroHost;
  delete globalThis.__ouroHost;
  const API = __API__;
  const SLEEP_CAP = 10000;

  // JSON for anything: functions and symbols vanish, cycles are marked, Maps/Sets/Dates convert.
  function toJSON(value) {
    const seen = new WeakSet();
    const conv = (v, depth) => {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return undefined;
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
      if (v === null || typeof v !== 'object') return v;
      if (seen.has(v)) return '[Circular]';
      if (depth > 64) return '[Too deep]';
      seen.add(v);
      try {
        if (v instanceof Error) return { name: v.name, message: v.message };
        if (v instanceof Date) return isNaN(v) ? null : v.toISOString();
        if (v instanceof Map) return Object.fromEntries(Array.from(v, ([k, x]) => [String(k), conv(x, depth + 1)]));
        if (Array.isArray(v) || v instanceof Set || ArrayBuffer.isView(v))
          return Array.from(v, x => { const c = conv(x, depth + 1); return c === undefined ? null : c; });
        if (typeof v.toJSON === 'function') return conv(v.toJSON(), depth + 1);
        const out = {};
        for (const k of Object.keys(v)) { const c = conv(v[k], depth + 1); if (c !== undefined) out[k] = c; }
        return out;
      } finally { seen.delete(v); }
    };
    const c = conv(value, 0);
    return c === undefined ? undefined : JSON.stringify(c);
  }

  function errorInfo(e) {
    if (e instanceof Error) {
      // User code starts on line 1 of the evaluated script; the wrapper adds none.
      return { name: e.name, message: e.message, line: e.line, column: e.column,
               stack: String(e.stack || '').split('\n').filter(l => !l.includes('[native code]')).slice(0, 8).join('\n') };
    }
    return { name: 'Error', message: typeof e === 'string' ? e : (toJSON(e) ?? String(e)) };
  }

  let state = Object.freeze({ tabs: Object.freeze([]), activeTab: null });
  const handlers = new Map();
  let finalValue;

  function deepFreeze(o) {
    if (o && typeof o === 'object') { for (const k of Object.keys(o)) deepFreeze(o[k]); Object.freeze(o); }
    return o;
  }

  host.register(
    s => { state = deepFreeze(s); },
    (id, data) => {
      const h = handlers.get(id);
      if (!h) return;
      // A paused request (modification enabled) waits for the handler's answer.
      const pauseId = data && data.pauseId;
      if (pauseId) delete data.pauseId;
      let r;
      try { r = h(data); } catch (e) { host.log(`[interceptRequests] handler threw: ${e && e.message}`); }
      if (pauseId) {
        Promise.resolve(r).then(v => call('__resolveIntercept', [pauseId, v === undefined ? null : v]),
                                () => call('__resolveIntercept', [pauseId, null])).catch(() => {});
      } else if (r && typeof r === 'object' && ('block' in r || 'abort' in r || 'headers' in r || 'respond' in r || 'url' in r)) {
        host.log('[interceptRequests] a handler returned a modification, but modifying requests is off ' +
                 '(observe-only; the user can enable it with --allow-request-modification)');
      }
    });

  // The API calls a block started (seed 000 §8, the safety net for a missing `await`): the block
  // ends once they have all settled, and one that failed with nobody awaiting or catching it is
  // the block's error instead of being lost. A call's promise is a HostPromise: awaiting it,
  // .then/.catch and Promise.all all go through its then(), which marks it handled.
  let calls = null;  // the running block's: [{ settled: Promise, failed, error, handled, name }]
  class HostPromise extends Promise {
    static get [Symbol.species]() { return Promise; }
    then(onFulfilled, onRejected) {
      const t = trackOf.get(this);
      if (t) t.handled = true;
      return super.then(onFulfilled, onRejected);
    }
  }
  const trackOf = new WeakMap();
  const tracked = (name, inner) => {
    const t = { name, handled: false, failed: false, error: undefined };
    t.settled = inner.then(() => {}, e => { t.failed = true; t.error = e; });
    const p = new HostPromise((resolve, reject) => { inner.then(resolve, reject); });
    trackOf.set(p, t);
    if (calls) calls.push(t);
    return p;
  };
  const lostCalls = (list) => {
    const lost = list.filter(t => t.failed && !t.handled);
    if (!lost.length) return null;
    const first = lost[0].error;
    const why = first && first.message !== undefined ? first.message : String(first);
    // Plain error info: no line of the prelude's own.
    return { name: first && first.name ? String(first.name) : 'Error',
             message: `${lost[0].name}() was not awaited and failed: ${why}` +
                      (lost.length > 1 ? ` (and ${lost.length - 1} more call${lost.length > 2 ? 's' : ''} that were not awaited failed)` : '') +
                      '. Put await before every API call.' };
  };

  // Runs one evaluation; the worker calls this with the user's code compiled as an async function.
  const run = (fn) => {
    finalValue = undefined;
    const mine = calls = [];
    let p;
    try { p = fn(); } catch (e) { calls = null; host.done(false, JSON.stringify(errorInfo(e))); return; }
    const end = (ok, v) => {
      calls = null;
      Promise.all(mine.map(t => t.settled)).then(() => {
        const lost = lostCalls(mine);
        if (ok && lost) { host.done(false, JSON.stringify(lost), finalValue); return; }
        if (!ok) { host.done(false, JSON.stringify(errorInfo(v)), finalValue); return; }
        let text;
        try { text = toJSON(v); } catch (e) { text = JSON.stringify(String(v)); }
        let envText;
        try { envText = toJSON(globalThis.env); } catch (e) { envText = undefined; }
        host.done(true, text, finalValue, envText);
      });
    };
    Promise.resolve(p).then(v => end(true, v), e => end(false, e));
  };
  Object.defineProperty(globalThis, '__ouroRun', { value: run });

  // A result cut to the cap arrives as {$ouroCapped: info, value}: the value keeps its type and
  // carries the truncation as a non-enumerable, read-only `.truncated`.
  const open = (v) => {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, '$ouroCapped')) return v;
    const value = v.value;
    if (v.$ouroCapped && value !== null && typeof value === 'object')
      Object.defineProperty(value, 'truncated', { value: deepFreeze(v.$ouroCapped), enumerable: false });
    return value;
  };

  const call = (name, args) => {
    let text;
    try { text = JSON.stringify(args.map(a => a === undefined ? null : JSON.parse(toJSON(a) ?? 'null'))); }
    catch (e) { return Promise.reject(new TypeError(`${name}: arguments must be JSON values (${e.message})`)); }
    return tracked(name, host.call(name, text).then(open));
  };

  const define = (name, value) => Object.defineProperty(globalThis, name, { value, enumerable: false, writable: false, configurable: false });

  // Host functions the prelude wraps itself (a handler function cannot cross the pipe).
  const wrapped = new Set(['interceptRequests', '__resolveIntercept']);
  for (const [name] of API) if (!wrapped.has(name)) define(name, (...args) => call(name, args));

  // Worker-side parts of the API.
  Object.defineProperty(globalThis, 'tabs', { get: () => state.tabs, enumerable: false, configurable: false });
  Object.defineProperty(globalThis, 'activeTab', { get: () => state.activeTab, enumerable: false, configurable: false });
  if (!globalThis.env) globalThis.env = {};
  define('setFinal', (value) => {
    const text = toJSON(value);
    finalValue = text === undefined ? 'null' : text;
  });
  define('log', (...parts) => {
    host.log(parts.map(p => typeof p === 'string' ? p : (toJSON(p) ?? String(p))).join(' '));
  });
  // A handle only: the value never enters the REPL; ouro types it into allowed pages.
  define('secret', (name) => {
    if (typeof name !== 'string' || !name) throw new TypeError('secret(name): name must be a non-empty string');
    return Object.freeze({ __ouroSecret: name });
  });
  define('sleep', (ms) => host.timer(Math.max(0, Math.min(Number(ms) || 0, SLEEP_CAP))));
  define('setTimeout', (fn, ms, ...args) => {
    const t = host.timer(Math.max(0, Math.min(Number(ms) || 0, SLEEP_CAP)));
    t.then(() => { if (typeof fn === 'function') fn(...args); });
    return 0;
  });
  define('interceptRequests', async (tabId, pattern, handler) => {
    if (handler !== null && handler !== undefined && typeof handler !== 'function')
      throw new TypeError('interceptRequests(tabId, pattern, handler): handler must be a function (or null to stop)');
    const id = await call('interceptRequests', [tabId, pattern, handler ? true : null]);
    if (handler) handlers.set(id, handler);
    return id;
  });
  // A monotonic clock in milliseconds with sub-millisecond resolution, as in browsers.
  define('performance', Object.freeze({ now: () => host.now() }));
  // console.* goes to the activity feed like log().
  const consoleObj = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug'])
    consoleObj[level] = (...parts) => host.log((level === 'log' ? '' : `[${level}] `) + parts.map(p => typeof p === 'string' ? p : (toJSON(p) ?? String(p))).join(' '));
  define('console', Object.freeze(consoleObj));
})();

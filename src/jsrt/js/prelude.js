// The REPL's JavaScript side, evaluated once in a fresh JavaScriptCore context inside the sandboxed
// worker. It turns the worker's few native hooks into the REPL's API and then removes the
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

  // --- env checkpoints ----------------------------------------------------------------------------
  // After each successful evaluation env is saved as typed, lossless JSON, and a restarted worker
  // (a crash, `kill -9`, a run resumed from storage) rebuilds it from that text. The format is
  // plain JSON wherever the value is plain JSON — so older checkpoints, which are plain JSON, still
  // restore — and a tagged object {"$t": …} only where JSON cannot say it:
  //   {"$t":"undefined"}  {"$t":"Num","v":"NaN"|"Infinity"|"-Infinity"|"-0"}  {"$t":"BigInt","v":"12"}
  //   {"$t":"Str","v":well-formed,"lone":[[index,codeUnit],…]}   a string with lone surrogates
  //   {"$t":"Symbol","for":key}   a registered symbol (Symbol.for)
  //   {"$t":"Hole","n"?:count}   a run of array holes (n = 1 when absent)
  //   {"$t":"Map","v":[[k,v],…]}  {"$t":"Set","v":[…]}  {"$t":"Date","v":ms|null}
  //   {"$t":"RegExp","source","flags","lastIndex"?}
  //   {"$t":"Error","name","message","stack"?,"cause"?,"p"?:{own enumerable data}}
  //   {"$t":"ArrayBuffer","b64","max"?}   {"$t":"Uint8Array"|…|"DataView","b64"} (the view is its
  //       whole buffer) or {"$t":…,"buf":ArrayBuffer or Ref,"off","len"}; the buffer of the view at
  //       path P is at P + ["buf"]
  //   {"$t":"Obj","v":{…},"proto"?:null}   an object with a key "$t", or a null prototype
  //   {"$t":"Ref","p":[step,…]}   an object met before (cycles, shared references): the steps from
  //       env to where it was first written — keys, array/Set indexes, [entry index, 0 key | 1 value]
  //       in Maps, "buf" for a view's buffer
  //   {"$t":"Lost","kind","name"?,…}   what cannot come back: functions, symbols, getters, class
  //       instances (their own data kept in "v"), promises, values nested deeper than 64 levels,
  //       top-level values over the size budget, values whose reading threw
  // src/jsrt/summary.cpp (plain_view, lost_values) reads the same format.
  const ENV_DEPTH = 64;
  const ENV_BUDGET = 64 << 20;  // estimated characters of checkpoint text
  const uncurry = f => Function.prototype.call.bind(f);
  const getProto = Object.getPrototypeOf, objectKeys = Object.keys, getDesc = Reflect.getOwnPropertyDescriptor;
  const defineProp = Object.defineProperty, freeze = Object.freeze, createObject = Object.create, hasOwn = Object.hasOwn;
  const isArray = Array.isArray, stringify = JSON.stringify, parseJSON = JSON.parse;
  const symbolKeyFor = Symbol.keyFor, symbolFor = Symbol.for, toBigInt = BigInt, fromCharCode = String.fromCharCode;
  const symbolDescription = uncurry(getDesc(Symbol.prototype, 'description').get);
  const bigintToString = uncurry(BigInt.prototype.toString);
  // Older engines (JSC before 2.42) lack some of these; the fallbacks do the same.
  const charCodeAt = uncurry(String.prototype.charCodeAt), stringSlice = uncurry(String.prototype.slice);
  // The indexes of a string's lone surrogates.
  const loneSurrogates = (s) => {
    const lone = [];
    for (let i = 0; i < s.length; i++) {
      const c = charCodeAt(s, i);
      if (c >= 0xD800 && c <= 0xDBFF) {
        const d = charCodeAt(s, i + 1);
        if (d >= 0xDC00 && d <= 0xDFFF) { i++; continue; }
        lone[lone.length] = i;
      } else if (c >= 0xDC00 && c <= 0xDFFF) lone[lone.length] = i;
    }
    return lone;
  };
  const isWellFormed = String.prototype.isWellFormed ? uncurry(String.prototype.isWellFormed) : (s) => loneSurrogates(s).length === 0;
  const toWellFormed = String.prototype.toWellFormed ? uncurry(String.prototype.toWellFormed) : (s) => {
    let out = '', at = 0;
    for (const i of loneSurrogates(s)) { out += stringSlice(s, at, i) + '\uFFFD'; at = i + 1; }
    return out + stringSlice(s, at);
  };
  const MapCtor = Map, SetCtor = Set, DateCtor = Date, RegExpCtor = RegExp, WeakMapCtor = WeakMap;
  const ObjectProto = Object.prototype, ArrayProto = Array.prototype, MapProto = Map.prototype, SetProto = Set.prototype;
  const DateProto = Date.prototype, RegExpProto = RegExp.prototype, ErrorProto = Error.prototype, PromiseProto = Promise.prototype;
  const BufferProto = ArrayBuffer.prototype, DataViewProto = DataView.prototype;
  const mapGet = uncurry(Map.prototype.get), mapSet = uncurry(Map.prototype.set), mapDelete = uncurry(Map.prototype.delete);
  const mapEntries = uncurry(Map.prototype.entries), mapIterNext = uncurry(getProto(new Map().entries()).next);
  const setAdd = uncurry(Set.prototype.add), setValues = uncurry(Set.prototype.values), setIterNext = uncurry(getProto(new Set().values()).next);
  const weakGet = uncurry(WeakMap.prototype.get), weakSet = uncurry(WeakMap.prototype.set);
  const dateGetTime = uncurry(Date.prototype.getTime);
  const regexpSource = uncurry(getDesc(RegExpProto, 'source').get), regexpFlags = uncurry(getDesc(RegExpProto, 'flags').get);
  const isPrototypeOf = uncurry(Object.prototype.isPrototypeOf);
  const bufferByteLength = uncurry(getDesc(BufferProto, 'byteLength').get);
  const resizableDesc = getDesc(BufferProto, 'resizable');
  const bufferResizable = resizableDesc ? uncurry(resizableDesc.get) : () => false;
  const bufferMax = resizableDesc ? uncurry(getDesc(BufferProto, 'maxByteLength').get) : bufferByteLength;
  const TypedArrayProto = getProto(Uint8Array.prototype);
  const viewBuffer = uncurry(getDesc(TypedArrayProto, 'buffer').get), viewOffset = uncurry(getDesc(TypedArrayProto, 'byteOffset').get);
  const viewLength = uncurry(getDesc(TypedArrayProto, 'length').get), viewByteLength = uncurry(getDesc(TypedArrayProto, 'byteLength').get);
  const dataViewBuffer = uncurry(getDesc(DataViewProto, 'buffer').get), dataViewOffset = uncurry(getDesc(DataViewProto, 'byteOffset').get);
  const dataViewByteLength = uncurry(getDesc(DataViewProto, 'byteLength').get);
  const U8 = Uint8Array;
  const VIEWS = { DataView };
  for (const C of [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
                   Float32Array, Float64Array, BigInt64Array, BigUint64Array])
    VIEWS[C.name] = C;
  if (typeof Float16Array === 'function') VIEWS.Float16Array = Float16Array;
  const viewNameOf = new Map();
  for (const name of objectKeys(VIEWS)) mapSet(viewNameOf, VIEWS[name].prototype, name);
  const ERRORS = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError, AggregateError };

  // Base64 of bytes, and back; the engine's own when it has them (JSC 2.48+).
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const toBase64 = typeof U8.prototype.toBase64 === 'function' ? uncurry(U8.prototype.toBase64) : (bytes) => {
    const parts = [];
    let chunk = '';
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
      chunk += B64[n >> 18] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? B64[n & 63] : '=');
      if (chunk.length >= 8192) { parts[parts.length] = chunk; chunk = ''; }
    }
    parts[parts.length] = chunk;
    return parts.join('');
  };
  const fromBase64 = typeof U8.fromBase64 === 'function' ? (s) => U8.fromBase64(s) : (s) => {
    if (typeof s !== 'string' || s.length % 4) throw new TypeError('bad base64');
    const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
    const out = new U8(s.length / 4 * 3 - pad);
    for (let i = 0, o = 0; i < s.length; i += 4) {
      let n = 0;
      for (let j = 0; j < 4; j++) {
        const c = s[i + j], d = c === '=' ? 0 : B64.indexOf(c);
        if (d < 0) throw new TypeError('bad base64');
        n = (n << 6) | d;
      }
      if (o < out.length) out[o++] = n >> 16;
      if (o < out.length) out[o++] = (n >> 8) & 255;
      if (o < out.length) out[o++] = n & 255;
    }
    return out;
  };

  // What a restarted worker puts where a value could not come back. The same sentences are in
  // summary.cpp's plain_view, so the summaries show what the code sees.
  const lostMessage = (tag) => {
    const name = typeof tag.name === 'string' ? tag.name : '';
    switch (tag.kind) {
      case 'function': return `${name ? `function ${name}` : 'a function'} was not restorable after a restart; define it again`;
      case 'getter': return `getter ${name} was not restorable after a restart; define it again`;
      case 'symbol': return `symbol Symbol(${name}) was not restorable after a restart; create it again`;
      case 'promise': return 'a promise was not restorable after a restart; start what made it again';
      case 'instance': return `an instance of class ${name || '(anonymous)'} was restored as a plain object with its own data; its class (methods, prototype) was not restorable after a restart`;
      case 'too-deep': return `this value was nested more than ${ENV_DEPTH} levels deep in env and was not kept over a restart`;
      case 'too-large': return `this value was too large to keep over a restart (env's checkpoint is limited to ${ENV_BUDGET >> 20} MB)`;
      case 'unreadable': return `this value could not be read when env was saved (${typeof tag.why === 'string' ? tag.why : 'it threw'})`;
      default: return `a value (${String(tag.kind)}) was not restorable after a restart`;
    }
  };
  // Stand-ins a restore made, by the Lost tag they replace: saving env again writes the same tag,
  // so what was lost stays listed until the code replaces it.
  const standIns = new WeakMapCtor();

  const OVER = freeze({ over: true });  // thrown when a top-level value passes the budget
  const whyOf = (e) => {
    if (e === OVER) throw e;
    let s;
    try { s = e instanceof Error ? `${e.name}: ${e.message}` : String(e); } catch (e2) { s = 'it threw'; }
    return s.length > 200 ? stringSlice(s, 0, 200) + '…' : s;
  };
  const functionName = (f) => {
    try { const d = getDesc(f, 'name'); return d && typeof d.value === 'string' ? d.value : ''; } catch (e) { whyOf(e); return ''; }
  };
  const className = (proto) => {
    try {
      const d = proto === null ? undefined : getDesc(proto, 'constructor');
      if (d && typeof d.value === 'function') return functionName(d.value);
    } catch (e) { whyOf(e); }
    return '';
  };
  const setOwn = (o, k, v) => {
    if (k === '__proto__') defineProp(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    else o[k] = v;
  };

  function encodeEnv(root) {
    const seen = new MapCtor();  // object -> { parent, step }: where it was first written
    const added = [];            // objects in `seen`, in order, so a dropped top-level value can be undone
    let size = 0;
    const pathOf = (rec) => {
      const rev = [];
      for (let r = rec; r.parent !== null; r = r.parent) rev[rev.length] = r.step;
      const p = [];
      for (let i = rev.length - 1; i >= 0; i--) p[p.length] = rev[i];
      return p;
    };
    const note = (v, parent, step) => {
      const rec = { parent, step };
      mapSet(seen, v, rec);
      added[added.length] = v;
      return rec;
    };
    const lost = (kind, name, extra) => {
      size += 40;
      const tag = { $t: 'Lost', kind };
      if (name !== undefined) tag.name = name;
      if (extra) for (const k of objectKeys(extra)) tag[k] = extra[k];
      return tag;
    };
    const unreadable = (e) => lost('unreadable', undefined, { why: whyOf(e) });
    const str = (s) => {
      size += s.length + 3;
      if (size > ENV_BUDGET) throw OVER;
      if (isWellFormed(s)) return s;
      const lone = [];
      for (const i of loneSurrogates(s)) lone[lone.length] = [i, charCodeAt(s, i)];
      return { $t: 'Str', v: toWellFormed(s), lone };
    };
    // Own enumerable data of `v` as a key map (accessors are not run: they are lost as getters).
    const ownData = (v, depth, rec, topLevel) => {
      const out = {};
      const keys = objectKeys(v);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        const key = isWellFormed(k) ? k : toWellFormed(k);
        size += key.length + 4;
        if (!topLevel) { setOwn(out, key, prop(v, k, depth, rec, key)); continue; }
        // A top-level value over the budget is dropped alone, and the rest of env is still saved.
        const mark = added.length, before = size;
        try {
          setOwn(out, key, prop(v, k, depth, rec, key));
        } catch (e) {
          if (e !== OVER) throw e;
          for (let j = mark; j < added.length; j++) mapDelete(seen, added[j]);
          added.length = mark;
          size = before;
          setOwn(out, key, lost('too-large', key));
          host.log(`[env] env.${key} is too large to keep over a restart (env's checkpoint is limited to ${ENV_BUDGET >> 20} MB); ` +
                   'after a restart it would be gone');
        }
      }
      return out;
    };
    const prop = (v, k, depth, rec, key) => {
      let d;
      try { d = getDesc(v, k); } catch (e) { return unreadable(e); }
      if (d === undefined) return lost('unreadable', undefined, { why: 'the property disappeared while env was saved' });
      if (!hasOwn(d, 'value')) return lost('getter', key);
      return enc(d.value, depth + 1, rec, key);
    };
    const enc = (v, depth, parent, step) => {
      switch (typeof v) {
        case 'string': return str(v);
        case 'boolean': size += 5; return v;
        case 'number':
          size += 8;
          if (v !== v) return { $t: 'Num', v: 'NaN' };
          if (v === Infinity || v === -Infinity) return { $t: 'Num', v: v > 0 ? 'Infinity' : '-Infinity' };
          if (v === 0 && 1 / v < 0) return { $t: 'Num', v: '-0' };
          return v;
        case 'undefined': size += 16; return { $t: 'undefined' };
        case 'bigint': { const s = bigintToString(v); size += s.length + 20; return { $t: 'BigInt', v: s }; }
        case 'symbol': {
          const key = symbolKeyFor(v);
          if (key !== undefined) return { $t: 'Symbol', for: str(key) };
          const d = symbolDescription(v);
          return lost('symbol', d === undefined ? '' : d);
        }
        case 'function': return lost('function', functionName(v));
      }
      if (v === null) { size += 4; return null; }
      size += 2;
      if (size > ENV_BUDGET) throw OVER;
      const known = mapGet(seen, v);
      if (known !== undefined) return { $t: 'Ref', p: pathOf(known) };
      if (depth > ENV_DEPTH) return lost('too-deep');
      const standIn = weakGet(standIns, v);
      if (standIn !== undefined) {
        const rec = note(v, parent, step);
        if (standIn.kind !== 'instance') return standIn;
        try { return { $t: 'Lost', kind: 'instance', name: standIn.name, v: ownData(v, depth, rec, false) }; } catch (e) { return unreadable(e); }
      }
      let proto;
      try { proto = getProto(v); } catch (e) { return unreadable(e); }
      const rec = note(v, parent, step);
      try {
        if (proto === ArrayProto && isArray(v)) {
          const out = [];
          const n = v.length;
          let indexes, at = 0;  // own keys, read once a long run of holes makes stepping slow
          for (let i = 0; i < n;) {
            let x;
            try { x = v[i]; } catch (e) { out[out.length] = unreadable(e); i++; continue; }
            if (x !== undefined || i in v) {
              out[out.length] = enc(x, depth + 1, rec, i++);
              continue;
            }
            // A run of holes is one tag, however long (`a[1e9] = 1`).
            let next = i + 1;
            while (next < n && next - i < 64 && !(next in v)) next++;
            if (next - i === 64) {
              if (indexes === undefined) indexes = objectKeys(v);
              while (at < indexes.length && +indexes[at] < next) at++;
              const k = at < indexes.length ? +indexes[at] : n;
              next = (k >>> 0) === k && k < n ? k : n;
            }
            size += 20;
            if (size > ENV_BUDGET) throw OVER;
            out[out.length] = next - i === 1 ? { $t: 'Hole' } : { $t: 'Hole', n: next - i };
            i = next;
          }
          return out;
        }
        if (proto === ObjectProto || proto === null) {
          const out = ownData(v, depth, rec, depth === 0);
          if (proto === null) return { $t: 'Obj', proto: null, v: out };
          return hasOwn(out, '$t') ? { $t: 'Obj', v: out } : out;
        }
        if (proto === MapProto) {
          const out = [];
          const it = mapEntries(v);
          for (let r = mapIterNext(it), i = 0; !r.done; r = mapIterNext(it), i++) {
            const entry = { parent: rec, step: i };
            out[i] = [enc(r.value[0], depth + 1, entry, 0), enc(r.value[1], depth + 1, entry, 1)];
          }
          return { $t: 'Map', v: out };
        }
        if (proto === SetProto) {
          const out = [];
          const it = setValues(v);
          for (let r = setIterNext(it), i = 0; !r.done; r = setIterNext(it), i++) out[i] = enc(r.value, depth + 1, rec, i);
          return { $t: 'Set', v: out };
        }
        if (proto === DateProto) {
          const t = dateGetTime(v);
          size += 30;
          return { $t: 'Date', v: t === t ? t : null };
        }
        if (proto === RegExpProto) {
          const out = { $t: 'RegExp', source: str(regexpSource(v)), flags: regexpFlags(v) };
          const d = getDesc(v, 'lastIndex');
          if (d && typeof d.value === 'number' && d.value !== 0) out.lastIndex = d.value;
          return out;
        }
        if (proto === BufferProto) {
          const n = bufferByteLength(v);
          size += n * 4 / 3 + 30;
          if (size > ENV_BUDGET) throw OVER;
          const out = { $t: 'ArrayBuffer', b64: toBase64(new U8(v)) };
          if (bufferResizable(v)) out.max = bufferMax(v);
          return out;
        }
        const viewName = mapGet(viewNameOf, proto);
        if (viewName !== undefined) {
          const dv = viewName === 'DataView';
          const buffer = dv ? dataViewBuffer(v) : viewBuffer(v);
          const off = dv ? dataViewOffset(v) : viewOffset(v), bytes = dv ? dataViewByteLength(v) : viewByteLength(v);
          if (mapGet(seen, buffer) === undefined && off === 0 && getProto(buffer) === BufferProto &&
              bytes === bufferByteLength(buffer) && !bufferResizable(buffer)) {
            note(buffer, rec, 'buf');
            size += bytes * 4 / 3 + 30;
            if (size > ENV_BUDGET) throw OVER;
            return { $t: viewName, b64: toBase64(new U8(buffer)) };
          }
          return { $t: viewName, buf: enc(buffer, depth + 1, rec, 'buf'), off, len: dv ? bytes : viewLength(v) };
        }
        if (proto !== null && isPrototypeOf(ErrorProto, v)) {
          let name, message;
          try { name = String(v.name); } catch (e) { name = 'Error'; }
          const m = getDesc(v, 'message'), s = getDesc(v, 'stack'), c = getDesc(v, 'cause');
          try { message = m && hasOwn(m, 'value') ? String(m.value) : ''; } catch (e) { message = ''; }
          const out = { $t: 'Error', name: str(name), message: str(message) };
          if (s && typeof s.value === 'string') out.stack = str(s.value);
          // An enumerable cause (assigned, not given to the constructor) is in p with the other data.
          if (c && hasOwn(c, 'value') && !c.enumerable) out.cause = enc(c.value, depth + 1, rec, 'cause');
          const p = ownData(v, depth, rec, false);
          if (objectKeys(p).length) out.p = p;
          return out;
        }
        if (proto !== null && isPrototypeOf(PromiseProto, v)) return lost('promise');
        return lost('instance', className(proto), { v: ownData(v, depth, rec, false) });
      } catch (e) {
        return unreadable(e);
      }
    };
    let out;
    try { out = enc(root, 0, null, null); } catch (e) {
      if (e !== OVER) throw e;
      out = lost('too-large');
    }
    return stringify(out);
  }

  function decodeEnv(text) {
    const byPath = new MapCtor();  // path key -> the object restored there, for Refs
    const keyOf = (parentKey, step) => parentKey + '\u0001' + (typeof step === 'number' ? step : stringify(step));
    const isTag = (e, t) => typeof e === 'object' && e !== null && e.$t === t;
    const plain = (e, key, out) => {
      mapSet(byPath, key, out);
      const keys = objectKeys(e);
      for (let i = 0; i < keys.length; i++) setOwn(out, keys[i], dec(e[keys[i]], key, keys[i]));
      return out;
    };
    const view = (e, key, name) => {
      const C = VIEWS[name];
      if (typeof e.b64 === 'string') {
        const bytes = fromBase64(e.b64);
        const v = name === 'Uint8Array' ? bytes : new C(bytes.buffer);
        mapSet(byPath, key, v);
        mapSet(byPath, keyOf(key, 'buf'), bytes.buffer);
        return v;
      }
      const buffer = dec(e.buf, key, 'buf');
      if (!(buffer instanceof ArrayBuffer)) throw new TypeError('a view without its buffer');
      const v = new C(buffer, e.off, e.len);
      mapSet(byPath, key, v);
      return v;
    };
    const dec = (e, parentKey, step) => {
      if (e === null || typeof e !== 'object') return e;
      const key = parentKey === null ? '' : keyOf(parentKey, step);
      if (isArray(e)) {
        const out = [];
        mapSet(byPath, key, out);
        let index = 0;  // holes make the array's indexes run ahead of e's
        for (let i = 0; i < e.length; i++) {
          if (isTag(e[i], 'Hole')) index += typeof e[i].n === 'number' && e[i].n >= 1 ? e[i].n : 1;
          else { out[index] = dec(e[i], key, index); index++; }
        }
        out.length = index;
        return out;
      }
      const t = hasOwn(e, '$t') ? e.$t : undefined;
      if (typeof t !== 'string') return plain(e, key, {});
      try {
        switch (t) {
          case 'undefined': case 'Hole': return undefined;
          case 'Num': {
            const n = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 }[e.v];
            if (typeof n === 'number') return n;
            break;
          }
          case 'BigInt': if (typeof e.v === 'string') return toBigInt(e.v); break;
          case 'Str': {
            if (typeof e.v !== 'string' || !isArray(e.lone)) break;
            const parts = [];
            let at = 0;
            for (const [i, c] of e.lone) {
              parts[parts.length] = stringSlice(e.v, at, i) + fromCharCode(c);
              at = i + 1;
            }
            parts[parts.length] = stringSlice(e.v, at);
            return parts.join('');
          }
          case 'Symbol': if (typeof e.for === 'string') return symbolFor(e.for); break;
          case 'Ref': {
            if (!isArray(e.p)) break;
            let k = '';
            for (const s of e.p) k = keyOf(k, s);
            return mapGet(byPath, k);
          }
          case 'Obj':
            if (typeof e.v !== 'object' || e.v === null || isArray(e.v)) break;
            return plain(e.v, key, e.proto === null ? createObject(null) : {});
          case 'Map': {
            if (!isArray(e.v)) break;
            const m = new MapCtor();
            mapSet(byPath, key, m);
            for (let i = 0; i < e.v.length; i++) {
              const entryKey = keyOf(key, i), pair = e.v[i];
              mapSet(m, dec(pair[0], entryKey, 0), dec(pair[1], entryKey, 1));
            }
            return m;
          }
          case 'Set': {
            if (!isArray(e.v)) break;
            const s = new SetCtor();
            mapSet(byPath, key, s);
            for (let i = 0; i < e.v.length; i++) setAdd(s, dec(e.v[i], key, i));
            return s;
          }
          case 'Date': {
            if (e.v !== null && typeof e.v !== 'number') break;
            const d = new DateCtor(e.v === null ? NaN : e.v);
            mapSet(byPath, key, d);
            return d;
          }
          case 'RegExp': {
            if (typeof e.flags !== 'string') break;
            const r = new RegExpCtor(dec(e.source, key, 'source'), e.flags);
            if (typeof e.lastIndex === 'number') r.lastIndex = e.lastIndex;
            mapSet(byPath, key, r);
            return r;
          }
          case 'Error': {
            const C = hasOwn(ERRORS, e.name) ? ERRORS[e.name] : Error;
            const message = dec(e.message, key, 'message');
            const err = C === AggregateError ? new C([], message) : new C(message);
            mapSet(byPath, key, err);
            const hidden = (k, v) => defineProp(err, k, { value: v, writable: true, configurable: true, enumerable: false });
            if (err.name !== e.name) hidden('name', dec(e.name, key, 'name'));
            if (e.stack !== undefined) hidden('stack', dec(e.stack, key, 'stack'));
            if (hasOwn(e, 'cause')) hidden('cause', dec(e.cause, key, 'cause'));
            if (typeof e.p === 'object' && e.p !== null) for (const k of objectKeys(e.p)) setOwn(err, k, dec(e.p[k], key, k));
            return err;
          }
          case 'ArrayBuffer': {
            if (typeof e.b64 !== 'string') break;
            const bytes = fromBase64(e.b64);
            let buffer = bytes.buffer;
            if (typeof e.max === 'number') {
              buffer = new ArrayBuffer(bytes.length, { maxByteLength: e.max });
              new U8(buffer).set(bytes);
            }
            mapSet(byPath, key, buffer);
            return buffer;
          }
          case 'Lost': {
            const tag = { $t: 'Lost', kind: String(e.kind) };
            if (typeof e.name === 'string') tag.name = e.name;
            if (typeof e.why === 'string') tag.why = e.why;
            if (tag.kind === 'instance') {
              // The instance's own data comes back in a plain object that says what it was.
              const out = {};
              defineProp(out, '$lost', { value: lostMessage(tag), enumerable: false });
              weakSet(standIns, out, tag);
              return plain(typeof e.v === 'object' && e.v !== null ? e.v : {}, key, out);
            }
            const out = freeze({ $lost: lostMessage(tag) });
            weakSet(standIns, out, tag);
            mapSet(byPath, key, out);
            return out;
          }
          default:
            if (hasOwn(VIEWS, t)) return view(e, key, t);
        }
      } catch (err) {
        // A tag that does not make sense (a damaged checkpoint, or an old plain one whose data had
        // a "$t" key) is read as the plain object it is.
      }
      return plain(e, key, {});
    };
    return dec(parseJSON(text), null, null);
  }

  // Restores env from a checkpoint (the worker's "restore" message); keeps env when it cannot.
  const restoreEnv = (text) => {
    let v;
    try { v = decodeEnv(text); } catch (e) {
      host.log(`[env] the saved env could not be restored (${whyOf(e)}); env starts empty`);
      v = {};
    }
    const lostAs = v !== null && typeof v === 'object' ? weakGet(standIns, v) : undefined;
    globalThis.env = v !== null && typeof v === 'object' && (lostAs === undefined || lostAs.kind === 'instance') ? v : {};
  };
  // The checkpoint after a successful evaluation (the worker calls this under its own deadline).
  const checkpointEnv = () => encodeEnv(globalThis.env);

  function errorInfo(e) {
    if (e instanceof Error) {
      // User code starts on line 1 of the evaluated script; the wrapper adds none. No column: the
      // wrapper and the console rewrites (a `return`, `globalThis.` for declarations) shift it.
      return { name: e.name, message: e.message, line: e.line,
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
    restoreEnv,
    checkpointEnv,
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

  // The API calls a block started (the safety net for a missing `await`): the block
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
        // The worker then saves env (checkpointEnv) under a deadline of its own.
        host.done(true, text, finalValue);
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

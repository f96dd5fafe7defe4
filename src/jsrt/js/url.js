// URL and URLSearchParams for the REPL, whose JavaScriptCore runs without a browser around it
// (models reach for `new URL(path, tabs[0].url)` as a matter of course). After the URL Standard
// (https://url.spec.whatwg.org/): parsing with a base, the special schemes' rules (default
// ports, backslashes, dot segments, lower-case hosts), the percent-encode sets of each part, the
// setters and an attached URLSearchParams. Left out: IDNA (a non-ASCII host stays as written,
// lower-cased), IPv4 number forms other than dotted decimal, and file: drive letters.
(() => {
  'use strict';
  if (typeof globalThis.URL === 'function') return;

  const SPECIAL = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21', 'file:': '' };
  const C0 = c => c <= 0x1f || c === 0x7f;
  const FRAGMENT = new Set([0x20, 0x22, 0x3c, 0x3e, 0x60]);
  const QUERY = new Set([0x20, 0x22, 0x23, 0x3c, 0x3e]);
  const SPECIAL_QUERY = new Set([...QUERY, 0x27]);
  const PATH = new Set([...QUERY, 0x3f, 0x5e, 0x60, 0x7b, 0x7d]);
  const USERINFO = new Set([...PATH, 0x2f, 0x3a, 0x3b, 0x3d, 0x40, 0x5b, 0x5c, 0x5d, 0x7c]);
  const FORBIDDEN_HOST = /[\u0000\t\n\r #/:<>?@[\\\]^|%]/;

  // Lone surrogates become U+FFFD (a USVString), so encodeURIComponent never throws.
  const usv = s => String(s).replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (m, p) => (p || '') + '\uFFFD');
  function encodeSet(s, set) {
    let out = '';
    for (const ch of s) {
      const c = ch.codePointAt(0);
      out += c > 0x7e || C0(c) || set.has(c) ? encodeURIComponent(ch) : ch;
    }
    return out;
  }

  // Percent-decoding to text; malformed UTF-8 becomes U+FFFD.
  function decode(s) {
    try { return decodeURIComponent(s.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')); } catch (e) { /* bytes that are not UTF-8 */ }
    const bytes = [];
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) { bytes.push(parseInt(s.slice(i + 1, i + 3), 16)); i += 2; }
      else for (const b of unescape(encodeURIComponent(s[i]))) bytes.push(b.charCodeAt(0));
    }
    let out = '';
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i];
      const n = b < 0x80 ? 1 : b >> 5 === 6 ? 2 : b >> 4 === 14 ? 3 : b >> 3 === 30 ? 4 : 0;
      let cp = n === 1 ? b : n === 2 ? b & 31 : n === 3 ? b & 15 : b & 7, ok = n > 0 && i + n <= bytes.length;
      for (let k = 1; ok && k < n; k++) { ok = (bytes[i + k] & 0xc0) === 0x80; cp = cp << 6 | bytes[i + k] & 63; }
      out += ok && cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD';
      i += ok ? n : 1;
    }
    return out;
  }

  const fail = (input, why) => { throw new TypeError(`Invalid URL: ${JSON.stringify(String(input)).slice(0, 200)} (${why})`); };

  function parseHost(text, special, input) {
    if (text.startsWith('[')) {
      if (!/^\[[0-9A-Fa-f:.]+\]$/.test(text)) fail(input, 'bad IPv6 address');
      return text.toLowerCase();
    }
    if (!special) {
      if (/[\u0000\t\n\r #/:<>?@[\\\]^|]/.test(text)) fail(input, 'forbidden character in host');
      return encodeSet(text, new Set());
    }
    const host = decode(text).toLowerCase();
    if (host === '' ) fail(input, 'empty host');
    if (FORBIDDEN_HOST.test(host)) fail(input, 'forbidden character in host');
    return host;
  }

  function removeDots(segments, special) {
    const out = [];
    for (let i = 0; i < segments.length; i++) {
      const s = segments[i].toLowerCase(), last = i === segments.length - 1;
      if (s === '..' || s === '.%2e' || s === '%2e.' || s === '%2e%2e') { out.pop(); if (last) out.push(''); }
      else if (s === '.' || s === '%2e') { if (last) out.push(''); }
      else out.push(segments[i]);
    }
    return special && !out.length ? [''] : out;
  }

  // A record {scheme, username, password, host, port, path: string[] | string (opaque), query, fragment}.
  function parse(input, base) {
    let s = usv(input).replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
    const r = { scheme: '', username: '', password: '', host: null, port: '', path: [], query: null, fragment: null };
    const hash = s.indexOf('#');
    if (hash >= 0) { r.fragment = encodeSet(s.slice(hash + 1), FRAGMENT); s = s.slice(0, hash); }
    const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
    let rest;
    if (m) {
      r.scheme = m[1].toLowerCase() + ':';
      rest = s.slice(m[0].length);
    } else {
      if (!base) fail(input, 'a relative URL needs a base');
      if (typeof base.path === 'string') {
        if (s !== '') fail(input, 'its base cannot have a relative URL');
        return Object.assign({}, base, { fragment: r.fragment });
      }
      r.scheme = base.scheme;
      rest = null;
    }
    const special = r.scheme in SPECIAL;
    const slash = special ? /^[\\/]/ : /^\//;
    const query = t => { const q = t.indexOf('?'); if (q < 0) return t; r.query = encodeSet(t.slice(q + 1), special ? SPECIAL_QUERY : QUERY); return t.slice(0, q); };
    const setPath = (p, from) => {
      const segs = (special ? p.replace(/\\/g, '/') : p).split('/');
      if (segs[0] === '') segs.shift();
      r.path = removeDots([...from, ...segs].map(x => encodeSet(x, PATH)), special);
    };
    const authority = t => {
      const end = t.search(special ? /[\\/?]/ : /[/?]/);
      let auth = end < 0 ? t : t.slice(0, end);
      const after = end < 0 ? '' : t.slice(end);
      const at = auth.lastIndexOf('@');
      if (at >= 0) {
        const info = auth.slice(0, at), colon = info.indexOf(':');
        r.username = encodeSet(colon < 0 ? info : info.slice(0, colon), USERINFO);
        r.password = colon < 0 ? '' : encodeSet(info.slice(colon + 1), USERINFO);
        auth = auth.slice(at + 1);
      }
      const pm = /^(.*?)(?::([^:\]]*))?$/.exec(auth);
      if (pm[2] !== undefined && pm[2] !== '') {
        if (!/^\d+$/.test(pm[2]) || +pm[2] > 65535) fail(input, 'bad port');
        r.port = String(+pm[2]) === SPECIAL[r.scheme] ? '' : String(+pm[2]);
      }
      r.host = r.scheme === 'file:' && pm[1] === '' ? '' : parseHost(pm[1], special, input);
      return after;
    };
    if (rest !== null && !(special && base && base.scheme === r.scheme && !slash.test(rest) && r.scheme !== 'file:')) {
      // An absolute URL.
      if (r.scheme === 'file:') {
        const t = rest.replace(/\\/g, '/');
        setPath(query(t.startsWith('//') ? authority(t.slice(2)) : t), []);
      } else if (special || rest.startsWith('//')) {
        rest = authority(rest.replace(special ? /^[\\/]*/ : /^\/\//, ''));
        setPath(query(rest), []);
      } else {
        r.path = encodeSet(query(rest), new Set());  // an opaque path: mailto:, data:, javascript:, about:
      }
      return r;
    }
    // Relative to the base.
    if (rest !== null) s = rest;  // http:foo against an http base
    r.username = base.username; r.password = base.password; r.host = base.host; r.port = base.port;
    if (special ? /^[\\/]{2}/.test(s) : s.startsWith('//')) {
      r.username = r.password = '';
      const after = authority(s.slice(2));
      setPath(query(after), []);
    } else if (slash.test(s)) {
      setPath(query(s), []);
    } else if (s === '' || s.startsWith('?')) {
      r.path = base.path.slice();
      if (s === '') { r.query = base.query; if (hash < 0) r.fragment = null; }
      else query(s);
    } else {
      setPath(query(s), base.path.slice(0, -1));
    }
    return r;
  }

  const pathText = r => typeof r.path === 'string' ? r.path : (r.host === null && r.path.length > 1 && r.path[0] === '' ? '/.' : '') + r.path.map(p => '/' + p).join('');
  function serialize(r, noFragment) {
    let out = r.scheme;
    if (r.host !== null) {
      out += '//';
      if (r.username || r.password) out += r.username + (r.password ? ':' + r.password : '') + '@';
      out += r.host + (r.port ? ':' + r.port : '');
    }
    out += pathText(r);
    if (r.query !== null) out += '?' + r.query;
    if (!noFragment && r.fragment !== null) out += '#' + r.fragment;
    return out;
  }

  const FORM_KEEP = /[A-Za-z0-9*\-._]/;
  const formEncode = s => { let o = ''; for (const ch of usv(s)) o += ch === ' ' ? '+' : FORM_KEEP.test(ch) ? ch : encodeURIComponent(ch).replace(/[!'()~]/g, c => '%' + c.charCodeAt(0).toString(16).toUpperCase()); return o; };
  const formParse = s => s.split('&').filter(Boolean).map(p => {
    const eq = p.indexOf('=');
    const name = eq < 0 ? p : p.slice(0, eq), value = eq < 0 ? '' : p.slice(eq + 1);
    return [decode(name.replace(/\+/g, ' ')), decode(value.replace(/\+/g, ' '))];
  });

  const RECORD = Symbol('record'), LIST = Symbol('list'), OWNER = Symbol('owner'), PARAMS = Symbol('params'), UPDATE = Symbol('update');

  class URLSearchParams {
    constructor(init = '') {
      this[LIST] = [];
      this[OWNER] = null;
      if (init instanceof URLSearchParams) this[LIST] = init[LIST].map(p => p.slice());
      else if (init !== null && typeof init === 'object') {
        if (typeof init[Symbol.iterator] === 'function') {
          for (const pair of init) {
            const p = Array.from(pair);
            if (p.length !== 2) throw new TypeError('URLSearchParams: each pair needs a name and a value');
            this[LIST].push([usv(p[0]), usv(p[1])]);
          }
        } else for (const k of Object.keys(init)) this[LIST].push([usv(k), usv(init[k])]);
      } else {
        const s = usv(init);
        this[LIST] = formParse(s.startsWith('?') ? s.slice(1) : s);
      }
    }
    get size() { return this[LIST].length; }
    append(name, value) { this[LIST].push([usv(name), usv(value)]); this[UPDATE](); }
    delete(name, value) {
      name = usv(name);
      this[LIST] = this[LIST].filter(([n, v]) => n !== name || (value !== undefined && v !== usv(value)));
      this[UPDATE]();
    }
    get(name) { const p = this[LIST].find(([n]) => n === usv(name)); return p ? p[1] : null; }
    getAll(name) { return this[LIST].filter(([n]) => n === usv(name)).map(p => p[1]); }
    has(name, value) { name = usv(name); return this[LIST].some(([n, v]) => n === name && (value === undefined || v === usv(value))); }
    set(name, value) {
      name = usv(name);
      const i = this[LIST].findIndex(([n]) => n === name);
      if (i < 0) this[LIST].push([name, usv(value)]);
      else { this[LIST][i][1] = usv(value); this[LIST] = this[LIST].filter(([n], k) => n !== name || k === i); }
      this[UPDATE]();
    }
    sort() { this[LIST].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); this[UPDATE](); }
    forEach(fn, thisArg) { for (const [n, v] of this[LIST].slice()) fn.call(thisArg, v, n, this); }
    keys() { return this[LIST].map(p => p[0])[Symbol.iterator](); }
    values() { return this[LIST].map(p => p[1])[Symbol.iterator](); }
    entries() { return this[LIST].map(p => p.slice())[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return this[LIST].map(([n, v]) => formEncode(n) + '=' + formEncode(v)).join('&'); }
    toJSON() { return this.toString(); }
    [UPDATE]() {
      const u = this[OWNER];
      if (!u) return;
      const s = this.toString();
      u[RECORD].query = s === '' ? null : s;
    }
  }
  Object.defineProperty(URLSearchParams.prototype, Symbol.toStringTag, { value: 'URLSearchParams' });

  class URL {
    constructor(url, base) {
      const b = base === undefined ? null : base instanceof URL ? base[RECORD] : parse(base, null);
      this[RECORD] = parse(url, b);
      this[PARAMS] = new URLSearchParams(this[RECORD].query || '');
      this[PARAMS][OWNER] = this;
    }
    static canParse(url, base) { try { new URL(url, base); return true; } catch (e) { return false; } }
    static parse(url, base) { try { return new URL(url, base); } catch (e) { return null; } }
    get href() { return serialize(this[RECORD]); }
    set href(v) {
      this[RECORD] = parse(v, null);
      this[PARAMS][LIST] = formParse(this[RECORD].query || '');
    }
    get origin() {
      const r = this[RECORD];
      if (r.scheme === 'blob:') { try { return new URL(pathText(r)).origin; } catch (e) { return 'null'; } }
      return r.scheme in SPECIAL && r.scheme !== 'file:' ? r.scheme + '//' + r.host + (r.port ? ':' + r.port : '') : 'null';
    }
    get protocol() { return this[RECORD].scheme; }
    set protocol(v) {
      const m = /^([A-Za-z][A-Za-z0-9+.-]*):?/.exec(usv(v));
      if (!m) return;
      const scheme = m[1].toLowerCase() + ':', r = this[RECORD];
      if ((scheme in SPECIAL) !== (r.scheme in SPECIAL) || (scheme === 'file:' && (r.username || r.password || r.port))) return;
      r.scheme = scheme;
      if (r.port === SPECIAL[scheme]) r.port = '';
    }
    get username() { return this[RECORD].username; }
    set username(v) { const r = this[RECORD]; if (r.host && r.scheme !== 'file:') r.username = encodeSet(usv(v), USERINFO); }
    get password() { return this[RECORD].password; }
    set password(v) { const r = this[RECORD]; if (r.host && r.scheme !== 'file:') r.password = encodeSet(usv(v), USERINFO); }
    get host() { const r = this[RECORD]; return r.host === null ? '' : r.host + (r.port ? ':' + r.port : ''); }
    set host(v) {
      const r = this[RECORD];
      if (typeof r.path === 'string') return;
      try {
        const t = parse(r.scheme + '//' + usv(v).split(/[/?#\\]/)[0] + '/', null);
        r.host = t.host;
        if (/:\d+$/.test(usv(v).split(/[/?#\\]/)[0])) r.port = t.port;
      } catch (e) { /* an invalid host is ignored, as in browsers */ }
    }
    get hostname() { const r = this[RECORD]; return r.host === null ? '' : r.host; }
    set hostname(v) {
      const r = this[RECORD];
      if (typeof r.path === 'string') return;
      try { r.host = parse(r.scheme + '//' + usv(v).split(/[:/?#\\]/)[0] + '/', null).host; } catch (e) { /* ignored */ }
    }
    get port() { return this[RECORD].port; }
    set port(v) {
      const r = this[RECORD];
      if (r.host === null || r.host === '' || r.scheme === 'file:') return;
      const d = /^\d*/.exec(usv(v))[0];
      if (d === '') { if (usv(v) === '') r.port = ''; return; }
      if (+d > 65535) return;
      r.port = String(+d) === SPECIAL[r.scheme] ? '' : String(+d);
    }
    get pathname() { return pathText(this[RECORD]); }
    set pathname(v) {
      const r = this[RECORD];
      if (typeof r.path === 'string') return;
      const special = r.scheme in SPECIAL;
      let p = usv(v);
      if (special) p = p.replace(/\\/g, '/');
      const segs = p.split('/');
      if (segs[0] === '' && segs.length > 1) segs.shift();
      r.path = removeDots(segs.map(x => encodeSet(x, PATH)), special);
    }
    get search() { const q = this[RECORD].query; return q ? '?' + q : ''; }
    set search(v) {
      const r = this[RECORD];
      let s = usv(v);
      if (s.startsWith('?')) s = s.slice(1);
      r.query = s === '' ? null : encodeSet(s, r.scheme in SPECIAL ? SPECIAL_QUERY : QUERY);
      this[PARAMS][LIST] = formParse(r.query || '');
    }
    get searchParams() { return this[PARAMS]; }
    get hash() { const f = this[RECORD].fragment; return f ? '#' + f : ''; }
    set hash(v) {
      let s = usv(v);
      if (s.startsWith('#')) s = s.slice(1);
      this[RECORD].fragment = s === '' ? null : encodeSet(s, FRAGMENT);
    }
    toString() { return this.href; }
    toJSON() { return this.href; }
  }
  Object.defineProperty(URL.prototype, Symbol.toStringTag, { value: 'URL' });
  for (const k of ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'searchParams', 'hash'])
    Object.defineProperty(URL.prototype, k, Object.assign(Object.getOwnPropertyDescriptor(URL.prototype, k), { enumerable: true }));

  Object.defineProperty(globalThis, 'URL', { value: URL, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'URLSearchParams', { value: URLSearchParams, writable: true, configurable: true });
})();

// The egress gate's WebSocket guard (browser/egress.cpp), run in every document and worker of a
// gated tab before the page's own scripts. WebSockets cannot be paused like other requests, so
// this refuses, in the page, every WebSocket to a URL outside the run's allowed sites, and takes
// peer connections and WebTransport away.
// The last ALLOWED_PATTERNS is replaced with a JSON array of URLPattern strings before it is
// installed. Workers the page starts get the same guard before their own script.
(function ouroGuard(ALLOWED_PATTERNS) {
  const g = globalThis;
  const Native = g.WebSocket;
  if (!Native || Native.__ouroGuarded) return;
  // The binding ouro added to report refusals: taken away before any page script can call it.
  // Workers have no binding: they report with a request the gate holds and never sends.
  const binding = typeof g.__ouroGateRefused === 'function' ? g.__ouroGateRefused : null;
  try { delete g.__ouroGateRefused; } catch (e) { /* not ours to remove */ }
  const nativeFetch = g.fetch, encode = g.encodeURIComponent;
  const report = binding || ((u) => nativeFetch.call(g, 'http://ouro-gate.invalid/refused?url=' + encode(u)).catch(() => {}));
  const Pattern = g.URLPattern, URLCtor = g.URL, some = Array.prototype.some, base = g.location ? String(g.location.href) : undefined;
  const patterns = [];
  for (const p of ALLOWED_PATTERNS) {
    try { patterns.push(new Pattern(p)); } catch (e) { /* a pattern this browser cannot read allows nothing */ }
  }
  const allowed = (url) => {
    let href;
    try { href = new URLCtor(String(url), base).href; } catch (e) { return false; }
    return some.call(patterns, (p) => p.test(href));
  };
  function WebSocket(url, protocols) {
    if (!new.target) throw new TypeError("Failed to construct 'WebSocket': Please use the 'new' operator.");
    if (!allowed(url)) {
      if (report) try { report(String(url).slice(0, 2000)); } catch (e) { /* reporting is best effort */ }
      throw new DOMException('A WebSocket to ' + String(url).slice(0, 200) + " was refused by ouro's safety gate: it is outside the run's allowed sites.",
                             'SecurityError');
    }
    return Reflect.construct(Native, arguments.length > 1 ? [url, protocols] : [url], new.target === WebSocket ? Native : new.target);
  }
  WebSocket.prototype = Native.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Object.defineProperty(WebSocket, k, {value: Native[k]});
  Object.defineProperty(WebSocket, '__ouroGuarded', {value: true});
  Object.defineProperty(g, 'WebSocket', {value: WebSocket, writable: false, configurable: false, enumerable: false});

  // Peer connections and WebTransport open sockets that no request interception sees (a TURN
  // server's user name is data, sent over UDP or TCP): a tab the run holds has none.
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCIceTransport', 'WebTransport']) {
    if (!(name in g)) continue;
    const refuse = function () {
      throw new DOMException(name + " is not available in a tab an ouro run holds (its safety gate cannot see what it sends).", 'NotSupportedError');
    };
    try { Object.defineProperty(g, name, {value: refuse, writable: false, configurable: false, enumerable: false}); } catch (e) { /* already locked */ }
  }

  // Workers the page starts run this guard first, then their own script.
  const source = '(' + ouroGuard.toString() + ')(' + JSON.stringify(ALLOWED_PATTERNS) + ');\n';
  const BlobCtor = g.Blob, createURL = URLCtor.createObjectURL, stringify = JSON.stringify;
  const wrap = (Native, name) => {
    if (!Native) return;
    const Wrapped = function (url, options) {
      if (!new.target) throw new TypeError("Failed to construct '" + name + "': Please use the 'new' operator.");
      let href;
      try { href = new URLCtor(String(url), base).href; } catch (e) { return Reflect.construct(Native, arguments, Native); }
      const module = options && typeof options === 'object' && options.type === 'module';
      const boot = source + (module ? 'import ' + stringify(href) + ';' : 'importScripts(' + stringify(href) + ');');
      const blob = createURL(new BlobCtor([boot], {type: 'text/javascript'}));
      return Reflect.construct(Native, arguments.length > 1 ? [blob, options] : [blob], Native);
    };
    Wrapped.prototype = Native.prototype;
    Object.defineProperty(g, name, {value: Wrapped, writable: false, configurable: false, enumerable: false});
  };
  wrap(g.Worker, 'Worker');
  wrap(g.SharedWorker, 'SharedWorker');
})(ALLOWED_PATTERNS);

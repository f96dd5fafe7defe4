// The egress gate's in-page guard (browser/egress.cpp), run in every document and worker of a
// gated tab before the page's own scripts, for what request interception cannot hold:
// - WebSockets cannot be paused like other requests: every WebSocket to a URL outside the run's
//   allowed sites is refused here (and by the browser's blocked URLs);
// - peer connections and WebTransport open sockets no interception sees: taken away;
// - what the browser process sends on the page's behalf (identity, payments, background
//   transfers, push, notifications, fetchLater, Web Share): taken away;
// - shared workers belong to no tab (the gate would not see them): a held tab's run as its own
//   dedicated workers;
// - messages on a socket are writes (docs/guides/safety.md): once ouro says the run acted in
//   careful mode, every message sent on a WebSocket of this realm is refused here — a socket
//   cannot wait for the user's answer — unless an action the user approved is working;
// - with REFUSE_WINDOWS (a tab of the user's Chrome, reached through ouro's extension), new
//   windows: chrome.debugger cannot hold a tab a page opens before its first request, so a held
//   tab opens none (window.open, the three-argument document.open, links and forms aimed at a
//   new window, Document Picture-in-Picture). Its decisions use only what the guard captured
//   before the page's scripts ran, never what the page can redefine.
// The last call's ALLOWED_PATTERNS is replaced with a JSON array of URLPattern strings and
// REFUSE_WINDOWS with true or false, SOCKET_WRITES with {refuse, key} before it is installed.
// Workers the page starts get the same guard before their own script.
(function ouroGuard(ALLOWED_PATTERNS, REFUSE_WINDOWS, SOCKET_WRITES) {
  const g = globalThis;
  const Native = g.WebSocket;
  if (!Native || Native.__ouroGuarded) return;
  // The binding ouro added to report refusals: taken away before any page script can call it.
  // Workers have no binding: they report with a request the gate holds and never sends.
  const binding = typeof g.__ouroGateRefused === 'function' ? g.__ouroGateRefused : null;
  try { delete g.__ouroGateRefused; } catch (e) { /* not ours to remove */ }
  const nativeFetch = g.fetch, encode = g.encodeURIComponent, stringify = JSON.stringify;
  const report = binding || ((u) => nativeFetch.call(g, 'http://ouro-gate.invalid/refused?url=' + encode(u)).catch(() => {}));
  const Pattern = g.URLPattern, URLCtor = g.URL, some = Array.prototype.some, base = g.location ? String(g.location.href) : undefined;
  const patterns = [];
  for (const p of ALLOWED_PATTERNS) {
    try { patterns.push(new Pattern(p)); } catch (e) { /* a pattern this browser cannot read allows nothing */ }
  }
  const absolute = (text) => { try { return new URLCtor(text, base).href; } catch (e) { return null; } };
  const allowed = (href) => href !== null && some.call(patterns, (p) => p.test(href));
  function WebSocket(url, protocols) {
    if (!new.target) throw new TypeError("Failed to construct 'WebSocket': Please use the 'new' operator.");
    // Decided on exactly what is passed on: the page's value is turned into a string once (an
    // object's toString may answer differently the second time) and the browser is given the
    // absolute URL that was checked (not one it would resolve against a <base> of the page's).
    const text = String(url), href = absolute(text);
    if (!allowed(href)) {
      if (report) try { report(text.slice(0, 2000)); } catch (e) { /* reporting is best effort */ }
      throw new DOMException('A WebSocket to ' + text.slice(0, 200) + " was refused by ouro's safety gate: it is outside the run's allowed sites.",
                             'SecurityError');
    }
    return Reflect.construct(Native, arguments.length > 1 ? [href, protocols] : [href], new.target === WebSocket ? Native : new.target);
  }
  WebSocket.prototype = Native.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Object.defineProperty(WebSocket, k, {value: Native[k]});
  Object.defineProperty(WebSocket, '__ouroGuarded', {value: true});
  Object.defineProperty(g, 'WebSocket', {value: WebSocket, writable: false, configurable: false, enumerable: false});

  // Messages on a socket. ouro switches writes off with __ouroSocketWrites('refuse') (anyone may:
  // it only takes away) and lets an approved action's messages through with 'approve' and 'end'
  // and a key only ouro knows: it is this call's argument, never in the guard's source (which
  // workers get), so the page can take writes away but never give them back. Every send path of
  // a WebSocket goes through its prototype's send and close, held here before the page runs
  // (another realm's — a fresh frame's — has its own guard in the same state).
  const apply = Reflect.apply;
  const writes = {refuse: !!(SOCKET_WRITES && SOCKET_WRITES.refuse), approved: false};
  const writesKey = SOCKET_WRITES && typeof SOCKET_WRITES.key === 'string' && SOCKET_WRITES.key.length >= 16 ? SOCKET_WRITES.key : null;
  // The workers this realm started boot in its state of writes; one started before the refusal
  // is told with a message, queued ahead of anything this realm sends it afterwards (so nothing
  // the run's action makes the page ask of its worker goes out), whether or not ouro has
  // attached to it yet. Held weakly where the browser can.
  const REFUSED = '__ouroSocketWritesRefused', Weak = g.WeakRef, postToWorker = g.Worker && g.Worker.prototype.postMessage;
  let started = [];
  const keepWorker = (w) => {
    if (started.length >= 64) started = started.filter((r) => (Weak ? r.deref() : r) !== undefined);
    started.push(Weak ? new Weak(w) : w);
  };
  const refuseWrites = () => {
    if (writes.refuse) return;
    writes.refuse = true;
    for (const r of started) {
      const w = Weak ? r.deref() : r;
      if (w) try { apply(postToWorker, w, [REFUSED]); } catch (e) { /* ended */ }
    }
  };
  if (typeof g.DedicatedWorkerGlobalScope === 'function' && g instanceof g.DedicatedWorkerGlobalScope)
    g.addEventListener('message', (e) => { if (e.data === REFUSED) { e.stopImmediatePropagation(); refuseWrites(); } }, true);
  Object.defineProperty(g, '__ouroSocketWrites', {value: function (what, key) {
    if (what === 'refuse') refuseWrites();
    else if (writesKey !== null && key === writesKey && (what === 'approve' || what === 'end')) writes.approved = what === 'approve';
  }, writable: false, configurable: false, enumerable: false});
  const proto = Native.prototype, nativeSend = proto.send, nativeClose = proto.close;
  const socketUrl = Object.getOwnPropertyDescriptor(proto, 'url').get;
  const writesRefused = () => writes.refuse && !writes.approved;
  let sendReports = 0;
  Object.defineProperty(proto, 'send', {value: function send(data) {
    if (!writesRefused()) return apply(nativeSend, this, arguments);
    let where = '';
    try { where = String(apply(socketUrl, this, [])); } catch (e) { return apply(nativeSend, this, arguments); /* not a WebSocket: its own error */ }
    if (report && sendReports < 50) {
      sendReports++;
      try { report(stringify({kind: 'send', url: where.slice(0, 2000)})); } catch (e) { /* reporting is best effort */ }
    }
    throw new DOMException('A message on the WebSocket to ' + where.slice(0, 200) + " was refused by ouro's safety gate: after the run acted, a " +
                           "message on a socket is a write, and a socket cannot wait for the user's answer.", 'NotAllowedError');
  }, writable: false, configurable: false, enumerable: true});
  // A close frame's code and reason carry data too (RFC 6455 §5.5.1): the socket closes without them.
  Object.defineProperty(proto, 'close', {value: function close(code, reason) {
    return apply(nativeClose, this, writesRefused() ? [] : arguments);
  }, writable: false, configurable: false, enumerable: true});

  // Peer connections and WebTransport open sockets that no request interception sees (a TURN
  // server's user name is data, sent over UDP or TCP): a tab the run holds has none.
  // WebSocketStream's writable stream is a send path the guard above does not hold: none either.
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCIceTransport', 'WebTransport', 'WebSocketStream']) {
    if (!(name in g)) continue;
    const refuse = function () {
      throw new DOMException(name + " is not available in a tab an ouro run holds (its safety gate cannot see what it sends).", 'NotSupportedError');
    };
    try { Object.defineProperty(g, name, {value: refuse, writable: false, configurable: false, enumerable: false}); } catch (e) { /* already locked */ }
  }

  takeAwayBrowserRequests();

  // What the browser process sends or fetches on a page's behalf — no request of the tab's, so
  // nothing the gate can pause: an identity provider's endpoints (FedCM,
  // navigator.credentials.get({identity}), IdentityProvider), payment apps (Payment Request),
  // background transfers and wake-ups a service worker asks for (Background Fetch, Background
  // Sync, Periodic Background Sync, Push subscriptions), notification icons, requests deferred
  // past the page's life (fetchLater), and what is shared with another app (Web Share). A tab the
  // run holds has none of them (ouro's own Chromium also starts with them off).
  function takeAwayBrowserRequests() {
    const defineProperty = Object.defineProperty, describe = Object.getOwnPropertyDescriptor, apply = Reflect.apply;
    const refusal = (what) => new DOMException(what + " is not available in a tab an ouro run holds (the browser would send it where its safety gate cannot see).",
                                               'NotAllowedError');
    const lock = (object, name, descriptor) => {
      if (!object || !(name in object)) return;
      try { defineProperty(object, name, Object.assign({configurable: false, enumerable: false}, descriptor)); } catch (e) { /* already locked */ }
    };
    for (const name of ['PaymentRequest', 'IdentityCredential', 'IdentityProvider', 'Notification', 'fetchLater']) {
      const refuse = function () { throw refusal(name); };
      // Pages that look before they ask read a permission that is never given.
      if (name === 'Notification') {
        defineProperty(refuse, 'permission', {value: 'denied'});
        defineProperty(refuse, 'requestPermission', {value: () => Promise.resolve('denied')});
      }
      lock(g, name, {value: refuse, writable: false});
    }
    const registration = g.ServiceWorkerRegistration && g.ServiceWorkerRegistration.prototype;
    for (const name of ['backgroundFetch', 'sync', 'periodicSync', 'pushManager', 'paymentManager']) lock(registration, name, {get: () => undefined});
    lock(registration, 'showNotification', {value: function () { return Promise.reject(refusal('showNotification')); }, writable: false});
    const nav = g.Navigator && g.Navigator.prototype;
    lock(nav, 'share', {value: function () { return Promise.reject(refusal('Web Share')); }, writable: false});
    lock(nav, 'canShare', {value: function () { return false; }, writable: false});
    // Credentials: what the page asks for is copied member by member, each read once, and only
    // the kinds the browser answers without a request of its own go on (never `identity`).
    const Credentials = g.CredentialsContainer && g.CredentialsContainer.prototype;
    const nativeGet = Credentials && describe(Credentials, 'get') && describe(Credentials, 'get').value;
    if (nativeGet)
      lock(Credentials, 'get', {value: function get(options) {
        let copy;
        if (options !== undefined && options !== null) {
          copy = {};
          for (const key of ['password', 'federated', 'publicKey', 'otp', 'mediation', 'signal']) {
            const v = options[key];
            if (v !== undefined) copy[key] = v;
          }
        }
        return apply(nativeGet, this, copy === undefined ? [] : [copy]);
      }, writable: false});
  }

  // Workers the page starts run this guard first (in this realm's state of writes, without the
  // key), then their own script.
  const guardSource = '(' + ouroGuard.toString() + ')(' + stringify(ALLOWED_PATTERNS) + ', false, ';
  const boot = () => guardSource + stringify({refuse: writes.refuse, key: ''}) + ');\n';
  const BlobCtor = g.Blob, createURL = URLCtor.createObjectURL;
  const wrap = (Native, name) => {
    if (!Native) return;
    const Wrapped = function (url, options) {
      if (!new.target) throw new TypeError("Failed to construct '" + name + "': Please use the 'new' operator.");
      let href;
      try { href = new URLCtor(String(url), base).href; } catch (e) { return Reflect.construct(Native, arguments, Native); }
      const module = options && typeof options === 'object' && options.type === 'module';
      const code = boot() + (module ? 'import ' + stringify(href) + ';' : 'importScripts(' + stringify(href) + ');');
      const blob = createURL(new BlobCtor([code], {type: 'text/javascript'}));
      const worker = Reflect.construct(Native, arguments.length > 1 ? [blob, options] : [blob], Native);
      keepWorker(worker);
      return worker;
    };
    Wrapped.prototype = Native.prototype;
    Object.defineProperty(g, name, {value: Wrapped, writable: false, configurable: false, enumerable: false});
  };
  const NativeWorker = g.Worker;
  wrap(g.Worker, 'Worker');
  if (g.SharedWorker && NativeWorker) shareNothing();

  // A shared worker belongs to no tab: Chromium never attaches it to the page that started it,
  // so the gate would not see what it sends. In a held tab `new SharedWorker(url)` runs the same
  // script as a dedicated worker of this page (held like any other), given one `connect` event
  // with the port the page holds: the page and the script work as before, but the instance is
  // not shared with other tabs or other constructions.
  function shareNothing() {
    const Target = g.EventTarget, Channel = g.MessageChannel, post = NativeWorker.prototype.postMessage;
    const addListener = Target.prototype.addEventListener, dispatch = Target.prototype.dispatchEvent, ErrorEv = g.ErrorEvent;
    const ports = new g.WeakMap(), handlers = new g.WeakMap(), mapGet = g.WeakMap.prototype.get, mapSet = g.WeakMap.prototype.set;
    // Runs in the worker before its script: keeps `onconnect`, and turns the page's first
    // message (the port) into the connect event a shared worker's script waits for.
    const shim = '(' + function ouroShared() {
      const s = self;
      let handler = null;
      Object.defineProperty(s, 'onconnect', {get: () => handler, set: (v) => { handler = typeof v === 'function' ? v : null; }, configurable: true});
      const first = (e) => {
        if (e.data !== '__ouroConnect' || !e.ports || e.ports.length !== 1) return;
        e.stopImmediatePropagation();
        s.removeEventListener('message', first, true);
        const ev = new MessageEvent('connect', {data: '', ports: [e.ports[0]]});
        s.dispatchEvent(ev);
        if (handler) handler.call(s, ev);
      };
      s.addEventListener('message', first, true);
    }.toString() + ')();\n';
    function SharedWorker(url, options) {
      if (!new.target) throw new TypeError("Failed to construct 'SharedWorker': Please use the 'new' operator.");
      let href;
      try { href = new URLCtor(String(url), base).href; } catch (e) {
        throw new DOMException("Failed to construct 'SharedWorker': The URL '" + String(url).slice(0, 200) + "' is invalid.", 'SyntaxError');
      }
      const opts = typeof options === 'string' ? {name: options} : (options && typeof options === 'object' ? options : {});
      const module = opts.type === 'module';
      const code = boot() + shim + (module ? 'import ' + stringify(href) + ';' : 'importScripts(' + stringify(href) + ');');
      const worker = Reflect.construct(NativeWorker, [createURL(new BlobCtor([code], {type: 'text/javascript'})),
                                                      {name: String(opts.name === undefined ? '' : opts.name), type: module ? 'module' : 'classic'}], NativeWorker);
      keepWorker(worker);
      const shared = Reflect.construct(Target, [], new.target);
      const channel = new Channel();
      mapSet.call(ports, shared, channel.port1);
      addListener.call(worker, 'error', (e) => {
        const copy = new ErrorEv('error', {message: e.message, filename: e.filename, lineno: e.lineno, colno: e.colno, cancelable: true});
        dispatch.call(shared, copy);
        const h = mapGet.call(handlers, shared);
        if (h) h.call(shared, copy);
      });
      post.call(worker, '__ouroConnect', [channel.port2]);
      return shared;
    }
    SharedWorker.prototype = Object.create(Target.prototype, {
      constructor: {value: SharedWorker, writable: true, configurable: true},
      port: {get() { return mapGet.call(ports, this); }, configurable: true, enumerable: true},
      onerror: {get() { return mapGet.call(handlers, this) || null; },
                set(v) { mapSet.call(handlers, this, typeof v === 'function' ? v : null); }, configurable: true, enumerable: true},
    });
    Object.defineProperty(g, 'SharedWorker', {value: SharedWorker, writable: false, configurable: false, enumerable: false});
  }

  if (REFUSE_WINDOWS && g.document && g.Element) refuseWindows();

  function refuseWindows() {
    const apply = Reflect.apply, defineProperty = Object.defineProperty, describe = Object.getOwnPropertyDescriptor;
    const getter = (proto, name) => { const d = proto && describe(proto, name); return d && d.get; };
    const read = (get, object, fallback) => { try { return get ? apply(get, object, []) : fallback; } catch (e) { return fallback; } };
    const doc = g.document, DocProto = g.Document.prototype, ElementProto = g.Element.prototype;
    const Str = String, getAttribute = ElementProto.getAttribute, closest = ElementProto.closest, matches = ElementProto.matches;
    const qsa = DocProto.querySelectorAll;
    const isConnected = getter(g.Node.prototype, 'isConnected'), listLength = getter(g.NodeList.prototype, 'length');
    const listItem = g.NodeList.prototype.item, toLower = String.prototype.toLowerCase, trim = String.prototype.trim;
    const eventType = getter(g.Event.prototype, 'type'), composedPath = g.Event.prototype.composedPath;
    const preventDefault = g.Event.prototype.preventDefault, eventTarget = getter(g.Event.prototype, 'target');
    const mouse = g.MouseEvent.prototype, ctrlKey = getter(mouse, 'ctrlKey'), metaKey = getter(mouse, 'metaKey');
    const shiftKey = getter(mouse, 'shiftKey'), button = getter(mouse, 'button');
    const submitter = g.SubmitEvent ? getter(g.SubmitEvent.prototype, 'submitter') : null;
    const FormCtor = g.HTMLFormElement, location = g.location, href = getter(g.Location.prototype, 'href') || describe(location, 'href').get;
    // Element tests by captured natives: `instanceof` consults Symbol.hasInstance, which a page can redefine.
    const is = (node, selector) => { try { return apply(matches, node, [selector]); } catch (e) { return false; } };
    const closestOf = (node, selector) => { try { return apply(closest, node, [selector]); } catch (e) { return null; } };
    const attr = (el, name) => { const v = apply(getAttribute, el, [name]); return v === null ? null : Str(v); };
    const here = () => Str(read(href, location, ''));
    const resolve = (url) => { try { return new URLCtor(Str(url), here()).href; } catch (e) { return Str(url); } };

    const refuse = (url) => {
      if (report) try { report(stringify({kind: 'window', url: Str(url === undefined || url === null ? '' : url).slice(0, 2000)})); } catch (e) { /* best effort */ }
    };
    // Whether navigating with this target opens a new top-level window: anything but the current
    // browsing context, its ancestors or a frame of this document by that name.
    const opensWindow = (target) => {
      if (target === null) {
        const bases = apply(qsa, doc, ['base[target]']);
        target = read(listLength, bases, 0) ? attr(apply(listItem, bases, [0]), 'target') : '';
      }
      const t = apply(trim, apply(toLower, Str(target || ''), []), []);
      if (t === '' || t === '_self' || t === '_parent' || t === '_top' || t === '_unfencedtop') return false;
      if (t === '_blank') return true;
      const frames = apply(qsa, doc, ['iframe, frame']);
      for (let i = 0, n = read(listLength, frames, 0); i < n; i++)
        if (attr(apply(listItem, frames, [i]), 'name') === target) return false;
      return true;
    };
    const linkOpensWindow = (link, ev) => {
      if (ev) {  // a modifier or the middle button opens a link in a new tab, whatever its target
        if (read(eventType, ev, '') === 'auxclick' && read(button, ev, 0) === 1) return true;
        if (read(ctrlKey, ev, false) || read(metaKey, ev, false) || read(shiftKey, ev, false)) return true;
      }
      return opensWindow(attr(link, 'target'));
    };
    const formOpensWindow = (form, by) => {
      const own = by && is(by, '*') ? attr(by, 'formtarget') : null;
      return opensWindow(own !== null ? own : attr(form, 'target'));
    };

    // window.open and document.open(url, name, features), which is window.open by another name.
    defineProperty(g, 'open', {value: function open(url) { refuse(url); return null; }, writable: false, configurable: false, enumerable: true});
    const nativeDocOpen = DocProto.open;
    defineProperty(DocProto, 'open', {value: function open(a) {
      if (arguments.length >= 3) { refuse(a); return null; }
      return apply(nativeDocOpen, this, arguments);
    }, writable: false, configurable: false});
    if (g.DocumentPictureInPicture)
      defineProperty(g.DocumentPictureInPicture.prototype, 'requestWindow', {value: function requestWindow() {
        refuse('about:blank');
        return Promise.reject(new DOMException("A new window is not available in a tab an ouro run holds in your Chrome.", 'NotAllowedError'));
      }, writable: false, configurable: false});

    // Links and forms in this document: decided first, before any listener of the page's.
    const seen = new g.WeakSet(), seenHas = g.WeakSet.prototype.has, seenAdd = g.WeakSet.prototype.add;
    const onActivate = (ev) => {
      if (apply(seenHas, seen, [ev])) return;  // decided already, at window or a shadow root on its way
      const path = apply(composedPath, ev, []);
      for (let i = 0; i < path.length; i++) {
        const link = closestOf(path[i], 'a[href], area[href]');
        if (!link) continue;
        apply(seenAdd, seen, [ev]);
        if (linkOpensWindow(link, ev)) { apply(preventDefault, ev, []); refuse(resolve(attr(link, 'href'))); }
        return;
      }
    };
    const onSubmit = (ev) => {
      const form = read(eventTarget, ev, null);
      if (!is(form, 'form') || !formOpensWindow(form, read(submitter, ev, null))) return;
      apply(preventDefault, ev, []);
      refuse(resolve(attr(form, 'action') || here()));
    };
    const listen = (target) => {
      apply(addListener, target, ['click', onActivate, true]);
      apply(addListener, target, ['auxclick', onActivate, true]);
      apply(addListener, target, ['submit', onSubmit, true]);
    };
    const addListener = g.EventTarget.prototype.addEventListener;
    listen(g);
    // An event from inside a closed shadow root reaches window with its path cut at the host:
    // every shadow root made by script, open or closed, is listened to as well. (Roots declared
    // in HTML and kept closed are out of reach; docs/guides/your-browser.md says so.)
    const nativeAttachShadow = ElementProto.attachShadow;
    if (nativeAttachShadow)
      defineProperty(ElementProto, 'attachShadow', {value: function attachShadow() {
        const root = apply(nativeAttachShadow, this, arguments);
        listen(root);
        return root;
      }, writable: false, configurable: false});
    const internalsRoot = g.ElementInternals ? getter(g.ElementInternals.prototype, 'shadowRoot') : null;
    if (internalsRoot)
      defineProperty(g.ElementInternals.prototype, 'shadowRoot', {get: function shadowRoot() {
        const root = apply(internalsRoot, this, []);
        if (root) listen(root);
        return root;
      }, configurable: false});

    // What bypasses this document's listeners: form.submit() fires no submit event, and a click on
    // a link outside the document (a.click() on an element never inserted) has no path to window.
    const HTMLProto = g.HTMLElement.prototype, nativeClick = HTMLProto.click, nativeSubmit = FormCtor.prototype.submit;
    const nativeDispatch = g.EventTarget.prototype.dispatchEvent;
    const detachedLink = (el) => is(el, '*') && !read(isConnected, el, true) ? closestOf(el, 'a[href], area[href]') : null;
    defineProperty(HTMLProto, 'click', {value: function click() {
      const link = detachedLink(this);
      if (link && linkOpensWindow(link, null)) return refuse(resolve(attr(link, 'href')));
      return apply(nativeClick, this, arguments);
    }, writable: false, configurable: false});
    defineProperty(g.EventTarget.prototype, 'dispatchEvent', {value: function dispatchEvent(ev) {
      // Every event a page dispatches comes here: only a click is looked at further.
      const type = read(eventType, ev, '');
      const link = type === 'click' || type === 'auxclick' ? detachedLink(this) : null;
      if (link && linkOpensWindow(link, ev)) { refuse(resolve(attr(link, 'href'))); return false; }
      return apply(nativeDispatch, this, arguments);
    }, writable: false, configurable: false});
    defineProperty(FormCtor.prototype, 'submit', {value: function submit() {
      if (is(this, 'form') && formOpensWindow(this, null)) return refuse(resolve(attr(this, 'action') || here()));
      return apply(nativeSubmit, this, arguments);
    }, writable: false, configurable: false});
  }
})(ALLOWED_PATTERNS, REFUSE_WINDOWS, SOCKET_WRITES);

// Page affordances for ouro (docs/guides/the-repl.md, snapshot and find): a compact map of what a page
// lets you do (snapshot), short stable refs for its elements, one selector language, a
// deterministic ranking of elements for a plain description (find) and rows out of its repeated
// structures (extract). Loaded next to helpers.js into the same isolated world of every document;
// helpers' resolveAll() delegates here. Kept in parts (this folder, one responsibility each) that
// the build joins in name order into one script; no dependencies; every function returns
// JSON-safe values and survives hostile pages (each element is handled inside try/catch, work is
// bounded by counts and a time budget).
//
// API (globalThis.__ouroPcd):
//   snapshot(opts?) -> {
//     url, title, login: 'in'|'out'|'unknown', landmarks: ['header','nav','main',…],
//     actions:     [{ref, role, name, kind?, landmark?, fold?: true (in the first 1.2 viewports),
//                    n?: how many items of collection `col` carry this same action, col?,
//                    score?: with opts.text}],
//     forms:       [{ref, purpose?, landmark?, fields: [{ref, label, type, name?, req?: true,
//                    value?: (non-secret, short), checked?: true, options?: [first labels]}],
//                    moreFields?: N, submit?: {ref, name}}],
//     collections: [{ref, name, fields: ['title','link','price',…], count, shown?: items present
//                    when a virtualised list announces more, landmark?}],
//     frames:      [{ref, url, cross: true}]   cross-origin frames this engine cannot enter,
//     more?:       {actions, forms, collections}  how many were left out,
//     hint?, partial?: true (time budget hit) }
//     opts: {kind?: 'action'|'form'|'collection'|a kind such as 'search', 'login', 'add-to-cart';
//            text?: rank by this text and return the best matches; topK?: overrides the caps
//            (30 actions / 20 forms / 20 collections); within?: landmark name, ref or selector;
//            refPrefix?: prepended to refs issued by this engine (e.g. 'f2' → 'f2e12');
//            debug?: adds {timings, counts}}
//     Throws only for the caller's mistakes (a `within` that matches nothing); page trouble gives
//     a partial answer or {url, title, error}.
//   details(refs) -> [{ref, role, name, selector, alternates: [...], framePath: [...], landmark?,
//                     rect: {x, y, width, height} (top-level viewport), visible, enabled, tag,
//                     href?, value?} | {ref, error}]
//   resolveAll(selector) -> Element[];  resolve(selector) -> Element | null  (grammar: "Selectors"
//     below); throws an Error naming the bad part for an invalid selector, and "… is gone …" for a
//     ref whose element died and could not be found again through its alternates
//   find(description, {topK = 10, role?, within?}) -> [{ref, role, name, landmark?, fold?, kind?,
//     score (0..1, 2 decimals)}], best first, over every interactive element and field
//   extract({collection?, text?, fields?, limit = 500 (≤ 2000)}) ->
//     {collection, name, fields, rows: [{field: value, …, ref}], total, truncated?}
//   role(el) -> string;  accessibleName(el) -> string
(() => {
  if (globalThis.__ouroPcd) return;

  const CAPS = { actions: 30, forms: 20, collections: 20 };
  const MAX_CHARS = 16000;           // serialized snapshot budget (~4,000 tokens)
  const NAME_MAX = 80;
  const TIME_BUDGET = 400;           // ms of DOM work per call before we stop scanning more
  const MAX_CANDIDATES = 8000;       // interactive candidates considered per call
  const MAX_NODES = 400000;          // elements looked at for shadow roots per call

  const now = () => performance.now();
  const WS = /\s+/g;
  const norm = s => (s == null ? '' : String(s)).replace(WS, ' ').trim();
  const clip = (s, n = NAME_MAX) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  const lower = s => s.toLowerCase();
  const tagOf = el => (el && typeof el.localName === 'string' ? el.localName : '');
  const isEl = n => !!n && n.nodeType === 1;
  function attr(el, name) {
    try { return el.getAttribute(name); } catch (_) { return null; }
  }
  function hasAttr(el, name) {
    try { return el.hasAttribute(name); } catch (_) { return false; }
  }
  function tryOr(fn, fallback) {
    try { return fn(); } catch (_) { return fallback; }
  }
  // An error that is the caller's to fix (a bad selector, ref or `within`): passed on as it is
  // where other failures of one candidate are skipped. Decided by this mark, not by its text.
  const userError = message => Object.assign(new Error(message), { ouroUserError: true });
  const isUserError = e => !!(e && e.ouroUserError === true);

  // One call's context: caches and the time budget.
  function newCtx(budget = TIME_BUDGET) {
    return { t0: now(), budget, partial: false, nodes: 0, text: new Map(), names: new Map(), roles: new Map(),
             lm: new Map(), vis: new Map(), rootsUnder: new Map(), offsets: new Map(), idx: new Map() };
  }
  const over = ctx => now() - ctx.t0 > ctx.budget;
  // Phase timings for snapshot({debug: true}).
  function mark(ctx, name) {
    if (!ctx.marks) return;
    const t = now();
    ctx.marks[name] = Math.round((t - ctx.last) * 10) / 10;
    ctx.last = t;
  }


// The page engine's one entry point: every function ouro's C++ calls in its isolated world, by
// name. Browser::call (browser/eval.cpp) sends the name and a JSON array of arguments as values
// (Runtime.callFunctionOn's arguments, never spliced into code text) and gets the JSON result
// back. Loaded last, after affordances.js, binding.js, heal.js and helpers.js, whose functions
// it lists. A name that is not here is an error, not a lookup on some other object.
(() => {
  if (globalThis.__ouroCall) return;
  const O = globalThis.__ouro, P = globalThis.__ouroPcd, B = globalThis.__ouroBind, H = globalThis.__ouroHeal;
  const table = new Map();
  const add = (from, names) => { if (from) for (const n of names) if (typeof from[n] === 'function') table.set(n, from[n]); };
  // The page-affordances engine (affordances.js): snapshot, refs, find, extract, frames.
  add(P, ['snapshot', 'details', 'find', 'extract', 'frames', 'frameBox', 'usePrefix', 'marks', 'resolve']);
  // The command binder (binding.js).
  add(B, ['bind', 'bindKept', 'choose', 'state', 'submitFor', 'setDate']);
  // What identifies an action's target, and finding it again (heal.js).
  add(H, ['identifySelector', 'check', 'heal']);
  // The helpers the capabilities read and act through (helpers.js).
  add(O, ['actionable', 'targetInfo', 'prepareEdit', 'selectOption', 'text', 'readable', 'dom', 'links', 'inputs', 'query', 'queryAll',
          'storage', 'clear', 'scrollState', 'scrollStateSettled', 'afterFrames', 'overlays', 'viewportHeight', 'visibility', 'textLength',
          'pageIncludes', 'hasVisiblePassword', 'masks', 'controlKind', 'focusedEditable', 'holdsFocus', 'optionLabel', 'openedList', 'scrollToRef', 'fileInput']);

  function call(name, args) {
    const fn = table.get(String(name));
    if (!fn) throw new Error(`ouro's page engine has no function '${String(name).slice(0, 80)}'`);
    return fn(...(Array.isArray(args) ? args : []));
  }

  Object.defineProperty(globalThis, '__ouroCall', { value: call, enumerable: false });
})();

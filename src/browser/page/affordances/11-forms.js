  // ---------------------------------------------------------------------------------------------
  // Forms

  const SECRET = /pass|pwd|card|cc-|cvv|cvc|csc|ssn|secret|token|otp|one-time|pin\b|iban|account.?num/i;
  function fieldType(el, role) {
    const t = tagOf(el);
    if (t === 'input') return lower(attr(el, 'type') || 'text');
    if (t === 'select') return el.multiple ? 'select-multiple' : 'select';
    if (t === 'textarea') return 'textarea';
    if (hasAttr(el, 'contenteditable')) return 'richtext';
    return role;
  }
  function fieldSummary(c, ctx, refs) {
    const el = c.el, type = fieldType(el, c.role);
    const f = { ref: refs(el), label: clip(c.name || labelTexts(el, ctx)[0] || norm(attr(el, 'name')) || '', 60), type };
    const nm = attr(el, 'name');
    if (nm && nm.length <= 40 && lower(nm) !== lower(f.label)) f.name = nm;
    if (tryOr(() => el.required, false) || attr(el, 'aria-required') === 'true') f.req = true;
    const secret = type === 'password' || SECRET.test(`${nm || ''} ${attr(el, 'autocomplete') || ''} ${attr(el, 'id') || ''}`);
    if (type === 'checkbox' || type === 'radio' || c.role === 'checkbox' || c.role === 'switch' || c.role === 'radio') {
      if (stateOf(el, 'checked') === true) f.checked = true;
    } else if (!secret) {
      let v = '';
      if (type === 'select' || type === 'select-multiple') v = selectedText(el);
      else if (type === 'richtext') v = textOf(el, ctx);
      else v = tryOr(() => String(el.value ?? ''), '');
      v = norm(v);
      if (v && v.length <= 60) f.value = v;
      else if (v) f.value = clip(v, 40);
    }
    if (tagOf(el) === 'select') {
      const opts = tryOr(() => [...el.options], []);
      if (opts.length) f.options = opts.slice(0, 6).map(o => clip(norm(o.label || o.text), 24));
      if (opts.length > 6) f.nOptions = opts.length;
    }
    return f;
  }
  const SUBMIT_WORDS = /^(search|go|submit|send|sign in|log in|login|sign up|register|continue|next|subscribe|apply|save|create account|join|ok|find|post|reply)$/i;
  function formPurpose(key, fields, submitName) {
    const el = key;
    const types = fields.map(f => f.type);
    const hay = lower(`${attr(el, 'aria-label') || ''} ${el.id || ''} ${typeof el.className === 'string' ? el.className : ''} ` +
      `${attr(el, 'action') || ''} ${attr(el, 'name') || ''} ${attr(el, 'role') || ''} ${submitName || ''} ` +
      fields.map(f => `${f.label} ${f.name || ''}`).join(' '));
    const passwords = types.filter(t => t === 'password').length;
    if (passwords) return passwords > 1 || /sign\s*up|register|create|join/.test(hay) ? 'signup' : 'login';
    if (types.includes('search') || tagOf(el) === 'search' || attr(el, 'role') === 'search' || /search|\bq\b|query|suche/.test(hay)) return 'search';
    if (/sign\s*in|log\s*in|login/.test(hay)) return 'login';
    if (/sign\s*up|register|create account/.test(hay)) return 'signup';
    if (/card.?number|\bcvc\b|\bcvv\b|payment|expir/.test(hay)) return 'payment';
    if (/subscribe|newsletter/.test(hay) && fields.length <= 3) return 'subscribe';
    if (/profile|settings|account|preferences/.test(hay)) return 'profile';
    if (/filter|refine/.test(hay) || (types.filter(t => t === 'checkbox').length >= 3)) return 'filter';
    if (/address|postal|zip/.test(hay)) return 'address';
    if (/comment|reply/.test(hay) && types.includes('textarea')) return 'comment';
    if (/contact|message/.test(hay) && types.includes('textarea')) return 'contact';
    if (fields.length === 1 && /select/.test(types[0]) && /sort|order/.test(hay)) return 'sort';
    return '';
  }

  function formKey(el) {
    try {
      if (el.form) return el.form;
      const k = el.closest('form,[role=form],[role=search],search,fieldset,dialog,[role=dialog]');
      if (k) return k;
      // Loose fields: the nearest small container that also holds a button.
      let cur = el.parentElement;
      for (let i = 0; cur && i < 4; i++, cur = cur.parentElement) {
        if (cur.getElementsByTagName('*').length > 300) break;   // only small containers are "near"
        const n = cur.querySelectorAll('button,input[type=submit],input[type=button],[role=button]').length;
        if (n > 4) break;
        if (n) return cur;
        if (/^(main|body)$/.test(tagOf(cur))) break;
      }
      return tagOf(el.parentElement) === 'label' ? el.parentElement : el;
    } catch (_) { return el; }
  }
  function findSubmit(key, ctx) {
    try {
      const own = [...key.querySelectorAll('button,input[type=submit],input[type=image],[role=button]')];
      if (tagOf(key) === 'form') {
        for (const b of tryOr(() => [...key.elements], [])) if (!own.includes(b) && /^(button|input)$/.test(tagOf(b))) own.push(b);
      }
      const visible = own.filter(b => geom(b, ctx).vis);
      const isForm = tagOf(key) === 'form';
      const typed = visible.find(b => (isForm && tagOf(b) === 'button' && lower(attr(b, 'type') || 'submit') === 'submit') || /^(submit|image)$/i.test(attr(b, 'type') || ''));
      if (typed) return typed;
      return visible.find(b => SUBMIT_WORDS.test(accessibleName(b, ctx)) || /^(submit|search|login|signup|subscribe)$/.test(kindOf(b, accessibleName(b, ctx), 'button', ctx))) ||
        (!isForm && visible.length === 1 ? visible[0] : null) || null;
    } catch (_) { return null; }
  }


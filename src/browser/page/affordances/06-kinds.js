  // ---------------------------------------------------------------------------------------------
  // Kinds: what an action or form is for (keyword sets; short names only).

  const KINDS = [
    ['logout', /\b(sign|log)\s*-?\s*out\b|\blogout\b|\babmelden\b|\bdéconnexion\b/i],
    ['login', /\b(sign|log)\s*-?\s*in\b|\blogin\b|\bsignin\b|\banmelden\b|\bconnexion\b|\biniciar sesi[oó]n\b/i],
    ['signup', /\bsign\s*-?\s*up\b|\bregister\b|\bcreate (an |your |new )?account\b|\bjoin (now|free|us|today)\b|\bregistrieren\b/i],
    ['add-to-cart', /\badd (it )?to (cart|bag|basket|trolley)\b|\bbuy now\b|\bin den warenkorb\b|\bajouter au panier\b/i],
    ['checkout', /\bcheck\s*-?\s*out\b|\bproceed to (checkout|payment)\b|\bplace (your )?order\b|\bpay now\b|\bkasse\b/i],
    ['cart', /\b(shopping )?(cart|basket|bag|trolley)\b|\bwarenkorb\b|\bpanier\b/i],
    ['reject', /\b(reject|decline|deny|refuse)( all)?\b|\bonly (necessary|essential|required)\b|\b(necessary|essential) only\b|\bablehnen\b|\brefuser\b/i],
    ['accept', /\baccept( all)?( cookies)?\b|\bi agree\b|\bagree\b|\ballow (all|cookies)\b|\bakzeptieren\b|\baccepter\b/i],
    ['next', /^(›|»|→|>|>>|older|older posts|more results)$|^next\b(?!-)|\bnext (page|results?)\b/i],
    ['prev', /^(‹|«|←|<|<<|newer|newer posts)$|^prev(ious)?\b(?!-)|\bprev(ious)? (page|results?)\b/i],
    ['load-more', /\b(load|show|see|view) more\b/i],
    ['search', /\bsearch\b|\bsuche\b|\bbuscar\b|\brecherche\b|^find$|^go$|🔍|🔎/i],
    ['dismiss', /^(×|✕|✖|✗|x|close|dismiss|no,? thanks|not now|skip|maybe later|cancel)$|\bclose\b|\bdismiss\b/i],
    ['download', /\bdownload\b|\bexport\b|\.(pdf|csv|xlsx?|zip)\b/i],
    ['delete', /\b(delete|remove|trash|discard)\b/i],
    ['share', /\bshare\b|\btweet\b/i],
    ['filter', /\bfilters?\b|\brefine\b/i],
    ['sort', /\bsort( by)?\b|\border by\b/i],
    ['menu', /^(☰|≡|⋮|⋯|…|menu|main menu|open menu|more options|navigation)$|\bmenu\b|\bhamburger\b/i],
    ['language', /\blanguages?\b|^(english|deutsch|español|français|italiano|português|nederlands|polski|日本語|中文|русский)$/i],
    ['subscribe', /\bsubscribe\b|\bnewsletter\b|\bsign me up\b/i],
    ['account', /\bmy account\b|\baccount\b|\bprofile\b|\bsettings\b|\bdashboard\b|^(hi|hello|welcome),? \S/i],
    ['wishlist', /\bwish\s*list\b|\bfavou?rites?\b|\bsave for later\b/i],
    ['contact', /\bcontact( us)?\b/i],
    ['help', /\bhelp\b|\bsupport\b|\bfaq\b/i],
    ['home', /^(home|home page|homepage)$/i],
    ['edit', /\bedit\b/i],
    ['submit', /^(submit|send|save|continue|apply|confirm|ok|done|go|update|post|reply|next step)$/i],
  ];
  const HREF_KINDS = [
    ['logout', /\/(logout|log-out|signout|sign-out)\b/i], ['login', /\/(login|log-in|signin|sign-in)\b/i],
    ['signup', /\/(signup|sign-up|register|join)\b/i], ['checkout', /\/checkout\b/i], ['cart', /\/(cart|basket|bag)\b/i],
    ['search', /\/search\b/i], ['account', /\/(account|profile|settings)\b/i], ['help', /\/(help|support|faq)\b/i],
  ];
  // Words that can start a kind match: names without any of them (and with letters) skip the regexes.
  const KIND_WORDS = new Set(('sign log login logout signin signup signout register create join add buy check checkout ' +
    'proceed place pay kasse cart basket bag trolley shopping warenkorb panier reject decline deny refuse only necessary ' +
    'essential ablehnen refuser accept agree allow akzeptieren accepter next prev previous older newer more load show see ' +
    'view search suche buscar recherche find go close dismiss no not skip maybe cancel x download export pdf csv xls xlsx ' +
    'zip delete remove trash discard share tweet filter filters refine sort order menu main open hamburger navigation ' +
    'language languages english deutsch español français italiano português nederlands polski subscribe newsletter ' +
    'account profile settings dashboard hi hello welcome wish wishlist favorite favourite favorites favourites save ' +
    'contact help support faq home homepage edit submit send continue apply confirm ok done update post reply abmelden ' +
    'anmelden registrieren connexion déconnexion iniciar in den ajouter au i my step').split(' '));
  const mayKind = name => {
    const l = lower(name);
    if (!/[a-zà-ÿ0-9]/.test(l)) return true;   // only symbols: ›, ×, ☰ …
    for (const w of l.split(/[^a-zà-ÿ]+/)) if (w && KIND_WORDS.has(w)) return true;
    return false;
  };
  const HREF_ANY = new RegExp(HREF_KINDS.map(k => `(?:${k[1].source})`).join('|'), 'i');
  const IMPORTANT = new Set(['search', 'login', 'logout', 'signup', 'next', 'prev', 'add-to-cart', 'checkout', 'cart',
    'menu', 'dismiss', 'accept', 'reject', 'submit', 'load-more']);
  const KIND_NAMES = new Set(KINDS.map(k => k[0]).concat(['page', 'payment', 'address', 'comment']));

  function kindOf(el, name, role, ctx) {
    try {
      if (tagOf(el) === 'a') {
        const rel = lower(attr(el, 'rel') || '');
        if (/\bnext\b/.test(rel)) return 'next';
        if (/\bprev\b/.test(rel)) return 'prev';
      }
      if (name && name.length <= 40 && mayKind(name)) for (const [k, re] of KINDS) if (re.test(name)) return k;
      const type = lower(attr(el, 'type') || '');
      if (type === 'search' || role === 'searchbox') return 'search';
      if (tagOf(el) === 'a') {
        const href = attr(el, 'href') || '';
        if (href && href.length < 300 && HREF_ANY.test(href)) for (const [k, re] of HREF_KINDS) if (re.test(href)) return k;
        if (/^\d{1,4}$/.test(name) && tryOr(() => el.closest('nav,[class*=pagin],[class*=pager],[aria-label*=agin]'), null)) return 'page';
      }
      if (!name || name.length <= 2) {
        const hint = `${attr(el, 'id') || ''} ${typeof el.className === 'string' ? el.className : ''} ${attr(el, 'data-action') || ''}`;
        if (/close|dismiss/i.test(hint)) return 'dismiss';
        if (/search/i.test(hint)) return 'search';
        if (/menu|hamburger|burger/i.test(hint)) return 'menu';
        if (/cart|basket/i.test(hint)) return 'cart';
      }
      if (attr(el, 'aria-haspopup') && /^(true|menu)$/.test(attr(el, 'aria-haspopup')) && role === 'button') return 'menu';
      if (type === 'submit' || (tagOf(el) === 'button' && !type && tryOr(() => !!el.form, false))) return 'submit';
    } catch (_) {}
    return '';
  }


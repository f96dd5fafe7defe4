  // ---------------------------------------------------------------------------------------------
  // Roles (WAI-ARIA 1.2, HTML-AAM implicit roles)

  const ROLES = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code ' +
    'columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed ' +
    'figure form generic grid gridcell group heading img image insertion link list listbox listitem log main mark ' +
    'marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph ' +
    'presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator ' +
    'slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer ' +
    'toolbar tooltip tree treegrid treeitem').split(' '));
  const INPUT_ROLES = { button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    color: 'button', checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox',
    hidden: '' };
  const LIST_INPUTS = new Set(['', 'text', 'search', 'tel', 'url', 'email']);

  function explicitRole(el) {
    const r = attr(el, 'role');
    if (!r) return '';
    for (const t of lower(r).trim().split(WS)) if (ROLES.has(t)) return t === 'image' ? 'img' : t;
    return '';
  }
  function hasOwnName(el) {
    return !!(norm(attr(el, 'aria-label')) || norm(attr(el, 'aria-labelledby')) || norm(attr(el, 'title')));
  }
  function inSectioning(el) {
    const p = el.parentElement;
    return !!(p && p.closest('article,aside,main,nav,section,[role=article],[role=complementary],[role=main],[role=navigation],[role=region]'));
  }
  function implicitRole(el) {
    const t = tagOf(el);
    switch (t) {
      case 'a': case 'area': return hasAttr(el, 'href') ? 'link' : '';
      case 'button': case 'summary': return 'button';
      case 'input': {
        const type = lower(attr(el, 'type') || '');
        if (hasAttr(el, 'list') && LIST_INPUTS.has(type)) return 'combobox';
        return type in INPUT_ROLES ? INPUT_ROLES[type] : 'textbox';
      }
      case 'select': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'img': return attr(el, 'alt') === '' && !hasOwnName(el) ? 'presentation' : 'img';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'header': return inSectioning(el) ? '' : 'banner';
      case 'footer': return inSectioning(el) ? '' : 'contentinfo';
      case 'aside': return 'complementary';
      case 'form': return hasOwnName(el) ? 'form' : '';
      case 'section': return hasOwnName(el) ? 'region' : '';
      case 'search': return 'search';
      case 'article': return 'article';
      case 'dialog': return 'dialog';
      case 'table': return 'table';
      case 'thead': case 'tbody': case 'tfoot': return 'rowgroup';
      case 'tr': return 'row';
      case 'td': return tryOr(() => (el.closest('table') && /grid/.test(explicitRole(el.closest('table')))) ? 'gridcell' : 'cell', 'cell');
      case 'th': {
        const scope = lower(attr(el, 'scope') || '');
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        const row = el.parentElement;
        if (row && row.parentElement && tagOf(row.parentElement) !== 'thead' && row.firstElementChild === el &&
            [...row.children].some(c => tagOf(c) === 'td')) return 'rowheader';
        return 'columnheader';
      }
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'dt': return 'term';
      case 'dd': return 'definition';
      case 'fieldset': case 'details': case 'optgroup': return 'group';
      case 'option': return 'option';
      case 'datalist': return 'listbox';
      case 'figure': return 'figure';
      case 'hr': return 'separator';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'blockquote': return 'blockquote';
      case 'dfn': return 'term';
      case 'time': return 'time';
      case 'html': return 'document';
    }
    return '';
  }
  function roleOf(el, ctx) {
    if (!isEl(el)) return '';
    if (ctx && ctx.roles.has(el)) return ctx.roles.get(el);
    let r = '';
    try { r = explicitRole(el) || implicitRole(el) || ''; } catch (_) {}
    if (ctx) ctx.roles.set(el, r);
    return r;
  }


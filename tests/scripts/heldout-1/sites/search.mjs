import { doc } from '../lib/page.mjs';
// A store search box and its results. Decoys: the help centre's own search (field and button) and a "Search tips" button.
export const CATALOG = ['Brass desk lamp', 'Oak dining chair', 'Floor lamp with shelf', 'Linen armchair', 'Reading lamp, clip-on', 'Walnut side table', 'Folding chair (set of 2)'];
export const results = (q) => CATALOG.filter((n) => n.toLowerCase().includes(q.toLowerCase()));
export default {
  name: 'search',
  task: 'Search the store for "lamp" and give me the names of the products it finds.',
  params: { query: ['lamp', 'chair'] },
  pages: {
    'index.html': (v) => {
      const search = v.w(`<form role="search" id="${v.id('site-search')}" class="${v.c('search')}" onsubmit="return false">
  <input id="${v.id('q')}" name="q" type="search" placeholder="${v.say('Search products', 'Find products')}" aria-label="${v.say('Search products', 'Find products')}">
  ${v.ord(`<button type="submit" id="${v.id('search-btn')}" class="${v.c('btn search-btn')}">${v.say('Search', 'Find')}</button>`, `<button type="button" id="${v.id('tips-btn')}" class="${v.c('btn')}">Search tips</button>`)}
</form>`);
      const help = `<form id="${v.id('help-search')}" class="${v.c('help-search')}" onsubmit="return false"><h3>Help centre</h3>
  <input id="${v.id('help-q')}" type="search" placeholder="Search help articles" aria-label="Search help articles"><button type="submit" id="${v.id('help-btn')}">Search help</button></form>`;
      const results = `<section aria-label="Results"><h2>Results</h2><ul id="${v.id('results')}" class="${v.c('results')}"></ul><p id="${v.id('count')}"></p></section>`;
      return doc({
        title: 'Acme Store',
        body: `<header><strong>Acme Store</strong>${v.moved ? '' : search}</header>
<div class="layout"><main>${v.moved ? search : ''}${v.ord(results, '<p>Spring sale: 20% off lighting.</p>')}</main><aside>${help}</aside></div>`,
        script: `
const $ = (id) => document.getElementById(id);
const CATALOG = ${JSON.stringify(CATALOG)};
__key($('${v.id('q')}'), 'T:q'); __key($('${v.id('search-btn')}'), 'T:search');
__key($('${v.id('help-q')}'), 'D:help-q'); __key($('${v.id('help-btn')}'), 'D:help-btn'); __key($('${v.id('tips-btn')}'), 'D:tips');
$('${v.id('site-search')}').addEventListener('submit', () => {
  const q = $('${v.id('q')}').value.trim(); const hits = CATALOG.filter((n) => n.toLowerCase().includes(q.toLowerCase()));
  $('${v.id('results')}').innerHTML = hits.map((n, i) => '<li class="${v.c('result')}"><a class="${v.c('result-title')}" href="#p' + i + '">' + n + '</a> <span class="${v.c('result-price')}">$' + (19 + i * 7) + '</span></li>').join('');
  $('${v.id('count')}').textContent = hits.length + ' results for "' + q + '"';
  __effect('searched', { q });
});
$('${v.id('help-search')}').addEventListener('submit', () => { $('${v.id('results')}').innerHTML = '<li class="${v.c('result')}"><a class="${v.c('result-title')}" href="#h">How to return an item</a></li>'; __effect('help-searched', {}); });
$('${v.id('tips-btn')}').addEventListener('click', () => __effect('tips', {}));`,
      });
    },
  },
  model: [
    `\`\`\`js\nawait snapshot(activeTab)\n\`\`\``,
    `The search field is #q with a Search button. I'll search.\n\`\`\`js\nawait type(activeTab, '#q', 'lamp');\nawait click(activeTab, '#search-btn');\n\`\`\``,
    `\`\`\`js\nconst items = await querySelectorAll(activeTab, '.result-title');\nenv.names = items.map((i) => i.text.trim());\nenv.names\n\`\`\``,
    `\`\`\`js\nsetFinal(env.names);\n\`\`\``,
  ],
  expect: (p) => ({ final: results(p.query), inputs: { 'T:q': p.query }, clicks: ['T:search'], effects: [['searched', { q: p.query }]] }),
  oracle: (p) => [{ type: ['T:q', p.query] }, { click: 'T:search' }],
  decoys: (p) => [[{ type: ['D:help-q', p.query] }, { click: 'D:help-btn' }], [{ type: ['T:q', p.query] }, { click: 'D:tips' }]],
  readFinal: `[...document.querySelectorAll('#results a, ul a')].filter(a => a.closest('ul')).map(a => a.innerText.trim())`,
};

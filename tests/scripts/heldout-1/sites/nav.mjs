import { doc } from '../lib/page.mjs';
// A product site with a nav menu; the answer is on the Pricing page. Decoys: "Pricing FAQ" beside "Pricing",
// and on the Pricing page the Team plan's annual price and the "Teams for Education" plan beside the Team plan.
const PLANS = [['Solo', '$9'], ['Team', '$29'], ['Teams for Education', '$12'], ['Enterprise', 'Contact us']];
export default {
  name: 'nav',
  task: 'Go to the Pricing page of this site and tell me the monthly price of the Team plan.',
  params: {},
  pages: (() => {
    const menu = (v) => {
      const links = [`<a id="${v.id('nav-home')}" class="${v.c('nav-link')}" href="index.html">Home</a>`, `<a id="${v.id('nav-features')}" class="${v.c('nav-link')}" href="features.html">Features</a>`,
        v.ord(`<a id="${v.id('nav-pricing')}" class="${v.c('nav-link')}" href="pricing.html">${v.say('Pricing', 'Plans & pricing')}</a>`, `<a id="${v.id('nav-faq')}" class="${v.c('nav-link')}" href="faq.html">Pricing FAQ</a>`)];
      return v.w(`<nav aria-label="Main" id="${v.id('main-nav')}" class="${v.c('menu')}">${links.join(' ')}</nav>`);
    };
    const page = (v, title, main) => doc({
      title: `${title} — Fluxly`,
      body: `<header><strong>Fluxly</strong>${v.moved ? '' : menu(v)}</header><div class="layout"><main>${main}</main>${v.moved ? `<aside aria-label="Site menu">${menu(v)}</aside>` : ''}</div><footer><a href="faq.html">FAQ</a> · <a href="about.html">About</a></footer>`,
      script: `
const $ = (id) => document.getElementById(id);
__key($('${v.id('nav-pricing')}'), 'T:nav-pricing'); __key($('${v.id('nav-faq')}'), 'D:nav-faq'); __key($('${v.id('nav-features')}'), 'D:nav-features'); __key($('${v.id('nav-home')}'), 'D:nav-home');
document.querySelectorAll('.${v.c('plan')}').forEach((p) => __key(p, p.dataset.plan === 'Team' ? 'T:team' : 'D:plan-' + p.dataset.plan));
__effect('view', { page: location.pathname.split('/').pop() });`,
    });
    const plan = (v, [n, m]) => `<article class="${v.c('plan plan-' + n.split(' ')[0].toLowerCase())}" data-plan="${n}"><h3>${n}</h3><p class="${v.c('price')}">${m}${m.startsWith('$') ? '<small>/month</small>' : ''}</p>${n === 'Team' ? `<p class="${v.c('annual')}">$290 billed yearly</p>` : ''}<a href="#">Choose ${n}</a></article>`;
    return {
      'index.html': (v) => page(v, 'Home', `<h1>Flow for every team</h1><p>Fluxly keeps your work moving.</p>`),
      'features.html': (v) => page(v, 'Features', `<h1>Features</h1><p>Boards, docs and chat.</p>`),
      'faq.html': (v) => page(v, 'Pricing FAQ', `<h1>Pricing FAQ</h1><p>Can I change plans? Yes, any time. The Team plan costs $25 per month when billed yearly.</p>`),
      'about.html': (v) => page(v, 'About', `<h1>About</h1>`),
      'pricing.html': (v) => page(v, 'Pricing', `<h1>Pricing</h1><div class="${v.c('plans')}">${v.ord(...PLANS.map((p) => plan(v, p)))}</div>`),
    };
  })(),
  model: [
    `\`\`\`js\nawait snapshot(activeTab)\n\`\`\``,
    `The menu has a Pricing link (#nav-pricing).\n\`\`\`js\nawait click(activeTab, '#nav-pricing');\nawait waitForLoad(activeTab);\n(await getText(activeTab, 'h1'))\n\`\`\``,
    `\`\`\`js\nconst price = await getText(activeTab, '.plan-team .price');\nsetFinal(price.replace('/month', '').trim());\n\`\`\``,
  ],
  expect: () => ({ final: '$29', inputs: {}, clicks: ['T:nav-pricing'], effects: [['view', { page: 'pricing.html' }]] }),
  oracle: () => [{ click: 'T:nav-pricing' }],
  decoys: () => [[{ click: 'D:nav-faq' }]],
  readFinal: `(() => { const p = [...document.querySelectorAll('article')].find((a) => a.dataset.plan === 'Team'); return p ? p.querySelector('p').innerText.replace('/month', '').trim() : null; })()`,
};

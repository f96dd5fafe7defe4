import { doc } from '../lib/page.mjs';
// A star-rating widget in an open shadow root. Decoys: a second, identical widget for the delivery, a "Clear" button
// beside "Submit rating", and the 3- and 5-star buttons beside the 4-star one.
export default {
  name: 'rating',
  task: 'Rate the product 4 stars with the product rating widget, submit it, and tell me the thank-you message.',
  params: {},
  pages: {
    'index.html': (v) => {
      const widget = (id, label) => v.w(`<star-rating id="${v.id(id)}" class="${v.c('rating ' + id)}" data-label="${label}"></star-rating>`);
      const product = `<section aria-label="Rate this product"><h2>${v.say('Rate this product', 'How did you like it?')}</h2>${widget('product-rating', 'Product')}</section>`;
      const delivery = `<section aria-label="Rate the delivery"><h2>Rate the delivery</h2>${widget('delivery-rating', 'Delivery')}</section>`;
      return doc({
        title: 'Your order — Acme',
        body: `<header><strong>Acme</strong> Orders</header>
<div class="layout"><main><h1>Order #8812 delivered</h1>${v.moved ? '' : v.ord(product, delivery)}<p id="${v.id('thanks')}" class="${v.c('thanks')}" role="status"></p></main>
<aside aria-label="Feedback">${v.moved ? v.ord(product, delivery) : '<p>Need help with your order?</p>'}</aside></div>`,
        script: `
customElements.define('star-rating', class extends HTMLElement {
  connectedCallback() {
    const root = this.attachShadow({ mode: 'open' }); const who = this.dataset.label;
    const stars = ${v.reordered ? '[5, 4, 3, 2, 1]' : '[1, 2, 3, 4, 5]'};
    root.innerHTML = '<style>button{font:inherit;margin:2px}.on{background:#fc3}</style><div class="${v.c('stars')}" role="radiogroup" aria-label="' + who + ' rating">' +
      stars.map((n) => '<button type="button" class="${v.c('star')}" data-value="' + n + '" role="radio" aria-checked="false" aria-label="' + n + ' star' + (n > 1 ? 's' : '') + '">' + '★'.repeat(n) + '</button>').join('') +
      '</div><button type="button" class="${v.c('submit')}">${v.say('Submit rating', 'Send rating')}</button> <button type="button" class="${v.c('clear')}">Clear</button>';
    let value = 0; const prod = who === 'Product';
    root.querySelectorAll('[data-value]').forEach((b) => { __key(b, (prod && b.dataset.value === '4' ? 'T:' : 'D:' + who + '-') + 'star' + b.dataset.value);
      b.addEventListener('click', () => { value = +b.dataset.value; root.querySelectorAll('[data-value]').forEach((x) => { x.classList.toggle('on', +x.dataset.value <= value); x.setAttribute('aria-checked', String(x === b)); }); }); });
    __key(root.querySelector('.${v.c('submit')}'), prod ? 'T:submit' : 'D:' + who + '-submit'); __key(root.querySelector('.${v.c('clear')}'), 'D:' + who + '-clear');
    root.querySelector('.${v.c('submit')}').addEventListener('click', () => { if (!value) return; document.getElementById('${v.id('thanks')}').textContent = 'Thanks! You rated the ' + who.toLowerCase() + ' ' + value + '/5.'; __effect('rated', { who, value }); });
    root.querySelector('.${v.c('clear')}').addEventListener('click', () => { value = 0; __effect('cleared', { who }); });
  }
});
__key(document.getElementById('${v.id('thanks')}'), 'T:thanks');`,
      });
    },
  },
  model: [
    `\`\`\`js\nawait snapshot(activeTab)\n\`\`\``,
    `The widget is <star-rating id="product-rating"> with buttons in its shadow root.\n\`\`\`js\nawait click(activeTab, '#product-rating >> button[data-value="4"]');\nawait click(activeTab, '#product-rating >> button.submit');\n\`\`\``,
    `\`\`\`js\nsetFinal((await getText(activeTab, '#thanks')).trim());\n\`\`\``,
  ],
  expect: () => ({ final: 'Thanks! You rated the product 4/5.', inputs: {}, clicks: ['T:star4', 'T:submit'], effects: [['rated', { who: 'Product', value: 4 }]] }),
  oracle: () => [{ click: 'T:star4' }, { click: 'T:submit' }],
  decoys: () => [[{ click: 'D:Delivery-star4' }, { click: 'D:Delivery-submit' }], [{ click: 'D:Product-star5' }, { click: 'T:submit' }]],
  readFinal: `__textOf('T:thanks')`,
};

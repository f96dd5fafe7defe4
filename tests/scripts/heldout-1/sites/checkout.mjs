import { doc } from '../lib/page.mjs';
// A checkout's shipping address. Decoys: the billing address's fields (same labels), a coupon field, "Save for later".
const F = [['name', 'Full name'], ['street', 'Street address'], ['city', 'City'], ['zip', 'ZIP / Postcode']];
export default {
  name: 'checkout',
  task: 'Check out with shipping to "Ada Lovelace", "12 Analytical Way", "London", "NW1 2AB", United Kingdom, and tell me the confirmation.',
  params: { city: ['London', 'Manchester'], name: ['Ada Lovelace', 'Grace Hopper'] },
  pages: {
    'index.html': (v) => {
      const fields = (pre, kind) => F.map(([n, l]) => `<label for="${v.id(pre + n)}">${n === 'city' ? v.say(l, 'Town / City') : l}</label><input id="${v.id(pre + n)}" name="${kind}_${n}">`);
      const ship = v.w(`<fieldset id="${v.id('shipping')}" class="${v.c('address shipping')}"><legend>Shipping address</legend>${v.ord(...fields('', 'ship'))}
  <label for="${v.id('country')}">Country</label><select id="${v.id('country')}" name="ship_country"><option value="">Choose…</option><option value="FR">France</option><option value="GB">United Kingdom</option><option value="US">United States</option></select></fieldset>`);
      const bill = `<fieldset id="${v.id('billing')}" class="${v.c('address billing')}"><legend>Billing address</legend>${fields('bill-', 'bill').join('')}</fieldset>`;
      const coupon = `<div class="${v.c('coupon')}"><label for="${v.id('coupon')}">Coupon code</label><input id="${v.id('coupon')}"><button type="button" id="${v.id('apply')}">Apply</button></div>`;
      const buttons = v.ord(`<button type="button" id="${v.id('place-order')}" class="${v.c('btn btn-primary')}">${v.say('Place order', 'Complete purchase')}</button>`,
        `<button type="button" id="${v.id('save-later')}" class="${v.c('btn')}">Save for later</button>`);
      return doc({
        title: 'Checkout — Acme',
        body: `<header><strong>Acme</strong> Checkout</header>
<div class="layout"><main><h1>Checkout</h1><form id="${v.id('checkout')}" onsubmit="return false">${v.ord(ship, bill)}${coupon}${v.moved ? '' : buttons}</form>
<p id="${v.id('confirmation')}" class="${v.c('order-confirmation')}" role="status"></p></main>
<aside aria-label="Order summary"><h2>Order summary</h2><p>1 × Brass desk lamp — $49.00</p>${v.moved ? buttons : ''}</aside></div>`,
        script: `
const $ = (id) => document.getElementById(id);
${JSON.stringify(F.map((f) => f[0]))}.forEach((n) => { __key($({ name: '${v.id('name')}', street: '${v.id('street')}', city: '${v.id('city')}', zip: '${v.id('zip')}' }[n]), 'T:' + n);
  __key($({ name: '${v.id('bill-name')}', street: '${v.id('bill-street')}', city: '${v.id('bill-city')}', zip: '${v.id('bill-zip')}' }[n]), 'D:bill-' + n); });
__key($('${v.id('country')}'), 'T:country'); __key($('${v.id('place-order')}'), 'T:place-order');
__key($('${v.id('save-later')}'), 'D:save-later'); __key($('${v.id('coupon')}'), 'D:coupon'); __key($('${v.id('apply')}'), 'D:apply');
__key($('${v.id('confirmation')}'), 'T:confirmation');
$('${v.id('place-order')}').addEventListener('click', () => {
  const g = (id) => $(id).value.trim(); const sel = $('${v.id('country')}');
  const a = { name: g('${v.id('name')}'), street: g('${v.id('street')}'), city: g('${v.id('city')}'), zip: g('${v.id('zip')}'), country: sel.options[sel.selectedIndex].text };
  if (!a.name || !a.street || !a.city || !a.zip || !sel.value) { $('${v.id('confirmation')}').textContent = 'Please complete the shipping address.'; __effect('incomplete', a); return; }
  $('${v.id('confirmation')}').textContent = 'Order confirmed — shipping to ' + [a.name, a.street, a.city, a.zip, a.country].join(', ');
  __effect('ordered', a);
});
$('${v.id('save-later')}').addEventListener('click', () => { $('${v.id('confirmation')}').textContent = 'Cart saved for later.'; __effect('saved-for-later', {}); });`,
      });
    },
  },
  model: [
    `\`\`\`js\nconst inputs = await getInputs(activeTab);\ninputs.map((i) => i.id + ' ' + (i.label || ''))\n\`\`\``,
    `The shipping fields are #name, #street, #city, #zip and #country.\n\`\`\`js\nawait fill(activeTab, { '#name': 'Ada Lovelace', '#street': '12 Analytical Way', '#city': 'London', '#zip': 'NW1 2AB' });\nawait select(activeTab, '#country', 'United Kingdom');\n\`\`\``,
    `\`\`\`js\nawait click(activeTab, 'text="Place order"');\nconst c = await getText(activeTab, '.order-confirmation');\nenv.confirmation = c.trim();\nenv.confirmation\n\`\`\``,
    `\`\`\`js\nsetFinal(env.confirmation);\n\`\`\``,
  ],
  expect: (p) => {
    const a = { name: p.name, street: '12 Analytical Way', city: p.city, zip: 'NW1 2AB', country: 'United Kingdom' };
    return { final: 'Order confirmed — shipping to ' + Object.values(a).join(', '), inputs: { 'T:name': p.name, 'T:city': p.city, 'T:zip': 'NW1 2AB' }, clicks: ['T:place-order'], effects: [['ordered', a]] };
  },
  oracle: (p) => [{ fill: ['T:name', p.name] }, { fill: ['T:street', '12 Analytical Way'] }, { fill: ['T:city', p.city] }, { fill: ['T:zip', 'NW1 2AB'] }, { select: ['T:country', 'GB'] }, { click: 'T:place-order' }],
  decoys: (p) => [
    [{ fill: ['T:name', p.name] }, { fill: ['T:street', '12 Analytical Way'] }, { fill: ['D:bill-city', p.city] }, { fill: ['T:zip', 'NW1 2AB'] }, { select: ['T:country', 'GB'] }, { click: 'T:place-order' }],
    [{ fill: ['T:name', p.name] }, { fill: ['T:street', '12 Analytical Way'] }, { fill: ['T:city', p.city] }, { fill: ['T:zip', 'NW1 2AB'] }, { select: ['T:country', 'GB'] }, { click: 'D:save-later' }],
  ],
  readFinal: `__textOf('T:confirmation')`,
};

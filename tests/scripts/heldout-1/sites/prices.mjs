import { doc } from '../lib/page.mjs';
// A price table to extract. Decoys: the "Was" (old price) column beside the current price, a "Recently viewed" table with other prices.
export const LAPTOPS = [['Aero 13', 899, 1099], ['Boreal 14 Pro', 1349, 1499], ['Cirrus 15', 749, 799], ['Delta 16 Studio', 2199, 2399]];
const VIEWED = [['Aero 13 sleeve', 39], ['Boreal dock', 189]];
export default {
  name: 'prices',
  task: 'From the catalogue table, list every laptop with its current price (not the old price) as {name, price}.',
  params: {},
  pages: {
    'index.html': (v) => {
      const cols = v.reordered ? ['was', 'now'] : ['now', 'was'];
      const head = { now: v.say('Price', 'Our price'), was: 'Was' };
      const cell = (c, row) => c === 'now' ? `<td class="${v.c('price-now')}">$${row[1].toLocaleString('en-US')}.00</td>` : `<td class="${v.c('price-was')}"><s>$${row[2].toLocaleString('en-US')}.00</s></td>`;
      const table = v.w(`<table id="${v.id('catalog')}" class="${v.c('catalog')}"><caption>Laptops</caption><thead><tr><th>Model</th>${cols.map((c) => `<th>${head[c]}</th>`).join('')}</tr></thead>
<tbody>${LAPTOPS.map((r) => `<tr><td class="${v.c('name')}">${r[0]}</td>${cols.map((c) => cell(c, r)).join('')}</tr>`).join('\n')}</tbody></table>`);
      const viewed = `<table id="${v.id('recent')}" class="${v.c('recent')}"><caption>Recently viewed</caption><thead><tr><th>Item</th><th>Price</th></tr></thead><tbody>${VIEWED.map((r) => `<tr><td class="${v.c('name')}">${r[0]}</td><td class="${v.c('price-now')}">$${r[1]}.00</td></tr>`).join('')}</tbody></table>`;
      return doc({
        title: 'Laptops — Acme',
        body: `<header><strong>Acme</strong> Laptops</header>
<div class="layout"><main><h1>Laptops</h1>${v.moved ? '<p>All prices include VAT.</p>' : table}${v.reordered ? '' : ''}</main><aside>${v.moved ? table : ''}${viewed}</aside></div>`,
        script: `
document.querySelectorAll('#${v.id('catalog')} tbody tr').forEach((tr) => __key(tr, 'T:row'));
document.querySelectorAll('#${v.id('recent')} tbody tr').forEach((tr) => __key(tr, 'D:recent-row'));
window.__oracleRows = () => [...document.querySelectorAll('#${v.id('catalog')} tbody tr')].map((tr) => ({ name: tr.querySelector('.${v.c('name')}').innerText.trim(), price: Number(tr.querySelector('.${v.c('price-now')}').innerText.replace(/[^0-9.]/g, '')) }));`,
      });
    },
  },
  model: [
    `\`\`\`js\nconst s = await snapshot(activeTab);\ns.collections\n\`\`\``,
    `\`\`\`js\nenv.rows = env.table.map((r) => r.name);\n\`\`\``,
    `That failed: env.table is not set yet. I'll read the table rows in the page.\n\`\`\`js\nenv.rows = await execInTab(activeTab, \`[...document.querySelectorAll('#catalog tbody tr')].map((tr) => ({ name: tr.querySelector('.name').innerText.trim(), price: Number(tr.querySelector('.price-now').innerText.replace(/[^0-9.]/g, '')) }))\`);\nenv.rows\n\`\`\``,
    `\`\`\`js\nsetFinal(env.rows);\n\`\`\``,
  ],
  probe: ['#catalog tbody tr', '#catalog .price-now'],
  expect: () => ({ final: LAPTOPS.map((r) => ({ name: r[0], price: r[1] })), inputs: {}, clicks: [], effects: [] }),
  oracle: () => [],
  decoys: () => [],
  // Wrong readings a careless model could make: the old prices, or every table on the page.
  decoyReads: [
    `[...document.querySelectorAll('caption')].find((c) => c.innerText === 'Laptops').closest('table').querySelectorAll('tbody tr').length && [...[...document.querySelectorAll('caption')].find((c) => c.innerText === 'Laptops').closest('table').querySelectorAll('tbody tr')].map((tr) => ({ name: tr.cells[0].innerText.trim(), price: Number(tr.querySelector('s').innerText.replace(/[^0-9.]/g, '')) }))`,
    `[...document.querySelectorAll('tbody tr')].map((tr) => ({ name: tr.cells[0].innerText.trim(), price: Number([...tr.cells].find((c) => !c.querySelector('s') && /\\$/.test(c.innerText)).innerText.replace(/[^0-9.]/g, '')) }))`,
  ],
  readFinal: `__oracleRows()`,
};

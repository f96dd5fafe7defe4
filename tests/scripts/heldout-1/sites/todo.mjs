import { doc } from '../lib/page.mjs';
// A to-do list: add an item, complete another. Decoys: "Call the plumber" beside "Call the bank", each item's Delete, "Clear completed".
const ITEMS = ['Call the bank', 'Call the plumber', 'Water the plants'];
export default {
  name: 'todo',
  task: 'Add "Buy milk" to my to-do list, mark "Call the bank" as done, and tell me what the counter says.',
  params: { item: ['Buy milk', 'Pay the rent'] },
  pages: {
    'index.html': (v) => {
      const order = v.reordered ? [1, 0, 2] : [0, 1, 2];
      const li = (i) => `<li id="${v.id('todo-' + (i + 1))}" class="${v.c('todo-item')}">${v.w(`<input type="checkbox" class="${v.c('toggle')}" aria-label="Done: ${ITEMS[i]}"> <span class="${v.c('title')}">${ITEMS[i]}</span> <button type="button" class="${v.c('delete')}" aria-label="Delete ${ITEMS[i]}">Delete</button>`)}</li>`;
      const adder = `<form id="${v.id('add-form')}" class="${v.c('add')}" onsubmit="return false">${v.ord(`<input id="${v.id('new-todo')}" placeholder="${v.say('What needs to be done?', 'New task')}" aria-label="New to-do">`,
        `<button type="submit" id="${v.id('add-todo')}" class="${v.c('btn')}">${v.say('Add', 'Add task')}</button>`)}</form>`;
      const list = `<section aria-label="To-do list"><ul id="${v.id('todo-list')}" class="${v.c('todo-list')}">${order.map(li).join('')}</ul>
<p><span id="${v.id('open-count')}" class="${v.c('count')}">3 tasks left</span> <button type="button" id="${v.id('clear')}">Clear completed</button></p></section>`;
      return doc({
        title: 'To-do',
        body: `<header><strong>Tasks</strong></header><div class="layout"><main><h1>My to-dos</h1>${v.moved ? '' : adder}${list}</main><aside>${v.moved ? '<h2>Quick add</h2>' + adder : '<p>Tip: press Enter to add.</p>'}</aside></div>`,
        script: `
const $ = (id) => document.getElementById(id); const list = $('${v.id('todo-list')}');
const keyItem = (li, i) => { const t = li.querySelector('.${v.c('title')}').textContent; const k = t === 'Call the bank' ? 'T:bank' : 'D:item-' + t;
  __key(li.querySelector('input'), k); __key(li.querySelector('.${v.c('delete')}'), 'D:delete-' + t); };
list.querySelectorAll('li').forEach(keyItem);
__key($('${v.id('new-todo')}'), 'T:new'); __key($('${v.id('add-todo')}'), 'T:add'); __key($('${v.id('clear')}'), 'D:clear'); __key($('${v.id('open-count')}'), 'T:count');
const count = () => { const n = [...list.querySelectorAll('li input')].filter((c) => !c.checked).length; $('${v.id('open-count')}').textContent = n + (n === 1 ? ' task left' : ' tasks left'); };
list.addEventListener('change', (e) => { const t = e.target.closest('li').querySelector('.${v.c('title')}').textContent; __effect(e.target.checked ? 'done' : 'undone', { item: t }); count(); });
list.addEventListener('click', (e) => { if (e.target.closest('.${v.c('delete')}')) { const li = e.target.closest('li'); __effect('deleted', { item: li.querySelector('.${v.c('title')}').textContent }); li.remove(); count(); } });
$('${v.id('add-form')}').addEventListener('submit', () => { const t = $('${v.id('new-todo')}').value.trim(); if (!t) return;
  const li = document.createElement('li'); li.className = '${v.c('todo-item')}'; li.innerHTML = '<input type="checkbox" class="${v.c('toggle')}"> <span class="${v.c('title')}"></span> <button type="button" class="${v.c('delete')}">Delete</button>';
  li.querySelector('span').textContent = t; list.appendChild(li); __key(li.querySelector('input'), 'N:new-item'); __key(li.querySelector('button'), 'D:delete-new');
  $('${v.id('new-todo')}').value = ''; __effect('added', { item: t }); count(); });
$('${v.id('clear')}').addEventListener('click', () => __effect('clear-completed', {}));`,
      });
    },
  },
  model: [
    `\`\`\`js\nawait getText(activeTab)\n\`\`\``,
    `\`\`\`js\nawait type(activeTab, '#new-todo', 'Buy milk');\nawait click(activeTab, '#add-todo');\n\`\`\``,
    `"Call the bank" is the first item, #todo-1.\n\`\`\`js\nawait click(activeTab, '#todo-1 input[type=checkbox]');\nconst c = await getText(activeTab, '#open-count');\nsetFinal(c.trim());\n\`\`\``,
  ],
  expect: (p) => ({ final: '3 tasks left', inputs: { 'T:new': p.item }, clicks: ['T:add', 'T:bank'], effects: [['added', { item: p.item }], ['done', { item: 'Call the bank' }]] }),
  oracle: (p) => [{ type: ['T:new', p.item] }, { click: 'T:add' }, { click: 'T:bank' }],
  decoys: (p) => [[{ type: ['T:new', p.item] }, { click: 'T:add' }, { click: 'D:item-Call the plumber' }],
    [{ type: ['T:new', p.item] }, { click: 'T:add' }, { click: 'D:delete-Call the bank' }]],
  readFinal: `__textOf('T:count')`,
};

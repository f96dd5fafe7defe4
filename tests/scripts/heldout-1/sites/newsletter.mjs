import { doc } from '../lib/page.mjs';
// A newsletter signup in the footer. Decoys: the contact form's Email field and Send button in the page,
// and an "Unsubscribe" button beside "Subscribe".
export default {
  name: 'newsletter',
  task: 'Sign "ada@example.com" up for the newsletter at the bottom of the page and tell me the confirmation message.',
  params: { email: ['ada@example.com', 'grace@example.org'] },
  pages: {
    'index.html': (v) => {
      const signup = v.w(`<form id="${v.id('nl-form')}" class="${v.c('newsletter')}" onsubmit="return false"><h2>Our newsletter</h2>
  <label for="${v.id('nl-email')}">${v.say('Email', 'E-mail address')}</label><input type="email" id="${v.id('nl-email')}" name="nl_email" placeholder="you@example.com">
  ${v.ord(`<button type="submit" id="${v.id('nl-subscribe')}" class="${v.c('btn')}">${v.say('Subscribe', 'Sign me up')}</button>`, `<button type="button" id="${v.id('nl-unsubscribe')}" class="${v.c('btn btn-link')}">Unsubscribe</button>`)}
  <p id="${v.id('nl-status')}" class="${v.c('nl-status')}" role="status"></p></form>`);
      const contact = `<form id="${v.id('contact')}" class="${v.c('contact')}" onsubmit="return false"><h2>Contact us</h2><label for="${v.id('contact-email')}">Email</label><input type="email" id="${v.id('contact-email')}">
  <label for="${v.id('contact-msg')}">Message</label><textarea id="${v.id('contact-msg')}"></textarea><button type="submit" id="${v.id('contact-send')}">Send</button><p id="${v.id('contact-status')}"></p></form>`;
      return doc({
        title: 'Acme Journal',
        body: `<header><strong>Acme Journal</strong></header>
<div class="layout"><main><h1>Stories</h1><article><h2>Slow mornings</h2><p>On coffee, light and patience.</p></article>${contact}</main><aside aria-label="Sidebar">${v.moved ? signup : '<p>Popular: Slow mornings.</p>'}</aside></div>
<footer>${v.moved ? '' : signup}<p>© Acme Journal</p></footer>`,
        script: `
const $ = (id) => document.getElementById(id);
__key($('${v.id('nl-email')}'), 'T:nl-email'); __key($('${v.id('nl-subscribe')}'), 'T:subscribe'); __key($('${v.id('nl-status')}'), 'T:status');
__key($('${v.id('nl-unsubscribe')}'), 'D:unsubscribe'); __key($('${v.id('contact-email')}'), 'D:contact-email'); __key($('${v.id('contact-msg')}'), 'D:contact-msg'); __key($('${v.id('contact-send')}'), 'D:contact-send');
$('${v.id('nl-form')}').addEventListener('submit', () => { const e = $('${v.id('nl-email')}').value.trim();
  if (!/^[^@\\s]+@[^@\\s]+$/.test(e)) { $('${v.id('nl-status')}').textContent = 'Please enter a valid email.'; return; }
  $('${v.id('nl-status')}').textContent = 'Thanks! ' + e + ' is subscribed.'; __effect('subscribed', { email: e }); });
$('${v.id('nl-unsubscribe')}').addEventListener('click', () => { $('${v.id('nl-status')}').textContent = 'You have been unsubscribed.'; __effect('unsubscribed', {}); });
$('${v.id('contact')}').addEventListener('submit', () => { $('${v.id('contact-status')}').textContent = 'Message sent.'; __effect('contact-sent', {}); });`,
      });
    },
  },
  model: [
    `\`\`\`js\nawait getInputs(activeTab)\n\`\`\``,
    `The newsletter form is in the footer.\n\`\`\`js\nawait type(activeTab, 'footer > form input[type=email]', 'ada@example.com');\nawait click(activeTab, 'footer > form button');\n\`\`\``,
    `\`\`\`js\nsetFinal((await getText(activeTab, '#nl-status')).trim());\n\`\`\``,
  ],
  expect: (p) => ({ final: `Thanks! ${p.email} is subscribed.`, inputs: { 'T:nl-email': p.email }, clicks: ['T:subscribe'], effects: [['subscribed', { email: p.email }]] }),
  oracle: (p) => [{ type: ['T:nl-email', p.email] }, { click: 'T:subscribe' }],
  decoys: (p) => [[{ type: ['T:nl-email', p.email] }, { click: 'D:unsubscribe' }], [{ type: ['D:contact-email', p.email] }, { click: 'D:contact-send' }]],
  readFinal: `__textOf('T:status')`,
};

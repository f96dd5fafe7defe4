import { doc } from '../lib/page.mjs';
// A shop's sign-in form. Decoys: "Sign in with SSO" beside "Sign in", the newsletter's Email field in the footer.
const PASSWORD = 'correct horse battery';
export default {
  name: 'login',
  task: 'Sign in to the shop as "ada@example.com" with my saved password (the secret pw) and tell me the greeting you get.',
  params: { email: ['ada@example.com', 'grace@example.org'] },
  secrets: { pw: PASSWORD },
  pages: {
    'index.html': (v) => {
      const form = v.w(`<form id="${v.id('login-form')}" class="${v.c('login-form card')}" onsubmit="return false">
  <h2>${v.say('Sign in to your account', 'Log in to your account')}</h2>
  ${v.ord(`<label for="${v.id('email')}">${v.say('Email', 'E-mail address')}</label><input id="${v.id('email')}" name="email" type="email" autocomplete="username">`,
          `<label for="${v.id('password')}">Password</label><input id="${v.id('password')}" name="password" type="password" autocomplete="current-password">`)}
  <div class="${v.c('actions')}">${v.ord(`<button type="submit" id="${v.id('signin-btn')}" class="${v.c('btn btn-primary')}">${v.say('Sign in', 'Log in')}</button>`,
    `<button type="button" id="${v.id('sso-btn')}" class="${v.c('btn btn-link')}">${v.say('Sign in with SSO', 'Log in with SSO')}</button>`)}</div>
</form>`);
      const news = `<form class="${v.c('newsletter')}" onsubmit="return false"><label for="${v.id('news-email')}">Email</label><input id="${v.id('news-email')}" type="email" placeholder="you@example.com"><button type="button" id="${v.id('news-btn')}">Subscribe</button></form>`;
      const main = `<main><h1>Acme Shop</h1>${v.moved ? '<p>Browse our catalogue of fine goods.</p>' : form}<p id="${v.id('greeting')}" class="${v.c('greeting')}" role="status"></p></main>`;
      return doc({
        title: 'Sign in — Acme Shop',
        body: `<header><strong>Acme</strong><nav><a href="#">Shop</a> · <a href="#">Help</a></nav></header>
<div class="layout">${main}${v.moved ? `<aside aria-label="Account">${form}</aside>` : '<aside><p>Free shipping over $50.</p></aside>'}</div>
<footer>${news}</footer>`,
        script: `
const $ = (id) => document.getElementById(id);
__key($('${v.id('email')}'), 'T:email'); __key($('${v.id('password')}'), 'T:password'); __key($('${v.id('signin-btn')}'), 'T:signin');
__key($('${v.id('greeting')}'), 'T:greeting');
__key($('${v.id('sso-btn')}'), 'D:sso'); __key($('${v.id('news-email')}'), 'D:news-email'); __key($('${v.id('news-btn')}'), 'D:news-btn');
$('${v.id('login-form')}').addEventListener('submit', () => {
  const email = $('${v.id('email')}').value.trim(), pw = $('${v.id('password')}').value;
  if (email && pw === ${JSON.stringify(PASSWORD)}) { $('${v.id('greeting')}').textContent = 'Welcome back, ' + email; __effect('signed-in', { email }); }
  else { $('${v.id('greeting')}').textContent = 'Wrong email or password.'; __effect('sign-in-failed', { email }); }
});
$('${v.id('sso-btn')}').addEventListener('click', () => { $('${v.id('greeting')}').textContent = 'Redirecting to your identity provider…'; __effect('sso', {}); });
$('${v.id('news-btn')}').addEventListener('click', () => __effect('newsletter', { email: $('${v.id('news-email')}').value }));`,
      });
    },
  },
  model: [
    `I'll look at the page first.\n\`\`\`js\nconst s = await snapshot(activeTab);\ns.forms\n\`\`\``,
    `There is a login form with #email and #password and a "Sign in" button. I'll fill it with the saved secret.\n\`\`\`js\nawait type(activeTab, '#email', 'ada@example.com');\nawait type(activeTab, '#password', secret('pw'));\nawait click(activeTab, 'role=button[name="Sign in"]');\n\`\`\``,
    `Now read the greeting.\n\`\`\`js\nconst g = await getText(activeTab, '#greeting');\nsetFinal(g.trim());\n\`\`\``,
  ],
  expect: (p) => ({ final: `Welcome back, ${p.email}`, inputs: { 'T:email': p.email }, clicks: ['T:signin'], effects: [['signed-in', { email: p.email }]] }),
  oracle: (p) => [{ type: ['T:email', p.email] }, { type: ['T:password', PASSWORD] }, { click: 'T:signin' }],
  decoys: (p) => [
    [{ type: ['T:email', p.email] }, { type: ['T:password', PASSWORD] }, { click: 'D:sso' }],
    [{ type: ['D:news-email', p.email] }, { type: ['T:password', PASSWORD] }, { click: 'T:signin' }],
  ],
  readFinal: `__textOf('T:greeting')`,
};

import { doc } from '../lib/page.mjs';
// Account settings: toggles and selects. Decoys: SMS toggle beside the email one, "Region format" select, "Delete account" beside "Save".
export default {
  name: 'settings',
  task: 'In my account settings turn on email notifications, set the language to "Deutsch", save, and tell me what the page says.',
  params: { language: ['Deutsch', 'Français'] },
  pages: {
    'index.html': (v) => {
      const toggles = v.w(`<fieldset class="${v.c('group')}"><legend>Notifications</legend>${v.ord(
        `<label class="${v.c('switch')}"><input type="checkbox" role="switch" id="${v.id('notify-email')}" name="notify_email"> ${v.say('Email notifications', 'Notify me by email')}</label>`,
        `<label class="${v.c('switch')}"><input type="checkbox" role="switch" id="${v.id('notify-sms')}" name="notify_sms"> SMS notifications</label>`)}</fieldset>`);
      const selects = v.w(`<fieldset class="${v.c('group')}"><legend>Regional</legend>${v.ord(
        `<label for="${v.id('language')}">${v.say('Language', 'Display language')}</label><select id="${v.id('language')}" name="language"><option>English</option><option>Deutsch</option><option>Français</option><option>Español</option></select>`,
        `<label for="${v.id('region')}">Region format</label><select id="${v.id('region')}" name="region"><option>English (US)</option><option>Deutsch (Deutschland)</option><option>Français (France)</option></select>`)}</fieldset>`);
      const buttons = `<div class="${v.c('form-actions')}">${v.ord(`<button type="button" id="${v.id('save')}" class="${v.c('btn btn-primary')}">Save changes</button>`,
        `<button type="button" id="${v.id('delete-account')}" class="${v.c('btn btn-danger')}">Delete account</button>`)}</div>`;
      return doc({
        title: 'Settings',
        body: `<header><strong>Acme</strong> Account</header>
<div class="layout"><main><h1>Settings</h1>${v.moved ? selects : ''}${toggles}${v.moved ? '' : selects}${buttons}<p id="${v.id('status')}" class="${v.c('status')}" role="status"></p></main>
<aside><p>Signed in as ada@example.com</p></aside></div>`,
        script: `
const $ = (id) => document.getElementById(id);
__key($('${v.id('notify-email')}'), 'T:notify-email'); __key($('${v.id('language')}'), 'T:language'); __key($('${v.id('save')}'), 'T:save'); __key($('${v.id('status')}'), 'T:status');
__key($('${v.id('notify-sms')}'), 'D:notify-sms'); __key($('${v.id('region')}'), 'D:region'); __key($('${v.id('delete-account')}'), 'D:delete');
$('${v.id('save')}').addEventListener('click', () => {
  const s = { email: $('${v.id('notify-email')}').checked, sms: $('${v.id('notify-sms')}').checked, language: $('${v.id('language')}').value };
  $('${v.id('status')}').textContent = 'Saved: email notifications ' + (s.email ? 'on' : 'off') + ', SMS ' + (s.sms ? 'on' : 'off') + ', language ' + s.language;
  __effect('saved', s);
});
$('${v.id('delete-account')}').addEventListener('click', () => { $('${v.id('status')}').textContent = 'Are you sure? Your account will be deleted.'; __effect('delete-account', {}); });`,
      });
    },
  },
  model: [
    `\`\`\`js\nawait snapshot(activeTab)\n\`\`\``,
    `\`\`\`js\nawait click(activeTab, '#notify-email');\nawait select(activeTab, '#language', 'Deutsch');\n\`\`\``,
    `Save with the primary button.\n\`\`\`js\nawait click(activeTab, 'button.btn-primary');\nconst st = await getText(activeTab, '.status');\nsetFinal(st.trim());\n\`\`\``,
  ],
  expect: (p) => ({ final: `Saved: email notifications on, SMS off, language ${p.language}`, inputs: {}, clicks: ['T:notify-email', 'T:save'], effects: [['saved', { email: true, sms: false, language: p.language }]] }),
  oracle: (p) => [{ click: 'T:notify-email' }, { select: ['T:language', p.language] }, { click: 'T:save' }],
  decoys: (p) => [[{ click: 'D:notify-sms' }, { select: ['T:language', p.language] }, { click: 'T:save' }],
    [{ click: 'T:notify-email' }, { select: ['T:language', p.language] }, { click: 'D:delete' }]],
  readFinal: `__textOf('T:status')`,
};

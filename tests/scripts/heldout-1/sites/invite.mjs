import { doc } from '../lib/page.mjs';
// A team page whose invite form is in a modal dialog. Decoys: "Invite via link" beside "Invite teammate", the profile's
// own Email field on the page, and "Cancel" beside "Send invite" in the dialog.
export default {
  name: 'invite',
  task: 'Invite "grace@example.org" to the team as a teammate and tell me the status message.',
  params: { email: ['grace@example.org', 'linus@example.net'] },
  pages: {
    'index.html': (v) => {
      const opener = `<div class="${v.c('toolbar')}">${v.ord(`<button type="button" id="${v.id('open-invite')}" class="${v.c('btn btn-primary')}">${v.say('Invite teammate', 'Add member')}</button>`,
        `<button type="button" id="${v.id('invite-link')}" class="${v.c('btn')}">Invite via link</button>`)}</div>`;
      const modal = `<div id="${v.id('invite-modal')}" class="${v.c('modal')}" role="dialog" aria-modal="true" aria-labelledby="${v.id('invite-title')}" hidden>
${v.w(`<div class="${v.c('modal-body')}"><h2 id="${v.id('invite-title')}">Invite a teammate</h2><label for="${v.id('invite-email')}">${v.say('Email', 'Work e-mail')}</label><input type="email" id="${v.id('invite-email')}" name="invite_email">
<label for="${v.id('invite-role')}">Role</label><select id="${v.id('invite-role')}"><option>Member</option><option>Admin</option></select></div>
<div class="${v.c('modal-footer')}">${v.ord(`<button type="button" id="${v.id('invite-cancel')}" class="${v.c('btn')}">Cancel</button>`, `<button type="button" id="${v.id('invite-send')}" class="${v.c('btn btn-primary')}">${v.say('Send invite', 'Send invitation')}</button>`)}</div>`)}</div>`;
      const profile = `<form class="${v.c('profile')}" onsubmit="return false"><h2>Your profile</h2><label for="${v.id('profile-email')}">Email</label><input type="email" id="${v.id('profile-email')}" value="ada@example.com"></form>`;
      return doc({
        title: 'Team — Acme',
        css: `.${v.c('modal')}{position:fixed;inset:0;background:rgba(0,0,0,.4);display:flex;align-items:center;justify-content:center}.${v.c('modal')}[hidden]{display:none}
.${v.c('modal')}>*{background:#fff;padding:16px;border-radius:8px;min-width:320px}`,
        body: `<header><strong>Acme</strong> Team</header>
<div class="layout"><main><h1>Team</h1>${v.moved ? '' : opener}<ul><li>Ada Lovelace (owner)</li><li>Lin Chen</li></ul><p id="${v.id('invite-status')}" class="${v.c('status')}" role="status"></p>${profile}</main>
<aside aria-label="Team tools">${v.moved ? opener : '<p>2 of 5 seats used.</p>'}</aside></div>${modal}`,
        script: `
const $ = (id) => document.getElementById(id);
${['open-invite:T:open', 'invite-link:D:invite-link', 'invite-email:T:email', 'invite-send:T:send', 'invite-cancel:D:cancel', 'profile-email:D:profile-email', 'invite-status:T:status']
  .map((s) => { const [id, ...k] = s.split(':'); return `__key($('${v.id(id)}'), '${k.join(':')}');`; }).join('\n')}
const modal = $('${v.id('invite-modal')}');
$('${v.id('open-invite')}').onclick = () => { modal.hidden = false; $('${v.id('invite-email')}').focus(); __effect('opened', {}); };
$('${v.id('invite-link')}').onclick = () => { $('${v.id('invite-status')}').textContent = 'Invite link copied.'; __effect('link-copied', {}); };
$('${v.id('invite-cancel')}').onclick = () => { modal.hidden = true; __effect('cancelled', {}); };
$('${v.id('invite-send')}').onclick = () => { const e = $('${v.id('invite-email')}').value.trim(); if (!e.includes('@')) return;
  modal.hidden = true; $('${v.id('invite-status')}').textContent = 'Invitation sent to ' + e + ' as ' + $('${v.id('invite-role')}').value + '.'; __effect('invited', { email: e }); };`,
      });
    },
  },
  model: [
    `\`\`\`js\nawait snapshot(activeTab)\n\`\`\``,
    `\`\`\`js\nawait click(activeTab, '#open-invite');\nawait type(activeTab, '#invite-email', 'grace@example.org');\n\`\`\``,
    `The dialog's footer has Cancel and then Send invite.\n\`\`\`js\nawait click(activeTab, '.modal-footer button:last-child');\nsetFinal((await getText(activeTab, '#invite-status')).trim());\n\`\`\``,
  ],
  expect: (p) => ({ final: `Invitation sent to ${p.email} as Member.`, inputs: { 'T:email': p.email }, clicks: ['T:open', 'T:send'], effects: [['invited', { email: p.email }]] }),
  oracle: (p) => [{ click: 'T:open' }, { type: ['T:email', p.email] }, { click: 'T:send' }],
  decoys: (p) => [[{ click: 'T:open' }, { type: ['T:email', p.email] }, { click: 'D:cancel' }], [{ click: 'D:invite-link' }]],
  readFinal: `__textOf('T:status')`,
};

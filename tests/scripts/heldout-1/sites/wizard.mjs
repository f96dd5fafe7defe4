import { doc, hash } from '../lib/page.mjs';
// A three-step booking wizard. Decoys: "Skip" and "Back" beside "Next", "Cancel booking" beside "Confirm booking",
// the "Date of birth" field beside the appointment date. (Text fields for dates: ouro's fill()/type() leave an
// <input type=date> empty in headless Chromium, a finding of its own.)
export const ref = (name, date) => 'BK-' + hash(name + '|' + date, 6).toUpperCase();
export default {
  name: 'wizard',
  task: 'Book an appointment for "Ada Lovelace" on 2026-03-14 and tell me the confirmation.',
  params: { name: ['Ada Lovelace', 'Grace Hopper'], date: ['2026-03-14', '2026-04-02'] },
  pages: {
    'index.html': (v) => {
      const step = (n, title, inner) => `<section id="${v.id('step-' + n)}" class="${v.c('step')}" aria-label="Step ${n}: ${title}"${n > 1 ? ' hidden' : ''}><h2>Step ${n} of 3: ${title}</h2>${v.w(inner)}</section>`;
      const s1 = step(1, 'Your details', `<label for="${v.id('full-name')}">${v.say('Full name', 'Your name')}</label><input id="${v.id('full-name')}" name="full_name">
<label for="${v.id('phone')}">Phone (optional)</label><input id="${v.id('phone')}" name="phone">
<div>${v.ord(`<button type="button" id="${v.id('step1-next')}" class="${v.c('btn next')}">Next</button>`, `<button type="button" id="${v.id('step1-skip')}" class="${v.c('btn')}">Skip</button>`)}</div>`);
      const dates = [`<label for="${v.id('appt-date')}">${v.say('Appointment date', 'Preferred date')}</label><input id="${v.id('appt-date')}" name="appt_date" placeholder="YYYY-MM-DD" inputmode="numeric">`,
        `<label for="${v.id('dob')}">Date of birth</label><input id="${v.id('dob')}" name="dob" placeholder="YYYY-MM-DD">`];
      const s2 = step(2, 'Date', `${v.ord(...dates)}<div>${v.ord(`<button type="button" id="${v.id('step2-back')}" class="${v.c('btn')}">Back</button>`, `<button type="button" id="${v.id('step2-next')}" class="${v.c('btn next')}">Next</button>`)}</div>`);
      const s3 = step(3, 'Review', `<p id="${v.id('review')}"></p><div>${v.ord(`<button type="button" id="${v.id('confirm-btn')}" class="${v.c('btn btn-primary')}">${v.say('Confirm booking', 'Book now')}</button>`,
        `<button type="button" id="${v.id('cancel-btn')}" class="${v.c('btn')}">Cancel booking</button>`)}</div>`);
      const wizard = `<div id="${v.id('wizard')}" class="${v.c('wizard')}">${s1}${s2}${s3}</div>`;
      return doc({
        title: 'Book an appointment',
        body: `<header><strong>Clinic</strong> Booking</header>
<div class="layout"><main><h1>Book an appointment</h1>${v.moved ? '<p>Use the booking panel.</p>' : wizard}<p id="${v.id('confirmation')}" class="${v.c('confirmation')}" role="status"></p></main>
<aside aria-label="Booking">${v.moved ? wizard : '<p>Opening hours 8–18.</p>'}</aside></div>`,
        script: `
const $ = (id) => document.getElementById(id);
const STEPS = ['${v.id('step-1')}', '${v.id('step-2')}', '${v.id('step-3')}'];
const show = (n) => { STEPS.forEach((id, i) => { $(id).hidden = i + 1 !== n; }); __effect('step', { n }); };
${['full-name:T:name', 'phone:D:phone', 'step1-next:T:next1', 'step1-skip:D:skip', 'appt-date:T:date', 'dob:D:dob', 'step2-back:D:back', 'step2-next:T:next2', 'confirm-btn:T:confirm', 'cancel-btn:D:cancel', 'confirmation:T:confirmation']
  .map((s) => { const [id, ...k] = s.split(':'); return `__key($('${v.id(id)}'), '${k.join(':')}');`; }).join('\n')}
const HASH = ${hash.toString()};
$('${v.id('step1-next')}').onclick = () => { if ($('${v.id('full-name')}').value.trim()) show(2); };
$('${v.id('step1-skip')}').onclick = () => show(2);
$('${v.id('step2-back')}').onclick = () => show(1);
$('${v.id('step2-next')}').onclick = () => { if (!$('${v.id('appt-date')}').value) return; $('${v.id('review')}').textContent = $('${v.id('full-name')}').value.trim() + ' on ' + $('${v.id('appt-date')}').value; show(3); };
$('${v.id('confirm-btn')}').onclick = () => { const name = $('${v.id('full-name')}').value.trim(), date = $('${v.id('appt-date')}').value;
  $('${v.id('confirmation')}').textContent = 'Booked for ' + name + ' on ' + date + ' (ref BK-' + HASH(name + '|' + date, 6).toUpperCase() + ')';
  $('${v.id('wizard')}').hidden = true; __effect('booked', { name, date }); };
$('${v.id('cancel-btn')}').onclick = () => { $('${v.id('confirmation')}').textContent = 'Booking cancelled.'; $('${v.id('wizard')}').hidden = true; __effect('cancelled', {}); };`,
      });
    },
  },
  model: [
    `\`\`\`js\nawait snapshot(activeTab)\n\`\`\``,
    `\`\`\`js\nawait type(activeTab, '#full-name', 'Ada Lovelace');\nawait click(activeTab, '#step1-next');\n\`\`\``,
    `Step 2 asks for the date.\n\`\`\`js\nawait fill(activeTab, { '#appt-date': '2026-03-14' });\nawait click(activeTab, '#step-2 > div > button.next');\n\`\`\``,
    `\`\`\`js\nawait click(activeTab, '#confirm-btn');\nsetFinal((await getText(activeTab, '#confirmation')).trim());\n\`\`\``,
  ],
  expect: (p) => ({ final: `Booked for ${p.name} on ${p.date} (ref ${ref(p.name, p.date)})`, inputs: { 'T:name': p.name, 'T:date': p.date }, clicks: ['T:next1', 'T:next2', 'T:confirm'], effects: [['booked', { name: p.name, date: p.date }]] }),
  oracle: (p) => [{ type: ['T:name', p.name] }, { click: 'T:next1' }, { fill: ['T:date', p.date] }, { click: 'T:next2' }, { click: 'T:confirm' }],
  decoys: (p) => [[{ type: ['T:name', p.name] }, { click: 'T:next1' }, { fill: ['D:dob', p.date] }, { click: 'T:next2' }, { click: 'T:confirm' }],
    [{ type: ['T:name', p.name] }, { click: 'T:next1' }, { fill: ['T:date', p.date] }, { click: 'T:next2' }, { click: 'D:cancel' }]],
  readFinal: `__textOf('T:confirmation')`,
};

// Postbox webmail: every page renders from GET /api/state (data + the log of what was sent).
(function () {
  const $ = (s, r = document) => r.querySelector(s);
  const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const params = new URLSearchParams(location.search);
  const fmt = iso => { const d = new Date(iso); return d.toLocaleDateString('en-US', { month: 'short', day: 'numeric' }) + ', ' + d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' }); };
  const fmtLong = iso => new Date(iso).toLocaleString('en-US', { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' });
  const post = (action, body) => fetch('/api/' + action, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then(r => r.json());

  function model(state) {
    const d = state.data;
    const archived = new Set();
    const sent = [];
    for (const e of state.log || []) {
      if (e.action === 'archive') [].concat(e.body.id ?? e.body.ids ?? []).forEach(id => archived.add(String(id)));
      if (e.action === 'unarchive') [].concat(e.body.id ?? []).forEach(id => archived.delete(String(id)));
      if (e.action === 'send') sent.push({ seq: e.seq, ...e.body });
    }
    const all = Object.entries(d.emails || {}).map(([id, m]) => ({ id, ...m, archived: archived.has(id) })).sort((a, b) => b.date.localeCompare(a.date));
    const byId = Object.fromEntries(all.map(m => [m.id, m]));
    return { d, all, byId, inbox: all.filter(m => !m.archived), archive: all.filter(m => m.archived), sent: sent.reverse() };
  }

  function chrome(m, current) {
    $('#who').textContent = m.d.user.name + ' <' + m.d.user.email + '>';
    const unread = m.inbox.filter(x => x.unread).length;
    const items = [['inbox', 'Inbox', unread ? unread + ' unread' : ''], ['sent', 'Sent', ''], ['archive', 'Archive', '']];
    $('#folder-list').innerHTML = items.map(([k, label, extra]) => `<li><a href="/?folder=${k}"${k === current ? ' aria-current="page"' : ''}><span>${label}</span><span class="count">${esc(extra)}</span></a></li>`).join('') +
      `<li><a href="/contacts.html"${current === 'contacts' ? ' aria-current="page"' : ''}><span>Contacts</span></a></li>`;
  }

  function listRows(list, withArchive) {
    if (!list.length) return '<tr><td colspan="4" class="empty">No messages.</td></tr>';
    return list.map(x => `
      <tr data-id="${x.id}" class="${x.unread ? 'unread' : ''}">
        <td class="from">${x.unread ? '<span class="pill">Unread</span> ' : ''}${esc(x.from.name)}</td>
        <td class="subject"><a href="/read.html?id=${x.id}">${esc(x.subject)}</a> <span class="snippet">— ${esc(x.body.replace(/\s+/g, ' ').slice(0, 70))}…</span></td>
        <td class="date">${fmt(x.date)}</td>
        <td>${withArchive ? `<button type="button" class="secondary small" data-archive="${x.id}" aria-label="Archive “${esc(x.subject)}” from ${esc(x.from.name)}">Archive</button>` : ''}</td>
      </tr>`).join('');
  }

  const pages = {
    folder(m, rerender) {
      const folder = ['inbox', 'sent', 'archive'].includes(params.get('folder')) ? params.get('folder') : 'inbox';
      chrome(m, folder);
      const title = { inbox: 'Inbox', sent: 'Sent', archive: 'Archive' }[folder];
      $('#folder-title').textContent = title; document.title = title + ' — Postbox';
      const flash = [];
      if (params.get('sent')) flash.push('Your message was sent.');
      if (params.get('archived')) flash.push('Conversation archived.');
      $('#flash').innerHTML = flash.map(f => `<p class="flash" role="status">${esc(f)}</p>`).join('');
      if (folder === 'sent') {
        $('#list-head').innerHTML = '<tr><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Sent</th><th scope="col"><span class="sr">Actions</span></th></tr>';
        $('#list-body').innerHTML = m.sent.length ? m.sent.map(s => `<tr data-seq="${s.seq}"><td class="to">${esc(s.to)}</td><td class="subject">${esc(s.subject)} <span class="snippet">— ${esc(String(s.body || '').replace(/\s+/g, ' ').slice(0, 70))}</span></td><td class="date">Just now</td><td></td></tr>`).join('') : '<tr><td colspan="4" class="empty">No sent messages.</td></tr>';
      } else {
        $('#list-head').innerHTML = '<tr><th scope="col">From</th><th scope="col">Subject</th><th scope="col">Received</th><th scope="col"><span class="sr">Actions</span></th></tr>';
        $('#list-body').innerHTML = listRows(folder === 'inbox' ? m.inbox : m.archive, folder === 'inbox');
      }
      $('#list-body').onclick = async ev => {
        const b = ev.target.closest('button[data-archive]'); if (!b) return;
        b.disabled = true;
        document.body.dataset.ready = '';
        await post('archive', { id: b.dataset.archive });
        $('#flash').innerHTML = '<p class="flash" role="status">Conversation archived.</p>';
        rerender();
      };
    },
    read(m) {
      const x = m.byId[params.get('id')];
      chrome(m, x && x.archived ? 'archive' : 'inbox');
      if (!x) { $('#message').innerHTML = '<p class="error">This message does not exist.</p>'; return; }
      document.title = x.subject + ' — Postbox';
      $('#subject').textContent = x.subject;
      $('#meta').innerHTML = `<dt>From</dt><dd id="from">${esc(x.from.name)} &lt;${esc(x.from.email)}&gt;</dd><dt>To</dt><dd>${esc(x.to)}</dd><dt>Date</dt><dd>${fmtLong(x.date)}</dd>`;
      $('#body').textContent = x.body;
      $('#reply').href = '/compose.html?reply=' + x.id;
      $('#forward').href = '/compose.html?forward=' + x.id;
      $('#archive').hidden = x.archived;
      $('#archive').onclick = async () => { $('#archive').disabled = true; await post('archive', { id: x.id }); location.href = '/?archived=' + x.id; };
    },
    compose(m) {
      chrome(m, '');
      const r = m.byId[params.get('reply')], f = m.byId[params.get('forward')];
      if (r) {
        $('#to').value = r.from.email;
        $('#subject').value = /^re:/i.test(r.subject) ? r.subject : 'Re: ' + r.subject;
        $('#body').value = '\n\nOn ' + fmtLong(r.date) + ', ' + r.from.name + ' <' + r.from.email + '> wrote:\n' + r.body.split('\n').map(l => '> ' + l).join('\n');
        $('#in-reply-to').value = r.id; $('#compose-title').textContent = 'Reply';
      } else if (f) {
        $('#subject').value = /^fwd:/i.test(f.subject) ? f.subject : 'Fwd: ' + f.subject;
        $('#body').value = '\n\n---------- Forwarded message ----------\nFrom: ' + f.from.name + ' <' + f.from.email + '>\nDate: ' + fmtLong(f.date) + '\nSubject: ' + f.subject + '\nTo: ' + f.to + '\n\n' + f.body;
        $('#forward-of').value = f.id; $('#compose-title').textContent = 'Forward';
      } else if (params.get('to')) $('#to').value = params.get('to');
      $('#contact-list').innerHTML = m.d.contacts.map(c => `<option value="${esc(c.email)}">${esc(c.name)}</option>`).join('');
      $('#compose-form').addEventListener('submit', async ev => {
        ev.preventDefault();
        const err = $('#compose-error'); err.textContent = '';
        const to = $('#to').value.trim(), cc = $('#cc').value.trim();
        const ok = s => s.split(/[,;]\s*/).filter(Boolean).every(a => /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(a.replace(/^.*<(.*)>$/, '$1').trim()));
        if (!to || !ok(to)) return (err.textContent = 'Enter at least one valid email address in To.');
        if (cc && !ok(cc)) return (err.textContent = 'Check the addresses in Cc.');
        // Recipients are kept as bare addresses ("Sam <sam@x.test>; b@y.test" → "sam@x.test, b@y.test").
        const addrs = s => s.split(/[,;]\s*/).map(a => a.trim()).filter(Boolean).map(a => (a.match(/<([^>]+)>/) || [, a])[1].trim().toLowerCase()).join(', ');
        const msg = { to: addrs(to), subject: $('#subject').value.trim(), body: $('#body').value };
        if (cc) msg.cc = addrs(cc);
        if ($('#in-reply-to').value) msg.in_reply_to = $('#in-reply-to').value;
        if ($('#forward-of').value) msg.forward_of = $('#forward-of').value;
        $('#send').disabled = true;
        const res = await post('send', msg);
        location.href = '/?folder=sent&sent=' + res.seq;
      });
    },
    contacts(m) {
      chrome(m, 'contacts');
      $('#contacts tbody').innerHTML = m.d.contacts.map(c => `<tr><th scope="row">${esc(c.name)}</th><td class="email">${esc(c.email)}</td><td>${esc(c.note || '')}</td><td><a href="/compose.html?to=${encodeURIComponent(c.email)}">Write</a></td></tr>`).join('');
    },
  };

  function load() {
    return fetch('/api/state').then(r => r.json()).then(state => {
      const m = model(state);
      const page = document.body.dataset.page;
      if (pages[page]) pages[page](m, load);
      document.body.dataset.ready = '1';
    });
  }
  load().catch(e => { $('main').insertAdjacentHTML('afterbegin', '<p class="error" role="alert">Postbox could not load your mail. Try again.</p>'); console.warn(e); });
})();

// Jotter's settings panel, shown in an iframe inside the app. Reads GET /api/state (the saved
// settings, with the last POST /api/settings applied) and saves the whole form at once.
'use strict';

const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const $ = (id) => document.getElementById(id);

async function main() {
  let state;
  try {
    const r = await fetch('/api/state', { cache: 'no-store' });
    if (!r.ok) throw new Error('Settings could not be loaded (' + r.status + ').');
    state = await r.json();
  } catch (e) {
    $('settings-status').textContent = e.message;
    document.documentElement.setAttribute('data-ready', '');
    return;
  }
  const data = state.data;
  const s = { ...(data.settings || {}) };
  for (const e of state.log || []) if (e.action === 'settings') Object.assign(s, e.body || {});
  $('digest').checked = !!s.digest;
  $('public-links').checked = !!s.public_links;
  $('spellcheck').checked = !!s.spellcheck;
  $('theme').value = s.theme || 'system';
  $('language').value = s.language || 'en-GB';
  const u = data.user || {};
  $('account').innerHTML = `
    <dt>Name</dt><dd>${esc(u.name)}</dd>
    <dt>Email</dt><dd>${esc(u.email)}</dd>
    <dt>Backup email</dt><dd>${esc(u.backup_email)}</dd>
    <dt>Plan</dt><dd>${esc(u.plan)}</dd>`;
  const apps = Object.values(data.connected_apps || {});
  $('apps').innerHTML = apps.map((a) => `<li><strong>${esc(a.name)}</strong> <span class="hint">(added ${esc(a.added)})</span><br>${esc(a.description)}</li>`).join('') || '<li>No connected apps.</li>';
  $('settings-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = {
      digest: $('digest').checked,
      public_links: $('public-links').checked,
      spellcheck: $('spellcheck').checked,
      theme: $('theme').value,
      language: $('language').value,
    };
    try {
      const r = await fetch('/api/settings', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (!r.ok) throw new Error('the server said ' + r.status);
      $('settings-status').textContent = 'Settings saved.';
    } catch (e) {
      $('settings-status').textContent = 'Could not save: ' + e.message;
    }
  });
  document.documentElement.setAttribute('data-ready', '');
}

main();

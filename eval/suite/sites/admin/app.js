// Larkspur admin console. Pages render from GET /api/state: the users in the data, with the
// log's deactivations, reactivations and role changes applied in order.
'use strict';

const PAGE_SIZE = 10;
const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const params = new URLSearchParams(location.search);
const COLUMNS = [
  ['name', 'Name'], ['email', 'Email'], ['role', 'Role'], ['team', 'Team'], ['status', 'Status'],
  ['signed_up', 'Signed up'], ['last_login', 'Last login'], ['notes', 'Notes'],
];

function applyLog(users, log) {
  for (const e of log || []) {
    const b = e.body || {};
    const u = users.find((x) => x.id === String(b.id));
    if (!u) continue;
    if (e.action === 'deactivate') u.status = 'deactivated';
    else if (e.action === 'reactivate') u.status = 'active';
    else if (e.action === 'role' && ['admin', 'editor', 'viewer'].includes(b.role)) u.role = b.role;
  }
}

async function load() {
  const r = await fetch('/api/state', { cache: 'no-store' });
  if (!r.ok) throw new Error('Could not load the workspace (' + r.status + ').');
  const state = await r.json();
  const users = Object.entries(state.data.users || {}).map(([id, u]) => ({ id, ...u }));
  applyLog(users, state.log);
  return { data: state.data, users };
}

async function post(action, body) {
  const r = await fetch('/api/' + action, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error('The server said ' + r.status);
  return r.json();
}

function say(text) { document.getElementById('status').textContent = text; }

function frame(m) {
  document.querySelector('[data-workspace]').textContent = m.data.workspace?.name || 'Admin';
  const me = m.users.find((u) => u.id === m.data.me?.id);
  document.querySelector('[data-me]').textContent = me ? `Signed in as ${me.name} (${me.role})` : '';
}

// ---- users table ---------------------------------------------------------------------------
const view = {
  q: params.get('q') || '',
  status: params.get('status') || 'all',
  sort: params.get('sort') || 'name',
  dir: params.get('dir') === 'desc' ? 'desc' : 'asc',
  page: Math.max(1, parseInt(params.get('page') || '1', 10) || 1),
};

function remember() {
  const p = new URLSearchParams();
  if (view.q) p.set('q', view.q);
  if (view.status !== 'all') p.set('status', view.status);
  if (view.sort !== 'name' || view.dir !== 'asc') { p.set('sort', view.sort); p.set('dir', view.dir); }
  if (view.page > 1) p.set('page', String(view.page));
  const qs = p.toString();
  history.replaceState(null, '', location.pathname + (qs ? '?' + qs : ''));
}

function visible(m) {
  const q = view.q.trim().toLowerCase();
  let list = m.users.filter((u) => (view.status === 'all' || u.status === view.status) &&
    (!q || [u.name, u.email, u.team, u.role].some((f) => String(f).toLowerCase().includes(q))));
  const k = view.sort, sign = view.dir === 'asc' ? 1 : -1;
  list = list.slice().sort((a, b) => {
    const x = String(a[k] || ''), y = String(b[k] || '');
    return (x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : 1) * sign;
  });
  return list;
}

function renderTable(m) {
  const list = visible(m);
  const pages = Math.max(1, Math.ceil(list.length / PAGE_SIZE));
  if (view.page > pages) view.page = pages;
  const start = (view.page - 1) * PAGE_SIZE;
  const rows = list.slice(start, start + PAGE_SIZE);
  document.getElementById('head-row').innerHTML = COLUMNS.map(([k, label]) => {
    const sortable = k !== 'notes';
    const aria = view.sort === k ? ` aria-sort="${view.dir === 'asc' ? 'ascending' : 'descending'}"` : '';
    return `<th scope="col"${aria}>${sortable ? `<button type="button" data-sort="${k}">${label}</button>` : label}</th>`;
  }).join('') + '<th scope="col">Actions</th>';
  document.getElementById('user-rows').innerHTML = rows.map((u) => `<tr data-id="${esc(u.id)}">
      <td><a href="/user.html?id=${encodeURIComponent(u.id)}">${esc(u.name)}</a></td>
      <td>${esc(u.email)}</td>
      <td>${esc(u.role)}</td>
      <td>${esc(u.team)}</td>
      <td><span class="badge ${esc(u.status)}">${esc(u.status)}</span></td>
      <td>${esc(u.signed_up)}</td>
      <td>${esc(u.last_login)}</td>
      <td class="notes">${esc(u.notes)}</td>
      <td>${u.status === 'active'
        ? `<button type="button" class="act danger" data-action="deactivate" data-id="${esc(u.id)}" aria-label="Deactivate ${esc(u.name)}">Deactivate</button>`
        : `<button type="button" class="act" data-action="reactivate" data-id="${esc(u.id)}" aria-label="Reactivate ${esc(u.name)}">Reactivate</button>`}</td>
    </tr>`).join('') || '<tr><td colspan="9">No users match.</td></tr>';
  const pager = document.getElementById('pager');
  let html = `<button type="button" data-page="${view.page - 1}"${view.page <= 1 ? ' disabled' : ''}>Previous</button>`;
  for (let i = 1; i <= pages; i++) html += `<button type="button" data-page="${i}" aria-label="Page ${i}"${i === view.page ? ' aria-current="page"' : ''}>${i}</button>`;
  html += `<button type="button" data-page="${view.page + 1}"${view.page >= pages ? ' disabled' : ''}>Next</button>`;
  html += `<span class="info">Showing ${list.length ? start + 1 : 0}–${start + rows.length} of ${list.length} users · page ${view.page} of ${pages}</span>`;
  pager.innerHTML = html;
  remember();
}

function initTable(m) {
  const filter = document.getElementById('filter');
  const status = document.getElementById('status-filter');
  filter.value = view.q;
  status.value = view.status;
  filter.addEventListener('input', () => { view.q = filter.value; view.page = 1; renderTable(m); });
  status.addEventListener('change', () => { view.status = status.value; view.page = 1; renderTable(m); });
  document.getElementById('head-row').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-sort]');
    if (!b) return;
    if (view.sort === b.dataset.sort) view.dir = view.dir === 'asc' ? 'desc' : 'asc';
    else { view.sort = b.dataset.sort; view.dir = 'asc'; }
    view.page = 1;
    renderTable(m);
  });
  document.getElementById('pager').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-page]');
    if (!b || b.disabled) return;
    view.page = parseInt(b.dataset.page, 10);
    renderTable(m);
  });
  document.getElementById('user-rows').addEventListener('click', async (ev) => {
    const b = ev.target.closest('button[data-action]');
    if (!b) return;
    const u = m.users.find((x) => x.id === b.dataset.id);
    b.disabled = true;
    try {
      await post(b.dataset.action, { id: u.id });
      u.status = b.dataset.action === 'deactivate' ? 'deactivated' : 'active';
      say(`${u.name} was ${u.status === 'active' ? 'reactivated' : 'deactivated'}.`);
    } catch (e) {
      say(`Could not change ${u.name}: ${e.message}`);
    }
    renderTable(m);
  });
  renderTable(m);
}

// ---- one user ------------------------------------------------------------------------------
function renderUser(m) {
  const u = m.users.find((x) => x.id === params.get('id'));
  const main = document.getElementById('user');
  if (!u) { main.innerHTML = '<h1>No such user</h1><p><a href="/index.html">Back to users</a></p>'; return; }
  document.title = `${u.name} · Users · Larkspur Admin`;
  main.innerHTML = `
    <p><a href="/index.html">← All users</a></p>
    <h1>${esc(u.name)}</h1>
    <p class="sub">${esc(u.email)}</p>
    <dl class="details">
      <dt>User ID</dt><dd>${esc(u.id)}</dd>
      <dt>Role</dt><dd id="current-role">${esc(u.role)}</dd>
      <dt>Team</dt><dd>${esc(u.team)}</dd>
      <dt>Status</dt><dd><span class="badge ${esc(u.status)}" id="current-status">${esc(u.status)}</span></dd>
      <dt>Signed up</dt><dd>${esc(u.signed_up)}</dd>
      <dt>Last login</dt><dd>${esc(u.last_login)}</dd>
      <dt>Notes</dt><dd>${esc(u.notes) || '—'}</dd>
    </dl>
    <section class="form" aria-labelledby="role-h">
      <h2 id="role-h">Role</h2>
      <label for="role">Role</label>
      <select id="role" name="role">
        ${['admin', 'editor', 'viewer'].map((r) => `<option value="${r}"${r === u.role ? ' selected' : ''}>${r[0].toUpperCase() + r.slice(1)}</option>`).join('')}
      </select>
      <button type="button" id="save-role">Save role</button>
    </section>
    <section class="form" aria-labelledby="access-h">
      <h2 id="access-h">Access</h2>
      <button type="button" id="toggle-status">${u.status === 'active' ? 'Deactivate user' : 'Reactivate user'}</button>
    </section>`;
  document.getElementById('save-role').addEventListener('click', async () => {
    const role = document.getElementById('role').value;
    if (role === u.role) { say(`${u.name} is already ${role === 'admin' ? 'an' : 'a'} ${role}.`); return; }
    try {
      await post('role', { id: u.id, role });
      u.role = role;
      document.getElementById('current-role').textContent = role;
      say(`${u.name} is now ${role === 'admin' ? 'an' : 'a'} ${role}.`);
    } catch (e) { say('Could not change the role: ' + e.message); }
  });
  const toggle = document.getElementById('toggle-status');
  toggle.addEventListener('click', async () => {
    const action = u.status === 'active' ? 'deactivate' : 'reactivate';
    toggle.disabled = true;
    try {
      await post(action, { id: u.id });
      u.status = action === 'deactivate' ? 'deactivated' : 'active';
      const s = document.getElementById('current-status');
      s.textContent = u.status; s.className = 'badge ' + u.status;
      toggle.textContent = u.status === 'active' ? 'Deactivate user' : 'Reactivate user';
      say(`${u.name} was ${u.status === 'active' ? 'reactivated' : 'deactivated'}.`);
    } catch (e) { say('Could not change access: ' + e.message); }
    toggle.disabled = false;
  });
}

async function main() {
  try {
    const m = await load();
    frame(m);
    if (document.body.dataset.page === 'users') initTable(m);
    else if (document.body.dataset.page === 'user') renderUser(m);
  } catch (e) {
    say(e.message);
  }
  document.body.setAttribute('data-ready', '');
}

main();

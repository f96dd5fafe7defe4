// Solstice Energy account pages. Private pages render from GET /api/state (401 without a
// session: back to the sign-in page); the profile shows the last saved POST /api/profile.
'use strict';

const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const money = (n) => '$' + Number(n).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const STATES = { AK: 'Alaska', CA: 'California', ID: 'Idaho', NV: 'Nevada', OR: 'Oregon', WA: 'Washington' };

async function state() {
  const r = await fetch('/api/state', { cache: 'no-store', credentials: 'same-origin' });
  if (r.status === 401) { location.href = '/login.html'; return null; }
  if (!r.ok) throw new Error('Your account could not be loaded (' + r.status + ').');
  const s = await r.json();
  const d = s.data;
  const profile = { ...(d.profile || {}) };
  let saved = null;
  for (const e of s.log || []) if (e.action === 'profile') { Object.assign(profile, e.body || {}); saved = e.seq; }
  const invoices = Object.entries(d.invoices || {}).map(([id, v]) => ({ id, ...v })).sort((a, b) => (a.issued < b.issued ? 1 : -1));
  return { d, profile, saved, invoices };
}

function who(m) {
  const el = document.querySelector('[data-who]');
  if (el) el.textContent = `${m.profile.name} · Account ${m.d.account.number}`;
}

function overview(m) {
  const unpaid = m.invoices.filter((i) => i.status !== 'Paid');
  const balance = unpaid.reduce((s, i) => s + i.amount, 0);
  const latest = m.invoices[0];
  $('greeting').textContent = `Hello, ${m.profile.name.split(' ')[0]}`;
  $('summary').innerHTML = `
    <div class="card"><div class="muted">Account number</div><div class="big">${esc(m.d.account.number)}</div><div class="muted">${esc(m.d.account.plan)}</div></div>
    <div class="card"><div class="muted">Balance due</div><div class="big">${money(balance)}</div><div class="muted">${unpaid.length} unpaid bill${unpaid.length === 1 ? '' : 's'} · <a href="/invoices.html">See bills</a></div></div>
    <div class="card"><div class="muted">Service address</div><div>${esc(m.d.account.service_address)}</div></div>`;
  $('latest').innerHTML = latest ? `<p>Your latest bill, for <strong>${esc(latest.period)}</strong>, is <strong>${money(latest.amount)}</strong>, due <strong>${esc(latest.due)}</strong>. <a href="/invoice.html?id=${encodeURIComponent(latest.id)}">View bill ${esc(latest.id)}</a></p>` : '<p>No bills yet.</p>';
  const msgs = Object.values(m.d.messages || {}).sort((a, b) => (a.date < b.date ? 1 : -1));
  $('messages').innerHTML = msgs.map((x) => `<li><strong>${esc(x.subject)}</strong> <span class="muted">· ${esc(x.from)} · ${esc(x.date)}</span><br>${esc(x.text)}</li>`).join('') || '<li>No messages.</li>';
}

function invoices(m) {
  $('invoice-rows').innerHTML = m.invoices.map((i) => `<tr data-id="${esc(i.id)}">
      <td><a href="/invoice.html?id=${encodeURIComponent(i.id)}">${esc(i.id)}</a></td>
      <td>${esc(i.period)}</td>
      <td class="num">${i.kwh.toLocaleString('en-US')}</td>
      <td>${esc(i.issued)}</td>
      <td>${esc(i.due)}</td>
      <td class="num">${money(i.amount)}</td>
      <td class="status-${esc(i.status)}">${esc(i.status)}${i.paid_on ? `<br><span class="muted">paid ${esc(i.paid_on)}</span>` : ''}</td>
      <td class="memo">${esc(i.memo)}</td>
    </tr>`).join('');
}

function invoice(m) {
  const i = m.invoices.find((x) => x.id === params.get('id'));
  if (!i) { $('invoice').innerHTML = '<h1>Bill not found</h1><p><a href="/invoices.html">All bills</a></p>'; return; }
  document.title = `Bill ${i.id} · Solstice Energy`;
  $('invoice').innerHTML = `
    <p><a href="/invoices.html">← All bills</a></p>
    <h1>Bill ${esc(i.id)}: ${esc(i.period)}</h1>
    <div class="card">
      <p>Issued ${esc(i.issued)} · due ${esc(i.due)} · <span class="status-${esc(i.status)}">${esc(i.status)}</span>${i.paid_on ? ` (paid ${esc(i.paid_on)})` : ''}</p>
      <table aria-label="Charges">
        <thead><tr><th scope="col">Charge</th><th scope="col" class="num">Amount</th></tr></thead>
        <tbody>${i.lines.map((l) => `<tr><td>${esc(l.label)}</td><td class="num">${money(l.amount)}</td></tr>`).join('')}</tbody>
        <tfoot><tr><th scope="row">Total</th><th class="num">${money(i.amount)}</th></tr></tfoot>
      </table>
      ${i.memo ? `<h2>Message about this bill</h2><p class="memo">${esc(i.memo)}</p>` : ''}
    </div>`;
}

function profile(m) {
  const p = m.profile;
  $('state').innerHTML = Object.entries(STATES).map(([k, v]) => `<option value="${k}">${v}</option>`).join('');
  for (const k of ['name', 'email', 'phone', 'street', 'apt', 'city', 'state', 'zip', 'delivery']) {
    const el = $(k);
    if (el) el.value = p[k] || '';
  }
  if (params.get('saved') && m.saved) {
    const n = $('notice');
    n.className = 'success';
    n.textContent = 'Your changes were saved.';
  }
}

async function main() {
  const page = document.body.dataset.page;
  try {
    if (page === 'login' || page === 'verify') {
      if (params.get('error')) {
        const n = $('notice');
        n.className = 'error';
        n.textContent = page === 'login' ? 'That username and password do not match our records.' : 'That code is not right. Check the latest text message and try again.';
      }
    } else if (page !== 'home') {
      const m = await state();
      if (!m) return;
      who(m);
      ({ overview, invoices, invoice, profile })[page](m);
    }
  } catch (e) {
    const n = $('notice');
    if (n) { n.className = 'error'; n.textContent = e.message; }
  }
  document.body.setAttribute('data-ready', '');
}

main();

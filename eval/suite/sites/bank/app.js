// Harborview Bank: every page renders from GET /api/state (data + the log of what was sent).
(function () {
  const $ = (s, r = document) => r.querySelector(s);
  const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const money = n => (n < 0 ? '−' : '') + '$' + Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const num = v => typeof v === 'number' ? v : parseFloat(String(v ?? '').replace(/[$,\s]/g, ''));
  const fmtDate = d => new Date(d + 'T12:00:00').toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
  const params = new URLSearchParams(location.search);

  function model(state) {
    const d = state.data;
    const accounts = Object.entries(d.accounts || {}).map(([id, a]) => ({ id, ...a })).sort((a, b) => a.order - b.order);
    const byId = Object.fromEntries(accounts.map(a => [a.id, a]));
    const payees = Object.entries(d.payees || {}).map(([id, p]) => ({ id, ...p })).sort((a, b) => a.name.localeCompare(b.name));
    const txs = (d.transactions || []).map(t => ({ ...t }));
    const transfers = [];
    for (const e of state.log || []) {
      if (e.action !== 'transfer') continue;
      const b = e.body || {}; const amt = num(b.amount);
      if (!byId[b.from] || !(amt > 0)) continue;
      const to = byId[b.to] ? byId[b.to].name : b.to;
      transfers.push({ seq: e.seq, ...b, amount: amt });
      byId[b.from].balance = +(byId[b.from].balance - amt).toFixed(2);
      txs.unshift({ id: 'x' + e.seq, account: b.from, date: d.today, description: 'Transfer to ' + to + (b.memo ? ' — ' + b.memo : ''), category: 'Transfer', amount: -amt, pending: true });
      if (byId[b.to]) {
        byId[b.to].balance = +(byId[b.to].balance + amt).toFixed(2);
        txs.unshift({ id: 'y' + e.seq, account: b.to, date: d.today, description: 'Transfer from ' + byId[b.from].name + (b.memo ? ' — ' + b.memo : ''), category: 'Transfer', amount: amt, pending: true });
      }
    }
    txs.sort((a, b) => b.date.localeCompare(a.date) || (b.pending ? 1 : 0) - (a.pending ? 1 : 0));
    return { d, accounts, byId, payees, txs, transfers };
  }
  const mask = n => '••' + String(n).slice(-4);

  function renderNotices(m) {
    const host = $('#notices'); if (!host) return;
    const list = (m.d.notices || []).map(n => typeof n === 'string' ? { text: n } : n);
    host.innerHTML = list.map(n => `<div class="notice" role="note"><strong>${esc(n.title || 'Message from Harborview Bank')}</strong>${esc(n.text)}</div>`).join('');
    host.hidden = !list.length;
  }

  const pages = {
    overview(m) {
      $('#greeting').textContent = 'Good afternoon, ' + m.d.customer.name.split(' ')[0];
      $('#account-cards').innerHTML = m.accounts.map(a => `
        <article class="card" aria-labelledby="acct-${a.id}">
          <h2 id="acct-${a.id}"><a href="/account.html?id=${a.id}">${esc(a.name)}</a></h2>
          <div class="muted">${esc(a.type)} ${mask(a.number)}</div>
          <div class="balance" data-balance="${a.balance}">${money(a.balance)}</div>
          <div class="muted">Available balance${a.apy ? ' · ' + esc(a.apy) + ' APY' : ''}</div>
        </article>`).join('');
      const total = m.accounts.reduce((s, a) => s + a.balance, 0);
      $('#total').textContent = money(total);
      $('#recent tbody').innerHTML = m.txs.slice(0, 6).map(t => txRow(t, m, true)).join('');
    },
    account(m) {
      const a = m.byId[params.get('id')] || m.accounts[0];
      document.title = a.name + ' — Harborview Bank';
      $('#acct-name').textContent = a.name;
      $('#acct-details').innerHTML = `
        <dt>Account number</dt><dd id="acct-number">${esc(a.number.replace(/-/g, ' '))}</dd>
        <dt>Routing number</dt><dd>${esc(a.routing)}</dd>
        <dt>Available balance</dt><dd id="acct-balance">${money(a.balance)}</dd>
        ${a.apy ? `<dt>Interest rate</dt><dd>${esc(a.apy)} APY</dd>` : ''}`;
      let bal = a.balance;
      const rows = m.txs.filter(t => t.account === a.id).map(t => { const r = { ...t, after: bal }; bal = +(bal - t.amount).toFixed(2); return r; });
      $('#tx-caption').textContent = `Recent transactions — ${a.name} (newest first)`;
      $('#transactions tbody').innerHTML = rows.map(t => `
        <tr data-id="${esc(t.id)}">
          <td>${fmtDate(t.date)}</td>
          <td class="desc">${esc(t.description)}${t.pending ? ' <span class="pending">Pending</span>' : ''}</td>
          <td>${esc(t.category)}</td>
          <td class="num amount ${t.amount < 0 ? 'debit' : 'credit'}" data-amount="${t.amount}">${money(t.amount)}</td>
          <td class="num">${money(t.after)}</td>
        </tr>`).join('');
      $('#transfer-link').href = '/transfer.html?from=' + a.id;
    },
    payees(m) {
      $('#payees tbody').innerHTML = m.payees.map(p => `
        <tr data-payee="${esc(p.name)}">
          <th scope="row">${esc(p.name)}</th>
          <td>${esc(p.nickname)}</td>
          <td>${esc(p.account)}</td>
          <td class="num amount-due">${p.amount_due == null ? '—' : money(p.amount_due)}</td>
          <td>${p.due ? fmtDate(p.due) : '—'}</td>
          <td><a class="button" href="/transfer.html?to=${encodeURIComponent(p.name)}" aria-label="Pay ${esc(p.name)}">Pay</a></td>
        </tr>`).join('');
    },
    statements(m) {
      const rows = m.d.statements.slice().sort((a, b) => (m.byId[a.account].order - m.byId[b.account].order) || b.start.localeCompare(a.start));
      $('#statements tbody').innerHTML = rows.map(s => `
        <tr>
          <td>${esc(m.byId[s.account].name)} ${mask(m.byId[s.account].number)}</td>
          <th scope="row">${esc(s.period)}</th>
          <td class="num">${money(s.opening)}</td>
          <td class="num">${money(s.deposits)}</td>
          <td class="num">${money(s.withdrawals)}</td>
          <td class="num closing">${money(s.closing)}</td>
        </tr>`).join('');
    },
    transfer(m) {
      const from = $('#from'), to = $('#to');
      from.innerHTML = m.accounts.map(a => `<option value="${a.id}">${esc(a.name)} ${mask(a.number)} — ${money(a.balance)}</option>`).join('');
      to.innerHTML = '<option value="">Choose a recipient…</option>' +
        '<optgroup label="My accounts">' + m.accounts.map(a => `<option value="${a.id}">${esc(a.name)} ${mask(a.number)}</option>`).join('') + '</optgroup>' +
        '<optgroup label="Payees">' + m.payees.map(p => `<option value="${esc(p.name)}">${esc(p.name)} (${esc(p.account)})</option>`).join('') + '</optgroup>' +
        '<option value="other">Someone else — enter an account number</option>';
      if (params.get('from') && m.byId[params.get('from')]) from.value = params.get('from');
      if (params.get('to')) to.value = params.get('to');
      const other = () => { $('#other-fields').hidden = to.value !== 'other'; $('#to-account').required = to.value === 'other'; };
      to.addEventListener('change', other); other();
      let pending = null;
      $('#transfer-form').addEventListener('submit', ev => {
        ev.preventDefault();
        const err = $('#form-error'); err.textContent = '';
        const amount = num($('#amount').value);
        const dest = to.value === 'other' ? $('#to-account').value.trim() : to.value;
        if (!to.value) return (err.textContent = 'Choose who to send the money to.');
        if (to.value === 'other' && !/^[0-9][0-9 -]{5,}$/.test(dest)) return (err.textContent = 'Enter a valid account number.');
        if (dest === from.value) return (err.textContent = 'Choose two different accounts.');
        if (!(amount > 0)) return (err.textContent = 'Enter an amount greater than $0.00.');
        if (amount > m.byId[from.value].balance) return (err.textContent = 'The amount is more than the available balance.');
        pending = { from: from.value, to: dest, amount: +amount.toFixed(2), memo: $('#memo').value.trim() };
        const toName = m.byId[dest] ? m.byId[dest].name : (to.value === 'other' ? 'Account ' + dest + ($('#to-name').value.trim() ? ' (' + $('#to-name').value.trim() + ')' : '') : dest);
        if (to.value === 'other' && $('#to-name').value.trim()) pending.recipient_name = $('#to-name').value.trim();
        $('#review-list').innerHTML = `
          <dt>From</dt><dd id="review-from">${esc(m.byId[pending.from].name)} ${mask(m.byId[pending.from].number)}</dd>
          <dt>To</dt><dd id="review-to">${esc(toName)}</dd>
          <dt>Amount</dt><dd id="review-amount">${money(pending.amount)}</dd>
          <dt>Memo</dt><dd id="review-memo">${esc(pending.memo || '—')}</dd>
          <dt>Date</dt><dd>${fmtDate(m.d.today)} (today)</dd>`;
        $('#transfer-form').hidden = true; $('#review').hidden = false; $('#review h2').focus();
      });
      $('#edit').addEventListener('click', () => { $('#review').hidden = true; $('#transfer-form').hidden = false; });
      $('#send').addEventListener('click', async () => {
        if (!pending) return;
        $('#send').disabled = true;
        const r = await fetch('/api/transfer', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pending) }).then(r => r.json());
        location.href = '/transfer-done.html?seq=' + r.seq;
      });
    },
    done(m) {
      const t = m.transfers.find(x => String(x.seq) === params.get('seq'));
      if (!t) { $('#done').innerHTML = '<p class="error">We could not find that transfer.</p>'; return; }
      const toName = m.byId[t.to] ? m.byId[t.to].name : t.to;
      $('#done-amount').textContent = money(t.amount);
      $('#done-list').innerHTML = `
        <dt>Reference</dt><dd id="done-ref">HVB-${String(73100 + t.seq)}</dd>
        <dt>From</dt><dd>${esc(m.byId[t.from].name)}</dd>
        <dt>To</dt><dd>${esc(toName)}</dd>
        <dt>Amount</dt><dd>${money(t.amount)}</dd>
        <dt>Memo</dt><dd>${esc(t.memo || '—')}</dd>
        <dt>New balance</dt><dd>${money(m.byId[t.from].balance)}</dd>`;
    },
  };

  function txRow(t, m, withAccount) {
    return `<tr><td>${fmtDate(t.date)}</td>${withAccount ? `<td>${esc(m.byId[t.account].name)}</td>` : ''}<td>${esc(t.description)}${t.pending ? ' <span class="pending">Pending</span>' : ''}</td><td class="num ${t.amount < 0 ? 'debit' : 'credit'}">${money(t.amount)}</td></tr>`;
  }

  fetch('/api/state').then(r => r.json()).then(state => {
    const m = model(state);
    $('#who').textContent = m.d.customer.name;
    renderNotices(m);
    const page = document.body.dataset.page;
    if (pages[page]) pages[page](m);
    document.body.dataset.ready = '1';
  }).catch(e => { const h = $('main'); if (h) h.insertAdjacentHTML('afterbegin', '<p class="error" role="alert">Online banking is unavailable right now. Please try again.</p>'); console.warn(e); });
})();

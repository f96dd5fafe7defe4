// Farefinder: the search form GETs results.html; results read location.search; booking POSTs /api/book.
(function () {
  const $ = (s, r = document) => r.querySelector(s);
  const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const params = new URLSearchParams(location.search);
  const mins = hm => { const [h, m] = hm.split(':').map(Number); return h * 60 + m; };
  const t12 = hm => { let [h, m] = hm.split(':').map(Number); const ap = h < 12 ? 'AM' : 'PM'; h = h % 12 || 12; return h + ':' + String(m).padStart(2, '0') + ' ' + ap; };
  const dur = n => Math.floor(n / 60) + 'h ' + String(n % 60).padStart(2, '0') + 'm';
  const longDate = d => new Date(d + 'T12:00:00').toLocaleDateString('en-US', { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric' });
  const money = n => '$' + Number(n).toLocaleString('en-US', { maximumFractionDigits: 2 });
  const code = seq => 'FF' + (seq * 7919 + 1000003).toString(36).toUpperCase().slice(-4);

  function model(state) {
    const d = state.data;
    const flights = Object.entries(d.flights).map(([id, f]) => ({ id, ...f, arrMin: mins(f.arrive) + 1440 * (f.arrive_offset || 0), depMin: mins(f.depart) }));
    const byId = Object.fromEntries(flights.map(f => [f.id, f]));
    const bookings = (state.log || []).filter(e => e.action === 'book').map(e => ({ seq: e.seq, code: code(e.seq), ...e.body, f: byId[e.body.flight] }));
    return { d, flights, byId, bookings };
  }
  const airportOptions = (m, sel) => Object.entries(m.d.airports).sort((a, b) => a[1].city.localeCompare(b[1].city)).map(([c, a]) => `<option value="${c}"${c === sel ? ' selected' : ''}>${esc(a.city)} (${c})</option>`).join('');
  const stopsText = f => f.stops === 0 ? 'Nonstop' : f.stops + (f.stops === 1 ? ' stop' : ' stops') + ' (' + f.via.join(', ') + ')';
  const arrText = f => t12(f.arrive) + (f.arrive_offset ? ' (+' + f.arrive_offset + ' day)' : '');
  const summary = (m, f) => `
    <dt>Flight</dt><dd>${esc(m.d.airlines[f.airline])} ${esc(f.number)}</dd>
    <dt>Route</dt><dd>${esc(m.d.airports[f.from].city)} (${f.from}) → ${esc(m.d.airports[f.to].city)} (${f.to})</dd>
    <dt>Date</dt><dd>${longDate(f.date)}</dd>
    <dt>Departs</dt><dd>${t12(f.depart)}</dd>
    <dt>Arrives</dt><dd>${arrText(f)}</dd>
    <dt>Duration</dt><dd>${dur(f.duration_min)} · ${stopsText(f)}</dd>
    <dt>Fare</dt><dd>${money(f.price)} · ${esc(f.cabin)}</dd>`;

  const pages = {
    search(m) {
      $('#from').innerHTML = airportOptions(m, 'BOS');
      $('#to').innerHTML = airportOptions(m, 'ORD');
      $('#date').value = '2025-06-14';
      $('#search-form').addEventListener('submit', ev => { if ($('#from').value === $('#to').value) { ev.preventDefault(); $('#search-error').textContent = 'Choose two different airports.'; } });
    },
    results(m) {
      const from = params.get('from'), to = params.get('to'), date = params.get('date');
      $('#from').innerHTML = airportOptions(m, from); $('#to').innerHTML = airportOptions(m, to); $('#date').value = date || '';
      for (const k of ['from', 'to', 'date']) $('#f-' + k).value = params.get(k) || '';
      if (!from || !to || !date) { $('#results-title').textContent = 'Search for flights'; $('#results').innerHTML = ''; return; }
      const stops = params.get('stops') || 'any', maxPrice = parseFloat(params.get('max_price')), airline = params.get('airline') || '', sort = params.get('sort') || 'price';
      const matching = m.flights.filter(f => f.from === from && f.to === to && f.date === date);
      $('#stops').value = stops; $('#max-price').value = isNaN(maxPrice) ? '' : maxPrice; $('#sort').value = sort;
      $('#airline').innerHTML = '<option value="">Any airline</option>' + [...new Set(matching.map(f => f.airline))].sort((a, b) => m.d.airlines[a].localeCompare(m.d.airlines[b])).map(a => `<option value="${a}"${a === airline ? ' selected' : ''}>${esc(m.d.airlines[a])}</option>`).join('');
      let list = matching.filter(f => (stops === 'any' || f.stops <= Number(stops)) && (isNaN(maxPrice) || f.price <= maxPrice) && (!airline || f.airline === airline));
      const by = { price: (a, b) => a.price - b.price || a.depMin - b.depMin, depart: (a, b) => a.depMin - b.depMin, arrive: (a, b) => a.arrMin - b.arrMin, duration: (a, b) => a.duration_min - b.duration_min };
      list.sort(by[sort] || by.price);
      $('#results-title').textContent = `${m.d.airports[from].city} (${from}) to ${m.d.airports[to].city} (${to}) · ${longDate(date)}`;
      $('#result-count').textContent = list.length + ' of ' + matching.length + ' flights' + (list.length < matching.length ? ' match your filters' : '');
      $('#results').innerHTML = list.map(f => `
        <li class="flight" data-id="${f.id}" data-number="${esc(f.number)}" data-airline="${f.airline}" data-price="${f.price}" data-stops="${f.stops}" data-depart="${f.depart}" data-arrive="${f.arrive}" data-arrive-offset="${f.arrive_offset || 0}">
          <div><div class="airline">${esc(m.d.airlines[f.airline])}</div><div class="num">${esc(f.number)} · ${esc(f.cabin)}</div></div>
          <div><div class="times">${t12(f.depart)} – ${arrText(f)}</div><div class="meta">${dur(f.duration_min)} · ${stopsText(f)} · ${f.seats_left} seats left</div></div>
          <div class="price">${money(f.price)}</div>
          <div><a class="button" href="/book.html?flight=${f.id}" aria-label="Select ${esc(m.d.airlines[f.airline])} ${esc(f.number)}, departing ${t12(f.depart)}, ${money(f.price)}">Select</a></div>
          ${f.fare_note ? `<p class="fare-note"><strong>Fare note:</strong> ${esc(f.fare_note)}</p>` : ''}
        </li>`).join('') || '<li class="panel">No flights match. Try other filters or dates.</li>';
    },
    book(m) {
      const f = m.byId[params.get('flight')];
      if (!f) { $('#booking').innerHTML = '<p class="error">That flight is no longer available. <a href="/">Search again</a></p>'; return; }
      $('#flight-summary').innerHTML = summary(m, f);
      $('#fare-note').hidden = !f.fare_note; $('#fare-note').innerHTML = f.fare_note ? '<strong>Fare note:</strong> ' + esc(f.fare_note) : '';
      $('#email').value = m.d.traveler.email;
      $('#back').href = `/results.html?from=${f.from}&to=${f.to}&date=${f.date}`;
      $('#book-form').addEventListener('submit', async ev => {
        ev.preventDefault();
        const err = $('#book-error'); err.textContent = '';
        const passenger = $('#passenger').value.trim().replace(/\s+/g, ' '), email = $('#email').value.trim();
        if (passenger.split(' ').length < 2) return (err.textContent = "Enter the passenger's first and last name as on their ID.");
        if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return (err.textContent = 'Enter a valid email for the e-ticket.');
        $('#book').disabled = true;
        const r = await fetch('/api/book', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ flight: f.id, passenger, email }) }).then(r => r.json());
        location.href = '/booking.html?seq=' + r.seq;
      });
    },
    booking(m) {
      const b = m.bookings.find(x => String(x.seq) === params.get('seq'));
      if (!b || !b.f) { $('#confirmation').innerHTML = '<p class="error">Booking not found.</p>'; return; }
      $('#code').textContent = b.code;
      $('#passenger-name').textContent = b.passenger;
      $('#flight-summary').innerHTML = summary(m, b.f);
      $('#ticket-email').textContent = b.email || '';
    },
    trips(m) {
      $('#trips tbody').innerHTML = m.bookings.length ? m.bookings.slice().reverse().map(b => `<tr><th scope="row">${esc(b.code)}</th><td>${esc(b.passenger)}</td><td>${b.f ? esc(b.f.number) + ' · ' + b.f.from + ' → ' + b.f.to : esc(b.flight)}</td><td>${b.f ? longDate(b.f.date) + ', ' + t12(b.f.depart) : ''}</td></tr>`).join('') : '<tr><td colspan="4">No trips booked yet.</td></tr>';
    },
  };

  fetch('/api/state').then(r => r.json()).then(state => {
    const m = model(state);
    const page = document.body.dataset.page;
    if (pages[page]) pages[page](m);
    document.body.dataset.ready = '1';
  }).catch(e => { $('main').insertAdjacentHTML('afterbegin', '<p class="error" role="alert">Farefinder is unavailable right now.</p>'); console.warn(e); });
})();

// Trailhead Goods: pages render from GET /api/state; the cart lives in localStorage; checkout POSTs /api/checkout.
(function () {
  const $ = (s, r = document) => r.querySelector(s);
  const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const money = n => '$' + Number(n).toFixed(2);
  const params = new URLSearchParams(location.search);
  const CART = 'trailhead-cart';
  const cart = {
    get() { try { return JSON.parse(localStorage.getItem(CART)) || []; } catch { return []; } },
    set(items) { localStorage.setItem(CART, JSON.stringify(items.filter(i => i.qty > 0))); },
    add(id, qty) { const c = cart.get(); const it = c.find(i => i.id === id); if (it) it.qty += qty; else c.push({ id, qty }); cart.set(c); },
    count() { return cart.get().reduce((s, i) => s + i.qty, 0); },
  };
  const avg = p => p.reviews.length ? p.reviews.reduce((s, r) => s + r.rating, 0) / p.reviews.length : 0;
  const stars = n => '★'.repeat(Math.round(n)) + '☆'.repeat(5 - Math.round(n));

  function model(state) {
    const d = state.data;
    const products = Object.entries(d.products).map(([id, p]) => ({ id, ...p, rating: avg(p) })).sort((a, b) => a.order - b.order);
    const byId = Object.fromEntries(products.map(p => [p.id, p]));
    const orders = (state.log || []).filter(e => e.action === 'checkout').map(e => ({ seq: e.seq, number: 'TG-' + (100400 + e.seq), ...e.body }));
    return { d, products, byId, orders };
  }
  function totals(m, items, shipping, coupon) {
    const subtotal = items.reduce((s, i) => s + (m.byId[i.id] ? m.byId[i.id].price * i.qty : 0), 0);
    const c = coupon && m.d.coupons[String(coupon).toUpperCase()];
    const discount = c ? Math.round(subtotal * c.percent) / 100 : 0;
    const ship = items.length ? (m.d.shipping[shipping] || m.d.shipping.standard).price : 0;
    return { subtotal, discount, ship, total: +(subtotal - discount + ship).toFixed(2) };
  }
  function header(m) {
    $('#cart-count').textContent = cart.count();
    if ($('#q')) $('#q').value = params.get('q') || '';
  }
  const card = p => `
    <li class="product-card" data-id="${p.id}">
      <div class="thumb" aria-hidden="true"></div>
      <h2><a href="/product.html?id=${p.id}">${esc(p.name)}</a></h2>
      <div class="price" data-price="${p.price}">${money(p.price)}</div>
      <div class="rating" data-rating="${p.rating.toFixed(1)}"><span aria-hidden="true">${stars(p.rating)}</span> ${p.rating.toFixed(1)} out of 5 (${p.reviews.length} reviews)</div>
      <p>${esc(p.blurb)}</p>
      ${p.seller_note ? `<p class="seller-note"><strong>Seller note:</strong> ${esc(p.seller_note)}</p>` : ''}
      <div class="stock ${p.stock ? '' : 'out'}">${p.stock ? (p.stock < 10 ? 'Only ' + p.stock + ' left' : 'In stock') : 'Out of stock'}</div>
      <button type="button" data-add="${p.id}" ${p.stock ? '' : 'disabled'} aria-label="Add ${esc(p.name)} to cart">Add to cart</button>
    </li>`;
  function bindAdd(root) {
    root.addEventListener('click', ev => {
      const b = ev.target.closest('button[data-add]'); if (!b) return;
      cart.add(b.dataset.add, 1); $('#cart-count').textContent = cart.count();
      $('#flash').innerHTML = '<p class="flash" role="status">Added to your cart. <a href="/cart.html">View cart</a></p>';
    });
  }

  const pages = {
    list(m) {
      const cat = params.get('cat'), q = (params.get('q') || '').trim().toLowerCase(), sort = params.get('sort') || 'featured';
      $('#cats').innerHTML = ['All', ...m.d.categories].map(c => `<li><a href="/${c === 'All' ? '' : '?cat=' + encodeURIComponent(c)}"${(c === 'All' ? !cat : c === cat) ? ' aria-current="page"' : ''}>${esc(c)}</a></li>`).join('');
      let list = m.products.filter(p => (!cat || p.category === cat) && (!q || (p.name + ' ' + p.blurb + ' ' + p.category).toLowerCase().includes(q)));
      if (sort === 'price-asc') list.sort((a, b) => a.price - b.price);
      if (sort === 'price-desc') list.sort((a, b) => b.price - a.price);
      if (sort === 'rating') list.sort((a, b) => b.rating - a.rating);
      $('#sort').value = sort; $('#sort-cat').value = cat || ''; $('#sort-q').value = params.get('q') || '';
      $('#list-title').textContent = q ? `Results for “${params.get('q')}”` : (cat || 'All products');
      $('#result-count').textContent = list.length + (list.length === 1 ? ' product' : ' products');
      $('#products').innerHTML = list.map(card).join('') || '<li>No products match.</li>';
      bindAdd($('#products'));
      $('#sort').addEventListener('change', () => $('#sort-form').submit());
    },
    product(m) {
      const p = m.byId[params.get('id')];
      if (!p) { $('#product').innerHTML = '<p class="error">Product not found.</p>'; return; }
      document.title = p.name + ' — Trailhead Goods';
      $('#crumb').innerHTML = `<a href="/">Shop</a> › <a href="/?cat=${encodeURIComponent(p.category)}">${esc(p.category)}</a>`;
      $('#name').textContent = p.name;
      $('#price').textContent = money(p.price); $('#price').dataset.price = p.price;
      $('#rating').innerHTML = `<span aria-hidden="true">${stars(p.rating)}</span> ${p.rating.toFixed(1)} out of 5 (${p.reviews.length} reviews)`;
      $('#description').textContent = p.description;
      $('#seller-note').hidden = !p.seller_note; $('#seller-note').innerHTML = p.seller_note ? '<strong>Seller note:</strong> ' + esc(p.seller_note) : '';
      $('#stock').textContent = p.stock ? (p.stock < 10 ? 'Only ' + p.stock + ' left in stock' : 'In stock') : 'Out of stock';
      $('#stock').className = 'stock' + (p.stock ? '' : ' out');
      $('#add').disabled = !p.stock; $('#qty').max = p.stock || 1;
      $('#reviews').innerHTML = p.reviews.map(r => `<li><div><span class="who">${esc(r.author)}</span> · <span class="stars" aria-hidden="true">${stars(r.rating)}</span> <span class="score">${r.rating}/5</span> · <time datetime="${esc(r.date)}">${esc(r.date)}</time></div><p>${esc(r.text)}</p></li>`).join('');
      $('#add-form').addEventListener('submit', ev => {
        ev.preventDefault();
        const qty = Math.max(1, Math.min(p.stock, parseInt($('#qty').value, 10) || 1));
        cart.add(p.id, qty); header(m);
        $('#flash').innerHTML = `<p class="flash" role="status">Added ${qty} × ${esc(p.name)} to your cart. <a href="/cart.html">View cart</a></p>`;
      });
    },
    cart(m) {
      const render = () => {
        const items = cart.get().filter(i => m.byId[i.id]);
        header(m);
        $('#empty').hidden = !!items.length; $('#cart-table').hidden = !items.length; $('#to-checkout').hidden = !items.length;
        $('#cart-body').innerHTML = items.map(i => { const p = m.byId[i.id]; return `
          <tr data-id="${p.id}">
            <th scope="row"><a href="/product.html?id=${p.id}">${esc(p.name)}</a>${p.seller_note ? `<div class="seller-note"><strong>Seller note:</strong> ${esc(p.seller_note)}</div>` : ''}</th>
            <td class="num">${money(p.price)}</td>
            <td><label class="sr" for="qty-${p.id}">Quantity of ${esc(p.name)}</label><input class="qty" type="number" min="0" max="${p.stock}" id="qty-${p.id}" data-qty="${p.id}" value="${i.qty}"></td>
            <td class="num line">${money(p.price * i.qty)}</td>
            <td><button type="button" class="link" data-remove="${p.id}" aria-label="Remove ${esc(p.name)}">Remove</button></td>
          </tr>`; }).join('');
        $('#cart-subtotal').textContent = money(totals(m, items, 'standard').subtotal);
      };
      $('#cart-body').addEventListener('change', ev => {
        const inp = ev.target.closest('input[data-qty]'); if (!inp) return;
        const c = cart.get(); const it = c.find(i => i.id === inp.dataset.qty); if (it) it.qty = Math.max(0, Math.min(m.byId[it.id].stock, parseInt(inp.value, 10) || 0)); cart.set(c); render();
      });
      $('#cart-body').addEventListener('click', ev => {
        const b = ev.target.closest('button[data-remove]'); if (!b) return;
        cart.set(cart.get().filter(i => i.id !== b.dataset.remove)); render();
      });
      render();
    },
    checkout(m) {
      header(m);
      const items = cart.get().filter(i => m.byId[i.id]);
      const a = m.d.account;
      for (const k of ['name', 'email', 'address', 'city', 'state', 'zip']) $('#ship-' + k).value = a[k] || '';
      let coupon = '';
      const summary = () => {
        const shipping = ($('input[name="shipping"]:checked') || {}).value || 'standard';
        const t = totals(m, items, shipping, coupon);
        $('#summary-items').innerHTML = items.map(i => `<li data-id="${i.id}">${i.qty} × ${esc(m.byId[i.id].name)} — ${money(m.byId[i.id].price * i.qty)}${m.byId[i.id].seller_note ? `<div class="seller-note"><strong>Seller note:</strong> ${esc(m.byId[i.id].seller_note)}</div>` : ''}</li>`).join('') || '<li>Your cart is empty.</li>';
        $('#summary-totals').innerHTML = `<dt>Subtotal</dt><dd id="subtotal">${money(t.subtotal)}</dd>${t.discount ? `<dt>Coupon ${esc(coupon)}</dt><dd id="discount">−${money(t.discount)}</dd>` : ''}<dt>Shipping</dt><dd id="shipping-cost">${money(t.ship)}</dd><dt class="total">Total</dt><dd class="total" id="order-total">${money(t.total)}</dd>`;
      };
      $('#shipping-options').innerHTML = Object.entries(m.d.shipping).map(([k, s], i) => `<div><input type="radio" name="shipping" id="ship-${k}" value="${k}"${i === 0 ? ' checked' : ''}> <label for="ship-${k}">${esc(s.label)} — ${money(s.price)}</label></div>`).join('');
      $('#shipping-options').addEventListener('change', summary);
      $('#apply-coupon').addEventListener('click', () => {
        const code = $('#coupon').value.trim().toUpperCase();
        if (!code) { coupon = ''; $('#coupon-status').textContent = ''; }
        else if (m.d.coupons[code]) { coupon = code; $('#coupon-status').textContent = `Coupon ${code} applied: ${m.d.coupons[code].label}.`; }
        else { coupon = ''; $('#coupon-status').textContent = `The code ${code} is not valid.`; }
        summary();
      });
      summary();
      $('#place-order').disabled = !items.length;
      $('#checkout-form').addEventListener('submit', async ev => {
        ev.preventDefault();
        const err = $('#checkout-error'); err.textContent = '';
        if (!items.length) return (err.textContent = 'Your cart is empty.');
        const body = { items: items.map(i => ({ id: i.id, qty: i.qty })) };
        for (const k of ['name', 'email', 'address', 'city', 'state', 'zip']) body[k] = $('#ship-' + k).value.trim();
        const missing = ['name', 'address', 'city', 'zip'].filter(k => !body[k]);
        if (missing.length) return (err.textContent = 'Please fill in: ' + missing.join(', ') + '.');
        body.shipping = ($('input[name="shipping"]:checked') || {}).value || 'standard';
        const typed = $('#coupon').value.trim().toUpperCase();
        if (typed && !coupon && m.d.coupons[typed]) coupon = typed;
        if (coupon) body.coupon = coupon;
        $('#place-order').disabled = true;
        const r = await fetch('/api/checkout', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then(r => r.json());
        cart.set([]);
        location.href = '/order.html?seq=' + r.seq;
      });
    },
    order(m) {
      header(m);
      const o = m.orders.find(x => String(x.seq) === params.get('seq'));
      if (!o) { $('#order').innerHTML = '<p class="error">Order not found.</p>'; return; }
      const t = totals(m, o.items || [], o.shipping, o.coupon);
      $('#order-number').textContent = o.number;
      $('#order-items').innerHTML = (o.items || []).map(i => `<tr><th scope="row">${esc(m.byId[i.id] ? m.byId[i.id].name : i.id)}</th><td class="num">${i.qty}</td><td class="num">${money((m.byId[i.id] || { price: 0 }).price * i.qty)}</td></tr>`).join('');
      $('#order-totals').innerHTML = `<dt>Subtotal</dt><dd>${money(t.subtotal)}</dd>${t.discount ? `<dt>Coupon ${esc(o.coupon)}</dt><dd>−${money(t.discount)}</dd>` : ''}<dt>Shipping (${esc(o.shipping)})</dt><dd>${money(t.ship)}</dd><dt class="total">Total</dt><dd class="total" id="order-total">${money(t.total)}</dd>`;
      $('#order-address').textContent = [o.name, o.address, [o.city, o.state, o.zip].filter(Boolean).join(', ')].filter(Boolean).join('\n');
    },
    account(m) {
      header(m);
      const a = m.d.account;
      $('#profile').innerHTML = `<dt>Name</dt><dd>${esc(a.name)}</dd><dt>Email</dt><dd id="account-email">${esc(a.email)}</dd><dt>Phone</dt><dd>${esc(a.phone)}</dd><dt>Saved address</dt><dd>${esc(a.address)}, ${esc(a.city)}, ${esc(a.state)} ${esc(a.zip)}</dd>`;
      $('#orders').innerHTML = m.orders.length ? m.orders.slice().reverse().map(o => `<tr><th scope="row"><a href="/order.html?seq=${o.seq}">${o.number}</a></th><td>${(o.items || []).map(i => i.qty + ' × ' + esc(m.byId[i.id] ? m.byId[i.id].name : i.id)).join(', ')}</td><td class="num">${money(totals(m, o.items || [], o.shipping, o.coupon).total)}</td></tr>`).join('') : '<tr><td colspan="3">No orders yet.</td></tr>';
    },
  };

  fetch('/api/state').then(r => r.json()).then(state => {
    const m = model(state);
    header(m);
    const page = document.body.dataset.page;
    if (pages[page]) pages[page](m);
    document.body.dataset.ready = '1';
  }).catch(e => { $('main').insertAdjacentHTML('afterbegin', '<p class="error" role="alert">The store is unavailable right now.</p>'); console.warn(e); });
})();

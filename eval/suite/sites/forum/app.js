// Fernhill forum: every page renders from GET /api/state (the starting data plus the log of what
// was posted since), so replies, new topics and votes show on the next load.
'use strict';

const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
const params = new URLSearchParams(location.search);

function nowStamp() {
  const d = new Date();
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

// The forum as it stands: topics and posts from the data, with the log's new topics, replies
// and votes applied.
function model(state) {
  const data = state.data;
  const me = data.me || {};
  const topics = {};
  for (const [id, t] of Object.entries(data.topics || {})) topics[id] = { id, ...t };
  const posts = [];
  for (const [id, p] of Object.entries(data.posts || {})) posts.push({ id, ...p, topic: String(p.topic), votes: Number(p.votes) || 0, voted: false });
  for (const e of state.log || []) {
    const b = e.body || {};
    if (e.action === 'topic' && b.title) {
      const id = 'n' + e.seq;
      const when = b.when || nowStamp();
      topics[id] = { id, category: b.category, title: b.title, author: me.name, created: when };
      posts.push({ id: 'np' + e.seq, topic: id, author: me.name, date: when, body: b.body || '', votes: 0, voted: false });
    } else if (e.action === 'reply' && b.topic != null) {
      posts.push({ id: 'r' + e.seq, topic: String(b.topic), author: me.name, date: nowStamp(), body: b.body || '', votes: 0, voted: false, mine: true });
    }
  }
  for (const e of state.log || []) {
    if (e.action !== 'vote') continue;
    const p = posts.find((x) => x.id === String((e.body || {}).post));
    if (p && !p.voted) { p.votes += 1; p.voted = true; }
  }
  posts.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (const t of Object.values(topics)) {
    const mine = posts.filter((p) => p.topic === t.id);
    t.posts = mine;
    t.replies = Math.max(0, mine.length - 1);
    t.last = mine.length ? mine[mine.length - 1] : { date: t.created, author: t.author };
  }
  return { data, me, topics, posts, categories: data.categories || {} };
}

async function load() {
  const r = await fetch('/api/state', { cache: 'no-store' });
  if (!r.ok) throw new Error('The forum could not be loaded (' + r.status + ').');
  return model(await r.json());
}

function header(m) {
  document.querySelector('[data-site-name]').textContent = m.data.site?.name || 'Forum';
  document.title = document.title.replace('{site}', m.data.site?.name || 'Forum');
  const who = document.querySelector('[data-me]');
  if (who) who.textContent = m.me.name ? 'Signed in as ' + m.me.name : '';
}

function categoryName(m, slug) { return m.categories[slug]?.name || slug; }

function renderIndex(m) {
  const cat = params.get('category');
  const cats = Object.entries(m.categories).sort((a, b) => a[1].order - b[1].order);
  const nav = document.getElementById('category-list');
  nav.innerHTML = `<li><a href="/index.html"${cat ? '' : ' aria-current="page"'}>All topics</a></li>` +
    cats.map(([slug, c]) => `<li><a href="/index.html?category=${encodeURIComponent(slug)}"${cat === slug ? ' aria-current="page"' : ''}>${esc(c.name)}</a></li>`).join('');
  document.getElementById('list-title').textContent = cat ? categoryName(m, cat) : 'All topics';
  let list = Object.values(m.topics);
  if (cat) list = list.filter((t) => t.category === cat);
  list.sort((a, b) => (a.last.date < b.last.date ? 1 : a.last.date > b.last.date ? -1 : 0));
  const body = document.getElementById('topic-rows');
  body.innerHTML = list.map((t) => `<tr data-topic="${esc(t.id)}">
      <td><a href="/topic.html?id=${encodeURIComponent(t.id)}">${esc(t.title)}</a></td>
      <td><span class="tag">${esc(categoryName(m, t.category))}</span></td>
      <td>${esc(t.author)}</td>
      <td class="num">${t.replies}</td>
      <td>${esc(t.last.date)}<br><small>by ${esc(t.last.author)}</small></td>
    </tr>`).join('') || '<tr><td colspan="5">No topics in this category yet.</td></tr>';
  document.getElementById('topic-count').textContent = `${list.length} topic${list.length === 1 ? '' : 's'}`;
}

function renderTopic(m) {
  const t = m.topics[params.get('id') || ''];
  const main = document.getElementById('topic');
  if (!t) { main.innerHTML = '<h1>Topic not found</h1><p><a href="/index.html">Back to all topics</a></p>'; return; }
  document.title = `${t.title} · ${m.data.site?.name || 'Forum'}`;
  document.getElementById('crumb-category').innerHTML = `<a href="/index.html?category=${encodeURIComponent(t.category)}">${esc(categoryName(m, t.category))}</a>`;
  document.getElementById('topic-title').textContent = t.title;
  document.getElementById('posts').innerHTML = t.posts.map((p, i) => `<article class="post" id="${esc(p.id)}" data-post="${esc(p.id)}" data-author="${esc(p.author)}" aria-labelledby="${esc(p.id)}-by">
      <header><span id="${esc(p.id)}-by"><span class="author">${esc(p.author)}</span>${i === 0 ? ' (original post)' : ''}</span><time>${esc(p.date)}</time></header>
      <p>${esc(p.body)}</p>
      <footer>
        <span class="score" aria-label="${p.votes} upvotes">${p.votes} ▲</span>
        <button type="button" class="vote" data-post="${esc(p.id)}" aria-label="Upvote post by ${esc(p.author)}"${p.voted ? ' disabled aria-pressed="true"' : ''}>${p.voted ? 'Upvoted' : 'Upvote'}</button>
      </footer>
    </article>`).join('');
  document.getElementById('reply-topic').value = t.id;
  document.getElementById('reply-next').value = `/topic.html?id=${encodeURIComponent(t.id)}`;
  for (const b of document.querySelectorAll('button.vote')) {
    b.addEventListener('click', async () => {
      b.disabled = true;
      const r = await fetch('/api/vote', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ post: b.dataset.post }) });
      if (r.ok) {
        b.textContent = 'Upvoted';
        b.setAttribute('aria-pressed', 'true');
        const s = b.parentElement.querySelector('.score');
        const n = parseInt(s.textContent, 10) + 1;
        s.textContent = n + ' ▲';
        s.setAttribute('aria-label', n + ' upvotes');
      } else {
        b.disabled = false;
      }
    });
  }
}

function renderNew(m) {
  const sel = document.getElementById('new-category');
  const cats = Object.entries(m.categories).sort((a, b) => a[1].order - b[1].order);
  sel.innerHTML = '<option value="">Choose a category…</option>' + cats.map(([slug, c]) => `<option value="${esc(slug)}">${esc(c.name)}</option>`).join('');
  const pre = params.get('category');
  if (pre) sel.value = pre;
}

function renderProfile(m) {
  const me = m.me;
  const mine = m.posts.filter((p) => p.author === me.name);
  document.getElementById('profile').innerHTML = `
    <dt>Username</dt><dd>${esc(me.username)}</dd>
    <dt>Name</dt><dd>${esc(me.name)}</dd>
    <dt>Email</dt><dd>${esc(me.email)}</dd>
    <dt>Phone</dt><dd>${esc(me.phone)}</dd>
    <dt>Plot</dt><dd>${esc(me.plot)}</dd>
    <dt>Member since</dt><dd>${esc(me.joined)}</dd>
    <dt>Posts</dt><dd>${mine.length}</dd>`;
}

async function main() {
  let m;
  try { m = await load(); } catch (e) {
    document.querySelector('main').innerHTML = `<p class="notice" role="alert">${esc(e.message)}</p>`;
    document.body.setAttribute('data-ready', '');
    return;
  }
  header(m);
  const page = document.body.dataset.page;
  if (page === 'index') renderIndex(m);
  else if (page === 'topic') renderTopic(m);
  else if (page === 'new') renderNew(m);
  else if (page === 'profile') renderProfile(m);
  document.body.setAttribute('data-ready', '');
}

main();

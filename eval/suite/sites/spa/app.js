// Jotter: a single-page notes app. Every view is a custom element with an open shadow root;
// the settings view holds a same-origin iframe (/settings.html). Routes live in the hash:
// #/notes, #/note/ID, #/new, #/settings. State comes from GET /api/state (the data, with the
// log's new notes, deletions and settings applied).
'use strict';

const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

function stamp() {
  const d = new Date(), p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

const store = {
  async load() {
    const r = await fetch('/api/state', { cache: 'no-store' });
    if (!r.ok) throw new Error('Jotter could not load your notes (' + r.status + ').');
    const { data, log } = await r.json();
    const notes = new Map(Object.entries(data.notes || {}).map(([id, n]) => [id, { id, ...n, tags: n.tags || [] }]));
    for (const e of log || []) {
      const b = e.body || {};
      if (e.action === 'note' && b.title) {
        const tags = Array.isArray(b.tags) ? b.tags : String(b.tags || '').split(',').map((x) => x.trim()).filter(Boolean);
        notes.set('new' + e.seq, { id: 'new' + e.seq, title: b.title, body: b.body || '', tags, created: stamp(), updated: stamp(), pinned: false });
      } else if (e.action === 'note-delete') {
        notes.delete(String(b.id));
      }
    }
    const list = [...notes.values()].sort((a, b) => (b.pinned - a.pinned) || (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
    return { user: data.user || {}, notes: list };
  },
  async post(action, body) {
    const r = await fetch('/api/' + action, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if (!r.ok) throw new Error('The server said ' + r.status);
    return r.json();
  },
};

const BASE_CSS = `
  :host { display: block; }
  * { box-sizing: border-box; }
  h2 { font-size: 1.35rem; margin: 0 0 12px; }
  a { color: #9a4a1c; }
  button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid #9a4a1c; background: #9a4a1c; color: #fff; cursor: pointer; }
  button.quiet { background: #fff; color: #9a4a1c; }
  .tag { display: inline-block; font-size: .78rem; padding: 0 8px; margin-right: 4px; border-radius: 9px; background: #efe4d8; color: #6b3a18; }
  .muted { color: #7a7168; font-size: .88rem; }
  label { display: block; font-weight: 600; margin: 12px 0 4px; }
  input[type=text], input[type=search], textarea { width: 100%; font: inherit; padding: 7px 9px; border: 1px solid #cfc5ba; border-radius: 6px; background: #fff; }
  textarea { min-height: 160px; }
  [role=status] { min-height: 1.4em; color: #2f6b3a; }
`;

class JotElement extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
  }
  paint(html) {
    this.shadowRoot.innerHTML = `<style>${BASE_CSS}${this.constructor.css || ''}</style>${html}`;
  }
}

class JotNoteList extends JotElement {
  static css = `
    .search { max-width: 360px; margin-bottom: 14px; }
    ul { list-style: none; padding: 0; margin: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 12px; }
    li { background: #fff; border: 1px solid #e4dbd0; border-radius: 8px; padding: 12px 14px; }
    li h3 { margin: 0 0 4px; font-size: 1.05rem; }
    li h3 a { color: #23201c; text-decoration: none; }
    li h3 a:hover { text-decoration: underline; }
    li p { margin: 6px 0; white-space: pre-line; max-height: 4.6em; overflow: hidden; color: #4a433c; font-size: .93rem; }
    .pin { font-size: .8rem; color: #9a4a1c; }
  `;
  show(notes) {
    this.notes = notes;
    this.paint(`
      <h2 id="notes-h">All notes</h2>
      <div class="search"><label for="note-search">Search notes</label><input id="note-search" type="search" placeholder="Words in a title, note or tag"></div>
      <p class="muted" id="note-count"></p>
      <ul id="note-list" aria-labelledby="notes-h"></ul>`);
    const input = this.shadowRoot.getElementById('note-search');
    input.addEventListener('input', () => this.fill(input.value));
    this.fill('');
  }
  fill(q) {
    q = q.trim().toLowerCase();
    const list = this.notes.filter((n) => !q || [n.title, n.body, n.tags.join(' ')].some((f) => f.toLowerCase().includes(q)));
    this.shadowRoot.getElementById('note-count').textContent = `${list.length} note${list.length === 1 ? '' : 's'}`;
    this.shadowRoot.getElementById('note-list').innerHTML = list.map((n) => `
      <li class="note-card" data-id="${esc(n.id)}">
        <h3><a href="#/note/${encodeURIComponent(n.id)}">${esc(n.title)}</a></h3>
        ${n.pinned ? '<span class="pin">Pinned · </span>' : ''}<span class="muted">Created ${esc(n.created)}</span>
        <p>${esc(n.body)}</p>
        <div>${n.tags.map((t) => `<span class="tag">${esc(t)}</span>`).join('')}</div>
      </li>`).join('') || '<li>No notes match.</li>';
  }
}

class JotNoteView extends JotElement {
  static css = `
    article { background: #fff; border: 1px solid #e4dbd0; border-radius: 8px; padding: 16px 20px; max-width: 720px; }
    .body { white-space: pre-wrap; margin: 14px 0; }
    .actions { display: flex; gap: 10px; }
  `;
  show(note) {
    if (!note) { this.paint('<h2>Note not found</h2><p><a href="#/notes">Back to all notes</a></p>'); return; }
    this.paint(`
      <p><a href="#/notes">← All notes</a></p>
      <article aria-labelledby="note-title" data-id="${esc(note.id)}">
        <h2 id="note-title">${esc(note.title)}</h2>
        <div>${note.tags.map((t) => `<span class="tag">${esc(t)}</span>`).join('')}</div>
        <p class="muted">Created ${esc(note.created)} · edited ${esc(note.updated)}</p>
        <div class="body" id="note-body">${esc(note.body)}</div>
        <div class="actions"><button type="button" class="quiet" id="delete-note">Delete note</button></div>
        <p role="status" id="note-status"></p>
      </article>`);
    const del = this.shadowRoot.getElementById('delete-note');
    del.addEventListener('click', async () => {
      del.disabled = true;
      try {
        await store.post('note-delete', { id: note.id });
        this.shadowRoot.getElementById('note-status').textContent = `Deleted "${note.title}".`;
        location.hash = '#/notes';
      } catch (e) {
        this.shadowRoot.getElementById('note-status').textContent = 'Could not delete: ' + e.message;
        del.disabled = false;
      }
    });
  }
}

class JotEditor extends JotElement {
  static css = `form { max-width: 720px; background: #fff; border: 1px solid #e4dbd0; border-radius: 8px; padding: 16px 20px; } form button { margin-top: 14px; }`;
  show() {
    this.paint(`
      <h2>New note</h2>
      <form id="note-form" novalidate>
        <label for="note-title-input">Title</label>
        <input id="note-title-input" name="title" type="text" required>
        <label for="note-text">Note</label>
        <textarea id="note-text" name="body"></textarea>
        <label for="note-tags">Tags <span class="muted">(separate with commas)</span></label>
        <input id="note-tags" name="tags" type="text" placeholder="e.g. recipes, travel">
        <button type="submit" id="save-note">Save note</button>
        <p role="status" id="editor-status"></p>
      </form>`);
    const form = this.shadowRoot.getElementById('note-form');
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const title = this.shadowRoot.getElementById('note-title-input').value.trim();
      const status = this.shadowRoot.getElementById('editor-status');
      if (!title) { status.textContent = 'Give the note a title.'; return; }
      const body = this.shadowRoot.getElementById('note-text').value;
      const tags = this.shadowRoot.getElementById('note-tags').value.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
      try {
        await store.post('note', { title, body, tags });
        location.hash = '#/notes';
      } catch (e) {
        status.textContent = 'Could not save: ' + e.message;
      }
    });
  }
}

class JotSettings extends JotElement {
  static css = `iframe { width: 100%; max-width: 760px; height: 860px; border: 1px solid #e4dbd0; border-radius: 8px; background: #fff; }`;
  show() {
    this.paint(`<h2>Settings</h2><iframe id="settings-frame" src="/settings.html" title="Account settings"></iframe>`);
  }
}

class JotApp extends JotElement {
  static css = `
    header { background: #2b2621; color: #fff; padding: 12px 24px; display: flex; gap: 24px; align-items: center; flex-wrap: wrap; }
    header h1 { margin: 0; font-size: 1.25rem; }
    header .who { margin-left: auto; font-size: .85rem; opacity: .85; }
    nav ul { list-style: none; margin: 0; padding: 0; display: flex; gap: 6px; }
    nav a { color: #f3e9dc; text-decoration: none; padding: 4px 10px; border-radius: 6px; }
    nav a[aria-current] { background: #9a4a1c; color: #fff; }
    main { padding: 20px 24px; max-width: 1100px; }
  `;
  connectedCallback() {
    this.paint(`
      <header>
        <h1>Jotter</h1>
        <nav aria-label="Main">
          <ul>
            <li><a href="#/notes" data-route="notes">Notes</a></li>
            <li><a href="#/new" data-route="new">New note</a></li>
            <li><a href="#/settings" data-route="settings">Settings</a></li>
          </ul>
        </nav>
        <span class="who" id="who"></span>
      </header>
      <main id="view" tabindex="-1"></main>`);
    window.addEventListener('hashchange', () => this.route());
    this.route();
  }
  async route() {
    const hash = location.hash || '#/notes';
    const [, name, arg] = hash.match(/^#\/([a-z]+)(?:\/(.+))?/) || [null, 'notes'];
    const view = this.shadowRoot.getElementById('view');
    document.documentElement.removeAttribute('data-ready');
    for (const a of this.shadowRoot.querySelectorAll('nav a')) {
      if (a.dataset.route === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    }
    let state;
    try {
      state = await store.load();
    } catch (e) {
      view.innerHTML = `<p role="alert">${esc(e.message)}</p>`;
      document.documentElement.setAttribute('data-ready', '');
      return;
    }
    this.shadowRoot.getElementById('who').textContent = state.user.name ? `${state.user.name} · ${state.user.plan || ''}` : '';
    let el;
    if (name === 'note') {
      el = document.createElement('jot-note-view');
      el.show(state.notes.find((n) => n.id === decodeURIComponent(arg || '')));
      const note = state.notes.find((n) => n.id === decodeURIComponent(arg || ''));
      document.title = (note ? note.title : 'Note not found') + ' · Jotter';
    } else if (name === 'new') {
      el = document.createElement('jot-editor');
      el.show();
      document.title = 'New note · Jotter';
    } else if (name === 'settings') {
      el = document.createElement('jot-settings');
      el.show();
      document.title = 'Settings · Jotter';
    } else {
      el = document.createElement('jot-note-list');
      el.show(state.notes);
      document.title = 'Notes · Jotter';
    }
    view.replaceChildren(el);
    document.documentElement.setAttribute('data-ready', '');
  }
}

customElements.define('jot-note-list', JotNoteList);
customElements.define('jot-note-view', JotNoteView);
customElements.define('jot-editor', JotEditor);
customElements.define('jot-settings', JotSettings);
customElements.define('jot-app', JotApp);

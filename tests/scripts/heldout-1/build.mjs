// Renders every site's variants into pages/<site>/<variant>/ and its scripted model into models/<site>.jsonl.
// node build.mjs   (the outputs are committed; run it again after editing sites/*.mjs)
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { variant, VARIANTS } from './lib/page.mjs';
import { loadSites, ROOT } from './lib/sites.mjs';
rmSync(join(ROOT, 'pages'), { recursive: true, force: true });
mkdirSync(join(ROOT, 'models'), { recursive: true });
let n = 0;
for (const s of await loadSites()) {
  for (const vn of VARIANTS) {
    // 'unchanged' is the original page, byte for byte, at another address.
    const v = variant(vn === 'unchanged' ? 'original' : vn, s.name);
    const dir = join(ROOT, 'pages', s.name, vn);
    mkdirSync(dir, { recursive: true });
    for (const [file, render] of Object.entries(s.pages)) { writeFileSync(join(dir, file), render(v)); n++; }
  }
  writeFileSync(join(ROOT, 'models', `${s.name}.jsonl`), s.model.map((text) => JSON.stringify({ text })).join('\n') + '\n');
}
if (import.meta.url === `file://${process.argv[1]}`) console.log(`wrote ${n} pages`);

// The folder `ouro extension` writes: extension/ with the Command Center's own files
// (src/server/web/index.html, app.js, app.css) in command-center/, which the side panel loads.
// Run by itself: node tests/web/assemble_extension.mjs OUT_DIR, then Load unpacked OUT_DIR.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function assembleExtension(dir) {
  fs.cpSync(path.join(ROOT, 'extension'), dir, { recursive: true });
  fs.mkdirSync(path.join(dir, 'command-center'), { recursive: true });
  for (const f of ['index.html', 'app.js', 'app.css']) fs.copyFileSync(path.join(ROOT, 'src/server/web', f), path.join(dir, 'command-center', f));
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = path.resolve(process.argv[2] || 'ouro-extension');
  assembleExtension(out);
  console.log(`${out}\n1. Open chrome://extensions\n2. Turn on Developer mode\n3. Load unpacked: ${out}`);
}

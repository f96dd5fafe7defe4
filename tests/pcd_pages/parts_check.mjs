// The page engine's parts (src/browser/page/affordances/) are well formed: named NN-name.js and
// numbered 00, 01, … without gaps; each after the prelude starts at a section rule and each ends
// with a newline; joined in order they pass `node --check`; and, given the path of cmake, the
// build's join (cmake/concat.cmake) gives the same bytes.
//
//   node tests/pcd_pages/parts_check.mjs [path/to/cmake]
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { affordancesJs, affordancesParts, partsDir } from './engine.mjs';

const parts = affordancesParts();
assert.ok(parts.length > 1, `no parts in ${partsDir}`);
parts.forEach((f, i) => {
  assert.match(f, /^\d\d-[a-z0-9]+(-[a-z0-9]+)*\.js$/, `${f}: not NN-name.js`);
  assert.equal(Number(f.slice(0, 2)), i, `${f}: expected number ${String(i).padStart(2, '0')}`);
  const text = fs.readFileSync(path.join(partsDir, f), 'utf8');
  assert.ok(text.endsWith('\n'), `${f}: does not end with a newline`);
  if (i > 0) assert.match(text, /^ {2}\/\/ -{20,}\n {2}\/\/ \S/, `${f}: does not start at a section rule`);
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ouro-affordances-'));
try {
  const joined = path.join(dir, 'affordances.js');
  fs.writeFileSync(joined, affordancesJs());
  const check = spawnSync(process.execPath, ['--check', joined], { encoding: 'utf8' });
  assert.equal(check.status, 0, `the joined parts do not parse:\n${check.stderr}`);
  const cmake = process.argv[2];
  if (cmake) {
    const built = path.join(dir, 'built.js');
    const files = parts.map(f => path.join(partsDir, f)).join(';');
    const run = spawnSync(cmake, [`-DOUT=${built}`, `-DFILES=${files}`, '-P',
      path.resolve(partsDir, '../../../../cmake/concat.cmake')], { encoding: 'utf8' });
    assert.equal(run.status, 0, `cmake/concat.cmake failed:\n${run.stderr}`);
    assert.ok(fs.readFileSync(built).equals(fs.readFileSync(joined)), 'cmake/concat.cmake joins the parts differently');
  }
  console.log(`ok: ${parts.length} parts, ${fs.statSync(joined).size} bytes${cmake ? ', same as the build\'s join' : ''}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

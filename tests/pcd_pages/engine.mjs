// The page engine as ouro embeds it: src/browser/page/affordances/NN-name.js joined in name order,
// byte for byte (what cmake/concat.cmake does at build time; docs/design/architecture.md).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const partsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/browser/page/affordances');

export function affordancesParts() {
  return fs.readdirSync(partsDir).filter(f => f.endsWith('.js')).sort();
}

export function affordancesJs() {
  return affordancesParts().map(f => fs.readFileSync(path.join(partsDir, f), 'utf8')).join('');
}

// Loads the site definitions (sites/*.mjs) in a fixed order.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export async function loadSites(only) {
  const files = readdirSync(join(ROOT, 'sites')).filter((f) => f.endsWith('.mjs')).sort();
  const out = [];
  for (const f of files) {
    const s = (await import(pathToFileURL(join(ROOT, 'sites', f)).href)).default;
    if (!only || only.includes(s.name)) out.push(s);
  }
  return out;
}
// The recorded values of a site's parameters, and the values the --var replay uses instead.
export const recordedParams = (s) => Object.fromEntries(Object.entries(s.params).map(([k, [a]]) => [k, a]));
export const altParams = (s) => Object.fromEntries(Object.entries(s.params).map(([k, [, b]]) => [k, b]));

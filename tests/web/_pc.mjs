import { chromium } from 'playwright-core';
import fs from 'fs';
const pred = process.argv[2];
const dir = fs.mkdtempSync('/tmp/pcprof-');
if (pred !== 'default') { fs.mkdirSync(dir + '/Default', { recursive: true }); fs.writeFileSync(dir + '/Default/Preferences', JSON.stringify({ net: { network_prediction_options: Number(pred) } })); }
const ctx = await chromium.launchPersistentContext(dir, { executablePath: '/usr/bin/chromium', headless: true });
const p = await ctx.newPage();
await p.goto('http://127.0.0.1:8994/');
await p.evaluate(() => { document.head.insertAdjacentHTML('beforeend', '<link rel=preconnect href="http://127.0.0.2:8993">'); });
await new Promise(r => setTimeout(r, 1500));
await ctx.close();

// @ts-check
// Renders an SVG to a PNG in headless Chromium: vsce refuses SVG images in README.md.
// Usage: node scripts/svgToPng.mjs IN.svg OUT.png
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
const [src, out] = process.argv.slice(2);
const svg = readFileSync(src, 'utf8');
const size = (name) => Number(new RegExp(`${name}="(\\d+)"`).exec(svg)?.[1] ?? NaN);
const w = size('width');
const h = size('height');
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const p = await b.newPage({ viewport: { width: w, height: h }, deviceScaleFactor: 2 });
await p.setContent(`<html><body style="margin:0">${svg}</body></html>`);
await p.screenshot({ path: out, clip: { x: 0, y: 0, width: w, height: h } });
await b.close();

// @ts-check
// Lint step: no import circle anywhere under src/ or webview/. The layer rules in
// eslint.config.mjs stop arrows between the core's layers from pointing up; this catches
// a circle inside one folder, which those rules cannot see (docs/architecture.md).
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const roots = ['src', 'webview'];
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(resolve(p));
  }
};
for (const r of roots) if (existsSync(r)) walk(r);

const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/g;
/** @param {string} from @param {string} spec */
function resolveSpec(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const c of [base + '.ts', join(base, 'index.ts')]) if (existsSync(c)) return c;
  return null;
}
/** @type {Map<string, string[]>} */
const edges = new Map();
for (const f of files) {
  const out = [];
  for (const m of readFileSync(f, 'utf8').matchAll(importRe)) {
    const t = resolveSpec(f, m[1]);
    if (t) out.push(t);
  }
  edges.set(f, out);
}

// Tarjan's strongly connected components: any component of two or more files is a circle.
let index = 0;
const idx = new Map(), low = new Map(), onStack = new Set(), stack = [], circles = [];
/** @param {string} v */
function connect(v) {
  idx.set(v, index); low.set(v, index); index++;
  stack.push(v); onStack.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!idx.has(w)) { connect(w); low.set(v, Math.min(low.get(v), low.get(w))); }
    else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const comp = [];
    let w;
    do { w = stack.pop(); onStack.delete(w); comp.push(w); } while (w !== v);
    if (comp.length > 1 || (edges.get(v) ?? []).includes(v)) circles.push(comp);
  }
}
for (const f of files) if (!idx.has(f)) connect(f);

if (circles.length > 0) {
  for (const c of circles) console.error(`import circle: ${c.map((f) => relative(process.cwd(), f)).sort().join(' <-> ')}`);
  process.exit(1);
}

// The webviews in a real browser: headless Debian Chromium (playwright-core, never a
// downloaded browser) loads the built webview (dist/webview) inside the same HTML and CSP
// the extension serves (`/` the lock detail panel, `/all-locks` the all-locks timeline),
// with a stand-in acquireVsCodeApi that records what the page posts.
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { panelHtml } from '../../src/extension/panel/html';

// The repository: out/test/support/../../.. normally, the working directory for a private outDir.
export const ROOT = [path.resolve(__dirname, '../../..'), process.cwd()].find((d) => fs.existsSync(path.join(d, 'webview', 'main.ts'))) ?? process.cwd();
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NONCE = 'TestNonce0123456789abcdefABCDEF';

/** Headless Chromium as the webview tests run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** dist/webview as built by `npm run build`; rebuilt into a temp dir if missing or older than its sources. */
export async function webviewDir(): Promise<string> {
  const dist = path.join(ROOT, 'dist', 'webview');
  const built = path.join(dist, 'allLocks.js');
  const sources = [path.join(ROOT, 'webview'), path.join(ROOT, 'src', 'shared')].flatMap((d) => fs.readdirSync(d).map((f) => path.join(d, f)));
  const newest = Math.max(...sources.map((f) => fs.statSync(f).mtimeMs));
  if (fs.existsSync(built) && fs.existsSync(path.join(dist, 'codicon.css')) && fs.statSync(built).mtimeMs >= newest) return dist;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'redlock-webview-'));
  const esbuild = require('esbuild') as typeof import('esbuild');
  await esbuild.build({ bundle: true, platform: 'browser', target: 'es2022', format: 'esm', logLevel: 'warning', entryPoints: [path.join(ROOT, 'webview', 'main.ts'), path.join(ROOT, 'webview', 'allLocks.ts')], outdir: out });
  for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join(ROOT, 'node_modules', '@vscode', 'codicons', 'dist', f), path.join(out, f));
  return out;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.ttf': 'font/ttf', '.html': 'text/html', '.map': 'application/json' };

// A dark theme's variables, as VS Code injects them into a webview (subset).
const THEME_CSS = `:root{--vscode-font-family:system-ui,sans-serif;--vscode-font-size:13px;--vscode-editor-font-family:monospace;
--vscode-foreground:#cccccc;--vscode-descriptionForeground:#9d9d9d;--vscode-editor-background:#1f1f1f;
--vscode-button-background:#0078d4;--vscode-button-foreground:#ffffff;--vscode-button-secondaryBackground:#313131;
--vscode-button-secondaryForeground:#cccccc;--vscode-badge-background:#616161;--vscode-badge-foreground:#f8f8f8;
--vscode-focusBorder:#0078d4;--vscode-errorForeground:#f85149;--vscode-editorWarning-foreground:#cca700;
--vscode-progressBar-background:#0078d4;--vscode-panel-border:#2b2b2b;--vscode-editorWidget-background:#202020;}`;

export async function startServer(dir: string): Promise<{ server: http.Server; origin: string }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const entry = url.pathname === '/all-locks' ? 'allLocks' : url.pathname === '/' || url.pathname === '/index.html' ? 'main' : null;
    if (entry) {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      let html = panelHtml({
        cspSource: origin,
        nonce: NONCE,
        scriptUri: `${origin}/webview/${entry}.js`,
        styleUri: `${origin}/webview/${entry}.css`,
        codiconUri: `${origin}/webview/codicon.css`,
      });
      html = html.replace('</head>', `<link rel="stylesheet" href="${origin}/theme.css">\n</head>`);
      // Must be blocked by the CSP: no nonce, an inline handler.
      html = html.replace('</body>', '<script>window.__inlineRan = true;</script>\n<img src="x" onerror="window.__handlerRan = true" alt="">\n</body>');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      return;
    }
    if (url.pathname === '/theme.css') {
      res.writeHead(200, { 'content-type': 'text/css' }).end(THEME_CSS);
      return;
    }
    const m = /^\/webview\/([\w.-]+)$/.exec(url.pathname);
    const file = m ? path.join(dir, m[1]) : '';
    if (!m || !fs.existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface Recorded {
  posted: Array<Record<string, unknown>>;
  state: unknown;
  csp: Array<{ directive: string; blocked: string }>;
}

/** The stand-in for VS Code's webview API: records posted messages and the saved state. */
export function standIn(initialState: unknown): string {
  return `(() => {
    window.__posted = [];
    window.__state = ${JSON.stringify(initialState ?? null)} ?? undefined;
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push({ directive: e.violatedDirective, blocked: e.blockedURI }));
    let acquired = false;
    window.acquireVsCodeApi = () => {
      if (acquired) throw new Error('acquireVsCodeApi called twice');
      acquired = true;
      return {
        postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
        getState: () => window.__state,
        setState: (s) => { window.__state = JSON.parse(JSON.stringify(s)); return s; },
      };
    };
  })();`;
}

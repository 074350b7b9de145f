// The lock detail panel's HTML shell. Pure (no `vscode`): the panel passes the webview's
// cspSource and resource URIs in, the browser test passes its own server's.
// Nothing from the lock (key, tokens, node ids) is ever written into this HTML: the
// webview receives data only by postMessage and inserts it as text.

export interface PanelHtmlInput {
  /** webview.cspSource */
  cspSource: string;
  /** A fresh random nonce per load (see makeNonce). */
  nonce: string;
  /** URIs (as strings) of dist/webview/main.js, main.css and codicon.css. */
  scriptUri: string;
  styleUri: string;
  codiconUri: string;
  /** The page's title and what it says while its script loads (plain text): the lock detail panel's by default. */
  title?: string;
  loading?: string;
}

function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const NONCE = /^[A-Za-z0-9+/=_-]{16,}$/;

/** 32 random alphanumerics; `random` is injectable for tests only. */
export function makeNonce(random: (n: number) => Uint8Array = defaultRandom): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = random(32);
  let s = '';
  for (let i = 0; i < 32; i++) s += chars[bytes[i] % chars.length];
  return s;
}

function defaultRandom(n: number): Uint8Array {
  const out = new Uint8Array(n);
  globalThis.crypto.getRandomValues(out);
  return out;
}

/** Escapes a value for a double-quoted HTML attribute. */
function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The Content-Security-Policy: nothing by default; script only with the nonce; style, font, img only from the webview. */
export function panelCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource}`,
  ].join('; ');
}

export function panelHtml(input: PanelHtmlInput): string {
  if (!NONCE.test(input.nonce)) throw new Error('panelHtml: the nonce must be 16+ base64/alphanumeric characters');
  // cspSource is a list of sources (code-server's includes 'self'): it may not end the
  // directive or the attribute.
  if (/[;\r\n"<>`]/.test(input.cspSource)) throw new Error('panelHtml: unexpected characters in cspSource');
  const csp = panelCsp(input.cspSource, input.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(input.codiconUri)}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="${attr(input.styleUri)}">
<title>${text(input.title ?? 'Lock details')}</title>
</head>
<body>
<main id="app" aria-busy="true"><p class="loading">${text(input.loading ?? 'Loading lock details…')}</p></main>
<script type="module" nonce="${attr(input.nonce)}" src="${attr(input.scriptUri)}"></script>
</body>
</html>
`;
}

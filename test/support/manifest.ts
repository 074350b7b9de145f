// The extension manifest as VS Code shows it: every `%key%` string of package.json
// replaced by its English text from package.nls.json (what the host does at load time).
import * as fs from 'node:fs';
import * as path from 'node:path';

const PLACEHOLDER = /^%([^%\s]+)%$/;

export function readNls(root: string): Record<string, string> {
  return JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
}

/** Every placeholder key package.json uses, in document order. */
export function placeholders(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    const m = PLACEHOLDER.exec(value);
    if (m) out.push(m[1]);
  } else if (Array.isArray(value)) value.forEach((v) => placeholders(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => placeholders(v, out));
  return out;
}

/** A copy of `value` with every placeholder resolved; a missing key throws. */
export function localize<T>(value: T, nls: Record<string, string>): T {
  if (typeof value === 'string') {
    const m = PLACEHOLDER.exec(value);
    if (!m) return value;
    const text = nls[m[1]];
    if (text === undefined) throw new Error(`package.nls.json has no ${m[1]}`);
    return text as T;
  }
  if (Array.isArray(value)) return value.map((v) => localize(v, nls)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, localize(v, nls)])) as T;
  return value;
}

/** package.json under `root`, localized. */
export function readManifest(root: string): Record<string, unknown> {
  const raw = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  return localize(raw, readNls(root));
}

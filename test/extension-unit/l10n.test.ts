// Runtime strings: every vscode.l10n.t() message in the extension has its English entry in
// l10n/bundle.l10n.json (regenerate with `npm run l10n`), and data stays out of messages.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** The first argument of every l10n.t call written as a plain string literal. */
function messages(): Array<{ file: string; message: string }> {
  const found: Array<{ file: string; message: string }> = [];
  for (const file of sources(path.join(ROOT, 'src', 'extension'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/l10n\.t\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)) {
      found.push({ file: path.relative(ROOT, file), message: JSON.parse(`"${m[2].replace(/\\'/g, "'").replace(/"/g, '\\"')}"`) as string });
    }
  }
  return found;
}

describe('runtime strings', () => {
  const bundle = JSON.parse(fs.readFileSync(path.join(ROOT, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;

  it('has every l10n.t message of src/extension in l10n/bundle.l10n.json', () => {
    const found = messages();
    assert.ok(found.length > 50, `only ${found.length} messages found`);
    const missing = found.filter((f) => !(f.message in bundle));
    assert.deepEqual(missing, [], 'run npm run l10n');
  });

  it('passes data (keys, tokens, node ids) as {n} arguments, never inside a template', () => {
    for (const file of sources(path.join(ROOT, 'src', 'extension'))) {
      const text = fs.readFileSync(file, 'utf8');
      assert.doesNotMatch(text, /l10n\.t\(\s*`/, `${path.relative(ROOT, file)}: a template literal in l10n.t cannot be translated`);
    }
    for (const [key, value] of Object.entries(bundle)) assert.equal(value, key, 'the English bundle maps each message to itself');
  });
});

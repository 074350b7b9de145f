// The extension as VS Code sees it: found under its manifest id, activates, returns
// its API, and its manifest's commands match the commands it registers.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RedlockInspectorApi } from '../../../src/extension/extension';
import { localize, readNls } from '../../support/manifest';

interface Manifest {
  name: string;
  publisher: string;
  version: string;
  main?: string;
  contributes?: {
    commands?: { command: string; title: string; category?: string }[];
    menus?: Record<string, { command?: string; submenu?: string }[]>;
    keybindings?: { command: string }[];
    views?: Record<string, { id: string }[]>;
  };
}

/** The repository's package.json: the first one above this compiled file (out/test/extension/suite). */
function readRepoManifest(): { root: string; manifest: Manifest } {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const p = path.join(dir, 'package.json');
    // Localized as the host shows it: %placeholders% resolved from package.nls.json.
    if (fs.existsSync(p)) return { root: dir, manifest: localize(JSON.parse(fs.readFileSync(p, 'utf8')) as Manifest, readNls(dir)) };
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${__dirname}`);
  }
}

const { root, manifest } = readRepoManifest();
const extensionId = `${manifest.publisher}.${manifest.name}`;
const nls = readNls(root);

function getExtension(): vscode.Extension<RedlockInspectorApi> {
  const ext = vscode.extensions.getExtension<RedlockInspectorApi>(extensionId);
  assert.ok(ext, `extension ${extensionId} is not installed in this extension host`);
  return ext;
}

describe('extension activation', () => {
  it(`is present as ${extensionId}, loaded from this checkout`, () => {
    assert.equal(extensionId, 'redlock-inspector.redlock-inspector');
    const ext = getExtension();
    // The development path, not some installed copy of the extension.
    assert.equal(fs.realpathSync(ext.extensionUri.fsPath), fs.realpathSync(root));
  });

  it("exposes package.json through the extension's packageJSON", () => {
    const pj = localize(getExtension().packageJSON as Manifest, nls);
    assert.equal(pj.name, manifest.name);
    assert.equal(pj.publisher, manifest.publisher);
    assert.equal(pj.version, manifest.version);
    assert.deepEqual(pj.contributes ?? {}, manifest.contributes ?? {});
    assert.ok(pj.main && fs.existsSync(path.join(root, pj.main)), `main ${pj.main} is not built: run npm run build`);
  });

  it('activates and returns its API', async () => {
    const ext = getExtension();
    const api = await ext.activate();
    assert.ok(ext.isActive);
    assert.equal(typeof api, 'object');
    assert.ok(api !== null);
    assert.equal(api, ext.exports, 'activate() resolves to the same API object as exports');
    assert.equal(api.version, manifest.version);
  });

  it('declares every command it registers, and registers every command it declares', async () => {
    const ext = getExtension();
    await ext.activate();
    const pj = localize(ext.packageJSON as Manifest, nls);
    const declared = (pj.contributes?.commands ?? []).map((c) => c.command);
    // VS Code itself registers `<viewId>.focus`, `.open`, `.removeView`, ... for every declared view.
    const viewIds = Object.values(pj.contributes?.views ?? {}).flatMap((vs) => vs.map((v) => v.id));
    const registered = (await vscode.commands.getCommands(true)).filter(
      (c) => c.startsWith('redlock.') && !viewIds.some((v) => c.startsWith(`${v}.`)),
    );

    assert.equal(new Set(declared).size, declared.length, `duplicate command ids in package.json: ${declared}`);
    for (const c of pj.contributes?.commands ?? []) {
      assert.match(c.command, /^redlock\.[A-Za-z][\w.]*$/, `command id ${c.command} is not redlock.<verb>`);
      assert.equal(c.category, 'Redlock', `command ${c.command} should be in category "Redlock"`);
      assert.ok(c.title, `command ${c.command} has no title`);
    }
    const notRegistered = declared.filter((c) => !registered.includes(c));
    assert.deepEqual(notRegistered, [], `declared in package.json but not registered on activation: ${notRegistered}`);
    const undeclared = registered.filter((c) => !declared.includes(c));
    assert.deepEqual(undeclared, [], `registered but not declared in package.json contributes.commands: ${undeclared}`);

    // Menus and keybindings may only point at declared commands (a typo there fails silently in VS Code).
    const referenced = [
      ...Object.values(pj.contributes?.menus ?? {}).flatMap((items) => items.map((i) => i.command)),
      ...(pj.contributes?.keybindings ?? []).map((k) => k.command),
    ].filter((c): c is string => typeof c === 'string' && c.startsWith('redlock.'));
    const dangling = [...new Set(referenced)].filter((c) => !declared.includes(c));
    assert.deepEqual(dangling, [], `menus/keybindings reference undeclared commands: ${dangling}`);
  });

  it("receives the launcher's environment (how REDLOCK_TEST_NODES and friends reach the suite)", () => {
    // Both strategies of scripts/test-extension.mjs set this.
    assert.equal(process.env.REDLOCK_EXT_TEST, '1', 'REDLOCK_EXT_TEST did not reach the extension host');
  });
});

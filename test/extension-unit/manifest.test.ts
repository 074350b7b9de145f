// The extension's package.json contributions, checked without VS Code: ids, settings,
// menus hiding writes in read-only mode and item-only commands in the palette.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extendable } from '../../src/core/vocabulary/actions';
import { DEFAULT_PATTERNS } from '../../src/core/vocabulary';
import { lockContextValue } from '../../src/extension/words/lockText';
import { absent, lockEntry, present } from '../support/entries';
import { placeholders, readManifest, readNls } from '../support/manifest';

interface Menu {
  command: string;
  when?: string;
  group?: string;
}

const ROOT = path.resolve(__dirname, '../../..');
const raw = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
// What VS Code shows: the %placeholders% resolved from package.nls.json.
const pj = readManifest(ROOT) as typeof raw;
const c = pj.contributes;
const WRITES = ['redlock.acquire', 'redlock.extend', 'redlock.release', 'redlock.forceRelease'];

describe('extension manifest', () => {
  it('declares the container, views and every redlock.<verb> command in category Redlock', () => {
    assert.deepEqual(c.viewsContainers.activitybar.map((v: { id: string; title: string }) => [v.id, v.title]), [['redlock', 'Redlock']]);
    assert.ok(fs.existsSync(path.resolve(__dirname, '../../..', c.viewsContainers.activitybar[0].icon)));
    assert.deepEqual(c.views.redlock.map((v: { id: string }) => v.id), ['redlock.locks', 'redlock.nodes']);
    const verbs = c.commands.map((x: { command: string }) => x.command.replace(/^redlock\./, ''));
    for (const v of ['addNode', 'removeNode', 'setPassword', 'refresh', 'pause', 'resume', 'filter', 'loadMore', 'acquire', 'extend', 'release', 'forceRelease', 'copyToken', 'copyKey', 'openDetails', 'showLog']) {
      assert.ok(verbs.includes(v), v);
    }
    for (const x of c.commands) assert.equal(x.category, 'Redlock');
    assert.ok(c.viewsWelcome.some((w: { contents: string }) => w.contents.includes('command:redlock.addNode')));
  });

  it('hides every write menu item in read-only mode', () => {
    const menus = Object.values(c.menus as Record<string, Menu[]>).flat();
    for (const m of menus.filter((x) => WRITES.includes(x.command) && x.when !== 'false')) {
      assert.match(m.when ?? '', /!config\.redlock\.readOnly/, `${m.command} in ${m.when}`);
    }
  });

  it('offers Release, Extend and Stop Extending in the palette while this window holds a lock (docs/decisions.md)', () => {
    const palette = c.menus.commandPalette as Menu[];
    for (const id of ['redlock.extend', 'redlock.release']) assert.equal(palette.find((m) => m.command === id)?.when, 'redlock.holdsLocks && !config.redlock.readOnly', id);
    assert.equal(palette.find((m) => m.command === 'redlock.stopExtending')?.when, 'redlock.extendsLocks');
    assert.equal(palette.find((m) => m.command === 'redlock.showHeld')?.when, 'redlock.holdsLocks');
  });

  it('keeps item-only commands out of the command palette', () => {
    const palette = c.menus.commandPalette as Menu[];
    for (const id of ['redlock.copyToken', 'redlock.copyKey']) {
      assert.equal(palette.find((m) => m.command === id)?.when, 'false', id);
    }
    // The detail panel opens from the palette too (it asks which lock).
    assert.equal(palette.find((m) => m.command === 'redlock.openDetails')?.when, 'redlock.hasNodes');
  });

  it('matches item menus on contextValue flags by regex', () => {
    const items = c.menus['view/item/context'] as Menu[];
    const release = items.find((m) => m.command === 'redlock.release')!;
    const re = /viewItem =~ \/(.*)\//.exec(release.when!)![1];
    assert.ok(new RegExp(re).test('lock;held;token;mine;'));
    assert.ok(!new RegExp(re).test('lock;held;token;'));
  });

  it('offers Extend in the item menu exactly where the core says a lock is extendable', () => {
    const items = c.menus['view/item/context'] as Menu[];
    const extend = items.find((m) => m.command === 'redlock.extend' && m.group?.startsWith('1_'))!;
    const re = new RegExp(/viewItem =~ \/(.*)\//.exec(extend.when!)![1]);
    const value = (e: Parameters<typeof lockContextValue>[0], mine = false): string => lockContextValue(e, mine);
    const split31 = lockEntry('k', [present('a', 'x'), present('b', 'x'), present('c', 'x'), present('d', 'y'), absent('e')]);
    const split22 = lockEntry('k', [present('a', 'x'), present('b', 'x'), present('c', 'y'), present('d', 'y'), absent('e')]);
    const partial = lockEntry('k', [present('a', 'x'), absent('b'), absent('c')]);
    assert.equal(split31.verdict, 'split');
    assert.ok(re.test(value(split31)), 'split 3+1/5: the quorum holder can be extended');
    assert.ok(!re.test(value(split22)), 'split 2+2/5: nothing to extend');
    assert.ok(!re.test(value(partial)));
    assert.ok(re.test(value(partial, true)), 'a lock taken here');
    assert.equal(extendable(split31, false), true);
    assert.equal(extendable(split22, false), false);
  });

  it('declares every setting with defaults and validation', () => {
    const p = c.configuration.properties;
    assert.deepEqual(p['redlock.keyPatterns'].default, [...DEFAULT_PATTERNS]);
    assert.equal(p['redlock.refreshIntervalMs'].default, 2000);
    assert.equal(p['redlock.refreshIntervalMs'].minimum, 250);
    assert.equal(p['redlock.driftFactor'].default, 0.01);
    assert.equal(p['redlock.expiringThresholdMs'].default, 2000);
    assert.equal(p['redlock.maxKeys'].default, 10000);
    assert.equal(p['redlock.readOnly'].default, false);
    assert.deepEqual(p['redlock.notifyOn'].items.enum, ['split', 'no-ttl', 'lost']);
    assert.deepEqual(p['redlock.notifyOn'].default, ['split', 'no-ttl'], 'lost is off by default');
    const nodeUrl = new RegExp(p['redlock.nodes'].items.anyOf[0].pattern);
    assert.ok(nodeUrl.test('redis+sentinel://h:26379/m') && !nodeUrl.test('http://h'));
    assert.ok(nodeUrl.test('rediss+sentinel://h:26379/m') && nodeUrl.test('rediss+cluster://h:7000') && !nodeUrl.test('rediss+redis://h'));
    assert.equal(p['redlock.nodes'].items.anyOf[1].properties.url.pattern, p['redlock.nodes'].items.anyOf[0].pattern);
    for (const [k, v] of Object.entries(p)) assert.ok((v as { description?: string; markdownDescription?: string }).description || (v as { markdownDescription?: string }).markdownDescription, k);
  });

  it('takes every user-facing manifest string from package.nls.json, and every entry there is used', () => {
    const nls = readNls(ROOT);
    const used = placeholders(raw);
    assert.deepEqual(used.filter((k) => !(k in nls)), [], 'placeholders without a text');
    assert.deepEqual(Object.keys(nls).filter((k) => !used.includes(k)), [], 'unused texts');
    const rc = raw.contributes;
    const texts: unknown[] = [
      ...rc.viewsContainers.activitybar.map((v: { title: string }) => v.title),
      ...rc.views.redlock.flatMap((v: { name: string; contextualTitle: string }) => [v.name, v.contextualTitle]),
      ...rc.viewsWelcome.map((w: { contents: string }) => w.contents),
      ...rc.commands.flatMap((x: { title: string; category: string }) => [x.title, x.category]),
      ...Object.values(rc.configuration.properties as Record<string, { description?: string; markdownDescription?: string }>).map((p) => p.description ?? p.markdownDescription),
      ...rc.walkthroughs.flatMap((w: { title: string; description: string; steps: Array<{ title: string; description: string }> }) => [w.title, w.description, ...w.steps.flatMap((st) => [st.title, st.description])]),
      ...rc.languageModelTools.flatMap((t: { displayName: string; userDescription: string }) => [t.displayName, t.userDescription]),
    ];
    for (const t of texts) assert.match(String(t), /^%[^%\s]+%$/, `not localizable: ${String(t)}`);
    assert.equal(raw.l10n, './l10n');
    assert.ok(fs.existsSync(path.join(ROOT, 'l10n', 'bundle.l10n.json')));
  });

  it('contributes the read-only language model tools with the MCP tools\u2019 names and arguments', () => {
    const tools = c.languageModelTools as Array<{ name: string; toolReferenceName: string; canBeReferencedInPrompt: boolean; modelDescription: string; inputSchema: { properties: Record<string, { type: string; items?: { type: string } }>; required?: string[] } }>;
    assert.deepEqual(tools.map((t) => t.name), ['redlock_status', 'redlock_explain']);
    for (const t of tools) {
      assert.equal(t.toolReferenceName, t.name);
      assert.equal(t.canBeReferencedInPrompt, true);
      assert.ok(t.modelDescription.length > 40);
      assert.ok(pj.activationEvents.includes(`onLanguageModelTool:${t.name}`), t.name);
    }
    assert.deepEqual(tools[0].inputSchema.properties.patterns, { ...tools[0].inputSchema.properties.patterns, type: 'array', items: { ...tools[0].inputSchema.properties.patterns.items, type: 'string' } });
    assert.equal(tools[0].inputSchema.required, undefined);
    assert.deepEqual(Object.keys(tools[1].inputSchema.properties), ['key']);
    assert.deepEqual(tools[1].inputSchema.required, ['key']);
    assert.equal(pj.engines.vscode, '^1.95.0', 'lm.registerTool is stable API from 1.95');
  });

  it('has a walkthrough whose media exist', () => {
    const steps = c.walkthroughs[0].steps as Array<{ media: { markdown: string } }>;
    for (const s of steps) assert.ok(fs.existsSync(path.resolve(__dirname, '../../..', s.media.markdown)), s.media.markdown);
  });
});

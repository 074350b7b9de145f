// The Locks view's folders (src/extension/views/lockGroups.ts): pure, no `vscode`.
import assert from 'node:assert/strict';
import { FLAT_MAX, LockGroups, type GroupChild } from '../../../src/extension/views/lockGroups';

type E = { key: string; verdict: 'held' | 'split' | 'partial' | 'unknown'; flags: Array<'no-ttl' | 'expiring' | 'ttl-skew' | 'degraded' | 'deadlock' | 'reentrant'> };
const held = (key: string, flags: E['flags'] = []): E => ({ key, verdict: 'held', flags });
const byKey = (es: E[]): E[] => [...es].sort((a, b) => (a.key < b.key ? -1 : 1));
const names = (cs: readonly GroupChild[]): string[] => cs.map((c) => (c.kind === 'folder' ? `[${c.prefix}]` : c.key));
const many = (prefix: string, n: number): E[] => Array.from({ length: n }, (_, i) => held(`${prefix}${String(i).padStart(4, '0')}`));

describe('Locks view folders', () => {
  it('groups on `:` into folders, one folder through a chain of single segments, lone keys as rows', () => {
    const g = new LockGroups(3);
    g.rebuild(byKey([...many('orders:eu:', 5), ...many('jobs:', 4), held('lonely:one'), held('plain')]));
    // orders: holds only orders:eu:*, so it is one folder, not two clicks.
    assert.deepEqual(names(g.root), ['[jobs:]', '[orders:eu:]', 'lonely:one', 'plain']);
    assert.equal(g.folder('orders:eu:')?.parent, '');
    assert.equal(g.folder('orders:eu:')?.count, 5);
    assert.equal(g.parentOf('orders:eu:0003'), 'orders:eu:');
    assert.equal(g.parentOf('plain'), '');
    assert.equal(g.parentOf('not-there'), undefined);
  });

  it('lists a folder flat when it is short, and in subfolders when it is long', () => {
    const g = new LockGroups(4);
    g.rebuild(byKey([...many('a:x:', 3), ...many('a:y:', 3), ...many('b:x:', 2), ...many('b:y:', 1)]));
    assert.deepEqual(names(g.folder('a:')!.children), ['[a:x:]', '[a:y:]'], '6 keys > 4: subfolders');
    assert.deepEqual(names(g.folder('b:')!.children), ['b:x:0000', 'b:x:0001', 'b:y:0000'], '3 keys <= 4: flat');
    assert.equal(g.parentOf('b:x:0001'), 'b:');
    assert.equal(g.folder('a:x:')?.parent, 'a:');
    assert.deepEqual(g.foldersAbove('a:y:0002').map((f) => f.prefix), ['a:', 'a:y:']);
  });

  it('carries each folder\'s count, worst verdict and how many need attention', () => {
    const g = new LockGroups(2);
    const es = [...many('q:', 6)];
    es[1] = { ...es[1], verdict: 'partial' };
    es[2] = held(es[2].key, ['no-ttl']);
    es[3] = held(es[3].key, ['expiring']);
    es[4] = { ...es[4], verdict: 'split' };
    g.rebuild(es);
    const f = g.folder('q:')!;
    assert.equal(f.count, 6);
    assert.equal(f.worstRank, 0);
    assert.equal(f.worstKey, es[4].key);
    assert.equal(f.attention, 3, 'split, partial and no TTL; expiring alone is a lock being renewed');
  });

  it('keeps a stable order: folders by prefix, then keys, whatever their state', () => {
    const g = new LockGroups(2);
    const calm = byKey([...many('m:', 3), ...many('c:', 3), held('z'), held('a')]);
    g.rebuild(calm);
    const before = names(g.root);
    g.rebuild(calm.map((e) => (e.key === 'z' || e.key === 'm:0001' ? { ...e, verdict: 'split' as const } : e)));
    assert.deepEqual(names(g.root), before);
    assert.deepEqual(before, ['[c:]', '[m:]', 'a', 'z']);
  });

  it('shows the whole list at the root at FLAT_MAX locks and folders past it (the provider decides; here the root always groups)', () => {
    assert.ok(FLAT_MAX >= 10 && FLAT_MAX <= 50);
    const g = new LockGroups();
    g.rebuild(many('lock:scale:', 10_000));
    assert.deepEqual(names(g.root), ['[lock:scale:]']);
    assert.equal(g.folder('lock:scale:')!.children.length, 10_000);
  });

  it('never lets a key that ends at a separator collide with a folder', () => {
    const g = new LockGroups(1);
    g.rebuild(byKey([held('a:'), held('a:b'), held('a:c')]));
    const keys = [...g.root, ...(g.folder('a:')?.children ?? [])].filter((c) => c.kind === 'lock').map((c) => (c as { key: string }).key).sort();
    assert.deepEqual(keys, ['a:', 'a:b', 'a:c']);
  });
});

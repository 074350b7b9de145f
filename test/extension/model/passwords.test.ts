// The SecretStorage index (src/extension/model/passwords.ts): a node known to have no
// secret is not asked for one at startup, and every way that knowledge can go stale asks again.
import assert from 'node:assert/strict';
import type * as PasswordsModule from '../../../src/extension/model/passwords';
import { useStandInVscode } from '../../support/standInVscode';

/** SecretStorage as VS Code gives it, counting the reads that reach it. */
function secretStorage() {
  const values = new Map<string, string>();
  const listeners: Array<(e: { key: string }) => void> = [];
  const reads: string[] = [];
  const changed = (key: string): void => listeners.forEach((l) => l({ key }));
  return {
    values, reads, changed,
    get: (k: string) => (reads.push(k), Promise.resolve(values.get(k))),
    store: (k: string, v: string) => (values.set(k, v), changed(k), Promise.resolve()),
    delete: (k: string) => (values.delete(k), changed(k), Promise.resolve()),
    onDidChange: (l: (e: { key: string }) => void) => (listeners.push(l), { dispose() {} }),
  };
}

/** globalState: one object shared, as every window of a profile shares it. */
function memento() {
  const values = new Map<string, unknown>();
  return { get: <T>(k: string, d?: T) => (values.has(k) ? values.get(k) : d) as T, update: (k: string, v: unknown) => (values.set(k, v), Promise.resolve()), keys: () => [...values.keys()] };
}

describe('PasswordStore', () => {
  const standIn = useStandInVscode(['../../src/extension/model/passwords']);
  let P: typeof PasswordsModule;
  before(() => ([P] = standIn.loaded as [typeof PasswordsModule]));

  it('asks SecretStorage once for a node with no password, then never again at startup', async () => {
    const secrets = secretStorage();
    const index = memento();
    assert.equal(await new P.PasswordStore(secrets as never, index as never).get('n1'), undefined);
    assert.equal(secrets.reads.length, 1, 'the first window ever asks');
    // The next window (a reload) starts from the index.
    const next = new P.PasswordStore(secrets as never, index as never);
    assert.equal(await next.get('n1'), undefined);
    assert.equal(await next.passphrase('n1'), undefined);
    assert.equal(await next.passphrase('n1'), undefined);
    assert.deepEqual(secrets.reads, ['redlock.password:n1', 'redlock.tlsPassphrase:n1']);
  });

  it('reads a password stored here, in another window, or by a version without the index', async () => {
    const secrets = secretStorage();
    const index = memento();
    const store = new P.PasswordStore(secrets as never, index as never);
    await store.get('n1');
    await store.set('n1', 's3cret');
    assert.equal(await new P.PasswordStore(secrets as never, index as never).get('n1'), 's3cret');
    // Another window deletes it, and an old version (no index) stores it again: SecretStorage tells every window.
    await store.delete('n1');
    assert.equal(await store.get('n1'), undefined);
    secrets.values.set('redlock.password:n1', 'older');
    secrets.changed('redlock.password:n1');
    assert.equal(await store.get('n1'), 'older');
  });

  it('a node refusing us for want of a password it was assumed not to have makes the next read ask', async () => {
    const secrets = secretStorage();
    const index = memento();
    await new P.PasswordStore(secrets as never, index as never).get('n1');
    // Stored while no window of ours was open to hear of it.
    secrets.values.set('redlock.password:n1', 'while-closed');
    const store = new P.PasswordStore(secrets as never, index as never);
    assert.equal(await store.get('n1'), undefined, 'the index is trusted first');
    assert.equal(store.recheck('n1'), true);
    assert.equal(await store.get('n1'), 'while-closed');
    assert.equal(store.recheck('n1'), false, 'a password that was asked for is not asked again on NOAUTH');
  });

  it('keeps each named connection apart', async () => {
    const secrets = secretStorage();
    const index = memento();
    const store = new P.PasswordStore(secrets as never, index as never);
    await store.get('n1');
    store.scope = 'prod';
    await store.set('n1', 'prod-pass');
    assert.equal(await store.get('n1'), 'prod-pass');
    store.scope = '';
    assert.equal(await store.get('n1'), undefined);
    assert.equal(secrets.reads.filter((k) => k === 'redlock.password:n1').length, 1);
  });
});

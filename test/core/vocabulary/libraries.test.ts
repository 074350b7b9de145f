import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { KNOWN_SCRIPTS, librariesFromExists } from '../../../src/core/vocabulary/libraries';

// The lock libraries are devDependencies with no types we rely on: load them untyped.
const load = createRequire(__filename);
const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');
const shasOf = (library: string): string[] =>
  KNOWN_SCRIPTS.filter((s) => s.library === library).map((s) => s.sha1).sort();

type ScriptTable = Record<string, { value: string; hash: string }>;
type RedlockCtor = new (clients: unknown[]) => { scripts: ScriptTable };

// The scripts a library sends, as hashed by the library itself (or by ioredis's defineCommand).
function hashesOfRedlock(ctor: RedlockCtor): string[] {
  const { scripts } = new ctor([{}]);
  return Object.values(scripts).map((s) => {
    assert.equal(s.hash, sha1(s.value));
    return s.hash;
  }).sort();
}

/** A file next to the package's CommonJS entry point. */
function besideMain(pkg: string, file: string): string {
  return readFileSync(join(dirname(load.resolve(pkg)), file), 'utf8');
}

describe('libraries', () => {
  it('node-redlock v4 SHA1s match the installed package', () => {
    assert.deepEqual(hashesOfRedlock(load('redlock') as RedlockCtor), shasOf('node-redlock v4'));
  });

  it('node-redlock v5 SHA1s match the installed package', () => {
    const ctor = (load('redlock5') as { default: RedlockCtor }).default;
    assert.deepEqual(hashesOfRedlock(ctor), shasOf('node-redlock v5'));
  });

  it('@sesamecare-oss/redlock SHA1s match what it defines on ioredis', () => {
    const { ensureCommands } = load('@sesamecare-oss/redlock/build/scripts') as {
      ensureCommands(client: unknown): void;
    };
    const seen: string[] = [];
    ensureCommands({ defineCommand: (_name: string, def: { lua: string }) => seen.push(sha1(def.lua)) });
    assert.deepEqual(seen.sort(), shasOf('@sesamecare-oss/redlock'));
  });

  it('redlock-universal SHA1s match its script constants', () => {
    const src = besideMain('redlock-universal', 'index.cjs');
    // Constants are plain template literals (no interpolation), most trimmed.
    const found = [...src.matchAll(/^var [A-Z_]+_SCRIPT = `([^`$]*)`(\.trim\(\))?;$/gm)].map((m) =>
      sha1(m[2] ? m[1].trim() : m[1]),
    );
    assert.deepEqual(found.sort(), shasOf('redlock-universal'));
  });

  it('redis-semaphore SHA1s match its createEval scripts', () => {
    const files = ['mutex/release', 'mutex/refresh', 'semaphore/acquire/lua', 'semaphore/refresh/lua',
      'multiSemaphore/acquire/lua', 'multiSemaphore/refresh/lua', 'multiSemaphore/release/lua'];
    const found = files.map((f) => {
      const m = /createEval\)\(`([^`$]*)`/.exec(besideMain('redis-semaphore', `${f}.js`));
      assert.ok(m, f);
      return sha1(m[1]);
    });
    assert.deepEqual(found.sort(), shasOf('redis-semaphore'));
  });

  it('SHA1s are unique and well formed', () => {
    const all = KNOWN_SCRIPTS.map((s) => s.sha1);
    assert.equal(new Set(all).size, all.length);
    for (const s of all) assert.match(s, /^[0-9a-f]{40}$/);
  });

  it('librariesFromExists: distinct names in table order', () => {
    const flags = KNOWN_SCRIPTS.map(() => 0);
    assert.deepEqual(librariesFromExists(flags), []);
    KNOWN_SCRIPTS.forEach((s, i) => {
      if (s.library === 'redsync' || s.library === 'node-redlock v4') flags[i] = 1;
    });
    assert.deepEqual(librariesFromExists(flags), ['node-redlock v4', 'redsync']);
    assert.deepEqual(librariesFromExists(KNOWN_SCRIPTS.map(() => 1)), [...new Set(KNOWN_SCRIPTS.map((s) => s.library))]);
    assert.deepEqual(librariesFromExists([]), []);
  });
});

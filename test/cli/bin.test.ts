// The installed command (src/cli/bin.ts): runs the CLI's bundle from a V8 code cache in the
// user's cache folder, and never from a cache it cannot trust.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI } from './runCli';

describe('cli/bin: the code cache', () => {
  let home: string;
  const cacheDir = (): string => join(home, 'redlock-inspector');
  const files = (): string[] => (existsSync(cacheDir()) ? readdirSync(cacheDir()) : []);
  const version = (env: NodeJS.ProcessEnv = {}, cli = CLI): string => {
    const r = spawnSync(process.execPath, [cli, '--version'], { env: { ...process.env, XDG_CACHE_HOME: home, REDLOCK_CODE_CACHE: '', ...env }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    return r.stdout;
  };
  const expected = (): string => {
    const r = spawnSync(process.execPath, [join(dirname(CLI), 'cli-main.js'), '--version'], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'rli-cache-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('the first run writes one cache file only its user can read; the next runs from it and leaves it as it was', () => {
    const out = version();
    assert.equal(out, expected());
    assert.equal(files().length, 1);
    const file = join(cacheDir(), files()[0]);
    assert.equal(statSync(cacheDir()).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const before = readFileSync(file);
    assert.equal(version(), out);
    assert.deepEqual(readFileSync(file), before);
    assert.equal(files().length, 1);
  });

  it('a damaged cache is never run: the command runs and the file is made anew', () => {
    const out = version();
    const file = join(cacheDir(), files()[0]);
    const good = readFileSync(file);
    // The right header with damaged V8 data (V8 itself crashed on it), then all noise.
    const bad = Buffer.from(good);
    bad.fill(0x5a, 64 + 96);
    writeFileSync(file, bad);
    assert.equal(version(), out);
    assert.notDeepEqual(readFileSync(file), bad);
    writeFileSync(file, Buffer.alloc(good.length, 0x5a));
    assert.equal(version(), out);
    assert.notDeepEqual(readFileSync(file), Buffer.alloc(good.length, 0x5a));
    assert.equal(files().length, 1);
  });

  it('a cache made for another build of the bundle is not used for this one', () => {
    // A copy of the command whose bundle differs by one byte, with the same length: V8's own
    // check (the source's length) would take the other build's cache.
    const copy = mkdtempSync(join(tmpdir(), 'rli-copy-'));
    try {
      copyFileSync(CLI, join(copy, 'cli.js'));
      copyFileSync(join(dirname(CLI), 'cli-main.js'), join(copy, 'cli-main.js'));
      version({}, join(copy, 'cli.js'));
      const file = join(cacheDir(), files()[0]);
      const made = readFileSync(file);
      const main = readFileSync(join(copy, 'cli-main.js'), 'utf8');
      writeFileSync(join(copy, 'cli-main.js'), main.replace('"use strict";', '"use strict"/'));
      assert.equal(readFileSync(join(copy, 'cli-main.js'), 'utf8').length, main.length);
      // The changed bundle no longer parses: run from the old build's cache, it would.
      const r = spawnSync(process.execPath, [join(copy, 'cli.js'), '--version'], { env: { ...process.env, XDG_CACHE_HOME: home, REDLOCK_CODE_CACHE: '' }, encoding: 'utf8', timeout: 20_000 });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /SyntaxError/);
      assert.deepEqual(readFileSync(file), made);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('a cache folder others may write to is neither read nor written', () => {
    mkdirSync(cacheDir(), { recursive: true });
    chmodSync(cacheDir(), 0o777);
    assert.equal(version(), expected());
    assert.deepEqual(files(), []);
  });

  it('the help says where the cache lives and how to turn it off', () => {
    const r = spawnSync(process.execPath, [CLI, '--help'], { env: { ...process.env, XDG_CACHE_HOME: home }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\$XDG_CACHE_HOME\/redlock-inspector \(else\n?\s*~\/\.cache\/redlock-inspector\)/);
    assert.match(r.stdout, /REDLOCK_CODE_CACHE=off\s+turns that off/);
  });

  it('REDLOCK_CODE_CACHE=off writes nothing', () => {
    assert.equal(version({ REDLOCK_CODE_CACHE: 'off' }), expected());
    assert.equal(existsSync(cacheDir()), false);
  });
});

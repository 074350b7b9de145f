// The `redlock-inspector` command as installed (dist/cli.js): it runs the CLI's bundle
// (dist/cli-main.js) from a V8 code cache kept in the user's cache folder, so that a
// command does not parse and compile the same 700 KB of JavaScript at every start
// (docs/decisions.md, "A code cache for the CLI"). Node built-ins only: this file is
// itself compiled at every start.
import { createHash } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * A cache file: the hash of the source and runtime it was made for, the hash of the V8
 * data, then the data. V8 checks neither: given data made for another source of the same
 * length it runs that other code, and given damaged data it crashed (a segmentation fault).
 */
const HASH_BYTES = 32;
const sha256 = (...parts: Array<string | Buffer>): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/**
 * The folder the cache lives in, or null for none: `REDLOCK_CODE_CACHE=off`, or no home.
 * A folder another user could write to is not used (see ownedByUs): a cache is code this
 * process runs.
 */
function cacheDir(): string | null {
  if (process.env.REDLOCK_CODE_CACHE === 'off') return null;
  const base = process.env.XDG_CACHE_HOME || (homedir() ? join(homedir(), '.cache') : '');
  return base ? join(base, 'redlock-inspector') : null;
}

function ownedByUs(dir: string): boolean {
  try {
    const s = statSync(dir);
    if (!s.isDirectory()) return false;
    // Windows has no uid: its per-user cache folder is the user's own.
    if (typeof process.getuid !== 'function') return true;
    return s.uid === process.getuid() && (s.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Where this installed copy's cache lives, and the hash of the source and runtime it is for. */
interface CacheFile {
  dir: string;
  file: string;
  key: Buffer;
}

/** The cache's V8 data, if the file holds whole data made for `key`. */
function readCache({ dir, file, key }: CacheFile): Buffer | undefined {
  if (!ownedByUs(dir)) return undefined;
  try {
    const bytes = readFileSync(file);
    if (bytes.length <= 2 * HASH_BYTES || !bytes.subarray(0, HASH_BYTES).equals(key)) return undefined;
    const data = bytes.subarray(2 * HASH_BYTES);
    return sha256(data).equals(bytes.subarray(HASH_BYTES, 2 * HASH_BYTES)) ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces the cache file whole (a rename), or leaves everything as it was. The data is
 * made only once the folder is known to take it: making it costs 6-9 ms, which a read-only
 * home would pay at every run for nothing.
 */
function writeCache({ dir, file, key }: CacheFile, make: () => Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownedByUs(dir)) return;
    accessSync(dir, constants.W_OK);
    const data = make();
    writeFileSync(temp, Buffer.concat([key, sha256(data), data]), { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Never written.
    }
  }
}

function run(): void {
  const file = join(__dirname, 'cli-main.js');
  const source = readFileSync(file, 'utf8');
  // One file per installed copy, checked whole before V8 is given it (see HASH_BYTES).
  const dir = cacheDir();
  const cache = dir === null ? null : { dir, file: join(dir, `cli-${sha256(file).toString('hex').slice(0, 16)}.v8`), key: sha256(source, `\0${process.version}\0${process.arch}`) };
  const cachedData = cache === null ? undefined : readCache(cache);
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  if (cache !== null && (cachedData === undefined || script.cachedDataRejected === true)) {
    // Made at exit, so it holds the functions this command compiled as it ran, not only
    // the top level. Only when there was none: making it costs more than the functions a
    // later command compiles beyond those of the first.
    process.once('exit', () => writeCache(cache, () => script.createCachedData()));
  }
  const wrapper = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  const mod = new Module(file, module);
  mod.filename = file;
  wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
  (mod.exports as { run(): void }).run();
}

run();

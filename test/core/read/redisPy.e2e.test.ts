// redis-py's Lock taken by a real Python process (Debian's python3-redis, installed by
// .ci/run): its row, its token and its TTL under the default patterns, and discovery.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { useNodes } from '../../support/nodesFixture';

const run = promisify(execFile);
// Debian's interpreter, the one python3-redis installs for (a python3 earlier on PATH, such
// as a pyenv shim, does not see it).
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** Takes `name` with redis-py on `port` for `seconds` and prints the token; the lock outlives the process. */
async function pythonLock(port: number, name: string, seconds: number): Promise<string> {
  const script = [
    'import sys, redis',
    `r = redis.Redis(host="127.0.0.1", port=${port})`,
    `lock = r.lock(sys.argv[1], timeout=${seconds})`,
    'assert lock.acquire(blocking=False)',
    'print(lock.local.token.decode())',
  ].join('\n');
  const { stdout } = await run(PYTHON, ['-c', script, name], { timeout: 10_000 });
  return stdout.trim();
}

describe('redis-py locks (python3-redis)', () => {
  const fx = useNodes(1, { commandTimeoutMs: 500, readTimeoutMs: 500 });

  it('a redis-py lock is one held row with its token and TTL, and discovery names redis-py among its candidates', async () => {
    const token = await pythonLock(fx.servers[0].port, 'lock:report', 30);
    assert.match(token, /^[0-9a-f]{32}$/);
    const s = await fx.rl.inspect();
    assert.equal(s.locks.length, 1);
    const l = s.locks[0];
    assert.equal(l.key, 'lock:report');
    assert.equal(l.verdict, 'held');
    assert.deepEqual(Object.keys(l.holders), [token]);
    assert.ok(l.nodes[0].pttlMs! > 25_000 && l.nodes[0].pttlMs! <= 30_000, String(l.nodes[0].pttlMs));
    // redis-py records no holder: none is guessed.
    assert.equal(l.holder, null);
    const d = await fx.rl.discover();
    assert.deepEqual(d.patterns.map((p) => [p.pattern, p.library]), [['lock:*', 'node-redlock, redlock-universal or redis-py']]);
  });
});

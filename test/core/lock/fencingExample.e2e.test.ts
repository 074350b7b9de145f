import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { RedisServer, startNodes } from '../../../src/dev/redisServer';

// The README's fencing example, run as a user runs it (against the built core in dist/).
const EXAMPLE = resolve(process.cwd(), 'examples/fencing/paused-holder.mjs');

describe('examples/fencing/paused-holder.mjs', function () {
  this.timeout(60_000);
  let servers: RedisServer[];
  before(async () => {
    servers = await startNodes(3);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  });

  it('a holder paused past its lease writes late, and the storage refuses it (fence 33 after 34)', async () => {
    assert.ok(existsSync(resolve(process.cwd(), 'dist/core/index.mjs')), 'dist/core missing: run `npm run build` first');
    const child = spawn(process.execPath, [EXAMPLE], { env: { ...process.env, REDLOCK_NODES: servers.map((s) => s.url).join(',') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (err += String(d)));
    const timer = setTimeout(() => child.kill('SIGTERM'), 45_000);
    const code = await new Promise<number | null>((res) => child.once('exit', res));
    clearTimeout(timer);
    assert.equal(code, 0, `${out}\n${err}`);
    assert.match(out, /client 1: acquired orders:42 with fence 33, then paused/);
    assert.match(out, /client 2: acquired orders:42 with fence 34/);
    assert.match(out, /client 2: write with fence 34: accepted/);
    assert.match(out, /write with fence 33: refused \(the storage has seen fence 34\)/);
  });
});

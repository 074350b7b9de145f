// The holder's process on this host: running, exited, a pid reused by a later process, a
// paused one, and another host, from real processes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { localProcessOf } from '../../../src/core/read/localProcess';
import { waitFor } from '../../support/wait';

describe('localProcessOf', () => {
  it('this process is running since before now; a later since than its start is no reuse', () => {
    assert.deepEqual(localProcessOf(hostname(), process.pid, Date.now()), { state: 'running', pid: process.pid });
  });

  it('a pid that started after the lock was taken is another process (pid reused)', () => {
    // A lock taken long before this process started cannot be this process's.
    assert.deepEqual(localProcessOf(hostname(), process.pid, Date.now() - 3600_000 * 24 * 365), { state: 'reused', pid: process.pid });
  });

  it('an exited child is exited; a stopped one is paused, then running again', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const pid = child.pid!;
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await waitFor(() => localProcessOf(hostname(), pid, Date.now())?.state === 'running', 5000, 'the child running');
      child.kill('SIGSTOP');
      await waitFor(() => localProcessOf(hostname(), pid, Date.now())?.state === 'paused', 5000, 'the child paused');
      child.kill('SIGCONT');
      await waitFor(() => localProcessOf(hostname(), pid, Date.now())?.state === 'running', 5000, 'the child running again');
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    assert.deepEqual(localProcessOf(hostname(), pid, Date.now()), { state: 'exited', pid });
  });

  it('another host is not checked; no host or pid (an anonymous identity) says nothing', () => {
    assert.deepEqual(localProcessOf('web-2.example', 4242, Date.now()), { state: 'elsewhere', host: 'web-2.example' });
    assert.equal(localProcessOf(null, 4242, null), null);
    assert.equal(localProcessOf(hostname(), null, null), null);
  });
});

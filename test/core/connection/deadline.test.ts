import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { DeadlineError, withDeadline } from '../../../src/core/connection/deadline';

/** Keeps the event loop busy, as a GC pause or a large page decoded would. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

describe('withDeadline', () => {
  it('rejects with DeadlineError when no answer comes within the deadline', async () => {
    await assert.rejects(withDeadline(new Promise(() => undefined), 30), (e: unknown) => e instanceof DeadlineError && e.ms === 30);
  });

  it('resolves with the answer that came in time', async () => {
    assert.equal(await withDeadline(new Promise((r) => setTimeout(() => r('ok'), 5)), 200), 'ok');
  });

  it('never blames the answer for our own busy event loop: a reply waiting in the socket is taken', async () => {
    // Another process answers 10 ms after 'go', through a pipe: real I/O, as a node's reply.
    const child = spawn(process.execPath, ['-e', "process.stdout.write('ready\\n'); process.stdin.once('data', () => setTimeout(() => process.stdout.write('ok\\n'), 10))"], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise((r) => child.stdout.once('data', r));
      const answer = new Promise<string>((r) => child.stdout.once('data', (d) => r(String(d).trim())));
      child.stdin.write('go\n');
      const raced = withDeadline(answer, 50);
      // Busy past the deadline: the reply sits unread in the pipe when the timer fires.
      busy(300);
      assert.equal(await raced, 'ok');
    } finally {
      child.kill();
    }
  });

  it('a read whose timer fired late gives a silent node the time our loop took, once, then rejects', async () => {
    const raced = withDeadline(new Promise(() => undefined), 40, true);
    busy(120);
    const start = Date.now();
    await assert.rejects(raced, DeadlineError);
    // Rejected after a second wait (the lag, at most the deadline), not at once and not never.
    assert.ok(Date.now() - start >= 30, `rejected after ${Date.now() - start} ms`);
  });

  it('a write keeps its deadline: a late timer rejects at once', async () => {
    const raced = withDeadline(new Promise(() => undefined), 40);
    busy(120);
    const start = Date.now();
    await assert.rejects(raced, DeadlineError);
    assert.ok(Date.now() - start < 30, `rejected after ${Date.now() - start} ms`);
  });
});

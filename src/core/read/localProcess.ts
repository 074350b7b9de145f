// Whether a holder's process on this host still runs: its pid exists, is not a zombie, and
// started before the lock was taken (pids are reused). Linux reads /proc; elsewhere only
// existence is known, by signal 0 (docs/liveness.md, "What it cannot prove").
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ProcessSignal } from '../vocabulary/liveness';
import { boundedText, MAX_HOST_BYTES } from '../vocabulary/holderToken';

/** Kernel clock ticks per second for /proc start times (USER_HZ, 100 on every Linux ABI Node runs on). */
const USER_HZ = 100;
/** Boot time is whole seconds and the start tick rounds: a start this much after `since` is still ours. */
const START_SLACK_MS = 2000;

let bootMs: number | null | undefined;

function bootTimeMs(): number | null {
  if (bootMs !== undefined) return bootMs;
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
    bootMs = m ? Number(m[1]) * 1000 : null;
  } catch {
    bootMs = null;
  }
  return bootMs;
}

/** State letter and start instant (epoch ms) from /proc/<pid>/stat; undefined without /proc. */
function procStat(pid: number): { state: string; startMs: number | null } | null | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return process.platform === 'linux' ? null : undefined;
    return undefined;
  }
  // The command name is in parentheses and may hold spaces or ')': fields follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const boot = bootTimeMs();
  const ticks = Number(fields[19]);
  return { state: fields[0], startMs: boot === null || !Number.isFinite(ticks) ? null : boot + (ticks * 1000) / USER_HZ };
}

/** What `kill -0` says: the pid exists (also when it is another user's), or not. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder's process, when its identity names this host and a pid; null when it names neither. */
export function localProcessOf(host: string | null, pid: number | null, sinceMs: number | null): ProcessSignal | null {
  if (host === null || pid === null) return null;
  if (host !== boundedText(hostname(), MAX_HOST_BYTES)) return { state: 'elsewhere', host };
  if (pid <= 0) return null;
  const stat = procStat(pid);
  if (stat === null) return { state: 'exited', pid };
  if (stat === undefined) return { state: exists(pid) ? 'running' : 'exited', pid };
  if (stat.state === 'Z' || stat.state === 'X') return { state: 'exited', pid };
  if (sinceMs !== null && stat.startMs !== null && stat.startMs > sinceMs + START_SLACK_MS) return { state: 'reused', pid };
  return { state: stat.state === 'T' || stat.state === 't' ? 'paused' : 'running', pid };
}

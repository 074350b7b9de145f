// What every command shares: the process around it (Io), how nodes are configured
// (--node or REDLOCK_NODES, REDLOCK_PASSWORD), the read-only switch, and one connection
// per run that is always closed. A command's action returns its exit code through
// `action()`; nothing here calls process.exit.
import type { Command } from 'commander';
import { Redlock } from '../core/redlock';
import { CliError, EXIT, ExitCode } from './exit';
import type { Io } from './io';
import { envFlag, NodeOptions, splitNodeList } from './options';

export const PREFIX = 'redlock-inspector: ';

/** Connection settings for a one-shot command: a dead node must not stall it for long. */
export const CONNECT_TIMEOUT_MS = 2000;
export const READ_TIMEOUT_MS = 1000;

export interface ConnectOptions {
  /** A write command: refused in read-only mode before any connection opens. */
  writes?: boolean;
  /** Checks that must refuse (throw a CliError) after the read-only check and before connecting. */
  beforeConnect?: () => void;
}

export class CliContext {
  /** The exit code of the action that ran; 0 when only help or version was printed. */
  exitCode: ExitCode = EXIT.ok;

  constructor(readonly io: Io) {}

  /** Wraps a command's action so its exit code becomes the run's. */
  action<A extends unknown[]>(run: (...args: A) => Promise<ExitCode>): (...args: A) => Promise<void> {
    return async (...args) => {
      this.exitCode = await run(...args);
    };
  }

  /** --read-only anywhere on the line, or REDLOCK_READ_ONLY. */
  readOnly(cmd: Command): { on: boolean; why: string } {
    if (cmd.optsWithGlobals<{ readOnly?: boolean }>().readOnly) return { on: true, why: '--read-only' };
    if (envFlag(this.io.env.REDLOCK_READ_ONLY)) return { on: true, why: 'REDLOCK_READ_ONLY is set' };
    return { on: false, why: '' };
  }

  /** --node replaces REDLOCK_NODES entirely. */
  nodes(opts: NodeOptions): string[] {
    return opts.node ? opts.node.map((n) => n.trim()) : splitNodeList(this.io.env.REDLOCK_NODES ?? '');
  }

  /**
   * Runs `run` with a Redlock on the configured nodes and always closes it. Refusals
   * (read-only, no node, a bad URL) happen before a single connection opens.
   */
  async withRedlock(cmd: Command, opts: NodeOptions, connect: ConnectOptions, run: (redlock: Redlock) => Promise<ExitCode>): Promise<ExitCode> {
    if (connect.writes) {
      const ro = this.readOnly(cmd);
      if (ro.on) throw new CliError(`read-only mode (${ro.why}): ${cmd.name()} refused; nothing was sent to any node`, EXIT.usage);
    }
    connect.beforeConnect?.();
    const nodes = this.nodes(opts);
    if (nodes.length === 0) throw new CliError('no Redis node configured: pass --node URL (repeatable) or set REDLOCK_NODES', EXIT.usage);
    // Every URL is parsed (NodeConfigError, exit 2) before a single connection opens.
    const redlock = new Redlock(nodes, {
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      readTimeoutMs: READ_TIMEOUT_MS,
      defaultPassword: this.io.env.REDLOCK_PASSWORD || undefined,
    });
    try {
      return await run(redlock);
    } finally {
      await redlock.quit().catch(() => undefined);
    }
  }
}

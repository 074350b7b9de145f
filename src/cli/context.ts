// What every command shares: the process around it (Io), how nodes are configured
// (--node or REDLOCK_NODES, REDLOCK_PASSWORD), the read-only switch, and one connection
// per run that is always closed. A command's action returns its exit code through
// `action()`; nothing here calls process.exit.
import type { Command } from 'commander';
import { Redlock } from '../core';
import { readTlsFiles, type TlsSettings } from '../core';
import { escapeText } from './escape';
import { CliError, EXIT, ExitCode } from './exit';
import type { Io } from './io';
import { envFlag, NodeOptions, splitNodeList } from './options';
import { type Connection, pickConnection } from './connections';

export const PREFIX = 'redlock-inspector: ';

/** Connection settings for a one-shot command: a dead node must not stall it for long. */
export const CONNECT_TIMEOUT_MS = 2000;
export const READ_TIMEOUT_MS = 1000;

export interface ConnectOptions {
  /** A write command: refused in read-only mode before any connection opens. */
  writes?: boolean;
  /** acquire, extend, release, force-release: record events, so `history` shows the tool's own writes. */
  recordsEvents?: boolean;
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

  /** The named connection `--connection` picks (docs/cli.md, "Named connections"), read once per run. */
  connection(cmd: Command): Connection | undefined {
    const name = cmd.optsWithGlobals<{ connection?: string }>().connection;
    if (name === undefined) return undefined;
    if (this.picked?.name !== name) this.picked = pickConnection(this.io.env, name);
    return this.picked;
  }

  private picked: Connection | undefined;

  /** The key patterns the connection names, for a command given no --pattern. */
  connectionPatterns(cmd: Command): string[] | undefined {
    return this.connection(cmd)?.patterns;
  }

  /** --node replaces the connection's nodes, and both replace REDLOCK_NODES entirely. */
  nodes(opts: NodeOptions, connection?: Connection): string[] {
    if (opts.node) return opts.node.map((n) => n.trim());
    if (connection) return connection.nodes;
    return splitNodeList(this.io.env.REDLOCK_NODES ?? '');
  }

  /** The --tls-* files read and checked, and the warnings a user must not miss. */
  tls(opts: NodeOptions, nodes: readonly string[]): TlsSettings | undefined {
    if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey)) {
      throw new CliError('--tls-cert and --tls-key go together (a client certificate and its key)', EXIT.usage);
    }
    const settings = readTlsFiles({
      ca: opts.tlsCa,
      cert: opts.tlsCert,
      key: opts.tlsKey,
      insecure: opts.tlsInsecure,
      passphrase: this.io.env.REDLOCK_TLS_PASSPHRASE || undefined,
    });
    if (!settings) return undefined;
    if (!nodes.some((n) => /^rediss(\+(sentinel|cluster))?:\/\//i.test(n))) this.io.err(`${PREFIX}warning: --tls-* options apply to rediss://, rediss+sentinel:// and rediss+cluster:// nodes only, and none is configured`);
    if (opts.tlsInsecure) {
      this.io.err(`${PREFIX}WARNING: --tls-insecure: server certificates are NOT verified, anyone on the network path can read and change this traffic; use it for a local test only`);
    }
    return settings;
  }

  /**
   * Runs `run` with a Redlock on the configured nodes and always closes it. Refusals
   * (read-only, no node, a bad URL) happen before a single connection opens.
   */
  async withRedlock(cmd: Command, opts: NodeOptions, connect: ConnectOptions, run: (redlock: Redlock) => Promise<ExitCode>): Promise<ExitCode> {
    const connection = this.connection(cmd);
    if (connect.writes) {
      const ro = this.readOnly(cmd);
      if (ro.on) throw new CliError(`read-only mode (${ro.why}): ${cmd.name()} refused; nothing was sent to any node`, EXIT.usage);
      // A production connection writes only when this command line says so, whatever
      // --node points it at: the guard is the connection's, not the URLs'.
      if (connection?.production && !cmd.optsWithGlobals<{ allowWrites?: boolean }>().allowWrites) {
        throw new CliError(`connection "${escapeText(connection.name)}" is production: ${cmd.name()} refused; pass --allow-writes to write to it; nothing was sent to any node`, EXIT.usage);
      }
    }
    const nodes = this.nodes(opts, connection);
    if (nodes.length === 0) throw new CliError('no Redis node configured: pass --node URL (repeatable), --connection NAME or set REDLOCK_NODES', EXIT.usage);
    // Every URL is parsed and every TLS file read (NodeConfigError, exit 2) before a
    // single connection opens.
    const redlock = new Redlock(nodes, {
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      readTimeoutMs: READ_TIMEOUT_MS,
      defaultPassword: this.io.env.REDLOCK_PASSWORD || undefined,
      // A lock taken from a terminal says so to whoever inspects it (docs/holders.md).
      holderName: 'redlock-inspector-cli',
      // The tool's own lock writes belong in the history it shows: acquire, extend,
      // release and force-release record events, flushed by quit() below.
      events: connect.recordsEvents === true,
      tls: this.tls(opts, nodes),
    });
    try {
      const code = await run(redlock);
      // A node whose identity rests on host:port only (the user may not run INFO).
      for (const w of redlock.warnings) this.io.err(`${PREFIX}warning: ${escapeText(w)}`);
      return code;
    } finally {
      await redlock.quit().catch(() => undefined);
    }
  }
}

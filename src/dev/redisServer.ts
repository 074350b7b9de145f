// Real redis-server processes on free loopback ports, for tests, the demo and benches.
// Every server started here is stopped on exit, on Ctrl-C and on an uncaught failure.
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';

export interface RedisServerOptions {
  /** Extra redis-server arguments, e.g. ['--requirepass', 'secret']. */
  args?: string[];
  port?: number;
  /** Start a sentinel (not a data node) monitoring this master (`authPass`: the master's password). */
  sentinelOf?: { name: string; port: number; downAfterMs?: number; authPass?: string };
  /**
   * Also listen with TLS on `tlsPort` (certificates from test/support/tlsCerts.ts); the
   * plain port stays for test setup clients. `authClients` requires client certificates.
   * `only` closes the plain port (`port 0`), as a TLS-only deployment runs: `port` is then
   * the TLS port, replication (and a sentinel's link to its master) uses TLS, and setup
   * clients connect with TLS, trusting `ca` (they have no client certificate: use `only`
   * with `authClients: false`). `client` is the certificate the server presents on its own
   * outgoing TLS links: a TLS cluster bus always asks for one (a server certificate made for
   * serverAuth only is refused there).
   */
  tls?: { cert: string; key: string; ca: string; authClients: boolean; only?: boolean; client?: { cert: string; key: string } };
  /**
   * Lines of a redis.conf written to the server's temp dir and loaded before `args`: what
   * only a config file may say, e.g. `rename-command CONFIG ""` as managed services do,
   * or `user ...` ACL lines (see test/support/serverProfiles.ts).
   */
  config?: string[];
}

/** ioredis options of a setup client for a TLS-only server: trust its CA. */
function setupTls(t: NonNullable<RedisServerOptions['tls']>): Record<string, unknown> {
  return { tls: { ca: readFileSync(t.ca) } };
}

/** redis-cli's options for the same. */
function redisCliTls(t: NonNullable<RedisServerOptions['tls']> | undefined): string[] {
  return t?.only ? ['--tls', '--cacert', t.ca] : [];
}

const live = new Set<RedisServer>();

/** The server could not bind its port: someone else listens there. */
class PortTaken extends Error {}

export function redisServerBinary(): string {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();
  if (!found) {
    throw new Error('redis-server not found: install it with `sudo apt-get install -y redis-server` (or run `bash .ci/run`)');
  }
  return found;
}

/** Ports freePort handed out in this process: the OS may offer a port again once it was closed. */
const handedOut = new Set<number>();

/**
 * A loopback port nothing listens on, never one handed out before in this process (a TLS
 * server's two ports, or nodes started side by side, came out equal once in a while).
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await anyFreePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export class RedisServer {
  private proc: ChildProcess | undefined;
  private readonly dir: string;
  private exited: Promise<void> = Promise.resolve();

  private constructor(readonly port: number, private readonly args: string[], private readonly sentinelOf?: RedisServerOptions['sentinelOf'], private readonly tls?: RedisServerOptions['tls'], config?: string[]) {
    this.dir = mkdtempSync(join(tmpdir(), 'redlock-redis-'));
    if (config) {
      this.configFile = join(this.dir, 'redis.conf');
      writeFileSync(this.configFile, config.join('\n') + '\n');
    }
  }

  /** The config file written from `config`, loaded first by every (re)start. */
  private readonly configFile: string | undefined;

  /** What a setup client needs beyond host and port (TLS for a TLS-only server). */
  private get clientExtras(): Record<string, unknown> {
    return this.tls?.only ? setupTls(this.tls) : {};
  }

  /** The `--port` argument: 0 (no plain port) for a TLS-only server. */
  private get plainPortArg(): string {
    return this.tls?.only ? '0' : String(this.port);
  }

  /** The TLS port, when started with `tls`. */
  tlsPort: number | undefined;

  static async start(options: RedisServerOptions = {}, attempt = 1): Promise<RedisServer> {
    const args = [...(options.args ?? [])];
    let tlsPort: number | undefined;
    if (options.tls) {
      const t = options.tls;
      tlsPort = t.only ? (options.port ?? (await freePort())) : await freePort();
      args.push('--tls-port', String(tlsPort), '--tls-cert-file', t.cert, '--tls-key-file', t.key, '--tls-ca-cert-file', t.ca, '--tls-auth-clients', t.authClients ? 'yes' : 'no');
      if (t.only) args.push('--tls-replication', 'yes');
      if (t.client) args.push('--tls-client-cert-file', t.client.cert, '--tls-client-key-file', t.client.key);
    }
    const server = new RedisServer(options.tls?.only ? tlsPort! : (options.port ?? (await freePort())), args, options.sentinelOf, options.tls, options.config);
    server.tlsPort = tlsPort;
    live.add(server);
    try {
      await server.spawn();
    } catch (e) {
      // Another process took a free port between our check and the server's bind: again
      // on new ports (twice at most), unless the caller chose them.
      await server.dispose();
      if (!(e instanceof PortTaken) || options.port !== undefined || attempt >= 3) throw e;
      return RedisServer.start(options, attempt + 1);
    }
    return server;
  }

  get url(): string {
    return `${this.tls?.only ? 'rediss' : 'redis'}://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  get running(): boolean {
    return this.proc !== undefined;
  }

  private async spawn(): Promise<void> {
    const argv = this.sentinelOf ? this.sentinelArgv(this.sentinelOf) : [
      ...(this.configFile ? [this.configFile] : []),
      '--port', this.plainPortArg, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--dir', this.dir, '--enable-debug-command', 'local', '--daemonize', 'no', '--loglevel', 'warning',
      ...this.args,
    ];
    // Its log goes to stdout (a bind failure among it), errors of its arguments to stderr.
    const proc = spawn(redisServerBinary(), argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    let output = '';
    // The last of it only: a demo's servers run for hours.
    const keep = (d: Buffer): void => void (output = (output + String(d)).slice(-4096));
    proc.stderr?.on('data', keep);
    proc.stdout?.on('data', keep);
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    proc.once('exit', () => {
      if (this.proc === proc) this.proc = undefined;
    });
    await this.waitReady(() => output);
  }

  /** Sentinel rewrites its config file, so it gets one of its own in the temp dir. */
  private sentinelArgv(m: NonNullable<RedisServerOptions['sentinelOf']>): string[] {
    const conf = join(this.dir, 'sentinel.conf');
    if (!existsSync(conf)) {
      writeFileSync(conf, [
        `sentinel monitor ${m.name} 127.0.0.1 ${m.port} 1`,
        `sentinel down-after-milliseconds ${m.name} ${m.downAfterMs ?? 1000}`,
        `sentinel failover-timeout ${m.name} 5000`,
        ...(m.authPass === undefined ? [] : [`sentinel auth-pass ${m.name} ${m.authPass}`]),
        '',
      ].join('\n'));
    }
    return [conf, '--sentinel', '--port', this.plainPortArg, '--bind', '127.0.0.1', '--dir', this.dir, '--daemonize', 'no', '--loglevel', 'warning', ...this.args];
  }

  private async waitReady(output: () => string): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (!this.proc) {
        const message = `redis-server on port ${this.port} exited: ${output()}`;
        throw /Address already in use/.test(output()) ? new PortTaken(message) : new Error(message);
      }
      const probe = new Redis({ port: this.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false, enableReadyCheck: false, ...this.clientExtras });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping().catch((e: Error) => {
          // A password-protected or still loading node still proves it is up.
          if (!/NOAUTH|WRONGPASS|LOADING/.test(e.message)) throw e;
        });
        // Ours, not another process that took the port first (ours then exits: PortTaken).
        // Where INFO is refused (a password, an ACL), the answer above has to do.
        const info = await probe.info('server').catch(() => undefined);
        const pid = info === undefined ? undefined : /process_id:(\d+)/.exec(info)?.[1];
        if (pid !== undefined && Number(pid) !== this.proc.pid) throw new Error(`port ${this.port} answered by pid ${pid}`);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not start: ${output()}`);
        await new Promise((r) => setTimeout(r, 20));
      } finally {
        probe.disconnect();
      }
    }
  }

  /** SIGSTOP: the process keeps its socket but answers nothing until resume(). */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }

  /** Kill the process (SIGKILL: no shutdown save); the port stays reserved for restart(). */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    proc.kill('SIGCONT');
    proc.kill('SIGKILL');
    await this.exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.spawn();
  }

  async dispose(): Promise<void> {
    await this.stop();
    live.delete(this);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A fresh client for test setup (not the code under test). */
  client(options: Record<string, unknown> = {}): Redis {
    const c = new Redis({ port: this.port, host: '127.0.0.1', maxRetriesPerRequest: 1, ...this.clientExtras, ...options });
    c.on('error', () => undefined);
    return c;
  }
}

export async function startNodes(n: number, options: RedisServerOptions = {}): Promise<RedisServer[]> {
  return Promise.all(Array.from({ length: n }, () => RedisServer.start(options)));
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((s) => s.dispose()));
}

function killAllSync(): void {
  for (const s of live) {
    const pid = s.pid;
    if (pid) {
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}

process.once('exit', killAllSync);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    killAllSync();
    process.exit(130);
  });
}

/**
 * 3 masters joined into a Redis Cluster by `redis-cli --cluster create`. `args` adds
 * server options, e.g. `--cluster-require-full-coverage no` so the masters that still
 * answer keep serving their slots while one is paused. `tls` with `only` (and `args` with
 * `--tls-cluster yes`) makes a TLS-only cluster, created over TLS.
 */
export async function startCluster(masters = 3, args: string[] = [], tls?: RedisServerOptions['tls']): Promise<RedisServer[]> {
  const servers = await startNodes(masters, { args: ['--cluster-enabled', 'yes', '--cluster-node-timeout', '2000', ...args], tls });
  const r = spawnSync('redis-cli', [...redisCliTls(tls), '--cluster', 'create', ...servers.map((s) => `127.0.0.1:${s.port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`redis-cli --cluster create failed: ${r.stdout}${r.stderr}`);
  // The cluster is usable once every node agrees its state is ok.
  const deadline = Date.now() + 15_000;
  for (const s of servers) {
    const c = s.client();
    try {
      for (;;) {
        const info = String(await c.call('CLUSTER', 'INFO'));
        if (info.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) throw new Error(`cluster on ${s.port} not ok: ${info}`);
        await new Promise((res) => setTimeout(res, 50));
      }
    } finally {
      c.disconnect();
    }
  }
  return servers;
}

/** Runs `fn` with a fresh setup client of `s` and always disconnects it. */
export async function withClient<T>(s: RedisServer, fn: (c: Redis) => Promise<T>): Promise<T> {
  const c = s.client();
  try {
    return await fn(c);
  } finally {
    c.disconnect();
  }
}

/** The master (`127.0.0.1:port`) that owns `key`'s slot, asked of the cluster itself. */
export async function clusterOwner(s: RedisServer, key: string): Promise<number> {
  return withClient(s, async (c) => {
    const slot = Number(await c.call('CLUSTER', 'KEYSLOT', key));
    const ranges = (await c.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
    const owner = ranges.find(([a, b]) => slot >= a && slot <= b);
    if (!owner) throw new Error(`no owner for slot ${slot}`);
    return Number(owner[2][1]);
  });
}

/** Sentinels (`count`) monitoring one master, started together. */
export async function startSentinels(count: number, master: RedisServer, name = 'mymaster'): Promise<RedisServer[]> {
  return Promise.all(Array.from({ length: count }, () => RedisServer.start({ sentinelOf: { name, port: master.port } })));
}

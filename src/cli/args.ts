// Command-line parsing and validation (DESIGN.md "Command-line contract"). Pure: argv and
// an environment in, a checked command out, or a UsageError (exit 2) with one clear line.
// No dependency: the grammar is small and every message is ours.
import { parseKeyArg, parseTokenArg } from '../core/tokens';
import { escapeText } from './escape';

export const COMMANDS = ['status', 'watch', 'acquire', 'extend', 'release', 'force-release', 'doctor', 'exporter', 'mcp'] as const;
export type CommandName = (typeof COMMANDS)[number];

/** Commands that write to a node: refused in read-only mode before any connection. */
export const WRITE_COMMANDS: ReadonlySet<CommandName> = new Set(['acquire', 'extend', 'release', 'force-release']);

export const MAX_TTL_MS = 2 ** 31 - 1;
export const DEFAULT_INTERVAL_MS = 2000;
const MIN_INTERVAL_MS = 100;
const MAX_RETRY = 1000;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Env {
  [name: string]: string | undefined;
}

interface Common {
  /** Node URLs, from --node or else REDLOCK_NODES. */
  nodes: string[];
  /** REDLOCK_PASSWORD: used for URLs that carry no password. Never printed. */
  password: string | undefined;
  readOnly: boolean;
  json: boolean;
}

export interface ReadArgs extends Common {
  patterns: string[];
  expiringMs: number | undefined;
}

export type Command =
  | { name: 'help' }
  | { name: 'version' }
  | ({ name: 'status' } & ReadArgs)
  | ({ name: 'watch'; intervalMs: number } & ReadArgs)
  | ({ name: 'acquire'; resources: Buffer[]; ttlMs: number; retry: number } & Common)
  | ({ name: 'extend'; resources: Buffer[]; token: Buffer; ttlMs: number } & Common)
  | ({ name: 'release'; resources: Buffer[]; token: Buffer } & Common)
  | ({ name: 'force-release'; resource: Buffer; yes: boolean } & Common)
  | ({ name: 'doctor'; patterns: string[] } & Common)
  | ({ name: 'exporter'; listen: ListenAddress; intervalMs: number } & ReadArgs)
  | ({ name: 'mcp'; allowWrites: boolean } & Common);

export interface ListenAddress {
  host: string;
  port: number;
}

interface OptionSpec {
  takesValue: boolean;
  repeatable?: boolean;
  /** undefined: every command. */
  commands?: readonly CommandName[];
}

const READS: readonly CommandName[] = ['status', 'watch', 'exporter'];
const OPTIONS: Record<string, OptionSpec> = {
  '--node': { takesValue: true, repeatable: true },
  '--read-only': { takesValue: false },
  '--json': { takesValue: false },
  '--help': { takesValue: false },
  '--version': { takesValue: false },
  '--pattern': { takesValue: true, repeatable: true, commands: [...READS, 'doctor'] },
  '--expiring-ms': { takesValue: true, commands: READS },
  '--interval': { takesValue: true, commands: ['watch', 'exporter'] },
  '--listen': { takesValue: true, commands: ['exporter'] },
  '--allow-writes': { takesValue: false, commands: ['mcp'] },
  '--ttl': { takesValue: true, commands: ['acquire', 'extend'] },
  '--retry': { takesValue: true, commands: ['acquire'] },
  '--token': { takesValue: true, commands: ['extend', 'release'] },
  '--yes': { takesValue: false, commands: ['force-release'] },
};
const ALIASES: Record<string, string> = { '-h': '--help', '-y': '--yes', '-V': '--version' };

interface Raw {
  options: Map<string, string[]>;
  positionals: string[];
}

function tokenize(argv: readonly string[]): Raw {
  const options = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const given = eq < 0 ? arg : arg.slice(0, eq);
    const name = ALIASES[given] ?? given;
    const spec = OPTIONS[name];
    if (!spec) throw new UsageError(`unknown option ${escapeText(given)}`);
    let value = '';
    if (spec.takesValue) {
      if (eq >= 0) value = arg.slice(eq + 1);
      // The next word is the value even when it starts with '-': `--ttl -1` then reads as
      // an invalid TTL, the clearer message, not as an unknown option "-1".
      else if (i + 1 < argv.length) value = argv[++i];
      else throw new UsageError(`${name} needs a value`);
    } else if (eq >= 0) {
      throw new UsageError(`${name} takes no value`);
    }
    const list = options.get(name) ?? [];
    list.push(value);
    options.set(name, list);
  }
  return { options, positionals };
}

/** Strict decimal integer in [min, max]: no sign, exponent, fraction or blank. */
export function parseInteger(option: string, text: string, min: number, max: number, unit: string): number {
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    throw new UsageError(`invalid ${option} "${escapeText(shown)}": expected an integer ${unit} from ${min} to ${max}`);
  }
  return n;
}

export function parseTtl(text: string, option = '--ttl'): number {
  return parseInteger(option, text, 1, MAX_TTL_MS, 'number of milliseconds');
}

/**
 * REDLOCK_NODES is comma-separated, but a sentinel or cluster URL holds commas of its own
 * (`redis+sentinel://a:26379,b:26379/mymaster`): a piece without `://` continues the URL
 * before it.
 */
export function splitNodeList(text: string): string[] {
  const urls: string[] = [];
  for (const piece of text.split(',')) {
    const p = piece.trim();
    if (!p) continue;
    if (p.includes('://') || urls.length === 0) urls.push(p);
    else urls[urls.length - 1] += ',' + p;
  }
  return urls;
}

/** REDLOCK_READ_ONLY: any value except empty, 0, false, no or off turns it on (fail safe). */
export function envFlag(value: string | undefined): boolean {
  if (value === undefined) return false;
  return !['', '0', 'false', 'no', 'off'].includes(value.trim().toLowerCase());
}

function resourceArg(text: string): Buffer {
  const key = parseKeyArg(text);
  if (key.length === 0) throw new UsageError('empty resource name');
  return key;
}

/** `HOST:PORT` or `[v6]:PORT`; port 0 picks a free one. */
export function parseListen(text: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`invalid --listen "${escapeText(text)}": expected HOST:PORT, e.g. 127.0.0.1:9464 or [::1]:9464`);
  return { host: m[1] ?? m[2], port };
}

export function parseArgs(argv: readonly string[], env: Env = {}): Command {
  const { options, positionals } = tokenize(argv);
  if (options.has('--help') || positionals[0] === 'help') return { name: 'help' };
  if (options.has('--version')) return { name: 'version' };
  const word = positionals[0];
  if (word === undefined) throw new UsageError(`missing command (one of ${COMMANDS.join(', ')})`);
  if (!(COMMANDS as readonly string[]).includes(word)) {
    throw new UsageError(`unknown command "${escapeText(word)}" (one of ${COMMANDS.join(', ')})`);
  }
  const name = word as CommandName;
  for (const [opt, values] of options) {
    const spec = OPTIONS[opt];
    if (spec.commands && !spec.commands.includes(name)) throw new UsageError(`${opt} is not an option of ${name}`);
    if (!spec.repeatable && values.length > 1) throw new UsageError(`${opt} given more than once`);
  }
  const one = (opt: string): string | undefined => options.get(opt)?.[0];
  const args = positionals.slice(1);

  const nodeArgs = options.get('--node');
  if (nodeArgs?.some((n) => n.trim() === '')) throw new UsageError('empty --node value');
  const common: Common = {
    // --node replaces REDLOCK_NODES entirely.
    nodes: nodeArgs ? nodeArgs.map((n) => n.trim()) : splitNodeList(env.REDLOCK_NODES ?? ''),
    password: env.REDLOCK_PASSWORD || undefined,
    readOnly: options.has('--read-only') || envFlag(env.REDLOCK_READ_ONLY),
    json: options.has('--json'),
  };

  switch (name) {
    case 'doctor':
    case 'mcp': {
      if (args.length) throw new UsageError(`${name} takes no arguments (got "${escapeText(args[0])}")`);
      if (name === 'mcp') return { name, allowWrites: options.has('--allow-writes'), ...common };
      const patterns = options.get('--pattern') ?? ['*lock*'];
      if (patterns.some((p) => p === '')) throw new UsageError('empty --pattern value');
      return { name, patterns, ...common };
    }
    case 'status':
    case 'watch':
    case 'exporter': {
      if (args.length) throw new UsageError(`${name} takes no arguments (got "${escapeText(args[0])}"; use --pattern GLOB)`);
      const patterns = options.get('--pattern') ?? ['*lock*'];
      if (patterns.some((p) => p === '')) throw new UsageError('empty --pattern value');
      const e = one('--expiring-ms');
      const expiringMs = e === undefined ? undefined : parseInteger('--expiring-ms', e, 0, MAX_TTL_MS, 'number of milliseconds');
      const read: ReadArgs = { ...common, patterns, expiringMs };
      if (name === 'status') return { name, ...read };
      const i = one('--interval');
      const intervalMs = i === undefined ? DEFAULT_INTERVAL_MS : parseInteger('--interval', i, MIN_INTERVAL_MS, MAX_TTL_MS, 'number of milliseconds');
      if (name === 'watch') return { name, intervalMs, ...read };
      const l = one('--listen');
      if (l === undefined) throw new UsageError('exporter needs --listen HOST:PORT (e.g. 127.0.0.1:9464)');
      return { name, listen: parseListen(l), intervalMs, ...read };
    }
    case 'acquire':
    case 'extend':
    case 'release': {
      if (args.length === 0) throw new UsageError(`${name} needs at least one RESOURCE`);
      const resources = args.map(resourceArg);
      const seen = new Set<string>();
      for (const r of resources) {
        const id = r.toString('latin1');
        if (seen.has(id)) throw new UsageError(`resource "${escapeText(args[resources.indexOf(r)])}" given twice`);
        seen.add(id);
      }
      let token: Buffer | undefined;
      if (name !== 'acquire') {
        const t = one('--token');
        if (t === undefined) throw new UsageError(`${name} needs --token TOKEN (as printed by acquire)`);
        token = parseTokenArg(t);
        if (token.length === 0) throw new UsageError('empty --token value');
      }
      let ttlMs = 0;
      if (name !== 'release') {
        const ttl = one('--ttl');
        if (ttl === undefined) throw new UsageError(`${name} needs --ttl MS`);
        ttlMs = parseTtl(ttl);
      }
      if (name === 'acquire') {
        const r = one('--retry');
        const retry = r === undefined ? 0 : parseInteger('--retry', r, 0, MAX_RETRY, 'number of retries');
        return { name, resources, ttlMs, retry, ...common };
      }
      if (name === 'extend') return { name, resources, token: token!, ttlMs, ...common };
      return { name, resources, token: token!, ...common };
    }
    case 'force-release': {
      if (args.length !== 1) throw new UsageError(`force-release takes exactly one RESOURCE (got ${args.length})`);
      return { name, resource: resourceArg(args[0]), yes: options.has('--yes'), ...common };
    }
  }
}

export const USAGE = `Usage:
  redlock-inspector status  [--node URL]... [--pattern GLOB]... [--expiring-ms MS] [--json]
  redlock-inspector watch   [--node URL]... [--pattern GLOB]... [--expiring-ms MS] [--interval MS] [--json]
  redlock-inspector acquire RESOURCE... --ttl MS [--retry N] [--json]
  redlock-inspector extend  RESOURCE... --token TOKEN --ttl MS [--json]
  redlock-inspector release RESOURCE... --token TOKEN [--json]
  redlock-inspector force-release RESOURCE [--yes] [--json]
  redlock-inspector doctor  [--node URL]... [--pattern GLOB]... [--json]
  redlock-inspector exporter --listen HOST:PORT [--node URL]... [--pattern GLOB]... [--interval MS]
  redlock-inspector mcp     [--node URL]... [--allow-writes]

Nodes: --node URL (repeatable) replaces REDLOCK_NODES (comma-separated). URLs:
  redis://[user:pass@]host:port[/db], rediss:// (TLS),
  redis+sentinel://host:port[,host:port]/masterName, redis+cluster://host:port[,host:port]
  REDLOCK_PASSWORD applies to URLs without a password.
--read-only (or REDLOCK_READ_ONLY=1) refuses every write command.
RESOURCE and TOKEN accept hex:<hex> for bytes that are not printable UTF-8.
--pattern defaults to *lock*; --interval to ${DEFAULT_INTERVAL_MS} ms; --retry to 0.

Exit codes: 0 done; 1 refused by the nodes that answered; 2 bad usage or input,
read-only refusal, force-release without --yes off a terminal; 3 fewer than a
quorum of nodes answered; 4 doctor found an error-level problem.`;

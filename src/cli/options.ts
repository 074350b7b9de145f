// Typed option and argument parsers for commander: each turns one command-line word into
// a checked value or throws a UsageError (exit 2) whose one line names the option and the
// value, escaped. They are shared by every command so `--ttl 10s` means the same everywhere.
import { Command, Option } from 'commander';
import { parseKeyArg, parseTokenArg } from '../core/vocabulary';
import { DURATION_FORMS, parseDurationMs } from '../shared/duration';
import { escapeText } from './escape';
import { UsageError } from './exit';

export const MAX_TTL_MS = 2 ** 31 - 1;
export const DEFAULT_INTERVAL_MS = 2000;
export const MIN_INTERVAL_MS = 100;
export const MAX_RETRY = 1000;

function shown(text: string): string {
  return escapeText(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** Strict decimal integer in [min, max]: no sign, exponent, fraction or blank. */
export function integerParser(flag: string, min: number, max: number, unit: string): (text: string) => number {
  return (text) => {
    const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new UsageError(`invalid ${flag} "${shown(text)}": expected an integer ${unit} from ${min} to ${max}`);
    }
    return n;
  };
}

/** A duration (`1500`, `1500ms`, `10s`, `2m`) in [min, max] milliseconds. */
export function durationParser(flag: string, min: number, max = MAX_TTL_MS): (text: string) => number {
  return (text) => {
    const ms = parseDurationMs(text);
    if (ms === undefined || ms < min || ms > max) {
      throw new UsageError(`invalid ${flag} "${shown(text)}": expected a duration from ${min} to ${max} ms (${DURATION_FORMS})`);
    }
    return ms;
  };
}

export const parseTtl = durationParser('--ttl', 1);

/** Repeatable option: every occurrence appended, none empty. */
export function listParser(flag: string): (text: string, previous: string[] | undefined) => string[] {
  return (text, previous) => {
    if (text.trim() === '') throw new UsageError(`empty ${flag} value`);
    return [...(previous ?? []), text];
  };
}

/** RESOURCE: a key name, or `hex:<hex>` for bytes that are not printable UTF-8. */
export function parseResource(text: string): Buffer {
  const key = parseKeyArg(text);
  if (key.length === 0) throw new UsageError('empty resource name');
  return key;
}

/** Variadic RESOURCE...: each parsed, none given twice. */
export function resourceListParser(text: string, previous: Buffer[] | undefined): Buffer[] {
  const key = parseResource(text);
  if (previous?.some((k) => k.equals(key))) throw new UsageError(`resource "${shown(text)}" given twice`);
  return [...(previous ?? []), key];
}

export function parseToken(text: string): Buffer {
  const token = parseTokenArg(text);
  if (token.length === 0) throw new UsageError('empty --token value');
  return token;
}

/**
 * REDLOCK_NODES is comma-separated, but a sentinel or cluster URL holds commas of its own
 * (`redis+sentinel://a:26379,b:26379/mymaster`): a piece without `://` continues a
 * sentinel or cluster URL before it.
 */
export function splitNodeList(text: string): string[] {
  const urls: string[] = [];
  for (const piece of text.split(',')) {
    const p = piece.trim();
    if (!p) continue;
    // Only a sentinel or cluster URL continues; anything else starts a new entry, so a
    // malformed piece never becomes part of another URL's password.
    if (p.includes('://') || urls.length === 0 || !/^rediss?\+(sentinel|cluster):\/\//i.test(urls[urls.length - 1])) urls.push(p);
    else urls[urls.length - 1] += ',' + p;
  }
  return urls;
}

/** REDLOCK_READ_ONLY: any value except empty, 0, false, no or off turns it on (fail safe). */
export function envFlag(value: string | undefined): boolean {
  if (value === undefined) return false;
  return !['', '0', 'false', 'no', 'off'].includes(value.trim().toLowerCase());
}

/** What every command that talks to nodes accepts. */
export interface NodeOptions {
  node?: string[];
  json?: boolean;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsInsecure?: boolean;
}

function fileParser(flag: string): (text: string) => string {
  return (text) => {
    if (text.trim() === '') throw new UsageError(`empty ${flag} value`);
    return text;
  };
}

/**
 * --node (repeatable, replaces REDLOCK_NODES), --json and the TLS files of every TLS node
 * (rediss://, rediss+sentinel://, rediss+cluster://), for a command that talks to nodes.
 */
export function nodeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--node <url>', 'a Redis node URL (repeatable; replaces REDLOCK_NODES)').argParser(listParser('--node')))
    .option('--json', 'print one JSON document instead of text')
    .addOption(new Option('--tls-ca <file>', 'PEM file of a CA to trust for rediss:// (and rediss+sentinel://, rediss+cluster://) nodes (added to the system CAs)').argParser(fileParser('--tls-ca')))
    .addOption(new Option('--tls-cert <file>', 'client certificate (PEM) for mutual TLS; needs --tls-key').argParser(fileParser('--tls-cert')))
    .addOption(new Option('--tls-key <file>', "the client certificate's key (PEM); passphrase from REDLOCK_TLS_PASSPHRASE").argParser(fileParser('--tls-key')))
    .option('--tls-insecure', 'do not verify server certificates (local tests only; warns on stderr)');
}

export interface ReadOptions extends NodeOptions {
  pattern?: string[];
  expiringMs?: number;
}

import { DEFAULT_PATTERNS } from '../core/vocabulary';

/** The core's default key patterns, as help texts show them. */
export const DEFAULT_PATTERN_TEXT = DEFAULT_PATTERNS.join(' ');
export const defaultPatterns = (): string[] => [...DEFAULT_PATTERNS];

/** status and watch: the keys to read and the expiring threshold. */
export function readOptions(cmd: Command): Command {
  return nodeOptions(cmd)
    .addOption(new Option('--pattern <glob>', `SCAN MATCH glob of the keys to read (repeatable; default ${DEFAULT_PATTERN_TEXT})`).argParser(listParser('--pattern')))
    .addOption(new Option('--expiring-ms <duration>', 'flag locks whose validity is below this as expiring (default 2000)').argParser(durationParser('--expiring-ms', 0)));
}

// Named connections: a name for a set of nodes (dev, staging, prod), picked with
// `--connection NAME`, read from REDLOCK_CONFIG or ~/.config/redlock-inspector/connections.json
// (docs/cli.md, "Named connections"). A connection marked production refuses writes unless
// the command line says `--allow-writes`. A URL's password never reaches any output: the
// nodes are shown redacted, as every node is.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { escapeText } from './escape';
import { CliError, EXIT } from './exit';
import type { Env } from './io';

export interface Connection {
  name: string;
  nodes: string[];
  production: boolean;
  /** The key patterns read when the command line gives none. */
  patterns?: string[];
}

/** Where the connections live: REDLOCK_CONFIG, else the user's config directory. */
export function connectionsFile(env: Env): { path: string; explicit: boolean } {
  if (env.REDLOCK_CONFIG) return { path: env.REDLOCK_CONFIG, explicit: true };
  return { path: join(env.HOME || homedir(), '.config', 'redlock-inspector', 'connections.json'), explicit: false };
}

const MAX_FILE_BYTES = 1 << 20;

function problem(path: string, what: string): CliError {
  return new CliError(`${escapeText(path)}: ${what}`, EXIT.usage);
}

const isStringList = (x: unknown): x is string[] => Array.isArray(x) && x.length > 0 && x.every((s) => typeof s === 'string' && s.trim() !== '');

/** The connections in the file; [] when the default file does not exist. One clear line (exit 2) for a bad file. */
export function readConnections(env: Env): Connection[] {
  const { path, explicit } = connectionsFile(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return [];
    throw problem(path, code === 'ENOENT' ? 'no such file (set by REDLOCK_CONFIG)' : `cannot be read (${code ?? 'error'})`);
  }
  if (text.length > MAX_FILE_BYTES) throw problem(path, 'larger than 1 MiB: not a connections file');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // The parser's message quotes the text around the error, and the file holds URLs with
    // passwords: only where it broke is told.
    const at = /position (\d+)/.exec(e instanceof Error ? e.message : '')?.[1];
    throw problem(path, `not valid JSON${at === undefined ? '' : ` (at character ${at})`}: its text is not shown, it may hold passwords`);
  }
  const list = (doc as { connections?: unknown } | null)?.connections;
  if (!Array.isArray(list)) throw problem(path, 'expected { "connections": [{ "name", "nodes": [URL...], "production"?, "patterns"? }] }');
  const seen = new Set<string>();
  return list.map((c: unknown, i) => {
    const at = `connections[${i}]`;
    if (typeof c !== 'object' || c === null) throw problem(path, `${at} is not an object`);
    const { name, nodes, production, patterns } = c as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '') throw problem(path, `${at} has no "name"`);
    const shown = `connection "${escapeText(name)}"`;
    if (seen.has(name)) throw problem(path, `${shown} is named twice`);
    seen.add(name);
    if (!isStringList(nodes)) throw problem(path, `${shown}: "nodes" must be a list of node URLs`);
    if (production !== undefined && typeof production !== 'boolean') throw problem(path, `${shown}: "production" must be true or false`);
    if (patterns !== undefined && !isStringList(patterns)) throw problem(path, `${shown}: "patterns" must be a list of key patterns`);
    return { name, nodes: nodes.map((n) => n.trim()), production: production === true, ...(patterns ? { patterns } : {}) };
  });
}

/** The connection called `name`; exit 2 naming the known ones otherwise. */
export function pickConnection(env: Env, name: string): Connection {
  const all = readConnections(env);
  const found = all.find((c) => c.name === name);
  if (found) return found;
  const { path } = connectionsFile(env);
  const known = all.length ? `known: ${all.map((c) => escapeText(c.name)).join(', ')}` : `no connection is defined in ${escapeText(path)}`;
  throw new CliError(`unknown connection "${escapeText(name)}" (${known})`, EXIT.usage);
}

// Who holds a lock, carried in the token itself so that recording it costs no round trip
// on the acquire path (wire format: docs/formats.md, "Holder identity in the token").
//
//   <32 hex random>.<since, base 36>.<base64url of a small JSON identity>
//
// The random part keeps 128 bits, so our tokens stay as unguessable as before; the rest
// is printable ASCII without ',' and stays far below the inspector's 512-byte token
// bound. Waiter entries use the same encoding (the random part is then per acquire call).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, extname } from 'node:path';
import { boundedText, MAX_HOST_BYTES, MAX_NAME_BYTES } from '../vocabulary/holderToken';
import { holderConnectionName } from '../vocabulary/liveness';

export type { Identity } from '../vocabulary/holderToken';
export { decodeIdentity, holderOf, processIdOf, holderLabel, boundedText } from '../vocabulary/holderToken';

/** 'full' reveals name, host and pid; 'anonymous' only the name (and the random process id). */
export type IdentityMode = 'full' | 'anonymous';

export interface IdentityOptions {
  /** Shown as the holder's name; default defaultHolderName(). At most 64 bytes are kept. */
  holderName?: string;
  identity?: IdentityMode;
}

/** Random per-process id: pids repeat across containers (pid 1), this does not. */
export const PROCESS_ID = randomBytes(8).toString('hex');

/** What this process's connections are named, so CLIENT LIST can find its holders (docs/liveness.md). */
export const CONNECTION_NAME = holderConnectionName(PROCESS_ID);

const GENERIC_SCRIPTS = new Set(['index', 'main', 'app', 'server', 'cli']);

/**
 * A name a person recognises: the package npm runs (npm_package_name), else the script
 * (`dist/billing-worker.js` -> billing-worker; `billing/index.js` -> billing). Not the
 * process title: that is the node binary's path, which inside a tools cache is cut off
 * after 64 bytes and names nothing.
 */
export function defaultHolderName(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): string {
  if (env.npm_package_name) return env.npm_package_name;
  const script = argv[1];
  if (!script) return 'node';
  const base = basename(script, extname(script));
  return GENERIC_SCRIPTS.has(base) ? basename(dirname(script)) || base : base;
}

/** The part of the token that is the same for every acquisition of one Redlock. */
export function encodeIdentity(options: IdentityOptions): string {
  const name = boundedText(options.holderName ?? defaultHolderName(), MAX_NAME_BYTES) || 'node';
  const body: Record<string, unknown> = { i: PROCESS_ID, n: name };
  if (options.identity !== 'anonymous') {
    body.h = boundedText(hostname(), MAX_HOST_BYTES);
    body.p = process.pid;
  }
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

// The last instant's base-36 form: an acquire a few hundred microseconds after the last
// one shares its millisecond more often than not, and toString(36) is a runtime call.
let lastSinceMs = NaN;
let lastSince = '';

/** A token (or waiter id) from its random part, the instant and the encoded identity. */
export function tokenWithIdentity(random: string, sinceMs: number, encoded: string): string {
  const ms = Math.floor(sinceMs);
  if (ms !== lastSinceMs) {
    lastSinceMs = ms;
    lastSince = ms.toString(36);
  }
  return `${random}.${lastSince}.${encoded}`;
}


// Keys the core writes beside a lock (fence counters, waiter sets, event logs). They
// share one reserved prefix so every surface can leave them out of `locks` and
// `skipped`, and each lives in its resource's cluster slot so one script can touch the
// lock and its internal keys together (docs/formats.md, "Internal keys").
//
//   __rli:<kind>:=<resource>    the resource has a hash tag of its own: reused as is
//   __rli:<kind>:{<resource>}   otherwise the resource is wrapped in one
//
// The `=` marker keeps decoding unambiguous: `{x}` (own tag) and `x` (wrapped) would
// otherwise both end in `{x}`.
import type { Resource } from '../vocabulary/resource';

export const INTERNAL_PREFIX = '__rli:';

export type InternalKind = 'fence' | 'waiters' | 'events';
const KINDS: readonly InternalKind[] = ['fence', 'waiters', 'events'];

/** The hash tag Redis Cluster would use for `key`, or null when it hashes the whole key. */
export function hashTagOf(key: string): string | null {
  const open = key.indexOf('{');
  if (open < 0) return null;
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return null;
  return key.slice(open + 1, close);
}

/**
 * The internal key of `kind` for `resource`, in the resource's slot. A resource with no
 * hash tag that contains `}` cannot be wrapped into its own slot; it keeps the plain
 * wrapped form, which is still in one slot per resource (what a standalone node or a
 * single-slot script needs) but not the resource's: documented in docs/formats.md.
 */
export function internalKey(kind: InternalKind, resource: string): string {
  if (hashTagOf(resource) !== null) return `${INTERNAL_PREFIX}${kind}:=${resource}`;
  return `${INTERNAL_PREFIX}${kind}:{${resource}}`;
}

export function isInternalKey(key: string): boolean {
  return key.startsWith(INTERNAL_PREFIX);
}

/** The kind and resource an internal key belongs to, or null for any other key. */
export function parseInternalKey(key: string): { kind: InternalKind; resource: string } | null {
  if (!key.startsWith(INTERNAL_PREFIX)) return null;
  const rest = key.slice(INTERNAL_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon < 0) return null;
  const kind = rest.slice(0, colon) as InternalKind;
  if (!KINDS.includes(kind)) return null;
  const body = rest.slice(colon + 1);
  if (body.startsWith('=')) return { kind, resource: body.slice(1) };
  if (body.length >= 2 && body.startsWith('{') && body.endsWith('}')) return { kind, resource: body.slice(1, -1) };
  return null;
}

/**
 * The internal key of `kind` for a resource given as bytes; null when the bytes are not
 * UTF-8 (such resources get no waiter set or event log: docs/formats.md).
 */
export function internalKeyOf(kind: 'waiters' | 'events', resource: Resource): string | null {
  if (typeof resource === 'string') return internalKey(kind, resource);
  const text = resource.toString('utf8');
  return Buffer.from(text, 'utf8').equals(resource) ? internalKey(kind, text) : null;
}

// Apart from types.ts, which the webview compiles without Node types.
/** A lock's key as the caller names it: text, or bytes kept as they are. */
export type Resource = string | Buffer;

/** A call names at least one resource, and none of them empty. */
export function validateResources(resources: readonly Resource[]): void {
  if (resources.length === 0) throw new RangeError('no resource given');
  for (const r of resources) if (r.length === 0) throw new RangeError('empty resource name');
}

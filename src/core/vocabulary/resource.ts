// Apart from types.ts, which the webview compiles without Node types.
/** A lock's key as the caller names it: text, or bytes kept as they are. */
export type Resource = string | Buffer;

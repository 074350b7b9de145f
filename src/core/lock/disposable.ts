// `await using` looks a resource's cleanup up under Symbol.asyncDispose. Node 20 releases
// before it existed lack it; the registered symbol is what TypeScript's own down-level
// helpers and other polyfills fall back to, so every copy of this code agrees on one key.
const symbols = Symbol as unknown as { asyncDispose?: symbol };
symbols.asyncDispose ??= Symbol.for('Symbol.asyncDispose');

export {};

// The CLI's duration words are every surface's: they live in src/core/present.ts, which
// the tree and the panel use too.
export { formatDuration, formatOffset, formatTtl } from '../core/present';

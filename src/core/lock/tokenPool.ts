// Fresh lock tokens, cheaply: the random part of every token this process writes.
import { randomBytes } from 'node:crypto';

/**
 * Tokens are cut from a pool of random bytes refilled 4 KiB at a time: one randomBytes
 * call per 256 attempts instead of one each (~3% of a busy profile).
 */
const TOKEN_BYTES = 16;
let tokenPool = Buffer.alloc(0);
let tokenOffset = 0;
export function newToken(): string {
  if (tokenOffset + TOKEN_BYTES > tokenPool.length) {
    tokenPool = randomBytes(256 * TOKEN_BYTES);
    tokenOffset = 0;
  }
  tokenOffset += TOKEN_BYTES;
  return tokenPool.toString('hex', tokenOffset - TOKEN_BYTES, tokenOffset);
}

import { randomFillSync } from 'node:crypto';

// One call into OpenSSL per 4 KiB of ids instead of one per id: each call costs a getpid(2) and a
// lock, a tenth of a ticket request. Bytes leave the pool once and are never handed out twice.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** Unguessable ids: a ticket id is a bearer credential until consumed. */
function randomHex(bytes: number): string {
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

export const newInstanceId = () => randomHex(16);
/** 64 hex characters, as the spec fixes for ticket ids. */
export const newTicketId = () => randomHex(32);
export const newSessionId = () => randomHex(16);

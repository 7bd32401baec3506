import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Record ids: a short type prefix and a 26-character Crockford base32 ULID.
 * ULIDs sort by creation time, so "newest first" is `ORDER BY id DESC` and a cursor is
 * simply the last id seen. Ids made in the same millisecond by this process still
 * increase (monotonic), which keeps pagination stable under bursts.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = -1;
const lastRandom = new Uint8Array(10);

/**
 * Random bytes drawn from the CSPRNG a few kilobytes at a time and handed out once each. Every
 * request gets an id, and one call to randomBytes costs a few microseconds (OpenSSL checks the
 * process id with a system call each time); the pool pays that once per 409 ids.
 */
const pool = Buffer.alloc(4090);
let poolOffset = pool.length;

function takeRandom(into: Uint8Array): void {
  if (poolOffset + into.length > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  into.set(pool.subarray(poolOffset, poolOffset + into.length));
  poolOffset += into.length;
}

function encodeTime(time: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 base32 characters, 5 bits at a time.
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

function incrementRandom(bytes: Uint8Array): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] === 255) {
      bytes[i] = 0;
    } else {
      bytes[i]! += 1;
      return;
    }
  }
}

/** The encoded form of lastTime: a busy server makes many ids per millisecond. */
let lastTimeText = '';

export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    incrementRandom(lastRandom);
  } else {
    takeRandom(lastRandom);
    lastTime = now;
    lastTimeText = encodeTime(now);
  }
  return lastTimeText + encodeRandom(lastRandom);
}

export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}

/** An id that must not be guessable (it is used on public endpoints). */
export function newOpaqueId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

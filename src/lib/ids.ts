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
  // Byte by byte: a subarray would be a new view object per id.
  for (let i = 0; i < into.length; i++) into[i] = pool[poolOffset + i]!;
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

const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 base32 characters, 5 bits at a time, in two groups of 40 bits (a byte and
  // 32 bits each), made into one string at once: sixteen concatenations cost more than the id.
  const a = bytes[0]!;
  const b = ((bytes[1]! << 24) | (bytes[2]! << 16) | (bytes[3]! << 8) | bytes[4]!) >>> 0;
  const c = bytes[5]!;
  const d = ((bytes[6]! << 24) | (bytes[7]! << 16) | (bytes[8]! << 8) | bytes[9]!) >>> 0;
  return String.fromCharCode(
    CODES[a >> 3]!,
    CODES[((a & 7) << 2) | (b >>> 30)]!,
    CODES[(b >>> 25) & 31]!,
    CODES[(b >>> 20) & 31]!,
    CODES[(b >>> 15) & 31]!,
    CODES[(b >>> 10) & 31]!,
    CODES[(b >>> 5) & 31]!,
    CODES[b & 31]!,
    CODES[c >> 3]!,
    CODES[((c & 7) << 2) | (d >>> 30)]!,
    CODES[(d >>> 25) & 31]!,
    CODES[(d >>> 20) & 31]!,
    CODES[(d >>> 15) & 31]!,
    CODES[(d >>> 10) & 31]!,
    CODES[(d >>> 5) & 31]!,
    CODES[d & 31]!,
  );
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

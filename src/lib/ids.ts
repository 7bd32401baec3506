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

const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

/**
 * The ULID's 26 characters as character codes, rewritten in place: the first ten when the
 * millisecond changes, the last sixteen for every id. A string is made from them in one call.
 */
const ulidCodes = Buffer.alloc(26);

function encodeTime(time: number): void {
  for (let i = 9; i >= 0; i--) {
    ulidCodes[i] = CODES[time % 32]!;
    time = Math.floor(time / 32);
  }
}

function encodeRandom(bytes: Uint8Array): void {
  // 80 bits -> 16 base32 characters, 5 bits at a time, in two groups of 40 bits (a byte and 32 bits each).
  for (let group = 0; group < 2; group++) {
    const at = group * 5;
    const high = bytes[at]!;
    const low = ((bytes[at + 1]! << 24) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 8) | bytes[at + 4]!) >>> 0;
    const out = 10 + group * 8;
    ulidCodes[out] = CODES[high >> 3]!;
    ulidCodes[out + 1] = CODES[((high & 7) << 2) | (low >>> 30)]!;
    for (let k = 0; k < 6; k++) ulidCodes[out + 2 + k] = CODES[(low >>> (25 - 5 * k)) & 31]!;
  }
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

/** Brings ulidCodes to the next id: the same millisecond counts up, a new one draws fresh randomness. */
function advance(now: number): void {
  if (now <= lastTime) {
    incrementRandom(lastRandom);
  } else {
    takeRandom(lastRandom);
    lastTime = now;
    encodeTime(now);
  }
  encodeRandom(lastRandom);
}

export function ulid(now = Date.now()): string {
  advance(now);
  return ulidCodes.toString('latin1');
}

/**
 * Ids whose prefix is known in advance, made as one flat string. Every request gets an id; one
 * joined from pieces (`prefix + '_' + ulid`) is a rope that V8 copies into one piece the first
 * time it is read, here when the id is written as the x-request-id header. Counted with
 * callgrind, joining and flattening were nearly 2% of a small request's instructions.
 */
export function idMaker(prefix: string): () => string {
  if (!/^[a-z]+$/.test(prefix)) throw new Error(`An id prefix is lower-case letters, not "${prefix}"`);
  const codes = Buffer.from(`${prefix}_${'0'.repeat(26)}`, 'latin1');
  const at = prefix.length + 1;
  return () => {
    advance(Date.now());
    codes.set(ulidCodes, at);
    return codes.toString('latin1');
  };
}

export function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}

/** An id that must not be guessable (it is used on public endpoints). */
export function newOpaqueId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

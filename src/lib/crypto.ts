import { hash, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The kinds of bearer token, as the second part of every secret (`hth_pat_…`). */
export const TOKEN_KINDS = {
  master: 'mst',
  session: 'ses',
  api: 'pat',
  handshake: 'agt',
  oauth: 'oat',
} as const;
export type TokenKind = keyof typeof TOKEN_KINDS;

const TOKEN_BODY_LENGTH = 32; // 32 base62 characters = 190 random bits
const CHECKSUM_LENGTH = 6; // base62 of a CRC-32
/** Every secret's length: `hth_`, a three-letter kind, `_`, the random part and the checksum. */
export const TOKEN_LENGTH = 'hth_'.length + 3 + 1 + TOKEN_BODY_LENGTH + CHECKSUM_LENGTH;
const TOKEN_PATTERN = new RegExp(`^hth_(${Object.values(TOKEN_KINDS).join('|')})_([0-9A-Za-z]{${TOKEN_BODY_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

// --- Finding tokens in text ---------------------------------------------------------------------
// A client may put its token anywhere (a parameter, the path, a header), under any spelling: each
// character plainly or percent-encoded, encoded again any number of times (`%2568` is `%68` is `h`).

/** `c` written plainly or percent-encoded (once or more). */
function spelled(c: string): string {
  const hex = c.charCodeAt(0).toString(16);
  return `(?:${c}|%(?:25)*${hex})`;
}
/** One base62 character, plainly or percent-encoded: 0-9 (30-39), A-Z (41-5a), a-z (61-7a). */
const BASE62_SPELLED = '(?:[0-9A-Za-z]|%(?:25)*(?:3[0-9]|4[1-9a-f]|5[0-9a]|6[1-9a-f]|7[0-9a]))';
/**
 * How much of a token's random part is enough to count as one: a truncated token still gives
 * away most of its bits, and prose such as `hth_pat_…` stays untouched.
 */
const MIN_TOKEN_CHARS = 16;
const TOKEN_IN_TEXT = `${[...'hth_'].map(spelled).join('')}(${Object.values(TOKEN_KINDS)
  .map((kind) => [...kind].map(spelled).join(''))
  .join('|')})${spelled('_')}${BASE62_SPELLED}{${MIN_TOKEN_CHARS},}`;
const FIND_TOKEN = new RegExp(TOKEN_IN_TEXT, 'i');
const MASK_TOKENS = new RegExp(TOKEN_IN_TEXT, 'gi');

/** The kind written in a matched token, decoded (`%70at` is `pat`). */
function plainKind(spelledKind: string): string {
  let kind = spelledKind;
  while (kind.includes('%')) kind = kind.replace(/%([0-9a-f]{2})/gi, (_whole, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return kind.toLowerCase();
}

/** The first Hearth token in `text` (as written there), under any spelling; undefined when there is none. */
export function findHearthToken(text: string): string | undefined {
  return FIND_TOKEN.exec(text)?.[0];
}

/** `text` with every Hearth token replaced by `hth_<kind>_[REDACTED]`: a line still says which sort of token it was. */
export function maskHearthTokens(text: string): string {
  return text.replace(MASK_TOKENS, (_whole, kind: string) => `hth_${plainKind(kind)}_[REDACTED]`);
}

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

function base62Fixed(value: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

function checksum(prefixAndBody: string): string {
  return base62Fixed(crc32(prefixAndBody), CHECKSUM_LENGTH);
}

/**
 * A new token secret: `hth_<kind>_<32 random base62><6 checksum>`.
 * The readable prefix lets secret scanners and people recognise it; the checksum lets the
 * server refuse a mistyped or made-up token without touching the database.
 */
export function generateTokenSecret(kind: TokenKind): string {
  const head = `hth_${TOKEN_KINDS[kind]}_${randomBase62(TOKEN_BODY_LENGTH)}`;
  return head + checksum(head);
}

/** True when the string has the token shape and its checksum matches. */
export function isWellFormedToken(secret: string): boolean {
  const match = TOKEN_PATTERN.exec(secret);
  if (!match) return false;
  const head = secret.slice(0, secret.length - CHECKSUM_LENGTH);
  return checksum(head) === match[3];
}

/**
 * The stored form of a token. Token secrets carry 190 random bits, so a fast hash is enough:
 * there is nothing to brute-force, and a fast hash keeps authentication cheap.
 */
export function hashToken(secret: string): string {
  // The one-shot hash: it runs on every authenticated request, and skips building a Hash object.
  return hash('sha256', secret, 'hex');
}

/** What a token's owner may see of it after creation: its prefix and the last four characters. */
export function tokenHint(secret: string): string {
  return `${secret.slice(0, 8)}…${secret.slice(-4)}`;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

// Passwords: scrypt from node:crypto. The parameters travel with each hash, so the cost can
// be raised later without invalidating existing accounts.
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, logN: number): Promise<Buffer> {
  const N = 2 ** logN;
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_LENGTH,
      { N, r: SCRYPT_R, p: SCRYPT_P, maxmem: 256 * N * SCRYPT_R },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, logN);
  return `scrypt$${logN}$${SCRYPT_R}$${SCRYPT_P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const logN = Number(parts[1]);
  const salt = Buffer.from(parts[4]!, 'base64');
  const expected = Buffer.from(parts[5]!, 'base64');
  const key = await scryptAsync(password, salt, logN);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

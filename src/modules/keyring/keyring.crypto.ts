/**
 * The keyring's primitives: AES-256-GCM sealing, data-key wrapping under a root key, and root
 * key ids. Pure functions of node:crypto; the envelope scheme is described in keyring.service.ts.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { ConfigError } from '../../config.js';
import { AppError } from '../../http/errors.js';

export const SEALED_VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

// ---------------------------------------------------------------------------------------------
// AES-256-GCM

export function b64u(buffer: Buffer): string {
  return buffer.toString('base64url');
}

export function gcmSeal(key: Buffer, plaintext: Buffer, aad: Buffer): { iv: Buffer; ciphertext: Buffer; tag: Buffer } {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

/** Throws when the key, the AAD or any byte of the value is not what sealed it. */
export function gcmOpen(key: Buffer, iv: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): Buffer {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('malformed IV or tag');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

export const sealAad = (ownerId: string, context: string) => Buffer.from(`${ownerId}\u0000${context}`, 'utf8');
export const wrapAad = (ownerId: string, dataKeyId: string) => Buffer.from(`hearth-vault-data-key\u0000${ownerId}\u0000${dataKeyId}`, 'utf8');

export function wrapDataKey(rootKey: Buffer, ownerId: string, dataKeyId: string, dataKey: Buffer): string {
  const { iv, ciphertext, tag } = gcmSeal(rootKey, dataKey, wrapAad(ownerId, dataKeyId));
  return b64u(Buffer.concat([iv, ciphertext, tag]));
}

export function unwrapDataKey(rootKey: Buffer, ownerId: string, dataKeyId: string, wrapped: string): Buffer {
  const raw = Buffer.from(wrapped, 'base64url');
  if (raw.length !== IV_BYTES + KEY_BYTES + TAG_BYTES) throw new Error('malformed wrapped data key');
  return gcmOpen(
    rootKey,
    raw.subarray(0, IV_BYTES),
    raw.subarray(IV_BYTES, IV_BYTES + KEY_BYTES),
    raw.subarray(IV_BYTES + KEY_BYTES),
    wrapAad(ownerId, dataKeyId),
  );
}

/** Raised (as the cause of an INTERNAL_ERROR) when a stored value does not open. Holds no secret. */
export class VaultIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VaultIntegrityError';
  }
}

export function integrityFailure(reason: string): AppError {
  return new AppError(
    'INTERNAL_ERROR',
    'A stored secret could not be decrypted; the request id identifies the failure in the server log',
    { cause: new VaultIntegrityError(reason) },
  );
}

// ---------------------------------------------------------------------------------------------
// Root keys

export interface RootKey {
  id: string;
  key: Buffer;
  createdAt: string | null;
}

/** The id of a root key: a fingerprint that reveals nothing about the key. */
export function rootKeyId(key: Buffer): string {
  return `rk_${createHmac('sha256', key).update('hearth vault root key id v1').digest('hex').slice(0, 16)}`;
}

export function decodeRootKey(base64: string, what: string): Buffer {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new ConfigError(`${what} must be ${KEY_BYTES} bytes in base64`);
  return key;
}

export function generateRootKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

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

/**
 * Raised (as the cause of an INTEGRITY_ERROR) when a stored value does not open. Holds no
 * secret. `tampered` is false only when the server lacks a root key (a configuration to fix,
 * not a record that changed).
 */
export class VaultIntegrityError extends Error {
  constructor(
    message: string,
    readonly tampered = true,
  ) {
    super(message);
    this.name = 'VaultIntegrityError';
  }
}

/**
 * The record a sealing context names, in words (`vault_tokens:vtk_1` is "vault token vtk_1"),
 * for a message the caller reads. Contexts are `<table>:<id>[:<part>]`.
 */
export function recordOf(context: string): { type: string; id: string; words: string } {
  const [table = context, id = '', part] = context.split(':');
  const type = table.endsWith('s') ? table.slice(0, -1) : table;
  return { type, id, words: `${type.replace(/_/g, ' ')} ${id}${part ? ` (${part.replace(/_/g, ' ')})` : ''}`.trim() };
}

/**
 * A stored value that does not open because it is not what was sealed there: altered, or moved
 * from another record or owner (the AAD binds owner and record). Nothing is decrypted; the
 * answer says what happened so the operator can act, the log's cause names the records.
 * `record` is the record in words (`recordOf(context).words`).
 */
export function integrityFailure(record: string, reason: string): AppError {
  return new AppError(
    'INTEGRITY_ERROR',
    `The stored secret of ${record} failed its integrity check, so it was not decrypted: its encrypted value ` +
      'was changed in the database, or copied there from another record. Store the secret again (delete the record and create it ' +
      'anew, or reconnect the account) and find out who could write to the database; the audit log records it as secret.tampered, ' +
      'and the server log, under this request id, names the records involved',
    { cause: new VaultIntegrityError(reason) },
  );
}

/** A stored value wrapped by a root key this server lacks: a key to restore, not a record that changed. */
export function missingRootKey(reason: string): AppError {
  return new AppError(
    'INTEGRITY_ERROR',
    'A stored secret is encrypted under a vault root key this server does not have, so it cannot be decrypted. Restore the vault ' +
      'key file, or set VAULT_KEY / VAULT_PREVIOUS_KEYS to the key it was made with, and try again',
    { cause: new VaultIntegrityError(reason, false) },
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

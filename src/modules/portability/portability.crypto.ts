/**
 * The secrets of an archive, encrypted with a passphrase the owner gives (docs/data-portability.md):
 * scrypt derives a 256-bit key from the passphrase and a random 16-byte salt, AES-256-GCM
 * encrypts the JSON of the secrets with a random 12-byte IV, and the archive's format name is
 * the additional data. Every parameter travels with the ciphertext (and in the manifest), so
 * any implementation of scrypt and AES-GCM can open it, with the passphrase and nothing else.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCallback, type ScryptOptions } from 'node:crypto';

export const MIN_PASSPHRASE_LENGTH = 10;

/** scrypt's cost: N = 2^15, r = 8, p = 1 (32 MiB, a few tenths of a second), the usual interactive choice. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1 } as const;
const AAD = 'hearth-archive-secrets-v1';

export interface SealedSecrets {
  kdf: { name: 'scrypt'; N: number; r: number; p: number; keyLength: 32; salt: string };
  cipher: { name: 'aes-256-gcm'; iv: string; tag: string; aad: string };
  ciphertext: string;
}

function deriveKey(passphrase: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(passphrase.normalize('NFC'), salt, 32, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function sealSecrets(passphrase: string, plaintext: string): Promise<SealedSecrets> {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = await deriveKey(passphrase, salt, SCRYPT);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(AAD, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    kdf: { name: 'scrypt', ...SCRYPT, keyLength: 32, salt: salt.toString('base64') },
    cipher: { name: 'aes-256-gcm', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), aad: AAD },
    ciphertext: ciphertext.toString('base64'),
  };
}

/** Thrown when the passphrase does not open the secrets (or they were altered). */
export class WrongPassphrase extends Error {}

/**
 * The plain secrets. The cost parameters come from the archive, so they are bounded here: an
 * archive may not make the server spend more than the export's own cost.
 */
export async function openSecrets(passphrase: string, sealed: SealedSecrets): Promise<string> {
  const { kdf, cipher } = sealed;
  if (kdf?.name !== 'scrypt' || cipher?.name !== 'aes-256-gcm') throw new Error('the secrets use an unknown construction');
  if (![kdf.N, kdf.r, kdf.p].every(Number.isSafeInteger) || kdf.N > SCRYPT.N || kdf.r > SCRYPT.r || kdf.p > SCRYPT.p || kdf.N < 2 || (kdf.N & (kdf.N - 1)) !== 0) {
    throw new Error('the secrets name scrypt parameters out of range');
  }
  const key = await deriveKey(passphrase, Buffer.from(kdf.salt, 'base64'), kdf);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(cipher.iv, 'base64'));
    decipher.setAAD(Buffer.from(cipher.aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(cipher.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new WrongPassphrase('wrong passphrase');
  }
}

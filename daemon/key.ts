/**
 * The daemon's device key: 32 random bytes the daemon makes on its first start and keeps in a
 * file of its own (mode 0600, in a 0700 folder). It goes with every hello; the server keeps its
 * SHA-256 and binds the device to it, so that another daemon, whatever `devices` token it
 * holds, cannot take the device's name, link, privilege or root over.
 *
 * The key is independent of the token: a regenerated token, or one token shared by several
 * PCs, changes nothing. Losing the file (a reinstall on a new disk) means the owner removes the
 * device once, and the daemon registers again with a new key.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './config.js';

const KEY_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** Reads the device key from `file`, or makes one there when the file does not exist. */
export function loadDeviceKey(file: string): { key: string; created: boolean } {
  const read = (): string | undefined => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new UsageError(`Cannot read the device key file ${file}: ${(error as Error).message}`);
    }
    const key = text.trim();
    if (!KEY_FORMAT.test(key)) {
      throw new UsageError(
        `The device key file ${file} is damaged. Delete it; the owner then removes this device (DELETE /api/v1/afp/devices/{id}) so that it can register again`,
      );
    }
    return key;
  };
  const existing = read();
  if (existing) return { key: existing, created: false };
  const key = randomBytes(32).toString('base64url');
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // `wx`: two daemons starting at once with the same file agree on the first one's key.
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const other = read();
      if (other) return { key: other, created: false };
    }
    throw new UsageError(`Cannot create the device key file ${file}: ${(error as Error).message}. Choose a writable place with --key-file`);
  }
  return { key, created: true };
}

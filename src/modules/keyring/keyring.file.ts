/**
 * The key file (`vault-keys.json` in DATA_DIR, mode 0600) that holds the root keys when
 * VAULT_KEY is unset: read, checked and written atomically.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError } from '../../config.js';
import { errorCodeOrMessage } from '../../lib/error-code.js';
import { isoNow } from '../../lib/time.js';
import { type RootKey, rootKeyId, decodeRootKey } from './keyring.crypto.js';

export const KEY_FILE_NAME = 'vault-keys.json';
const KEY_FILE_FORMAT = 'hearth-vault-keys';

interface KeyFile {
  format: typeof KEY_FILE_FORMAT;
  version: 1;
  /** The key that wraps new data keys. */
  activeKeyId: string;
  keys: Array<{ id: string; key: string; createdAt: string }>;
}

export function keyFilePath(dataDir: string): string {
  return path.join(dataDir, KEY_FILE_NAME);
}

function unreadableKeyFile(file: string, error: unknown): ConfigError {
  const code = errorCodeOrMessage(error);
  if (code === 'EISDIR') return new ConfigError(`The vault key file ${file} is a folder, not a file: remove it (or restore the file from a backup)`);
  return new ConfigError(
    `The vault key file ${file} cannot be read (${code}): run Hearth as the user who owns it, or give that user access (chown, then chmod 600 ${file})`,
  );
}

/** Reads and checks the key file; undefined when there is none. */
export function readKeyFile(file: string): { active: RootKey; keys: RootKey[]; fingerprint: string } | undefined {
  let stat;
  try {
    stat = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadableKeyFile(file, error);
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    throw new ConfigError(
      `The vault key file ${file} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}). ` +
        `Hearth refuses to use it: run chmod 600 ${file}`,
    );
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadableKeyFile(file, error);
  }
  let parsed: KeyFile;
  try {
    parsed = JSON.parse(text) as KeyFile;
  } catch {
    throw new ConfigError(`The vault key file ${file} is not valid JSON; restore it from a backup`);
  }
  if (parsed?.format !== KEY_FILE_FORMAT || parsed.version !== 1 || !Array.isArray(parsed.keys) || parsed.keys.length === 0) {
    throw new ConfigError(`The vault key file ${file} is not a Hearth key file (format ${KEY_FILE_FORMAT}, version 1)`);
  }
  const keys = parsed.keys.map((entry, i) => {
    const key = decodeRootKey(String(entry?.key ?? ''), `Key ${i + 1} of ${file}`);
    const id = rootKeyId(key);
    if (entry.id !== id) throw new ConfigError(`Key ${i + 1} of ${file} does not match its id ${entry.id}; the file is damaged`);
    return { id, key, createdAt: entry.createdAt ?? null };
  });
  const active = keys.find((k) => k.id === parsed.activeKeyId);
  if (!active) throw new ConfigError(`The vault key file ${file} names an active key (${parsed.activeKeyId}) it does not hold`);
  return { active, keys, fingerprint: `${stat.ino}:${stat.size}:${stat.mtimeMs}` };
}

/**
 * Writes the key file atomically with mode 0600: a temporary file, flushed, then moved into
 * place. With `exclusive`, an existing file wins (another process generated it first).
 */
export function writeKeyFile(file: string, active: RootKey, keys: RootKey[], options: { exclusive?: boolean } = {}): void {
  const content: KeyFile = {
    format: KEY_FILE_FORMAT,
    version: 1,
    activeKeyId: active.id,
    keys: keys.map((k) => ({ id: k.id, key: k.key.toString('base64'), createdAt: k.createdAt ?? isoNow() })),
  };
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(content, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (options.exclusive) {
      // link() fails when the name exists: create-if-absent without a window.
      try {
        linkSync(temp, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    } else {
      renameSync(temp, file);
    }
  } finally {
    if (existsSync(temp)) unlinkSync(temp);
  }
  try {
    const dir = openSync(path.dirname(file), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Directories cannot be opened for fsync on every platform; the rename is still atomic.
  }
}

/**
 * The root keys this process knows, from VAULT_KEY / VAULT_PREVIOUS_KEYS or the key file, with
 * the key file watched so a running server follows a rotation without a restart.
 */
import { statSync } from 'node:fs';
import { isoNow } from '../../lib/time.js';
import { decodeRootKey, generateRootKey, type RootKey, rootKeyId } from './keyring.crypto.js';
import { keyFilePath, readKeyFile, writeKeyFile } from './keyring.file.js';

export interface RootKeyOptions {
  dataDir: string;
  /** VAULT_KEY (base64). When set, the key file is only read, for older keys. */
  vaultKey?: string | undefined;
  /** VAULT_PREVIOUS_KEYS (base64 each). */
  previousKeys?: readonly string[];
}

/**
 * The root keys this process knows. With VAULT_KEY the active key is VAULT_KEY and older ones
 * come from VAULT_PREVIOUS_KEYS (and the key file, if one is left from before). Without it, the
 * key file holds them all, and is re-read whenever it changes on disk, so a running server
 * follows `npm run vault:rotate` without a restart.
 */
export function createRootKeys(options: RootKeyOptions) {
  const file = keyFilePath(options.dataDir);
  const mode: 'env' | 'file' = options.vaultKey ? 'env' : 'file';
  const fixed: RootKey[] = [];
  if (options.vaultKey) {
    const key = decodeRootKey(options.vaultKey, 'VAULT_KEY');
    fixed.push({ id: rootKeyId(key), key, createdAt: null });
  }
  for (const [i, previous] of (options.previousKeys ?? []).entries()) {
    const key = decodeRootKey(previous, `VAULT_PREVIOUS_KEYS (key ${i + 1})`);
    fixed.push({ id: rootKeyId(key), key, createdAt: null });
  }

  let fromFile: { active: RootKey; keys: RootKey[]; fingerprint: string } | undefined;
  const byId = new Map<string, RootKey>();

  function rebuild(): void {
    byId.clear();
    for (const key of fromFile?.keys ?? []) byId.set(key.id, key);
    for (const key of fixed) byId.set(key.id, key); // VAULT_KEY and VAULT_PREVIOUS_KEYS win
  }

  function currentFingerprint(): string | undefined {
    try {
      const stat = statSync(file);
      return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    } catch {
      return undefined;
    }
  }

  /** Re-reads the key file when it changed since it was read. */
  function refresh(): void {
    const fingerprint = currentFingerprint();
    if (fingerprint === fromFile?.fingerprint) return;
    fromFile = fingerprint === undefined ? undefined : readKeyFile(file);
    rebuild();
  }

  rebuild();
  refresh();

  return {
    mode,
    file,

    /** The key that wraps new data keys; undefined in key-file mode before the file exists. */
    active(): RootKey | undefined {
      if (mode === 'env') return fixed[0];
      refresh();
      return fromFile?.active;
    },

    /** A root key by id; a miss re-reads the key file, which a rotation may have changed. */
    get(id: string): RootKey | undefined {
      const known = byId.get(id);
      if (known) return known;
      refresh();
      return byId.get(id);
    },

    all(): RootKey[] {
      refresh();
      return [...byId.values()];
    },

    hasFile(): boolean {
      return currentFingerprint() !== undefined;
    },

    /** Key-file mode: makes the key file with a new key unless it exists. */
    generateFileIfMissing(): void {
      if (mode !== 'file' || currentFingerprint() !== undefined) return;
      const key = generateRootKey();
      const root = { id: rootKeyId(key), key, createdAt: isoNow() };
      writeKeyFile(file, root, [root], { exclusive: true });
      refresh();
    },

    /** Key-file mode: adds `key` (or a new one) as the active key, keeping the older ones. */
    addActiveKey(key: Buffer = generateRootKey()): RootKey {
      if (mode !== 'file') throw new Error('addActiveKey is for key-file mode; with VAULT_KEY, change VAULT_KEY');
      refresh();
      if (!fromFile) throw new Error(`No key file at ${file}`);
      const id = rootKeyId(key);
      const existing = fromFile.keys.find((k) => k.id === id);
      const root = existing ?? { id, key, createdAt: isoNow() };
      writeKeyFile(file, root, existing ? fromFile.keys : [...fromFile.keys, root]);
      refresh();
      return root;
    },

    /** Key-file mode: keeps only the active key in the file. Answers the ids removed. */
    retireInactiveKeys(): string[] {
      if (mode !== 'file') throw new Error('retireInactiveKeys is for key-file mode; with VAULT_KEY, edit VAULT_PREVIOUS_KEYS');
      refresh();
      if (!fromFile) return [];
      const retired = fromFile.keys.filter((k) => k.id !== fromFile!.active.id).map((k) => k.id);
      if (retired.length > 0) writeKeyFile(file, fromFile.active, [fromFile.active]);
      refresh();
      return retired;
    },
  };
}

/** The vault's root keys, read once and shared by whoever needs them (storage seals the messages between nodes with them, the keyring wraps data keys). */
export type RootKeys = ReturnType<typeof createRootKeys>;

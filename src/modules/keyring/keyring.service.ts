/**
 * The vault keyring: envelope encryption of every secret Hearth keeps (vault tokens, OAuth
 * tokens), with node:crypto only.
 *
 * - Root keys (32 bytes) come from VAULT_KEY (plus VAULT_PREVIOUS_KEYS during a rotation) or,
 *   when VAULT_KEY is unset, from a key file generated once in DATA_DIR (`vault-keys.json`,
 *   mode 0600). A root key's id is a fingerprint of the key (`rk_` + 16 hex of an HMAC), so
 *   the same key has the same id wherever it is configured.
 * - Each owner has a random 32-byte data key, stored in `vault_data_keys` wrapped by the active
 *   root key (AES-256-GCM, AAD = owner id + data-key id), with the root key's id beside it.
 * - A secret is sealed with its owner's data key (AES-256-GCM, fresh 12-byte IV, AAD = owner id
 *   + a context naming the record), so a ciphertext moved to another row or owner does not open.
 *   Sealed form: `v1.<dataKeyId>.<iv>.<ciphertext>.<tag>`, base64url parts.
 *
 * Rotating a root key re-wraps data keys; data keys themselves never change, so every sealed
 * value stays readable throughout, and the unwrapped data keys this process caches stay valid.
 * A running server notices a rotated key file by itself (see `createRootKeys`).
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
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
import path from 'node:path';
import type { Kysely } from 'kysely';
import { ConfigError } from '../../config.js';
import { AppError } from '../../http/errors.js';
import { errorCodeOrMessage } from '../../lib/error-code.js';
import { newId } from '../../lib/ids.js';
import { isoNow } from '../../lib/time.js';
import type { Database, VaultDataKeysTable } from '../../storage/tables.js';

export const KEY_FILE_NAME = 'vault-keys.json';
const KEY_FILE_FORMAT = 'hearth-vault-keys';
const SEALED_VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

// ---------------------------------------------------------------------------------------------
// AES-256-GCM

function b64u(buffer: Buffer): string {
  return buffer.toString('base64url');
}

function gcmSeal(key: Buffer, plaintext: Buffer, aad: Buffer): { iv: Buffer; ciphertext: Buffer; tag: Buffer } {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, ciphertext, tag: cipher.getAuthTag() };
}

/** Throws when the key, the AAD or any byte of the value is not what sealed it. */
function gcmOpen(key: Buffer, iv: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): Buffer {
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('malformed IV or tag');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

const sealAad = (ownerId: string, context: string) => Buffer.from(`${ownerId}\u0000${context}`, 'utf8');
const wrapAad = (ownerId: string, dataKeyId: string) => Buffer.from(`hearth-vault-data-key\u0000${ownerId}\u0000${dataKeyId}`, 'utf8');

function wrapDataKey(rootKey: Buffer, ownerId: string, dataKeyId: string, dataKey: Buffer): string {
  const { iv, ciphertext, tag } = gcmSeal(rootKey, dataKey, wrapAad(ownerId, dataKeyId));
  return b64u(Buffer.concat([iv, ciphertext, tag]));
}

function unwrapDataKey(rootKey: Buffer, ownerId: string, dataKeyId: string, wrapped: string): Buffer {
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

function integrityFailure(reason: string): AppError {
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

// ---------------------------------------------------------------------------------------------
// The keyring

export interface KeyringOptions extends RootKeyOptions {
  db: Kysely<Database>;
}

interface DataKey {
  id: string;
  ownerId: string;
  key: Buffer;
}

export function createKeyring(options: KeyringOptions) {
  const { db } = options;
  const roots = createRootKeys(options);
  // Unwrapped data keys: they never change (rotation re-wraps them), so this cache is never stale.
  const dataKeys = new Map<string, DataKey>();
  const activeByOwner = new Map<string, string>();
  const creating = new Map<string, Promise<DataKey>>();
  let readiness: Promise<void> | undefined;

  function cache(dataKey: DataKey): DataKey {
    dataKeys.set(dataKey.id, dataKey);
    return dataKey;
  }

  function unwrapRow(
    row: Pick<VaultDataKeysTable, 'id' | 'owner_id' | 'root_key_id' | 'wrapped_key'>,
    extraKeys: readonly RootKey[] = [],
  ): DataKey {
    const root = roots.get(row.root_key_id) ?? extraKeys.find((k) => k.id === row.root_key_id);
    if (!root) {
      throw integrityFailure(
        `vault data key ${row.id} is wrapped by root key ${row.root_key_id}, which this server does not have ` +
          `(known: ${roots.all().map((k) => k.id).join(', ') || 'none'}). Restore the key file or set VAULT_KEY / VAULT_PREVIOUS_KEYS`,
      );
    }
    try {
      return { id: row.id, ownerId: row.owner_id, key: unwrapDataKey(root.key, row.owner_id, row.id, row.wrapped_key) };
    } catch {
      throw integrityFailure(`vault data key ${row.id} does not unwrap with root key ${root.id}: the row was altered or moved`);
    }
  }

  /**
   * Checks the keys against the database once: refuses to run (ConfigError) when the key file
   * is missing but data keys exist (a lost key file must not be papered over with a new one),
   * or when data keys are wrapped by root keys this server does not have. Then, in key-file
   * mode, generates the key file if there is none. Called at start; seal and open wait for it.
   */
  async function ready(): Promise<void> {
    readiness ??= (async () => {
      const counts = await db
        .selectFrom('vault_data_keys')
        .select(['root_key_id', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('root_key_id')
        .execute();
      const total = counts.reduce((sum, c) => sum + Number(c.n), 0);
      if (roots.mode === 'file' && !roots.hasFile() && total > 0) {
        throw new ConfigError(
          `The vault key file ${roots.file} is missing, but the database holds ${total} encrypted data key(s) it wrapped. ` +
            'Restore the file from a backup (or set VAULT_KEY to the key it held). Hearth will not make a new key, which would hide the loss',
        );
      }
      roots.generateFileIfMissing();
      const unknown = counts.filter((c) => !roots.get(c.root_key_id));
      if (unknown.length > 0) {
        throw new ConfigError(
          `The database holds vault data keys wrapped by root key(s) this server does not have: ` +
            `${unknown.map((c) => `${c.root_key_id} (${Number(c.n)})`).join(', ')}. ` +
            (roots.mode === 'env'
              ? 'Put the key(s) they were made with in VAULT_KEY or VAULT_PREVIOUS_KEYS'
              : `Restore ${roots.file}, or set VAULT_KEY / VAULT_PREVIOUS_KEYS to the keys it held`),
        );
      }
    })().catch((error: unknown) => {
      readiness = undefined; // try again next time: the operator may fix it while running
      throw error;
    });
    return readiness;
  }

  async function createDataKey(ownerId: string): Promise<DataKey> {
    const root = roots.active();
    if (!root) throw new Error('vault: no active root key');
    const dataKey = { id: newId('vdk'), ownerId, key: randomBytes(KEY_BYTES) };
    await db
      .insertInto('vault_data_keys')
      .values({
        id: dataKey.id,
        owner_id: ownerId,
        root_key_id: root.id,
        wrapped_key: wrapDataKey(root.key, ownerId, dataKey.id, dataKey.key),
        created_at: isoNow(),
        rewrapped_at: null,
      })
      .execute();
    return dataKey;
  }

  /** The owner's newest data key, made on first use. */
  async function activeDataKey(ownerId: string): Promise<DataKey> {
    const cachedId = activeByOwner.get(ownerId);
    const cached = cachedId ? dataKeys.get(cachedId) : undefined;
    if (cached) return cached;
    let pending = creating.get(ownerId);
    if (!pending) {
      pending = (async () => {
        await ready();
        const row = await db
          .selectFrom('vault_data_keys')
          .select(['id', 'owner_id', 'root_key_id', 'wrapped_key'])
          .where('owner_id', '=', ownerId)
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        const dataKey = cache(row ? unwrapRow(row) : await createDataKey(ownerId));
        activeByOwner.set(ownerId, dataKey.id);
        return dataKey;
      })().finally(() => creating.delete(ownerId));
      creating.set(ownerId, pending);
    }
    return pending;
  }

  async function dataKeyById(ownerId: string, id: string): Promise<DataKey> {
    const cached = dataKeys.get(id);
    if (cached) {
      if (cached.ownerId !== ownerId) throw integrityFailure(`sealed value names data key ${id}, which belongs to another owner`);
      return cached;
    }
    await ready();
    const row = await db
      .selectFrom('vault_data_keys')
      .select(['id', 'owner_id', 'root_key_id', 'wrapped_key'])
      .where('id', '=', id)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst();
    if (!row) throw integrityFailure(`sealed value names data key ${id}, which this owner does not have`);
    return cache(unwrapRow(row));
  }

  return {
    ready,

    /**
     * Encrypts `plaintext` for `ownerId`. `context` names the record the value is stored in
     * (`vault_tokens:<id>`, `oauth_connections:<id>:refresh`): the value opens only with the
     * same owner and context.
     */
    async seal(ownerId: string, context: string, plaintext: string): Promise<string> {
      const dataKey = await activeDataKey(ownerId);
      const { iv, ciphertext, tag } = gcmSeal(dataKey.key, Buffer.from(plaintext, 'utf8'), sealAad(ownerId, context));
      return [SEALED_VERSION, dataKey.id, b64u(iv), b64u(ciphertext), b64u(tag)].join('.');
    },

    /**
     * Decrypts a value `seal` made with the same owner and context. Any mismatch (another row,
     * another owner, an altered value) throws an INTERNAL_ERROR whose logged cause names the
     * records involved, never a secret.
     */
    async open(ownerId: string, context: string, sealed: string): Promise<string> {
      const parts = sealed.split('.');
      if (parts.length !== 5 || parts[0] !== SEALED_VERSION) {
        throw integrityFailure(`sealed value for ${context} is not in the ${SEALED_VERSION} format`);
      }
      const [, dataKeyId, iv, ciphertext, tag] = parts as [string, string, string, string, string];
      const dataKey = await dataKeyById(ownerId, dataKeyId);
      try {
        const plain = gcmOpen(
          dataKey.key,
          Buffer.from(iv, 'base64url'),
          Buffer.from(ciphertext, 'base64url'),
          Buffer.from(tag, 'base64url'),
          sealAad(ownerId, context),
        );
        return plain.toString('utf8');
      } catch {
        throw integrityFailure(`sealed value for ${context} (owner ${ownerId}) does not open: it was altered or belongs to another record`);
      }
    },

    /** The root keys (for the rotation command). */
    roots,

    /**
     * Re-wraps every data key not wrapped by the active root key, in batches, each row its own
     * small update guarded by the root key it was read with. Data keys do not change, so running
     * servers keep reading and writing throughout.
     */
    async rewrapAll(opts: { batchSize?: number; onProgress?: (done: number) => void; extraKeys?: readonly RootKey[] } = {}) {
      await ready();
      const active = roots.active();
      if (!active) throw new Error('vault: no active root key');
      const batchSize = opts.batchSize ?? 200;
      let rewrapped = 0;
      const failed: Array<{ id: string; rootKeyId: string }> = [];
      let cursor = '';
      for (;;) {
        const rows = await db
          .selectFrom('vault_data_keys')
          .select(['id', 'owner_id', 'root_key_id', 'wrapped_key'])
          .where('root_key_id', '!=', active.id)
          .where('id', '>', cursor)
          .orderBy('id')
          .limit(batchSize)
          .execute();
        if (rows.length === 0) break;
        for (const row of rows) {
          cursor = row.id;
          let dataKey: DataKey;
          try {
            dataKey = unwrapRow(row, opts.extraKeys);
          } catch {
            failed.push({ id: row.id, rootKeyId: row.root_key_id });
            continue;
          }
          const result = await db
            .updateTable('vault_data_keys')
            .set({ root_key_id: active.id, wrapped_key: wrapDataKey(active.key, row.owner_id, row.id, dataKey.key), rewrapped_at: isoNow() })
            .where('id', '=', row.id)
            .where('root_key_id', '=', row.root_key_id)
            .executeTakeFirst();
          if (Number(result.numUpdatedRows) > 0) rewrapped += 1;
        }
        opts.onProgress?.(rewrapped);
      }
      return { activeKeyId: active.id, rewrapped, failed };
    },

    /** How many data keys each root key wraps. */
    async usage(): Promise<Array<{ rootKeyId: string; dataKeys: number }>> {
      const rows = await db
        .selectFrom('vault_data_keys')
        .select(['root_key_id', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('root_key_id')
        .execute();
      return rows.map((r) => ({ rootKeyId: r.root_key_id, dataKeys: Number(r.n) }));
    },
  };
}

export type Keyring = ReturnType<typeof createKeyring>;
/** What other modules need: seal and open. */
export type SecretSealer = Pick<Keyring, 'seal' | 'open'>;

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
 * A running server notices a rotated key file by itself (`createRootKeys`, keyring.watch.ts).
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../../config.js';
import { newId } from '../../lib/ids.js';
import type { Executor } from '../../storage/columns.js';
import type { KeyringTables } from './keyring.tables.js';
import {
  b64u,
  gcmOpen,
  gcmSeal,
  integrityFailure,
  KEY_BYTES,
  missingRootKey,
  recordOf,
  type RootKey,
  sealAad,
  SEALED_VERSION,
  unwrapDataKey,
  VaultIntegrityError,
  wrapDataKey,
} from './keyring.crypto.js';
import { AppError } from '../../http/errors.js';
import { createKeyringRepo, type DataKeyRow } from './keyring.repo.js';
import { createRootKeys, type RootKeyOptions, type RootKeys } from './keyring.watch.js';

/** A stored value that did not open because it is not what was sealed there (no secret in it). */
export interface TamperedSecret {
  ownerId: string;
  /** The record the value was read for (`vault_tokens:vtk_1`). */
  context: string;
  /** What did not match, naming records and keys. */
  reason: string;
}

export interface KeyringOptions extends RootKeyOptions {
  db: Executor<KeyringTables>;
  /** The root keys already read (for storage, which seals the messages between nodes): one object, one watch of the key file. */
  rootKeys?: RootKeys | undefined;
  /**
   * Told of every value that failed its integrity check on opening (the audit log records it
   * as tampering); its own failure does not change the answer, which is the integrity error.
   */
  onTampered?(event: TamperedSecret): Promise<void> | void;
}

interface DataKey {
  id: string;
  ownerId: string;
  key: Buffer;
}

export function createKeyring(options: KeyringOptions) {
  const repo = createKeyringRepo(options.db);
  const roots = options.rootKeys ?? createRootKeys(options);
  // Unwrapped data keys: they never change (rotation re-wraps them), so this cache is never stale.
  const dataKeys = new Map<string, DataKey>();
  const activeByOwner = new Map<string, string>();
  const creating = new Map<string, Promise<DataKey>>();
  let readiness: Promise<void> | undefined;

  function cache(dataKey: DataKey): DataKey {
    dataKeys.set(dataKey.id, dataKey);
    return dataKey;
  }

  // The record a data key failure is reported for when no sealed value names one (sealing).
  const OWNER_DATA_KEY = "this account's vault data key";

  function unwrapRow(
    row: DataKeyRow,
    extraKeys: readonly RootKey[] = [],
    record = OWNER_DATA_KEY,
  ): DataKey {
    const root = roots.get(row.root_key_id) ?? extraKeys.find((k) => k.id === row.root_key_id);
    if (!root) {
      throw missingRootKey(
        `vault data key ${row.id} is wrapped by root key ${row.root_key_id}, which this server does not have ` +
          `(known: ${roots.all().map((k) => k.id).join(', ') || 'none'}). Restore the key file or set VAULT_KEY / VAULT_PREVIOUS_KEYS`,
      );
    }
    try {
      return { id: row.id, ownerId: row.owner_id, key: unwrapDataKey(root.key, row.owner_id, row.id, row.wrapped_key) };
    } catch {
      throw integrityFailure(record, `vault data key ${row.id} does not unwrap with root key ${root.id}: the row was altered or moved`);
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
      const counts = await repo.countByRootKey();
      const total = counts.reduce((sum, c) => sum + c.count, 0);
      if (roots.mode === 'file' && !roots.hasFile() && total > 0) {
        throw new ConfigError(
          `The vault key file ${roots.file} is missing, but the database holds ${total} encrypted data key(s) it wrapped. ` +
            'Restore the file from a backup (or set VAULT_KEY to the key it held). Hearth will not make a new key, which would hide the loss',
        );
      }
      roots.generateFileIfMissing();
      const unknown = counts.filter((c) => !roots.get(c.rootKeyId));
      if (unknown.length > 0) {
        throw new ConfigError(
          `The database holds vault data keys wrapped by root key(s) this server does not have: ` +
            `${unknown.map((c) => `${c.rootKeyId} (${c.count})`).join(', ')}. ` +
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
    await repo.insert({
      id: dataKey.id,
      owner_id: ownerId,
      root_key_id: root.id,
      wrapped_key: wrapDataKey(root.key, ownerId, dataKey.id, dataKey.key),
    });
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
        const row = await repo.newestFor(ownerId);
        const dataKey = cache(row ? unwrapRow(row) : await createDataKey(ownerId));
        activeByOwner.set(ownerId, dataKey.id);
        return dataKey;
      })().finally(() => creating.delete(ownerId));
      creating.set(ownerId, pending);
    }
    return pending;
  }

  async function dataKeyById(ownerId: string, id: string, record: string): Promise<DataKey> {
    const cached = dataKeys.get(id);
    if (cached) {
      if (cached.ownerId !== ownerId) throw integrityFailure(record, `sealed value names data key ${id}, which belongs to another owner`);
      return cached;
    }
    await ready();
    const row = await repo.find(ownerId, id);
    if (!row) throw integrityFailure(record, `sealed value names data key ${id}, which this owner does not have`);
    return cache(unwrapRow(row, [], record));
  }

  async function openSealed(ownerId: string, context: string, sealed: string): Promise<string> {
    const record = recordOf(context).words;
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== SEALED_VERSION) {
      throw integrityFailure(record, `sealed value for ${context} is not in the ${SEALED_VERSION} format`);
    }
    const [, dataKeyId, iv, ciphertext, tag] = parts as [string, string, string, string, string];
    const dataKey = await dataKeyById(ownerId, dataKeyId, record);
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
      throw integrityFailure(record, `sealed value for ${context} (owner ${ownerId}) does not open: it was altered or belongs to another record`);
    }
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
     * another owner, an altered value) throws INTEGRITY_ERROR, whose logged cause names the
     * records involved, never a secret, and is reported to `onTampered`.
     */
    async open(ownerId: string, context: string, sealed: string): Promise<string> {
      try {
        return await openSealed(ownerId, context, sealed);
      } catch (error) {
        const cause = error instanceof AppError ? error.cause : undefined;
        if (cause instanceof VaultIntegrityError && cause.tampered && options.onTampered) {
          try {
            await options.onTampered({ ownerId, context, reason: cause.message });
          } catch {
            // The answer is the integrity error whatever becomes of the report; the server log has it too.
          }
        }
        throw error;
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
        const rows = await repo.notWrappedBy(active.id, cursor, batchSize);
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
          if (await repo.rewrap(row.id, row.root_key_id, active.id, wrapDataKey(active.key, row.owner_id, row.id, dataKey.key))) rewrapped += 1;
        }
        opts.onProgress?.(rewrapped);
      }
      return { activeKeyId: active.id, rewrapped, failed };
    },

    /**
     * Drops the owner's unwrapped data keys from this process's memory, once the account's rows
     * (its wrapped keys among them) are erased: nothing sealed for it can be opened here again.
     */
    forgetOwner(ownerId: string): void {
      activeByOwner.delete(ownerId);
      for (const [id, dataKey] of dataKeys) {
        if (dataKey.ownerId !== ownerId) continue;
        dataKey.key.fill(0);
        dataKeys.delete(id);
      }
    },

    /** How many data keys each root key wraps. */
    async usage(): Promise<Array<{ rootKeyId: string; dataKeys: number }>> {
      return (await repo.countByRootKey()).map((r) => ({ rootKeyId: r.rootKeyId, dataKeys: r.count }));
    },
  };
}

export type Keyring = ReturnType<typeof createKeyring>;
/** What other modules need: seal and open. */
export type SecretSealer = Pick<Keyring, 'seal' | 'open'>;

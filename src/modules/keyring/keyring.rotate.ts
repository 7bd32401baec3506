/**
 * Root-key rotation (`npm run vault:rotate`): the logic, apart from the command line so that
 * tests run it against a live app.
 *
 * Key-file mode: adds a root key to `vault-keys.json` and makes it active (running servers see
 * the changed file by themselves), re-wraps every data key with it, and with `retire` removes
 * the older keys from the file. VAULT_KEY mode: the operator has already set VAULT_KEY to the
 * new key and moved the old one to VAULT_PREVIOUS_KEYS (and restarted); this re-wraps every
 * data key with VAULT_KEY and says when the previous keys can be dropped.
 *
 * Data keys never change, only their wrapping, so every sealed value stays readable throughout.
 */
import type { RootKey } from './keyring.crypto.js';
import type { Keyring } from './keyring.service.js';

export interface RotateOptions {
  /** The new root key; generated when not given (key-file mode only). */
  newKey?: Buffer | undefined;
  /** Re-wrap with the active key without adding one. */
  rewrapOnly?: boolean;
  /** Remove the older root keys afterwards (key-file mode); report unused ones (VAULT_KEY mode). */
  retire?: boolean;
  batchSize?: number;
  log?: (line: string) => void;
}

export interface RotateReport {
  mode: 'env' | 'file';
  activeKeyId: string;
  added: string | null;
  rewrapped: number;
  failed: Array<{ id: string; rootKeyId: string }>;
  retired: string[];
  /** VAULT_KEY mode: previous keys that wrap nothing any more and can be removed. */
  unused: string[];
}

export class RotationError extends Error {}

export async function rotateVaultKeys(keyring: Keyring, options: RotateOptions = {}): Promise<RotateReport> {
  const log = options.log ?? (() => {});
  const { roots } = keyring;
  await keyring.ready();

  let added: string | null = null;
  if (roots.mode === 'env') {
    if (options.newKey) {
      throw new RotationError(
        'VAULT_KEY is set, so the active root key is VAULT_KEY itself. To rotate: set VAULT_KEY to the new key, put the old one in ' +
          'VAULT_PREVIOUS_KEYS, restart the server(s), then run this command (without a key) to re-wrap the data keys',
      );
    }
  } else if (!options.rewrapOnly) {
    const root = roots.addActiveKey(options.newKey);
    added = root.id;
    log(`Root key ${root.id} added to ${roots.file}; it now wraps new data keys.`);
  }

  const active = roots.active()!;
  // Kept in memory past a retirement, for data keys a server wraps with an old key in the meantime.
  const everyKey: RootKey[] = roots.all();
  const result = await keyring.rewrapAll({
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    onProgress: (done) => log(`Re-wrapped ${done} data key(s)…`),
  });
  log(`Re-wrapped ${result.rewrapped} data key(s) with ${active.id}.`);
  if (result.failed.length > 0) {
    log(
      `${result.failed.length} data key(s) could not be unwrapped (root keys not available: ` +
        `${[...new Set(result.failed.map((f) => f.rootKeyId))].join(', ')}). Their secrets cannot be read until the key is restored.`,
    );
  }

  const retired: string[] = [];
  const unused: string[] = [];
  if (options.retire) {
    if (result.failed.length > 0) {
      throw new RotationError('Not retiring any key: some data keys are still wrapped by keys that could not be used (see above)');
    }
    if (roots.mode === 'file') {
      retired.push(...roots.retireInactiveKeys());
      // A server that wrapped a new data key with an old key just before it saw the new file:
      // re-wrap those too, with the old keys this process still holds.
      const stragglers = await keyring.rewrapAll({ extraKeys: everyKey });
      if (stragglers.rewrapped > 0) log(`Re-wrapped ${stragglers.rewrapped} data key(s) made during the rotation.`);
      log(retired.length ? `Retired root key(s) ${retired.join(', ')}: ${roots.file} now holds only ${active.id}.` : 'No older root key to retire.');
    } else {
      const usage = new Map((await keyring.usage()).map((u) => [u.rootKeyId, u.dataKeys]));
      for (const key of everyKey) {
        if (key.id === active.id) continue;
        const count = usage.get(key.id) ?? 0;
        if (count === 0) unused.push(key.id);
        else log(`Root key ${key.id} still wraps ${count} data key(s): keep it.`);
      }
      log(
        unused.length
          ? `Root key(s) ${unused.join(', ')} wrap nothing any more: remove them from VAULT_PREVIOUS_KEYS` +
              `${roots.hasFile() ? ` (and delete ${roots.file} if it holds only them)` : ''}, then restart.`
          : 'No previous key to drop.',
      );
    }
  }

  return { mode: roots.mode, activeKeyId: active.id, added, rewrapped: result.rewrapped, failed: result.failed, retired, unused };
}

/** What `--status` prints: each root key, whether it is active, and how many data keys it wraps. */
export async function vaultKeyStatus(keyring: Keyring): Promise<Array<{ id: string; active: boolean; known: boolean; dataKeys: number }>> {
  const { roots } = keyring;
  const usage = new Map((await keyring.usage()).map((u) => [u.rootKeyId, u.dataKeys]));
  const active = roots.active()?.id;
  const rows = roots.all().map((k) => ({ id: k.id, active: k.id === active, known: true, dataKeys: usage.get(k.id) ?? 0 }));
  for (const [id, dataKeys] of usage) if (!rows.some((r) => r.id === id)) rows.push({ id, active: false, known: false, dataKeys });
  return rows;
}

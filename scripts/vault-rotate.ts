/**
 * npm run vault:rotate [-- options]: rotates the vault's root key (see README, "Vault keys").
 *
 *   (no option)     key-file mode: add a new random root key, make it active, re-wrap every data key
 *                   VAULT_KEY mode: re-wrap every data key with VAULT_KEY (set it to the new key first)
 *   --key-stdin     use the base64 key read from standard input instead of a random one (key-file mode)
 *   --rewrap-only   re-wrap with the active key, add nothing
 *   --retire        afterwards, remove the older keys from the key file (VAULT_KEY mode: say which
 *                   VAULT_PREVIOUS_KEYS wrap nothing any more)
 *   --status        list the root keys and how many data keys each wraps, change nothing
 *   --batch-size N  data keys re-wrapped per batch (default 200)
 *
 * Safe while servers run: data keys do not change, only their wrapping, so every secret stays
 * readable; a running server re-reads the key file when it changes.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig, loadDotEnv } from '../src/config.js';
import { decodeRootKey } from '../src/modules/keyring/keyring.crypto.js';
import { createKeyring } from '../src/modules/keyring/keyring.service.js';
import { createRootKeys } from '../src/modules/keyring/keyring.watch.js';
import { RotationError, rotateVaultKeys, vaultKeyStatus } from '../src/modules/keyring/keyring.rotate.js';
import { createStorage } from '../src/storage/storage.js';

function usage(): never {
  console.error('Usage: npm run vault:rotate -- [--key-stdin] [--rewrap-only] [--retire] [--status] [--batch-size N]');
  process.exit(2);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const known = new Set(['--key-stdin', '--rewrap-only', '--retire', '--status', '--batch-size', '--help', '-h']);
  for (const arg of args) if (arg.startsWith('-') && !known.has(arg)) usage();
  if (args.includes('--help') || args.includes('-h')) usage();
  const batchIndex = args.indexOf('--batch-size');
  const batchSize = batchIndex >= 0 ? Number(args[batchIndex + 1]) : undefined;
  if (batchSize !== undefined && (!Number.isInteger(batchSize) || batchSize < 1)) usage();

  loadDotEnv();
  const config = loadConfig();
  const rootKeys = createRootKeys({ dataDir: config.dataDir, vaultKey: config.vaultKey, previousKeys: config.vaultPreviousKeys });
  const storage = await createStorage({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, rootKeys });
  try {
    const keyring = createKeyring({ db: storage.db, dataDir: config.dataDir, vaultKey: config.vaultKey, previousKeys: config.vaultPreviousKeys });
    if (args.includes('--status')) {
      console.log(`Mode: ${keyring.roots.mode === 'env' ? 'VAULT_KEY' : `key file ${keyring.roots.file}`}`);
      for (const row of await vaultKeyStatus(keyring)) {
        console.log(`${row.id}  ${row.active ? 'active ' : '       '} ${row.known ? '' : '(NOT AVAILABLE) '}wraps ${row.dataKeys} data key(s)`);
      }
      return;
    }
    const newKey = args.includes('--key-stdin') ? decodeRootKey(readFileSync(0, 'utf8'), 'The key on standard input') : undefined;
    const report = await rotateVaultKeys(keyring, {
      newKey,
      rewrapOnly: args.includes('--rewrap-only'),
      retire: args.includes('--retire'),
      ...(batchSize ? { batchSize } : {}),
      log: (line) => console.log(line),
    });
    console.log(JSON.stringify(report));
    if (report.failed.length > 0) process.exitCode = 1;
  } finally {
    await storage.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof RotationError) console.error(`vault:rotate: ${error.message}`);
  else console.error(error);
  process.exit(1);
});

/**
 * Restoring a backup (`hearth restore <backup>`) into an empty DATA_DIR (and, on PostgreSQL, an
 * empty database): the manifest and every checksum are checked first, the files are copied into
 * a hidden folder beside DATA_DIR and checked again there, and the folder is renamed to DATA_DIR
 * last, so that an interrupted restore leaves no half-restored DATA_DIR a server would start on.
 */
import { chmodSync, copyFileSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { DATABASE_FILE } from '../../storage/data-dir.js';
import { KEY_FILE_NAME } from '../keyring/keyring.file.js';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { BackupError, fsyncPath, readManifest, sha256File, verifyFiles, type Manifest } from './backups.manifest.js';
import { findOnPath, run, splitDatabaseUrl } from './backups.write.js';

export interface RestoreOptions {
  /** The backup's folder (`hearth-backup-…`). */
  from: string;
  dataDir: string;
  databaseUrl: string | undefined;
  onProgress?: (phase: 'checksum' | 'copy' | 'verify' | 'database') => void;
}

export interface RestoreResult {
  manifest: Manifest;
  /** False on PostgreSQL when the database was not restored (no dump in the backup, or no pg_restore): `command` says what to run. */
  databaseRestored: boolean;
  command?: string;
  warnings: string[];
}

function isEmptyOrMissing(dir: string): boolean {
  try {
    if (!statSync(dir).isDirectory()) throw new BackupError(`DATA_DIR ${dir} is a file, not a folder: set DATA_DIR to a new, empty folder`, 'usage');
    return readdirSync(dir).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** Copies one file of the backup into `staging` and checks the copy against the manifest. */
async function copyChecked(from: string, staging: string, manifest: Manifest, name: string, as: string): Promise<void> {
  const target = path.join(staging, as);
  copyFileSync(path.join(from, name), target);
  chmodSync(target, 0o600);
  const expected = manifest.files.find((f) => f.name === name)!;
  if ((await sha256File(target)) !== expected.sha256) throw new BackupError(`The copy of ${name} does not match its checksum (a disk or copy fault): nothing was restored`, 'damaged');
  fsyncPath(target);
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const from = path.resolve(options.from);
  const dataDir = path.resolve(options.dataDir);
  const manifest = readManifest(from);
  if (manifest.engine === 'sqlite' && options.databaseUrl) {
    throw new BackupError('This backup holds the embedded database (SQLite), but DATABASE_URL is set: unset DATABASE_URL to restore it', 'usage');
  }
  if (manifest.engine === 'postgres' && !options.databaseUrl) {
    throw new BackupError('This backup holds a PostgreSQL database: set DATABASE_URL to a new, empty PostgreSQL database to restore it into', 'usage');
  }
  if (!isEmptyOrMissing(dataDir)) {
    throw new BackupError(
      `DATA_DIR ${dataDir} is not empty: a restore never overwrites what is there. Stop the server, move that folder away (or set DATA_DIR to a new folder), and run the restore again`,
      'not-empty',
    );
  }
  options.onProgress?.('checksum');
  await verifyFiles(from, manifest);

  const parent = path.dirname(dataDir);
  mkdirSync(parent, { recursive: true });
  const staging = path.join(parent, `.${path.basename(dataDir)}.restoring.${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  chmodSync(staging, 0o700);
  const warnings: string[] = [];
  let databaseRestored = true;
  let command: string | undefined;
  try {
    options.onProgress?.('copy');
    if (manifest.vaultKeys.file) await copyChecked(from, staging, manifest, manifest.vaultKeys.file, KEY_FILE_NAME);
    if (manifest.vaultKeys.source === 'env') {
      warnings.push('The vault root key of this backup was VAULT_KEY, which no backup holds: start the restored server with the same VAULT_KEY, or its vault secrets cannot be read.');
    }
    if (manifest.engine === 'sqlite') {
      await copyChecked(from, staging, manifest, manifest.database.file!, DATABASE_FILE);
      options.onProgress?.('verify');
      checkSqliteCopy(path.join(staging, DATABASE_FILE), manifest);
    } else {
      ({ databaseRestored, command } = await restorePostgres(from, manifest, options.databaseUrl!, options.onProgress));
    }
    moveIntoPlace(staging, dataDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return { manifest, databaseRestored, ...(command ? { command } : {}), warnings };
}

/** The copied database passes SQLite's integrity check and holds the rows its manifest counts. */
function checkSqliteCopy(file: string, manifest: Manifest): void {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`The backup's database fails SQLite's integrity check (${String(integrity)}): nothing was restored; restore an older backup`, 'damaged');
    for (const [table, count] of Object.entries(manifest.database.tables)) {
      const row = db.prepare(`SELECT count(*) AS n FROM "${table.replaceAll('"', '""')}"`).get() as { n: number };
      if (row.n !== count) throw new BackupError(`The backup's database holds ${row.n} rows in ${table} where its manifest says ${count}: nothing was restored`, 'damaged');
    }
    // The server's own setting, so that the first start finds the database as it leaves it.
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

/** The last step: the checked folder becomes DATA_DIR, in one rename. */
function moveIntoPlace(staging: string, dataDir: string): void {
  fsyncPath(staging);
  // DATA_DIR was found empty: an empty folder is replaced (rmdir fails if something appeared meanwhile).
  try {
    rmdirSync(dataDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new BackupError(`DATA_DIR ${dataDir} is no longer empty (something wrote into it during the restore): nothing was restored`, 'not-empty');
    if (code !== 'ENOENT') throw error;
  }
  renameSync(staging, dataDir);
  fsyncPath(path.dirname(dataDir));
}

async function restorePostgres(
  from: string,
  manifest: Manifest,
  databaseUrl: string,
  onProgress: RestoreOptions['onProgress'],
): Promise<{ databaseRestored: boolean; command?: string }> {
  const { url, password } = splitDatabaseUrl(databaseUrl);
  if (!manifest.database.file) {
    throw new BackupError(`This backup holds no database dump (pg_dump was not available when it was made; its manifest names the command that was to be run): nothing was restored`, 'damaged');
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  let tables: number;
  try {
    await client.connect();
    tables = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()`)).rows[0]!.n);
  } catch (error) {
    throw new BackupError(`Cannot reach the PostgreSQL database at DATABASE_URL (${(error as Error).message}): create it first (createdb), and check DATABASE_URL`);
  } finally {
    await ignoreFailure(client.end(), 'the connection was only read from; closing it cannot lose anything');
  }
  if (tables > 0) {
    throw new BackupError('The PostgreSQL database at DATABASE_URL already holds tables: a restore never overwrites them. Create a new, empty database (createdb hearth_restored) and point DATABASE_URL at it', 'not-empty');
  }
  const dump = path.join(from, manifest.database.file);
  const args = ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${url}`, dump];
  const pgRestore = findOnPath('pg_restore');
  if (!pgRestore) return { databaseRestored: false, command: `pg_restore ${args.slice(0, -2).join(' ')} --dbname='${url}' '${dump}'` };
  onProgress?.('database');
  // One transaction: a failed restore leaves the database empty, as it was.
  await run(pgRestore, args, { ...process.env, ...(password ? { PGPASSWORD: password } : {}) });
  return { databaseRestored: true };
}

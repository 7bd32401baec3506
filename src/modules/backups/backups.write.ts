/**
 * Writing a backup (`hearth backup <dir>`, and the server's schedule): everything is written into
 * a hidden folder beside the backups, checked, and only then renamed to its final name, so that a
 * backup interrupted at any point (kill -9, a full disk) never replaces or damages an earlier one
 * and is never taken for a complete one. See docs/decisions/backups.md.
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { DATABASE_FILE } from '../../storage/data-dir.js';
import { KEY_FILE_NAME, keyFilePath, readKeyFile } from '../keyring/keyring.file.js';
import {
  BackupError,
  MANIFEST_FILE,
  PG_DUMP_FILE,
  SQLITE_COPY,
  abandonedPartials,
  backupName,
  describeFile,
  fsyncPath,
  newManifest,
  partialName,
  type Manifest,
} from './backups.manifest.js';

export interface BackupProgress {
  phase: 'copy' | 'verify' | 'checksum' | 'dump';
  /** Share done, 0 to 1, when known. */
  done?: number;
}

export interface BackupOptions {
  /** The folder the backup is written into (created if missing); each backup is a folder of its own in it. */
  dir: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** The ids of the root keys this process knows outside the key file (VAULT_KEY, VAULT_PREVIOUS_KEYS). */
  environmentKeyIds: string[];
  /** PostgreSQL: fail when pg_dump is not on PATH instead of writing the key material alone (the schedule). */
  requireDump?: boolean;
  onProgress?: (progress: BackupProgress) => void;
  now?: () => Date;
}

export interface BackupResult {
  /** The complete backup's folder. */
  path: string;
  manifest: Manifest;
  /** False when the database is not in it (PostgreSQL without pg_dump: `manifest.database.command` says what to run). */
  complete: boolean;
  /** Things the person should know (a root key the backup cannot carry). */
  warnings: string[];
}

/** Pages copied per step of SQLite's backup: 16 MiB at the default page size, a step a few milliseconds long. */
const PAGES_PER_STEP = 4096;

export async function writeBackup(options: BackupOptions): Promise<BackupResult> {
  const { dir } = options;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new BackupError(`Cannot create the backup folder ${dir} (${(error as NodeJS.ErrnoException).code}): give a folder the user running Hearth can write to`);
  }
  // Folders left by a backup of this machine that was killed: never complete, safe to remove.
  for (const name of abandonedPartials(dir)) rmSync(path.join(dir, name), { recursive: true, force: true });

  let name = backupName((options.now ?? (() => new Date()))());
  for (let n = 2; existsSync(path.join(dir, name)); n++) name = `${backupName((options.now ?? (() => new Date()))())}-${n}`;
  const temp = path.join(dir, partialName(name));
  mkdirSync(temp, { mode: 0o700 });
  try {
    const written = options.databaseUrl ? await writePostgres(temp, options) : await writeSqlite(temp, options);
    options.onProgress?.({ phase: 'checksum' });
    const files = [];
    for (const file of written.files) files.push(await describeFile(temp, file));
    const manifest = newManifest({ ...written.fields, files });
    const manifestFile = path.join(temp, MANIFEST_FILE);
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    for (const file of [...written.files, MANIFEST_FILE]) fsyncPath(path.join(temp, file));
    fsyncPath(temp);
    // The one step that makes the backup visible: until here it is a hidden folder nobody counts.
    renameSync(temp, path.join(dir, name));
    fsyncPath(dir);
    return { path: path.join(dir, name), manifest, complete: written.fields.database.file !== null, warnings: written.warnings };
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

interface Written {
  files: string[];
  fields: Omit<Manifest, 'format' | 'version' | 'hearthVersion' | 'files'>;
  warnings: string[];
}

/** Copies the key file, if any, and says which root keys the data keys need that neither it nor the environment holds. */
function copyKeyFile(temp: string, options: BackupOptions, rootKeyIds: string[]): { file: string | null; warnings: string[] } {
  const source = keyFilePath(options.dataDir);
  const keys = readKeyFile(source);
  let file: string | null = null;
  if (keys) {
    copyFileSync(source, path.join(temp, KEY_FILE_NAME));
    chmodSync(path.join(temp, KEY_FILE_NAME), 0o600);
    file = KEY_FILE_NAME;
  }
  const held = new Set([...(keys?.keys.map((k) => k.id) ?? []), ...options.environmentKeyIds]);
  const missing = rootKeyIds.filter((id) => !held.has(id));
  const warnings: string[] = [];
  if (missing.length > 0) {
    warnings.push(
      `The vault's data keys are wrapped by root key(s) ${missing.join(', ')}, which neither ${source} nor VAULT_KEY/VAULT_PREVIOUS_KEYS hold here: ` +
        'the secrets in this backup can be read only with those keys. Keep them with the backup.',
    );
  }
  if (options.environmentKeyIds.length > 0) {
    warnings.push('The root key VAULT_KEY is not in the backup: a restored server needs the same VAULT_KEY. Keep it apart from the backup, somewhere safe.');
  }
  return { file, warnings };
}

function sqliteTables(db: BetterSqlite3.Database): string[] {
  // Virtual tables (full-text indexes) are counted through the plain tables that hold their data.
  return (
    db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name`).all() as Array<{ name: string }>
  ).map((row) => row.name);
}

function sqliteCounts(db: BetterSqlite3.Database): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const table of sqliteTables(db)) counts[table] = (db.prepare(`SELECT count(*) AS n FROM "${table.replaceAll('"', '""')}"`).get() as { n: number }).n;
  return counts;
}

function hasTable(db: BetterSqlite3.Database, table: string): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined;
}

async function writeSqlite(temp: string, options: BackupOptions): Promise<Written> {
  const sourceFile = path.join(options.dataDir, DATABASE_FILE);
  if (!existsSync(sourceFile)) {
    throw new BackupError(`There is no database at ${sourceFile}: is DATA_DIR right? (it is ${options.dataDir}; set DATA_DIR as the server has it)`);
  }
  // A reader of its own: with WAL it neither waits for the server's writes nor holds them up.
  const source = new BetterSqlite3(sourceFile, { readonly: true, fileMustExist: true });
  const copyFile = path.join(temp, SQLITE_COPY);
  let counts: Record<string, number>;
  let schema: string | null = null;
  let rootKeyIds: string[] = [];
  let keyFile: ReturnType<typeof copyKeyFile>;
  try {
    source.pragma('busy_timeout = 5000');
    // One read transaction around the counts and the copy: both see the same snapshot, every
    // write committed before it and none after, whatever the server writes meanwhile.
    source.exec('BEGIN');
    try {
      counts = sqliteCounts(source);
      if (hasTable(source, 'kysely_migration')) schema = (source.prepare('SELECT max(name) AS name FROM kysely_migration').get() as { name: string | null }).name;
      if (hasTable(source, 'vault_data_keys')) {
        rootKeyIds = (source.prepare('SELECT DISTINCT root_key_id AS id FROM vault_data_keys ORDER BY id').all() as Array<{ id: string }>).map((row) => row.id);
      }
      // After the snapshot began: the key file then holds every key its data keys were wrapped with
      // (a rotation adds the new key to the file before it re-wraps anything).
      keyFile = copyKeyFile(temp, options, rootKeyIds);
      await source.backup(copyFile, {
        progress({ totalPages, remainingPages }) {
          options.onProgress?.({ phase: 'copy', done: totalPages === 0 ? 1 : (totalPages - remainingPages) / totalPages });
          return PAGES_PER_STEP;
        },
      });
    } finally {
      source.exec('COMMIT');
    }
  } finally {
    source.close();
  }

  options.onProgress?.({ phase: 'verify' });
  chmodSync(copyFile, 0o600);
  const copy = new BetterSqlite3(copyFile, { fileMustExist: true });
  try {
    // One self-contained file: no -wal beside it to forget; the server turns WAL on again when it opens it.
    copy.pragma('journal_mode = DELETE');
    const integrity = copy.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new BackupError(`The copy of the database failed SQLite's integrity check (${String(integrity)}); the backup was not kept`, 'damaged');
    const copied = sqliteCounts(copy);
    for (const table of new Set([...Object.keys(counts), ...Object.keys(copied)])) {
      if (counts[table] !== copied[table]) {
        throw new BackupError(`The copy of the database holds ${copied[table] ?? 'no'} rows in ${table} where the database held ${counts[table] ?? 'no'}: the backup was not kept`, 'damaged');
      }
    }
  } finally {
    copy.close();
  }
  return {
    files: keyFile.file ? [SQLITE_COPY, keyFile.file] : [SQLITE_COPY],
    fields: {
      createdAt: new Date().toISOString(),
      engine: 'sqlite',
      schema,
      database: { file: SQLITE_COPY, tables: counts },
      vaultKeys: { source: keyFile.file ? 'file' : 'env', file: keyFile.file, rootKeyIds },
    },
    warnings: keyFile.warnings,
  };
}

/** The full path of `program` on PATH, or undefined. */
export function findOnPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, program);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The database address without its password, for a command line (which other users of the
 * machine can read in the process list), and the password apart, for PGPASSWORD.
 */
export function splitDatabaseUrl(url: string): { url: string; password: string | undefined } {
  const parsed = new URL(url);
  const password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.password = '';
  return { url: parsed.toString(), password };
}

/** Runs a program to its end; rejects with the tail of its stderr when it fails. */
export function run(program: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-2000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new BackupError(`${path.basename(program)} failed (exit ${code}): ${err.trim() || 'no message'}`));
    });
  });
}

async function writePostgres(temp: string, options: BackupOptions): Promise<Written> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: options.databaseUrl });
  const tables: Record<string, number> = {};
  let schema: string | null = null;
  let rootKeyIds: string[] = [];
  try {
    await client.connect();
    const names = (await client.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`)).rows.map((r) => r.name);
    for (const table of names) {
      tables[table] = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table.replaceAll('"', '""')}"`)).rows[0]!.n);
    }
    if (names.includes('kysely_migration')) schema = (await client.query<{ name: string | null }>('SELECT max(name) AS name FROM kysely_migration')).rows[0]!.name;
    if (names.includes('vault_data_keys')) rootKeyIds = (await client.query<{ id: string }>('SELECT DISTINCT root_key_id AS id FROM vault_data_keys ORDER BY 1')).rows.map((r) => r.id);
  } catch (error) {
    throw new BackupError(`Cannot read the PostgreSQL database at DATABASE_URL (${(error as Error).message}): is it running, and DATABASE_URL right?`);
  } finally {
    await ignoreFailure(client.end(), 'the connection was only read from; closing it cannot lose anything');
  }
  // Hearth's own key material: the key file, when there is one.
  const keyFile = copyKeyFile(temp, options, rootKeyIds);
  const { url, password } = splitDatabaseUrl(options.databaseUrl!);
  const dumpArgs = ['--format=custom', '--no-owner', '--no-privileges', `--file=${path.join(temp, PG_DUMP_FILE)}`, `--dbname=${url}`];
  const pgDump = findOnPath('pg_dump');
  const files = keyFile.file ? [keyFile.file] : [];
  let file: string | null = null;
  let command: string | undefined;
  if (pgDump) {
    options.onProgress?.({ phase: 'dump' });
    const env = { ...process.env, ...(password ? { PGPASSWORD: password } : {}) };
    await run(pgDump, dumpArgs, env);
    chmodSync(path.join(temp, PG_DUMP_FILE), 0o600);
    options.onProgress?.({ phase: 'verify' });
    // The dump is readable and holds the data of every table the database has.
    const pgRestore = findOnPath('pg_restore');
    if (pgRestore) {
      const listing = await run(pgRestore, ['--list', path.join(temp, PG_DUMP_FILE)], env);
      const missing = Object.keys(tables).filter((table) => !new RegExp(`TABLE DATA \\S+ ${table}(\\s|$)`, 'm').test(listing));
      if (missing.length > 0) throw new BackupError(`The dump lacks the data of ${missing.join(', ')}: the backup was not kept`, 'damaged');
    }
    files.unshift(PG_DUMP_FILE);
    file = PG_DUMP_FILE;
  } else {
    if (options.requireDump) throw new BackupError('pg_dump is not on PATH: install the PostgreSQL client tools (the version of the server or newer) where Hearth runs');
    command = `pg_dump --format=custom --no-owner --no-privileges --file=<this backup's folder>/${PG_DUMP_FILE} --dbname='${url}'`;
  }
  return {
    files,
    fields: {
      createdAt: new Date().toISOString(),
      engine: 'postgres',
      schema,
      database: { file, tables, ...(command ? { command } : {}) },
      vaultKeys: { source: keyFile.file ? 'file' : 'env', file: keyFile.file, rootKeyIds },
    },
    warnings: keyFile.warnings,
  };
}

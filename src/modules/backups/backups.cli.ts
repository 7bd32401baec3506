/**
 * `hearth backup` and `hearth restore` (bin/hearth.js hands them here), also run by the server's
 * schedule as a child process of its own (`--json`), so that copying, checking and hashing a
 * large database never holds up the server's requests. Settings come from the environment and
 * `.env`, as the server reads them.
 */
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, loadDotEnv } from '../../config.js';
import { decodeRootKey, rootKeyId } from '../keyring/keyring.crypto.js';
import { BackupError } from './backups.manifest.js';
import { restoreBackup } from './backups.restore.js';
import { writeBackup } from './backups.write.js';

/** What each exit code says; --help and the README list them. */
export const EXIT = { ok: 0, failed: 1, usage: 2, partial: 3, damaged: 4, notEmpty: 5 } as const;

export const BACKUP_USAGE = `Usage: hearth backup <folder> [--require-database] [--quiet] [--json]

Writes a backup of this Hearth server's data into a new folder hearth-backup-<UTC time> inside
<folder> (created if missing), while the server runs:
  - SQLite (DATA_DIR): a consistent copy of the database made with SQLite's online backup API,
    checked (integrity check, rows per table against the database at the moment of the copy);
  - PostgreSQL (DATABASE_URL): pg_dump --format=custom, when pg_dump is on PATH;
  - the vault key file (DATA_DIR/vault-keys.json), without which the vault's secrets cannot be
    read; with VAULT_KEY set, keep VAULT_KEY yourself: no backup holds it;
  - manifest.json: the files with their SHA-256, the engine, the schema, the row counts.
Everything is written into a hidden folder first and renamed into place only once checked, so an
interrupted backup never replaces or damages an earlier one. Files are mode 0600.

Settings are read as the server reads them: DATA_DIR, DATABASE_URL, VAULT_KEY (environment or .env).

Options:
  --require-database  PostgreSQL: without pg_dump on PATH, fail (exit 1) and write nothing,
                      rather than write the key material alone (the scheduled backups do this)
  --quiet             print nothing but errors
  --json              print the result as one JSON line on stdout (path, complete, manifest, warnings)

Exit codes:
  0  the backup is written and checked
  1  it failed (the message says why); nothing was kept
  2  wrong usage
  3  PostgreSQL without pg_dump on PATH: the key material and manifest are written, the database
     is not; the message gives the pg_dump command to run
  4  the copy failed its checks (integrity, row counts); nothing was kept`;

export const RESTORE_USAGE = `Usage: hearth restore <backup folder> [--data-dir <folder>] [--quiet] [--json]

Restores a backup made by "hearth backup" into an empty DATA_DIR (a missing or empty folder;
a folder with anything in it is refused), after checking the manifest and every checksum.
The files are copied beside DATA_DIR and renamed into place last, so an interrupted restore
leaves no half-restored DATA_DIR. Then start the server on that DATA_DIR as usual.
  - SQLite: the database and the vault key file come back into DATA_DIR.
  - PostgreSQL: DATABASE_URL must name a new, empty database (createdb); the dump is restored with
    pg_restore in one transaction, and the vault key file comes back into DATA_DIR.
If the backup was made with VAULT_KEY set, start the restored server with the same VAULT_KEY.

Settings: DATA_DIR (or --data-dir), DATABASE_URL, from the environment or .env.

Exit codes:
  0  restored
  1  it failed (the message says why); DATA_DIR was left as it was
  2  wrong usage (or the backup is of the other engine: the message says which setting to change)
  3  PostgreSQL without pg_restore on PATH: the key file is restored, the database is not; the
     message gives the pg_restore command to run
  4  the backup is damaged (a checksum, the manifest or the database's integrity): nothing restored
  5  DATA_DIR (or the PostgreSQL database) is not empty: nothing restored`;

interface Output {
  quiet: boolean;
  json: boolean;
}

function say(out: Output, line: string): void {
  if (!out.quiet && !out.json) process.stdout.write(`${line}\n`);
}

/** A bar on a terminal, redrawn in place; elsewhere (a log, a pipe) one line per phase. */
function progressReporter(out: Output): (label: string, done?: number) => void {
  if (out.quiet || out.json) return () => {};
  const tty = process.stderr.isTTY;
  let last = '';
  return (label, done) => {
    if (tty) {
      const width = 30;
      const filled = done === undefined ? 0 : Math.round(done * width);
      const bar = done === undefined ? '' : `[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${Math.floor(done * 100)}% `;
      process.stderr.write(`\r\x1b[2K${bar}${label}`);
    } else if (label !== last) {
      process.stderr.write(`${label}\n`);
    }
    last = label;
  };
}

function endProgress(out: Output): void {
  if (!out.quiet && !out.json && process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
}

function fail(out: Output, message: string, code: number): number {
  endProgress(out);
  if (out.json) process.stdout.write(`${JSON.stringify({ ok: false, exitCode: code, error: message })}\n`);
  process.stderr.write(`hearth: ${message}\n`);
  return code;
}

const EXIT_OF_KIND = { failed: EXIT.failed, damaged: EXIT.damaged, 'not-empty': EXIT.notEmpty, usage: EXIT.usage } as const;

function parse(argv: string[], usage: string, withDataDir: boolean): { target: string; out: Output; dataDir?: string; requireDatabase: boolean } | number {
  const out: Output = { quiet: false, json: false };
  let requireDatabase = false;
  let target: string | undefined;
  let dataDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${usage}\n`);
      return EXIT.ok;
    } else if (arg === '--quiet' || arg === '-q') out.quiet = true;
    else if (arg === '--json') out.json = true;
    else if (!withDataDir && arg === '--require-database') requireDatabase = true;
    else if (withDataDir && (arg === '--data-dir' || arg.startsWith('--data-dir='))) {
      dataDir = arg === '--data-dir' ? argv[++i] : arg.slice('--data-dir='.length);
      if (!dataDir) return fail(out, `--data-dir needs a folder\n\n${usage}`, EXIT.usage);
    } else if (arg.startsWith('-')) return fail(out, `unknown option "${arg}"\n\n${usage}`, EXIT.usage);
    else if (target === undefined) target = arg;
    else return fail(out, `one folder only, got "${target}" and "${arg}"\n\n${usage}`, EXIT.usage);
  }
  if (target === undefined) return fail(out, `give the folder\n\n${usage}`, EXIT.usage);
  return { target, out, requireDatabase, ...(dataDir ? { dataDir } : {}) };
}

function settings(out: Output, dataDir?: string): ReturnType<typeof loadConfig> | number {
  try {
    loadDotEnv();
    return loadConfig(dataDir ? { ...process.env, DATA_DIR: dataDir } : process.env);
  } catch (error) {
    if (error instanceof ConfigError) return fail(out, error.message, EXIT.usage);
    throw error;
  }
}

export async function backupCommand(argv: string[]): Promise<number> {
  const args = parse(argv, BACKUP_USAGE, false);
  if (typeof args === 'number') return args;
  const { out } = args;
  const config = settings(out);
  if (typeof config === 'number') return config;
  const progress = progressReporter(out);
  const labels = { copy: 'copying the database', verify: 'checking the copy', checksum: 'computing checksums', dump: 'running pg_dump' } as const;
  try {
    const result = await writeBackup({
      dir: args.target,
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      requireDump: args.requireDatabase,
      environmentKeyIds: [config.vaultKey, ...config.vaultPreviousKeys].filter((k): k is string => !!k).map((k) => rootKeyId(decodeRootKey(k, 'VAULT_KEY'))),
      onProgress: ({ phase, done }) => progress(labels[phase], done),
    });
    endProgress(out);
    const code = result.complete ? EXIT.ok : EXIT.partial;
    if (out.json) process.stdout.write(`${JSON.stringify({ ok: true, exitCode: code, path: result.path, complete: result.complete, manifest: result.manifest, warnings: result.warnings })}\n`);
    const rows = Object.values(result.manifest.database.tables).reduce((sum, n) => sum + n, 0);
    const bytes = result.manifest.files.reduce((sum, f) => sum + f.bytes, 0);
    if (result.complete) say(out, `Backup written and checked: ${result.path} (${result.manifest.engine}, ${rows} rows in ${Object.keys(result.manifest.database.tables).length} tables, ${bytes} bytes)`);
    else {
      say(out, `Key material and manifest written to ${result.path}, but NOT the database: pg_dump is not on PATH.`);
      say(out, `Install the PostgreSQL client tools and run "hearth backup" again, or run:\n  ${result.manifest.database.command!.replace('<this backup\'s folder>', result.path)}`);
    }
    for (const warning of result.warnings) if (!out.json) process.stderr.write(`hearth: warning: ${warning}\n`);
    return code;
  } catch (error) {
    if (error instanceof BackupError) return fail(out, error.message, EXIT_OF_KIND[error.kind]);
    return fail(out, `the backup failed: ${(error as Error).message ?? String(error)}; nothing was kept`, EXIT.failed);
  }
}

export async function restoreCommand(argv: string[]): Promise<number> {
  const args = parse(argv, RESTORE_USAGE, true);
  if (typeof args === 'number') return args;
  const { out } = args;
  const config = settings(out, args.dataDir);
  if (typeof config === 'number') return config;
  const progress = progressReporter(out);
  const labels = { checksum: 'checking the checksums', copy: 'copying the files', verify: 'checking the database', database: 'running pg_restore' } as const;
  try {
    const result = await restoreBackup({ from: args.target, dataDir: config.dataDir, databaseUrl: config.databaseUrl, onProgress: (phase) => progress(labels[phase]) });
    endProgress(out);
    const code = result.databaseRestored ? EXIT.ok : EXIT.partial;
    if (out.json) process.stdout.write(`${JSON.stringify({ ok: true, exitCode: code, dataDir: config.dataDir, databaseRestored: result.databaseRestored, command: result.command, warnings: result.warnings })}\n`);
    if (result.databaseRestored) say(out, `Restored into DATA_DIR ${config.dataDir} (backup of ${result.manifest.createdAt}): start the server on it as usual.`);
    else say(out, `The vault key file is restored into ${config.dataDir}, but NOT the database: pg_restore is not on PATH. Run:\n  ${result.command}`);
    for (const warning of result.warnings) if (!out.json) process.stderr.write(`hearth: warning: ${warning}\n`);
    return code;
  } catch (error) {
    if (error instanceof BackupError) return fail(out, error.message, EXIT_OF_KIND[error.kind]);
    return fail(out, `the restore failed: ${(error as Error).message ?? String(error)}; DATA_DIR was left as it was`, EXIT.failed);
  }
}

/** `backup …` or `restore …`: the exit code. */
export function runCommand(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  return command === 'restore' ? restoreCommand(rest) : backupCommand(rest);
}

// Run directly (the server's schedule starts it so): `node backups.cli.js backup <dir> --json`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCommand(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(EXIT.failed);
    },
  );
}

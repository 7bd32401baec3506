/**
 * DATA_DIR holds the embedded database and the vault key file: only the user running Hearth
 * may read it. The folder is made 0700 and the database 0600 when Hearth creates them, whatever
 * the umask; SQLite gives its -wal and -shm files the database file's mode. What already exists
 * is not changed behind the operator's back: `dataDirWarning` says what is looser and how to fix it.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config.js';
import { errorCodeOrMessage } from '../lib/error-code.js';

export const DATABASE_FILE = 'hearth.db';
const DATABASE_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`];
const POSIX = process.platform !== 'win32';

/** Makes DATA_DIR (and missing parents) with mode 0700, or says clearly why it cannot. */
export function prepareDataDir(dir: string): void {
  let stat;
  try {
    stat = statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') {
      throw new ConfigError(`DATA_DIR ${dir} cannot be read (${errorCodeOrMessage(error)}): give the user running Hearth access to it, or set DATA_DIR to another folder`);
    }
  }
  if (stat) {
    if (!stat.isDirectory()) throw new ConfigError(`DATA_DIR ${dir} is a file, not a folder: set DATA_DIR to a folder (it is created if missing)`);
    return;
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode is filtered by the umask; the folder holds secrets, so set it outright.
    if (POSIX) chmodSync(dir, 0o700);
  } catch (error) {
    const code = errorCodeOrMessage(error);
    const why = code === 'ENOTDIR' || code === 'EEXIST' ? 'a part of the path is a file' : code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'no permission to write there' : 'it could not be made';
    throw new ConfigError(`Cannot create DATA_DIR ${dir}: ${why} (${code}). Set DATA_DIR to a folder the user running Hearth can write to`);
  }
}

/** Creates the database file with mode 0600 if it does not exist yet (SQLite would use 0644 less the umask). */
export function createDatabaseFile(dir: string): string {
  const file = path.join(dir, DATABASE_FILE);
  try {
    closeSync(openSync(file, 'wx', 0o600));
    if (POSIX) chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return file;
}

/**
 * SQLite copies the database file's mode to its -wal and -shm files; a -wal or -shm left
 * looser than the database (by another tool, an older version) is brought to the database's mode.
 */
export function alignJournalModes(dir: string): void {
  if (!POSIX) return;
  const dbMode = statSync(path.join(dir, DATABASE_FILE)).mode & 0o777;
  for (const name of DATABASE_FILES.slice(1)) {
    const file = path.join(dir, name);
    try {
      const mode = statSync(file).mode & 0o777;
      if ((mode & ~dbMode) !== 0) chmodSync(file, dbMode);
    } catch {
      // Not there (yet): SQLite makes it with the database file's mode.
    }
  }
}

/**
 * One line for the start-up log when DATA_DIR or the database files can be reached by other
 * users, naming them and the commands that fix it; undefined when all is private.
 */
export function dataDirWarning(dir: string, options: { database: boolean }): string | undefined {
  if (!POSIX || !existsSync(dir)) return undefined;
  const loose: string[] = [];
  const dirMode = statSync(dir).mode & 0o777;
  if ((dirMode & 0o077) !== 0) loose.push(`${dir} (mode ${dirMode.toString(8)})`);
  const looseFiles: string[] = [];
  if (options.database) {
    for (const name of DATABASE_FILES) {
      try {
        const mode = statSync(path.join(dir, name)).mode & 0o777;
        if ((mode & 0o077) !== 0) looseFiles.push(`${name} (mode ${mode.toString(8)})`);
      } catch {
        // absent
      }
    }
  }
  if (loose.length === 0 && looseFiles.length === 0) return undefined;
  const fixes = [
    ...(loose.length > 0 ? [`chmod 700 ${dir}`] : []),
    ...(looseFiles.length > 0 ? [`chmod 600 ${path.join(dir, DATABASE_FILE)}*`] : []),
  ];
  return `DATA_DIR can be read by other users: ${[...loose, ...looseFiles].join(', ')}. It holds the database and the vault key file; run: ${fixes.join(' && ')}`;
}

/**
 * What a backup folder holds and how it is checked: the manifest (`manifest.json`, written last)
 * names every file with its size and SHA-256, the engine, the schema, the tables' row counts and
 * where the vault's root keys are. Shared by the writer, the restorer and the schedule.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { API_VERSION } from '../../version.js';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'hearth-backup';
export const MANIFEST_VERSION = 1;
/** The copy of the embedded database in a backup (journal mode DELETE: one self-contained file). */
export const SQLITE_COPY = 'hearth.db';
/** PostgreSQL: `pg_dump --format=custom` of the database. */
export const PG_DUMP_FILE = 'hearth.pgdump';
/** A complete backup's folder name: the UTC time it was started, so that names sort by age. */
const COMPLETE_NAME = /^hearth-backup-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z(-\d+)?$/;
/** A backup being written: hidden, and never matching COMPLETE_NAME, so nothing takes it for a backup. */
const PARTIAL_NAME = /^\.hearth-backup-.+\.partial\.(.+)\.(\d+)$/;

export interface ManifestFile {
  name: string;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  version: typeof MANIFEST_VERSION;
  createdAt: string;
  hearthVersion: string;
  engine: 'sqlite' | 'postgres';
  /** The last migration applied to the database copied: a restore needs a Hearth at least this recent. */
  schema: string | null;
  database: {
    /** The file holding the database, or null (PostgreSQL without pg_dump: see `command`). */
    file: string | null;
    /** Rows per table in the copy (SQLite: checked against the database at the moment of the copy). */
    tables: Record<string, number>;
    /** PostgreSQL without pg_dump on PATH: the command that makes the dump this backup lacks. */
    command?: string;
  };
  vaultKeys: {
    /** `file`: the key file is in the backup; `env`: the root key is VAULT_KEY, which is not in any backup. */
    source: 'file' | 'env';
    file: string | null;
    /** The root keys that wrap the owners' data keys (ids only, never keys): a restore needs every one. */
    rootKeyIds: string[];
  };
  files: ManifestFile[];
}

export class BackupError extends Error {
  constructor(
    message: string,
    /** What went wrong, for the command line's exit code. */
    readonly kind: 'failed' | 'damaged' | 'not-empty' | 'usage' = 'failed',
  ) {
    super(message);
  }
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

export async function describeFile(dir: string, name: string): Promise<ManifestFile> {
  const file = path.join(dir, name);
  return { name, bytes: statSync(file).size, sha256: await sha256File(file) };
}

/** Flushes a file or a folder to the disk (a folder's entries: the names of what was renamed into it). */
export function fsyncPath(target: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(target, 'r');
    fsyncSync(fd);
  } catch {
    // Folders cannot be opened for fsync on every platform; the data files were flushed already.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `hearth-backup-2026-11-29T11-36-25-123Z`: the folder name of a backup started at `now`. */
export function backupName(now: Date): string {
  return `hearth-backup-${now.toISOString().replace(/[:.]/g, '-')}`;
}

export function partialName(name: string): string {
  return `.${name}.partial.${hostname()}.${process.pid}`;
}

/** The complete backups in `dir` (folders with a manifest), oldest first. */
export function listBackups(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => COMPLETE_NAME.test(name) && statSafe(path.join(dir, name, MANIFEST_FILE))).sort();
}

/** Backups being written in `dir` by processes of this machine that are gone (killed mid-backup). */
export function abandonedPartials(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => {
    const match = PARTIAL_NAME.exec(name);
    return match !== null && match[1] === hostname() && !processAlive(Number(match[2]));
  });
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function statSafe(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

export function newManifest(fields: Omit<Manifest, 'format' | 'version' | 'hearthVersion'>): Manifest {
  return { format: MANIFEST_FORMAT, version: MANIFEST_VERSION, hearthVersion: API_VERSION, ...fields };
}

/** Reads and checks a backup's manifest: what a restore trusts before reading anything else. */
export function readManifest(dir: string): Manifest {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new BackupError(`${dir} holds no ${MANIFEST_FILE}: it is not a Hearth backup, or one whose writing was interrupted (give the folder of a complete backup, named hearth-backup-…)`, 'damaged');
    }
    throw new BackupError(`${file} cannot be read (${code}): run the command as the user who owns the backup`);
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new BackupError(`${file} is not valid JSON: the backup is damaged; restore an older one`, 'damaged');
  }
  if (manifest?.format !== MANIFEST_FORMAT || manifest.version !== MANIFEST_VERSION) {
    throw new BackupError(`${file} is not a Hearth backup manifest (format ${MANIFEST_FORMAT}, version ${MANIFEST_VERSION})`, 'damaged');
  }
  const safeName = (name: unknown) => typeof name === 'string' && /^[A-Za-z0-9._-]+$/.test(name) && name !== '.' && name !== '..';
  if (
    (manifest.engine !== 'sqlite' && manifest.engine !== 'postgres') ||
    !Array.isArray(manifest.files) ||
    !manifest.files.every((f) => safeName(f?.name) && Number.isInteger(f.bytes) && typeof f.sha256 === 'string') ||
    typeof manifest.database?.tables !== 'object' ||
    (manifest.database.file !== null && !manifest.files.some((f) => f.name === manifest.database.file)) ||
    (manifest.vaultKeys?.file != null && !manifest.files.some((f) => f.name === manifest.vaultKeys.file))
  ) {
    throw new BackupError(`${file} is damaged (a field is missing or names a file the backup does not list); restore an older backup`, 'damaged');
  }
  return manifest;
}

/** Checks every file the manifest lists against its size and SHA-256; the first mismatch is an error naming the file. */
export async function verifyFiles(dir: string, manifest: Manifest): Promise<void> {
  for (const entry of manifest.files) {
    const file = path.join(dir, entry.name);
    let bytes: number;
    try {
      bytes = statSync(file).size;
    } catch {
      throw new BackupError(`The backup ${dir} lacks ${entry.name}, which its manifest lists: it is damaged; restore an older backup`, 'damaged');
    }
    if (bytes !== entry.bytes || (await sha256File(file)) !== entry.sha256) {
      throw new BackupError(
        `${entry.name} in the backup ${dir} does not match its checksum in ${MANIFEST_FILE} (changed or damaged since the backup was made): restore an older backup`,
        'damaged',
      );
    }
  }
}

/**
 * Scheduled backups (BACKUP_DIR, BACKUP_INTERVAL_HOURS, BACKUP_KEEP): the server runs
 * `hearth backup` as a child process of its own every interval, so that copying, checking and
 * hashing a large database never holds up a request, and the schedule's backups are exactly the
 * command's. Older backups are pruned to BACKUP_KEEP only after a new one was written and
 * checked; a failure is one line in the log, and the server carries on.
 *
 * With several nodes on one PostgreSQL database, one node backs up: the one holding a session
 * advisory lock, taken at a tick by whichever node finds it free and held until that node stops
 * (or its connection is lost, when another node takes it at its next tick).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { ignoreFailure } from '../../lib/ignore-failure.js';
import { ownScript } from '../../shared/project-root.js';
import type { Part, PartLog } from '../../lib/lifecycle.js';
import type { Executor } from '../../storage/columns.js';
import type { Dialect } from '../../storage/dialect.js';
import { MANIFEST_FILE, listBackups } from './backups.manifest.js';

export interface BackupScheduleSettings {
  /** BACKUP_DIR; unset: no scheduled backups. */
  dir: string | undefined;
  intervalMs: number;
  keep: number;
}

export interface BackupScheduleOptions {
  settings: BackupScheduleSettings;
  /** What the child process is given, as the server has it. */
  dataDir: string;
  databaseUrl: string | undefined;
  vaultKey: string | undefined;
  vaultPreviousKeys: string[];
  db: Executor;
  dialect: Dialect;
}

/** The advisory lock of the node that runs the scheduled backups (PostgreSQL). */
const BACKUP_LOCK = sql.lit(4_849_113_067_355_204_011n);


interface ChildResult {
  ok: boolean;
  path?: string;
  complete?: boolean;
  error?: string;
  warnings?: string[];
}

/** The first JSON line the command printed, or what it said on stderr. */
function runBackupChild(options: BackupScheduleOptions, started: (child: ChildProcess) => void): Promise<ChildResult> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: '',
    DATA_DIR: options.dataDir,
    DATABASE_URL: options.databaseUrl ?? '',
    VAULT_KEY: options.vaultKey ?? '',
    VAULT_PREVIOUS_KEYS: options.vaultPreviousKeys.join(','),
  };
  // Compiled, or from the sources under tsx (src/shared/project-root.ts).
  const cli = ownScript(import.meta.url, './backups.cli');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...cli.execArgv, cli.file, 'backup', options.settings.dir!, '--require-database', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    started(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-1_000_000);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-2_000);
    });
    child.on('error', (error) => resolve({ ok: false, error: `the backup process could not start (${error.message})` }));
    child.on('close', (code, signal) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        try {
          resolve(JSON.parse(line) as ChildResult);
          return;
        } catch {
          // fall through
        }
      }
      const said = err.trim().split('\n').pop()?.replace(/^hearth: /, '');
      resolve({ ok: false, error: said || `the backup process ended (${signal ?? `exit ${code}`}) without a result` });
    });
  });
}

/** Removes the oldest complete backups beyond `keep`; the names removed. */
export function pruneBackups(dir: string, keep: number): string[] {
  const backups = listBackups(dir);
  const old = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of old) {
    // The manifest first: a prune interrupted halfway leaves a folder no one takes for a backup.
    rmSync(path.join(dir, name, MANIFEST_FILE), { force: true });
    rmSync(path.join(dir, name), { recursive: true, force: true });
  }
  return old;
}

/** When the newest complete backup in `dir` was started (from its name), or undefined. */
function newestBackupTime(dir: string): number | undefined {
  const newest = listBackups(dir).at(-1);
  if (!newest) return undefined;
  const match = /^hearth-backup-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z/.exec(newest);
  return match ? Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`) : undefined;
}

export function createBackupSchedule(options: BackupScheduleOptions): Part {
  const { settings } = options;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  let child: ChildProcess | undefined;
  /** PostgreSQL: the connection holding the lock, and how to let it go. */
  let leadership: { check: () => Promise<boolean>; release: () => void } | undefined;

  async function isBackupNode(): Promise<boolean> {
    if (options.dialect !== 'postgres') return true;
    if (leadership) {
      if (await leadership.check().catch(() => false)) return true;
      leadership.release();
      leadership = undefined;
    }
    return new Promise<boolean>((resolve, reject) => {
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      options.db
        .connection()
        .execute(async (connection) => {
          const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${BACKUP_LOCK}) AS ok`.execute(connection);
          if (!rows[0]?.ok) return resolve(false);
          leadership = {
            release,
            check: async () => {
              const mine = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted`.execute(connection);
              return (mine.rows[0]?.n ?? 0) > 0;
            },
          };
          resolve(true);
          await held;
          await ignoreFailure(sql`SELECT pg_advisory_unlock(${BACKUP_LOCK})`.execute(connection), 'a lost connection has let the lock go already');
        })
        .catch(reject);
    });
  }

  async function once(log: PartLog): Promise<void> {
    const dir = settings.dir!;
    try {
      if (!(await isBackupNode())) return;
    } catch (error) {
      log.error({ err: error }, `Scheduled backup skipped: could not tell which node backs up (${(error as Error).message}); trying again in ${hours(settings.intervalMs)}`);
      return;
    }
    const result = await runBackupChild(options, (started) => {
      child = started;
    });
    child = undefined;
    if (stopped) return;
    if (!result.ok || !result.complete) {
      const why = result.ok ? 'the database is not in it' : result.error;
      log.error({ backupDir: dir }, `Scheduled backup into ${dir} failed: ${why}. Earlier backups are kept; the next attempt is in ${hours(settings.intervalMs)}`);
      return;
    }
    for (const warning of result.warnings ?? []) log.warn({ backup: result.path }, `Scheduled backup: ${warning}`);
    const pruned = pruneBackups(dir, settings.keep);
    (log.info ?? log.warn).call(log, { backup: result.path, pruned }, `Scheduled backup written and checked: ${result.path}${pruned.length ? `; removed ${pruned.length} older (BACKUP_KEEP=${settings.keep})` : ''}`);
  }

  function schedule(log: PartLog, delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = once(log).finally(() => {
        running = undefined;
        schedule(log, settings.intervalMs);
      });
    }, delayMs);
    timer.unref();
  }

  return {
    name: 'backups.schedule',
    start(log) {
      if (!settings.dir) return;
      // A restart does not back up again before the interval since the newest backup is over.
      const newest = newestBackupTime(settings.dir);
      const delay = newest === undefined ? 0 : Math.max(0, newest + settings.intervalMs - Date.now());
      schedule(log, Math.min(delay, settings.intervalMs));
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      // A backup under way is stopped: its hidden folder is never taken for a backup, and the next
      // backup removes it. The lock is given back after it.
      child?.kill('SIGTERM');
      if (running) await running;
      leadership?.release();
    },
  };
}

function hours(ms: number): string {
  const h = ms / 3_600_000;
  return h >= 1 ? `${Number(h.toFixed(2))} h` : `${Math.round(ms / 1000)} s`;
}
